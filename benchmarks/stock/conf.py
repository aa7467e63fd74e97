"""Stock ablog + furo: the baseline the build-speed benchmark compares our site with.

What an ablog user gets by following ablog's documentation, plus the smallest fix that makes
ablog render inside furo at all (sunpy/ablog#108): ablog's base templates are not injected,
its archive templates are copied with furo's ``content`` block instead of ``body`` (see
``_templates/ablog/``), and its template folder is appended after furo's so its sidebar
snippets resolve. Everything else is ablog's own: archive pages that render every excerpt,
Atom feeds for the blog and (``blog_feed_archives``) for every category, tag, author and year,
and ablog's sidebars. Posts stay outside any toctree (``post_auto_orphan``), which is what
keeps a stock furo site from going quadratic.
"""

import os
import time

import ablog
from sphinx.jinja2glue import SphinxFileSystemLoader

os.environ["TZ"] = "UTC"
time.tzset()

# -- Project ----------------------------------------------------------------------------------

project = "Stock ablog benchmark"
author = "Benchmark"
language = "en"

# -- General configuration --------------------------------------------------------------------

extensions = ["myst_parser", "ablog"]
exclude_patterns = ["_build"]
templates_path = ["_templates"]

# -- MyST (the same syntax as our site, so both read the same corpus) --------------------------

myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "attrs_inline"]
myst_heading_anchors = 3

# -- ABlog ------------------------------------------------------------------------------------

blog_title = project
blog_baseurl = "https://stock.example.org/"
blog_path = "blog"
blog_post_pattern = "posts/*/*.md"
blog_authors = {
    "mira": ("Mira Okafor", None),
    "tomas": ("Tomas Lindqvist", None),
    "priya": ("Priya Raman", None),
    "kenji": ("Kenji Watanabe", None),
}
post_auto_orphan = True
post_date_format = "%Y-%m-%d"
# Feeds per category, tag, author and year, as sites with several audiences enable them.
blog_feed_archives = True
skip_injecting_base_ablog_templates = True

# -- HTML output ------------------------------------------------------------------------------

html_theme = "furo"
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "sidebar/search.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "ablog/recentposts.html",
        "ablog/tagcloud.html",
        "ablog/categories.html",
        "ablog/archives.html",
        "ablog/authors.html",
        "sidebar/scroll-end.html",
    ]
}


def _append_ablog_templates(app):
    # After furo's loaders: furo's page.html wins, ablog's sidebar snippets still resolve.
    app.builder.templates.loaders.append(SphinxFileSystemLoader(ablog.get_html_templates_path()))


def setup(app):
    app.connect("builder-inited", _append_ablog_templates)
