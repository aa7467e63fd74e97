"""Sphinx configuration for the research knowledge base.

Reads top to bottom: the site, then Sphinx, MyST, ablog, HTML output, and last the settings
of our own extension (``kb``). Everything a group changes when it forks the site (name,
base URL, categories, authors, feeds) sits in the first section.
"""

import os
import time

# -- The site: what a fork changes first ------------------------------------------------------

project = "GPU Kernel Notes"
author = "The GPU Kernel Notes research group"
copyright = "2025-2026, the GPU Kernel Notes research group"
language = "en"

# Read the Docs tells us the canonical URL of the version being built; locally we fall back
# to a placeholder domain so that feeds and the sitemap still carry absolute URLs.
SITE_URL = os.environ.get("READTHEDOCS_CANONICAL_URL", "https://kernel-notes.example.org/")

CATEGORIES = ["Article", "Benchmarks"]

AUTHORS = {
    "mira": ("Mira Okafor", None),
    "tomas": ("Tomas Lindqvist", None),
    "priya": ("Priya Raman", None),
    "kenji": ("Kenji Watanabe", None),
}

# Dates in front matter carry no zone: they are UTC. ablog compares them with the local
# clock, so pin the process to UTC to make a laptop and Read the Docs agree.
os.environ["TZ"] = "UTC"
time.tzset()

# -- General configuration ------------------------------------------------------------------

extensions = [
    # Markdown sources (MyST) and the blog machinery.
    "myst_parser",
    "ablog",
    # Our own extension: catalog, listings, feeds, checks (src/kb).
    "kb",
]

# Only the site's own pages are sources; everything else in the repository (README, tests,
# tool caches) is not.
include_patterns = ["index.md", "posts/**", "pages/**"]
exclude_patterns = [
    "_build",
    ".venv",
    "src",
    "tests",
    "benchmarks",
    "README.md",
    ".ci",
    ".github",
    "**/.pytest_cache",
    "**/node_modules",
]
templates_path = ["_templates"]
nitpicky = True

# -- MyST ---------------------------------------------------------------------------------------

myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "attrs_inline"]
myst_heading_anchors = 3

# -- ABlog --------------------------------------------------------------------------------------

blog_title = project
blog_baseurl = SITE_URL
blog_path = "blog"
blog_authors = AUTHORS
blog_post_pattern = "posts/*/*.md"
# Posts stay out of every toctree: with furo a toctree of all posts makes builds quadratic.
post_auto_orphan = True
post_date_format = "%Y-%m-%d"
post_date_format_short = "%Y-%m-%d"
# Our feeds replace ablog's Atom feed (see src/kb/feeds.py): no templates, no ablog feed.
blog_feed_templates = {}
# Our templates extend furo's page.html; ablog's own page.html breaks furo (sunpy/ablog#108).
skip_injecting_base_ablog_templates = True

# -- HTML output --------------------------------------------------------------------------------

html_theme = "furo"
html_title = project
html_baseurl = SITE_URL
html_static_path = ["_static"]
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False
# furo's sidebar, with the blog's bounded lists (recent posts, categories, tags, years) after
# the page navigation.
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "sidebar/search.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "kb/sidebar-blog.html",
        "sidebar/scroll-end.html",
    ]
}

# -- kb: our extension ----------------------------------------------------------------------

kb_categories = CATEGORIES
kb_page_size = 10
kb_home_posts = 10

# Full-text search is Pagefind's, indexed at the end of every build (src/kb/search.py). On
# Read the Docs, furo's search box opens Read the Docs' server-side search instead; the
# site's own search page keeps working, offline too.
if os.environ.get("READTHEDOCS"):
    kb_search_readthedocs = True
