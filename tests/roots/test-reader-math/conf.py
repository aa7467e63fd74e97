"""Reader math: the environments papers use, a formula Temml refuses, a page without math."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Reader Math"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True

blog_path = "blog"
blog_baseurl = "https://math.example.org/"
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True

myst_enable_extensions = ["dollarmath", "amsmath"]
