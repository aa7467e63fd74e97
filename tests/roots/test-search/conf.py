"""A small blog for search: posts that use kernel code names, distractors that use their parts."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Search Test Site"
language = "en"
html_theme = "furo"
exclude_patterns = ["_build"]

blog_path = "blog"
blog_baseurl = "https://search.example.org/"
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None), "alan": ("Alan Turing", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"

html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "kb/sidebar-blog.html"]}

kb_categories = ["Article", "Benchmarks"]
