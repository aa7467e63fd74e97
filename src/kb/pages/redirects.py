"""Redirect pages: a renamed post's old address (front matter ``redirect:``) leads to it.

Each old address gets a small page (``kb/redirect.html``) that refreshes to the post at once
and names it as canonical, so links and bookmarks to the old URL keep working; search
engines are told not to index it. Written from the catalog, only when it changes; a draft's
old addresses wait with it. Which addresses are allowed is the checks' business
(:mod:`kb.checks.frontmatter`): the build drops a bad one before ablog or this module sees it.
"""

from __future__ import annotations

from urllib.parse import urljoin

from sphinx.application import Sphinx

from ..core.catalog import get_catalog, has_catalog
from ..core.freshness import page_signature, should_write
from ..core.urls import site_url

REDIRECT_TEMPLATE = "kb/redirect.html"


def _html_collect_pages(app: Sphinx):
    if app.builder.format != "html" or not has_catalog(app):
        return
    for post in get_catalog(app).posts:
        for old in post.redirects:
            signature = page_signature(app, "redirect", old, post.docname, post.title)
            if should_write(app, old, signature):
                yield old, _context(app, post), REDIRECT_TEMPLATE


def _context(app: Sphinx, post) -> dict:
    context = {"title": post.title, "redirect": post.docname, "post": post, "kb_no_preview": True}
    base = site_url(app)
    if base:  # the base layout writes pageurl as the page's only canonical link
        context["pageurl"] = urljoin(base, app.builder.get_target_uri(post.docname))
    return context


def setup_redirects(app: Sphinx) -> None:
    app.connect("html-collect-pages", _html_collect_pages)
