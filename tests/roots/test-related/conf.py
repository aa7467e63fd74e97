"""Related posts: a small blog whose lists are worked out by hand in tests/test_related.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Related Posts Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]

blog_path = "blog"
blog_baseurl = "https://related.example.org/"
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"

kb_categories = ["Article", "Benchmarks"]
