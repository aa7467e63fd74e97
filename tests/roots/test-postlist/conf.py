"""ablog's postlist directive with every option it documents: tests/test_postlist.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Postlist"
html_theme = "furo"
exclude_patterns = ["_build"]
blog_path = "blog"
blog_title = "Postlist"
html_baseurl = "https://postlist.example.org/"
blog_post_pattern = ["posts/*.md"]
blog_authors = {"nabil": ("Nabil Kakeh", None), "ahmet": ("Ahmet Bakan", None)}
kb_categories = ["Manual", "Article"]
post_date_format_short = "%d %B"
skip_injecting_base_ablog_templates = True
myst_enable_extensions = ["colon_fence"]
