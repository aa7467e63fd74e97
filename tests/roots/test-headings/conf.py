"""Headings that start at `##`, in a post, a notebook and a page, beside documents whose MyST
header warnings (an H2 to H4 jump) must stay: tests/test_headings.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Headings"
html_theme = "furo"
exclude_patterns = ["_build"]
blog_path = "blog"
html_baseurl = "https://headings.example.org/"
blog_post_pattern = ["posts/*.md", "posts/*.ipynb"]
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"
kb_categories = ["Article"]
myst_enable_extensions = ["colon_fence"]
