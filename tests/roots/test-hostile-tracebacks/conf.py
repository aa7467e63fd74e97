"""Inputs that ended in tracebacks or made kb check and the build disagree (issue 31, items 5
and 8): redirects under files the build writes, benchmark values of 1e28 and more, a notebook
nested too deeply (written by tests/hostile/test_tracebacks.py: a repository should not hold
it), a YAML alias bomb in front matter, and a post dated in the year 999."""

import os
import time

extensions = ["myst_parser", "ablog", "kb"]
project = "Hostile Tracebacks"
html_theme = "furo"
exclude_patterns = ["_build", "posts/data"]
html_baseurl = "https://tracebacks.example.org/"

os.environ["TZ"] = "UTC"
time.tzset()

blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = ["posts/*/*.md", "posts/*/*.ipynb"]
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"

kb_categories = ["Article"]
