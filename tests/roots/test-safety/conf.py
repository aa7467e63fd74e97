"""Hostile posts: paths that lead out of the repository, raw HTML that loads from another
host or runs a script, TeX that tries to become HTML. Files outside the site and symbolic
links are made by the tests (tests/test_safety.py)."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Safety Test Site"
html_theme = "furo"
exclude_patterns = ["_build", "posts/data"]
html_baseurl = "https://safety.example.org/"
myst_enable_extensions = ["colon_fence", "dollarmath"]

blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"
post_auto_orphan = True

kb_categories = ["Article"]
kb_og_image = "_static/card.png"
