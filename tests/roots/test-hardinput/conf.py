"""Posts that try to break out: redirects, impossible times, odd YAML, names that collide.

The test adds the posts a repository should not hold as files: one that is not UTF-8, and names
that differ only in Unicode normalisation."""

import os
import time

extensions = ["myst_parser", "ablog", "kb"]
project = "Hard Input Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True

os.environ["TZ"] = "UTC"
time.tzset()

blog_path = "blog"
blog_baseurl = "https://hardinput.example.org/"
blog_post_pattern = "posts/*/*.md"
blog_authors = {"mira": ("Mira Okafor", None), "tomas": ("Tomas Lindqvist", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"

html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "kb/sidebar-blog.html"]}

kb_categories = ["Article", "Benchmarks"]
