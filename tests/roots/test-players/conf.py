"""{video} and {audio}: tests/test_players.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Players"
html_theme = "furo"
exclude_patterns = ["_build"]
blog_path = "blog"
html_baseurl = "https://players.example.org/"
blog_post_pattern = "posts/*.md"
skip_injecting_base_ablog_templates = True
myst_enable_extensions = ["colon_fence"]
