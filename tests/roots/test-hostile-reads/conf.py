"""Hostile reads (issue 31): includes of FIFOs, devices, files over the limit, a post that
includes itself and a cycle. The FIFO, the links and the large file are made by the test
(tests/hostile/test_reads.py): a repository cannot hold them."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Hostile Reads"
html_theme = "furo"
exclude_patterns = ["_build", "posts/data"]
html_baseurl = "https://reads.example.org/"
myst_enable_extensions = ["colon_fence"]

blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = "posts/2025/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"
post_auto_orphan = True

kb_categories = ["Article"]
kb_max_file_bytes = 65536
