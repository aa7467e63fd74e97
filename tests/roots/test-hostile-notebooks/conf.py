"""Notebooks that try to run their own code (issue 31, item 3): MyST-NB settings in an
.ipynb's metadata and in a text notebook's front matter, and the site's own opt-in
(``kb_execute``) for comparison. Each cell writes a marker file beside the notebook if it
runs (tests/hostile/test_notebook_exec.py)."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Hostile Notebooks"
html_theme = "furo"
exclude_patterns = ["_build"]

html_baseurl = "https://notebooks.example.org/"
blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = ["posts/*/*.md", "posts/*/*.ipynb"]
blog_authors = {"mira": ("Mira Okafor", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"

kb_categories = ["Article"]
