"""Link previews, sitemap, 404 page, redirects, updates and reading time, set up as on the
real site (conf.py at the repository root)."""

extensions = ["myst_parser", "ablog", 
              "notfound.extension", "kb"]
project = "Meta Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]
html_static_path = ["_static"]
html_baseurl = "https://meta.example.org/"

blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"

kb_og_image = "_static/card.png"
kb_og_image_alt = "The test site's card"

kb_sitemap_excludes = ["404.html", "search.html", "genindex.html"]

notfound_urls_prefix = "/"
notfound_context = {
    "title": "Page not found",
    "body": '<h1>Page not found</h1><p>Try the <a href="index.html">home page</a> or '
    '<a href="blog.html">all posts</a>.</p>',
}

kb_categories = ["Article"]

html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html", "sidebar/navigation.html",
                        "kb/sidebar-blog.html"]}
