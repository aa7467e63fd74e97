"""Sphinx configuration for the research knowledge base.

Reads top to bottom: the site, then Sphinx, MyST, ablog, HTML output, and last the settings
of our own extension (``kb``). Everything a group changes when it forks the site (name,
base URL, categories, authors) sits in the first section; outside this file a fork also
rewrites ``index.md`` and replaces ``_static/og-default.png``, which name this site (the
author's guide, docs/author/fork.md, lists the rest).
"""

import os
import time
from urllib.parse import urlparse

# -- The site: what a fork changes first ------------------------------------------------------

project = "GPU Kernel Notes"
author = "The GPU Kernel Notes research group"
copyright = "2025-2026, the GPU Kernel Notes research group"
language = "en"

# Read the Docs tells us the canonical URL of the version being built; locally we fall back
# to a placeholder domain so that feeds and the sitemap still carry absolute URLs.
SITE_URL = os.environ.get("READTHEDOCS_CANONICAL_URL", "https://kernel-notes.example.org/")
# Absolute URLs are built by joining onto it: without the final slash the last path part
# (Read the Docs' version, "latest/") would be dropped.
SITE_URL = SITE_URL.rstrip("/") + "/"

# The categories a post may name in its front matter (`category:`); kb check and the build
# refuse any other.
kb_categories = ["Article", "Benchmarks"]

# The authors: `author:` in a post's front matter is one or more of these keys. Each value is
# (display name, link or None), as ablog takes it.
blog_authors = {
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
    # Markdown sources (MyST) and the blog machinery. Notebook posts are read by MyST-NB, which
    # kb loads itself, only when a notebook is read: "myst_nb" is not listed here (see below).
    "myst_parser",
    "ablog",
    # A copy button on code blocks; it ships its own script, so no request leaves the site.
    "sphinx_copybutton",
    # Citations in posts: {footcite:p}`key` from references.bib, listed by {footbibliography}.
    "sphinxcontrib.bibtex",
    # A 404 page that works at any URL (settings under HTML output). Link previews (Open
    # Graph) and sitemap.xml come from src/kb/meta/.
    "notfound.extension",
    # Our own extension: catalog, listings, feeds, checks (src/kb).
    "kb",
]

# Only the site's own pages are sources: the home page, the posts and the evergreen pages
# (pages/: About, the glossary, references). Everything else in the repository (README,
# tests, tool caches) is not; a Markdown file elsewhere is reported by name (src/kb/core/
# finding.py), never silently skipped.
include_patterns = ["index.md", "posts/**", "pages/**"]
exclude_patterns = [
    "_build",
    ".venv",
    "src",
    "tests",
    "benchmarks",
    # The author's and maintainer's guides: a Sphinx project of their own (make docs).
    "docs",
    "README.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
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
# Math is MathML written at build time (src/kb/markup/math.py): no MathJax to keep away from
# `$` signs, so no "tex2jax_ignore mathjax_ignore" classes on every post.
myst_update_mathjax = False

# -- Notebooks (MyST-NB, loaded by kb) ---------------------------------------------------------

# A post may be a Jupyter notebook (posts/<year>/<slug>.ipynb) or a MyST text notebook (a .md
# with `file_format: mystnb`). Their stored outputs are shown as they are: no build needs a
# Jupyter kernel. A post opts into running with `kb_execute: cache` in its front matter (its
# outputs are then cached under _build/.jupyter_cache). MyST-NB's other nb_* settings apply.
nb_execution_mode = "off"

# -- Citations (sphinxcontrib-bibtex) -----------------------------------------------------

# Posts cite with {footcite:p}`key` and end with {footbibliography}: each post lists only
# what it cites. {cite} with {bibliography} would make citations global, and two posts citing
# the same paper would warn "duplicate citation", which fails the -W build.
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"

# -- ABlog --------------------------------------------------------------------------------------

blog_title = project
blog_baseurl = SITE_URL
blog_path = "blog"
# Markdown posts (MyST, or MyST text notebooks) and Jupyter notebooks.
blog_post_pattern = ["posts/*/*.md", "posts/*/*.ipynb"]
# Posts stay out of every toctree: with furo a toctree of all posts makes builds quadratic.
post_auto_orphan = True
post_date_format = "%Y-%m-%d"
post_date_format_short = "%Y-%m-%d"
# Our feeds replace ablog's Atom feed (see src/kb/feeds/): no templates, no ablog feed.
blog_feed_templates = {}
# Our templates extend furo's page.html; ablog's own page.html breaks furo (sunpy/ablog#108).
skip_injecting_base_ablog_templates = True

# -- HTML output --------------------------------------------------------------------------------

html_theme = "furo"
html_title = project
html_baseurl = SITE_URL
html_static_path = ["_static"]
html_css_files = ["site.css"]
html_last_updated_fmt = None
html_copy_source = False
# No page makes index entries; an empty genindex.html was re-rendered on every build.
html_use_index = False
html_show_sourcelink = False
# Math becomes MathML at build time (src/kb/markup/math.py): no MathJax, no request to a CDN.
html_math_renderer = "mathml"
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


# The 404 page (sphinx-notfound-page). The server shows it at whatever URL was missed, so its
# links are absolute paths: "/" locally, "/en/latest/" (the version's path) on Read the Docs.
notfound_urls_prefix = urlparse(SITE_URL).path
notfound_context = {
    "title": "Page not found",
    "body": (
        "<h1>Page not found</h1>"
        "<p>There is no page at this address. The post may have moved or been renamed.</p>"
        '<p>Try the <a href="index.html">home page</a>, <a href="blog.html">all posts</a>, '
        'the <a href="blog/series.html">series</a>, or search for it here:</p>'
    ),
}

# -- kb: our extension ----------------------------------------------------------------------

# Five entries per numbered archive page (an archive's own page shows its newest five to nine):
# a listing stays a short scroll, and the busiest category (Article, eleven posts) already
# has an older page, so it shows how paging works.
kb_page_size = 5
kb_home_posts = 10

# Feeds (src/kb/feeds/): RSS 2.0, Atom and JSON Feed at feeds/{rss.xml,atom.xml,feed.json},
# and the same per category at feeds/category/<slug>/. Links inside feeds are absolute, so
# they need html_baseurl above.
kb_feed_length = 20  # newest posts per feed
kb_feed_formats = ["rss", "atom", "json"]
kb_feed_tags = False  # also one feed per tag, at feeds/tag/<slug>/
kb_feed_authors = False  # also one feed per author, at feeds/author/<slug>/
kb_feed_fulltext = False  # the whole post in each item instead of its excerpt
# The line after each item; {post_link} and {site_link} become links.
kb_feed_footer = "The post {post_link} appeared first on {site_link}."
kb_feed_footer_external = "The post {post_link} was listed on {site_link}."

# Full-text search is Pagefind's, indexed at the end of every build (src/kb/search/). On
# Read the Docs, furo's search box opens Read the Docs' server-side search instead; the
# site's own search page keeps working, offline too.
if os.environ.get("READTHEDOCS"):
    kb_search_readthedocs = True

# Link previews (Open Graph and Twitter tags, src/kb/meta/previews.py): the site's card, unless
# a post names its own image in front matter (og:image: card.png, next to the post). A fork
# replaces _static/og-default.png: it shows this site's name.
kb_og_image = "_static/og-default.png"
kb_og_image_alt = f"{project}: research notes on fast GPU kernels"

# sitemap.xml (src/kb/meta/sitemap.py) lists every page with absolute URLs from html_baseurl,
# each post dated by its last update; drafts and redirect pages never. Pages nobody should
# land on, as patterns over their paths:
kb_sitemap_excludes = ["404.html", "search.html", "genindex.html"]
