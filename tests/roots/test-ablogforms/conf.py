"""Every post form stock ablog reads: tests/test_ablog_forms.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Ablog Forms"
html_theme = "furo"
exclude_patterns = ["_build"]
blog_path = "blog"
blog_title = "Ablog Forms"
html_baseurl = "https://forms.example.org/"
blog_post_pattern = ["posts/*.md", "posts/*.rst"]
blog_authors = {"nabil": ("Nabil Kakeh", None), "ahmet": ("Ahmet Bakan", None)}
kb_categories = ["Manual", "Article"]
skip_injecting_base_ablog_templates = True
myst_enable_extensions = ["colon_fence"]
