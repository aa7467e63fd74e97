"""Two series with numbered parts, supplements, an unnumbered post, a missing part, an
external member and a draft; one post outside any series."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Series Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]

blog_path = "blog"
blog_baseurl = "https://series.example.org/"
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None), "alan": ("Alan Turing", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"

kb_categories = ["Article", "Benchmarks"]
html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "kb/sidebar-blog.html"]}
