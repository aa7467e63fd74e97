"""Reader charts: labels from metadata and the directive, units in cells, a folded table."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Reader Charts"
html_theme = "furo"
exclude_patterns = ["_build"]
nitpicky = True

blog_path = "blog"
blog_baseurl = "https://charts.example.org/"
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "sidebar/search.html",
        "sidebar/navigation.html",
        "kb/sidebar-blog.html",
    ]
}
