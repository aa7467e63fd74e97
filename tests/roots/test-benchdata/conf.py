"""Benchmarks as data: three datasets in two posts, one of them compared from the other post."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Benchmark Data Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True

html_baseurl = "https://benchdata.example.org/"
blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"

kb_categories = ["Article", "Benchmarks"]

html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "kb/sidebar-blog.html"]}
