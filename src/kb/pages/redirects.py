"""Redirect pages: a renamed post's old address (front matter ``redirect:``) leads to it, and
each of the site's old addresses (``redirects.toml``: an imported blog's archives) to its page.

Each old address gets a small page (``kb/redirect.html``) that refreshes to the post at once
and names it as canonical, so links and bookmarks to the old URL keep working; search
engines are told not to index it. Written from the catalog, only when it changes; a draft's
old addresses wait with it. Which addresses are allowed is the checks' business
(:mod:`kb.checks.frontmatter`): the build drops a bad one before ablog or this module sees it.
The file's pairs are judged by :mod:`kb.checks.oldaddresses` here, on every build, in the words
``kb check`` uses: a bad pair is a warning at its line and gets no page.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urljoin

from sphinx.application import Sphinx
from sphinx.util import logging

from ..checks.oldaddresses import OldAddress, read_old_addresses_file, site_problems
from ..core.catalog import get_catalog, has_catalog
from ..core.state import build_state
from ..core.urls import site_url
from ..incremental.freshness import page_signature, should_write
from .listings import listing_pages

REDIRECT_TEMPLATE = "kb/redirect.html"
logger = logging.getLogger(__name__)


def _html_collect_pages(app: Sphinx):
    if app.builder.format != "html" or not has_catalog(app):
        return
    for post in get_catalog(app).posts:
        for old in post.redirects:
            signature = page_signature(app, "redirect", old, post.docname, post.title)
            if should_write(app, old, signature):
                yield (
                    old,
                    _context(app, post.docname, post.title, "This post has moved"),
                    (REDIRECT_TEMPLATE),
                )
    addresses = site_old_addresses(app)
    # The sitemap lists no redirect page (kb.meta.sitemap leaves these out).
    build_state(app).old_address_pages = {address.docname for address in addresses}
    for address in addresses:
        title = _title(app, address.target)
        signature = page_signature(app, "old-address", address.docname, address.target, title)
        if should_write(app, address.docname, signature):
            context = _context(app, address.target, title, "This page has moved")
            yield address.docname, context, REDIRECT_TEMPLATE


def _context(app: Sphinx, docname: str, title: str, heading: str) -> dict:
    context = {
        "title": title,
        "redirect": docname,
        "redirect_title": title,
        "redirect_heading": heading,
        "kb_no_preview": True,
    }
    base = site_url(app)
    if base:  # the base layout writes pageurl as the page's only canonical link
        context["pageurl"] = urljoin(base, app.builder.get_target_uri(docname))
    return context


def _title(app: Sphinx, docname: str) -> str:
    if docname in app.env.titles:
        return app.env.titles[docname].astext()
    page = listing_pages(app).get(docname)
    return page.title if page is not None else docname


def _built_pages(app: Sphinx) -> set[str]:
    """Every page the build writes that an old address may lead to: documents and listings."""
    pages = set(app.env.found_docs) | set(listing_pages(app))
    if has_catalog(app):
        catalog = get_catalog(app)
        pages |= {catalog.catalog_docname(kind) for kind, c in catalog.collections.items() if c}
    return pages


def site_old_addresses(app: Sphinx) -> list[OldAddress]:
    """The pairs of ``kb_old_addresses`` that may have a page; each other one is a warning at
    its line, on every build, until it is fixed."""
    name = build_state(app).config.old_addresses
    path = Path(app.srcdir, name) if name else None
    if path is None or not (path.exists() or path.is_symlink()):
        return []
    addresses, problems = read_old_addresses_file(
        path, build_state(app).config.max_file_bytes, app.srcdir
    )
    built = _built_pages(app)
    problems += site_problems(addresses, lambda d: d in built, lambda d: d in built)
    for problem in sorted(problems, key=lambda p: p.line):
        _warn(problem.message, path, problem.line)
    bad = {problem.line for problem in problems}
    return [address for address in addresses if address.line not in bad]


def _warn(message: str, path: Path, line: int) -> None:
    logger.warning(message, location=f"{path}:{line}", type="kb", subtype="redirect")


def setup_redirects(app: Sphinx) -> None:
    app.connect("html-collect-pages", _html_collect_pages)
