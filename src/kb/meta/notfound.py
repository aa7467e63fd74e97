"""The 404 page (sphinx-notfound-page): it is served at any depth, so its links are absolute.

sphinx-notfound-page makes the theme's links absolute (``notfound_urls_prefix``: ``/``
locally, the version's path on Read the Docs); the body it takes from ``notfound_context``
in conf.py and our sidebar have root-relative links, which get the same prefix here.
"""

from __future__ import annotations

from sphinx.application import Sphinx

from ..core.urls import relocate_links


def _notfound_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """Absolute links on the 404 page, which the server shows at whatever URL was missed."""
    if pagename != getattr(app.config, "notfound_pagename", None):
        return
    prefix = app.config.notfound_urls_prefix or "/"
    if "body" in context:  # from notfound_context in conf.py, its links relative to the root
        context["body"] = relocate_links(context["body"], prefix)
    if context.get("kb_sidebar_html"):
        context["kb_sidebar_html"] = relocate_links(context["kb_sidebar_html"], prefix)


def setup_notfound(app: Sphinx) -> None:
    # After kb.pages.sidebars (500) has set the page's sidebar.
    app.connect("html-page-context", _notfound_page_context, priority=600)
