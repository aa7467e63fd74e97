"""One page with a labelled equation and a named table, under furo (and kb, which needs ablog)."""

extensions = ["myst_parser", "ablog", "kb"]
project = "Unique Ids Test Site"
html_theme = "furo"
exclude_patterns = ["_build"]
myst_enable_extensions = ["dollarmath", "amsmath"]

blog_feed_templates = {}
skip_injecting_base_ablog_templates = True
numfig = True
html_baseurl = "https://uniqueids.example.org/"
