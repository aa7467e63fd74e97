"""Code blocks: CUDA, PTX, Python, shell; captions, emphasized lines, copy buttons."""

extensions = ["myst_parser", "ablog", "sphinx_copybutton", "kb"]
project = "Code Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True

blog_path = "blog"
blog_baseurl = "https://code.example.org/"
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
