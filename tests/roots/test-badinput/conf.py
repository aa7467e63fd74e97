"""A blog of bad posts: one per kind of mistake that kb check and the build must report."""

import os
import time

extensions = ["myst_parser", "ablog", "kb"]
project = "Bad Input Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True

os.environ["TZ"] = "UTC"
time.tzset()

blog_path = "blog"
blog_baseurl = "https://badinput.example.org/"
blog_post_pattern = "posts/*/*.md"
blog_authors = {"mira": ("Mira Okafor", None), "tomas": ("Tomas Lindqvist", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"

html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "kb/sidebar-blog.html"]}

kb_categories = ["Article", "Benchmarks"]
