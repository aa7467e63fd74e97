"""Images and the files raw HTML shows, missing, outside the repository or of the wrong type, in
posts (Markdown, rst, a notebook) and a page: tests/test_image_paths.py. The test writes
../outside.png beside its copy of this folder."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Image Paths"
html_theme = "furo"
exclude_patterns = ["_build"]
blog_path = "blog"
html_baseurl = "https://images.example.org/"
blog_post_pattern = ["posts/*.md", "posts/*.rst", "posts/*.ipynb"]
skip_injecting_base_ablog_templates = True
post_auto_orphan = True
post_date_format = "%Y-%m-%d"
kb_categories = ["Article"]
myst_enable_extensions = ["colon_fence"]
