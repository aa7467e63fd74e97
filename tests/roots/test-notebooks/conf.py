"""A small blog with notebook posts: an .ipynb with stored outputs, a MyST text notebook, and a
Markdown post of the same series. The notebooks' code would fail if it ran (1/0, an import of a
module that does not exist) and their kernel does not exist: a build that ran anything would
warn."""

import os
import time

extensions = ["myst_parser", "ablog", "kb"]
project = "Notebook Test Site"
language = "en"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True

os.environ["TZ"] = "UTC"
time.tzset()

html_baseurl = "https://notebooks.example.org/"
blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = ["posts/*/*.md", "posts/*/*.ipynb"]
blog_authors = {"mira": ("Mira Okafor", None), "tomas": ("Tomas Lindqvist", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"

html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "kb/sidebar-blog.html"]}

kb_categories = ["Article", "Benchmarks"]
