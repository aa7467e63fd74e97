"""Sphinx configuration for the guides: the author's, the maintainer's, and the reference.

A Sphinx project of its own, apart from the site (whose source folder is the repository root):
the guides are about the site, not pages of it. ``make docs`` builds it with ``-nW --keep-going``
into ``_build/docs``. The configuration reference is generated from ``src/kb/config.py`` and
``src/kb/checks/messages.py`` by the small extension in ``docs/_ext/kbdocs.py``, so it cannot
drift from the code.
"""

import sys
from pathlib import Path

# -- Project information ------------------------------------------------------------------------

project = "kb: the research knowledge base"
author = "The GPU Kernel Notes research group"
copyright = "2025-2026, the GPU Kernel Notes research group"
language = "en"

# -- General configuration ----------------------------------------------------------------------

# The reference's directives live beside this file: a docs-only extension, not part of kb.
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

extensions = [
    # Markdown sources, as the site's posts are written.
    "myst_parser",
    # kb-settings and kb-messages: the configuration reference, from the code.
    "kbdocs",
]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# Other engineers leave notes in _incoming/ to be merged into these guides: never pages.
exclude_patterns = ["_build", "_incoming", ".readthedocs.yaml"]
nitpicky = True

# -- HTML output --------------------------------------------------------------------------------

html_theme = "furo"
html_title = "kb guides"
html_copy_source = False
html_show_sourcelink = False
