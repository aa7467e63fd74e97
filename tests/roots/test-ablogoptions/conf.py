"""ablog's post options, undated drafts and a post's own folder: tests/test_ablog_options.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Ablog Options"
html_theme = "furo"
exclude_patterns = ["_build"]
blog_path = "blog"
blog_title = "Ablog Options"
html_baseurl = "https://options.example.org/"
blog_post_pattern = ["posts/*.md", "posts/*.rst", "posts/*/post.md"]
blog_authors = {"nabil": ("Nabil Kakeh", None), "ahmet": ("Ahmet Bakan", None)}
kb_categories = ["Manual", "Article"]
skip_injecting_base_ablog_templates = True
myst_enable_extensions = ["colon_fence"]
