"""Posts to cite: two authors and LaTeX's special characters, no author, an external post;
two posts citing the same paper from references.bib."""

extensions = ["myst_parser", "ablog", "sphinxcontrib.bibtex", "kb"]
project = "Citation Test Site"
author = "The Test Group"
html_theme = "furo"
exclude_patterns = ["_build"]
# A site below a path, as on Read the Docs: the URLs in citations keep it.
html_baseurl = "https://cite.example.org/research/"

blog_path = "blog"
blog_baseurl = html_baseurl
blog_post_pattern = "posts/*.md"
blog_authors = {"ada": ("Ada Lovelace", None), "kurt": ("Kurt Gödel", None)}
blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"

bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"

kb_categories = ["Article"]
