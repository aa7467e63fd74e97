"""Section posts, as stock ablog reads them: tests/test_section_posts.py."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Section Posts"
html_theme = "furo"
exclude_patterns = ["_build"]
blog_path = "blog"
blog_title = "Section Posts"
html_baseurl = "https://sections.example.org/"
blog_post_pattern = ["posts/*.md", "posts/*.rst"]
blog_authors = {"nabil": ("Nabil Kakeh", None), "ahmet": ("Ahmet Bakan", None)}
kb_categories = ["Manual", "Article"]
skip_injecting_base_ablog_templates = True
myst_enable_extensions = ["colon_fence"]
kb_related_posts = 3
html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "kb/sidebar-blog.html"]}
