"""Dates in the forms stock ablog reads: tests/test_ablog_dates.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Ablog Dates"
html_theme = "furo"
exclude_patterns = ["_build"]
blog_path = "blog"
blog_title = "Ablog Dates"
html_baseurl = "https://dates.example.org/"
blog_post_pattern = "posts/*.md"
skip_injecting_base_ablog_templates = True
# As a blog moving from ablog may set it: "Oct 10, 2020".
post_date_format = "%b %d, %Y"
