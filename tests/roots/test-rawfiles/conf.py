"""Files beside a post that its raw HTML shows: tests/test_raw_files.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Raw Files"
html_theme = "furo"
exclude_patterns = ["_build"]
blog_path = "blog"
html_baseurl = "https://rawfiles.example.org/"
blog_post_pattern = "posts/*.md"
skip_injecting_base_ablog_templates = True
