"""A small blog for the feeds: an external post, two authors, two categories, a hostile title.

No TZ is pinned here: the feeds must not depend on the host's zone.
"""

extensions = ["myst_parser", "ablog", "kb"]
project = "Feeds & <Friends>"
author = "The Feeds Test Group"
language = "en"
html_theme = "furo"
exclude_patterns = ["_build"]
# Straight quotes are the hostile ones (they end an attribute): keep them as written.
smartquotes = False

# A base URL with a path, as on Read the Docs (…/en/latest/).
html_baseurl = "https://feeds.example.org/kb/"

blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", "https://ada.example.org/"), "alan": ("Alan Turing", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"

html_sidebars = {"**": ["sidebar/brand.html", "kb/sidebar-blog.html"]}

kb_categories = ["Article", "Benchmarks"]
