"""Math: inline, display, labelled and amsmath, rendered as MathML at build time."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Math Test Site"
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
# No html_math_renderer: kb chooses its MathML renderer over MathJax by itself.
