"""Evergreen pages beside posts: navigation, glossary, backlinks, the hardware reference, and
files the build would ignore (tests/test_pages.py, test_glossary.py, test_backlinks.py)."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Pages Test Site"
html_theme = "furo"
include_patterns = ["index.md", "posts/**", "pages/**"]
exclude_patterns = ["_build", "README.md", "CONTRIBUTING.md", "docs"]

blog_path = "blog"
blog_baseurl = "https://pages.example.org/"
html_baseurl = "https://pages.example.org/"
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"

kb_categories = ["Article"]
