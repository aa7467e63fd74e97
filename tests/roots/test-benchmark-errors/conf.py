"""Benchmark directives with bad input: each must be a warning at its line."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Benchmark Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True

blog_path = "blog"
blog_baseurl = "https://benchmarks.example.org/"
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
