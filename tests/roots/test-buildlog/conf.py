"""A small site set up as the real one is (furo, copybutton, a CSS file, downloads): its build
log is read by tests/test_docs.py, which wants a few lines and no config change on a rebuild."""

import os
import time

extensions = ["myst_parser", "ablog", "sphinx_copybutton", "kb"]
project = "Build Log Test Site"
html_theme = "furo"
html_static_path = ["_static"]
html_css_files = ["site.css"]
exclude_patterns = ["_build"]
nitpicky = True

os.environ["TZ"] = "UTC"
time.tzset()

blog_path = "blog"
blog_baseurl = "https://buildlog.example.org/"
blog_post_pattern = "posts/*/*.md"
blog_authors = {"mira": ("Mira Okafor", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"

kb_categories = ["Article"]
