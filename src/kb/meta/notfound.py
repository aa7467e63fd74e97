"""The 404 page (sphinx-notfound-page): it is served at any depth, so its links are absolute.

sphinx-notfound-page makes the theme's links absolute (``notfound_urls_prefix``: ``/``
locally, the version's path on Read the Docs); the body it takes from ``notfound_context``
in conf.py has root-relative links, which get the same prefix here. kb's own parts (the
sidebar, its subscribe links) are made with that prefix already (``core.urls.root_prefix``).

The page is no document, so Sphinx's toctree has nothing for it and furo's navigation tree
is None, which its template would print as the word "None": it is left empty instead.
"""

from __future__ import annotations

from html import escape

from sphinx.application import Sphinx

from ..core import events
from ..core.urls import is_notfound_page, relocate_links

#: A search box in the page itself: a phone shows no sidebar, so "the box in the sidebar"
#: is nowhere to be seen there. It sends to the site's search page, as the sidebar's does.
SEARCH_FORM = (
    '<form class="kb-notfound-search" method="get" action="{action}" role="search">'
    '<label for="kb-notfound-q">Search this site</label> '
    '<input id="kb-notfound-q" type="search" name="q" autocomplete="off">'
    '<button type="submit">Search</button></form>'
)


def _notfound_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """Absolute links on the 404 page, which the server shows at whatever URL was missed."""
    if not is_notfound_page(app.config, pagename):
        return
    if "furo_navigation_tree" in context and context["furo_navigation_tree"] is None:
        context["furo_navigation_tree"] = ""
    prefix = app.config.notfound_urls_prefix or "/"
    if "body" in context:  # from notfound_context in conf.py, its links relative to the root
        body = relocate_links(context["body"], prefix)
        if 'role="search"' not in body:
            body += SEARCH_FORM.format(action=escape(f"{prefix}search.html", quote=True))
        context["body"] = body


def setup_notfound(app: Sphinx) -> None:
    # After furo (500) has computed its navigation tree.
    app.connect("html-page-context", _notfound_page_context, priority=events.AFTER_PAGE_CONTEXT)
