"""Hostile raw HTML: each probe tries to run a script (and to set window.kbPwned) in a way
that slipped past the old hand-made checks (issue 31), in posts and in notebook outputs.
Built by tests/hostile/test_html.py; its pages are opened in Chromium by
tests/hostile/test_html_browser.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Hostile HTML Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]
html_baseurl = "https://hostile.example.org/"
myst_enable_extensions = ["colon_fence", "dollarmath"]

blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = ["posts/*.md", "posts/*.ipynb"]
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"
post_auto_orphan = True

kb_categories = ["Article"]
