"""Feeds: RSS 2.0, Atom 1.0 and JSON Feed 1.1, site-wide and per category (tag, author: settings).

Built from the catalog only, once the pages are written (``html-collect-pages``): each item's
content is the excerpt the catalog rendered once (or, in full-text mode, the post's body),
with every link made absolute and the "appeared first on" footer after it. A feed file is
rewritten only when its bytes change; files of feeds that no longer exist are removed.
Every page's head links the site feeds, and an archive page also links its own; readers see
them too (:mod:`.subscribe`): in the sidebar, on archive pages and on ``feeds.html``.

URLs, relative to the site URL (``html_baseurl``, else ablog's ``blog_baseurl``)::

    feeds/rss.xml  feeds/atom.xml  feeds/feed.json
    feeds/category/<slug>/{rss.xml,atom.xml,feed.json}
    feeds/tag/<slug>/…  feeds/author/<slug>/…   (with kb_feed_tags / kb_feed_authors)

Replaces ablog's Atom feed (its writer is unplugged by :mod:`kb.core.ablog`), whose defects
we measured in ablog 0.11.13: the build time as every feed's date (never reproducible), one
id for all feeds, only the last of several authors, links inside content relative to the
archive page (sunpy/ablog#19), wrong URLs on versioned Read the Docs paths (#198, #291).
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from markupsafe import Markup
from sphinx.application import Sphinx
from sphinx.util import logging

from ..core.catalog import get_catalog, has_catalog
from ..core.fileio import write_if_changed
from ..core.posts import Catalog
from ..core.state import build_state
from ..core.urls import SITE_BUILDERS, root_prefix, site_url
from ..incremental.freshness import is_current, page_signature, should_write
from . import formats
from .items import build_feed, fallback_date, feed_item
from .scopes import FEEDS_DIR, FORMATS, Scope, feed_scopes, feed_url
from .subscribe import (
    FEEDS_PAGE,
    FEEDS_TEMPLATE,
    FEEDS_TITLE,
    archive_subscribe_html,
    feeds_page_html,
    sidebar_subscribe_html,
)

logger = logging.getLogger(__name__)


# -- Writing -----------------------------------------------------------------------------------


def write_feeds(app: Sphinx) -> dict[Path, bool]:
    """Write every feed whose posts or settings changed; return each file with whether it was
    (re)written."""
    base = site_url(app)
    catalog = get_catalog(app)
    scopes = feed_scopes(app, catalog)
    feed_formats = build_state(app).config.feed_formats
    outdir = Path(app.outdir)
    paths = {
        scope.path: [outdir / scope.path / FORMATS[fmt][0] for fmt in feed_formats]
        for scope in scopes
    }
    stale = [scope for scope in scopes if not _feed_is_current(app, base, scope, paths[scope.path])]
    needed = {post.key: post for scope in stale for post in scope.posts}
    items = {name: feed_item(app, catalog, post, base) for name, post in sorted(needed.items())}
    written = {path: False for files in paths.values() for path in files}
    for scope in stale:
        feed = build_feed(app, scope, items, base)
        for fmt, path in zip(feed_formats, paths[scope.path], strict=True):
            written[path] = write_if_changed(path, formats.WRITERS[fmt](feed))
    _remove_stale(outdir / FEEDS_DIR, set(written))
    return written


def _feed_is_current(app: Sphinx, base: str, scope: Scope, paths: list[Path]) -> bool:
    """Whether one feed's files on disk are those this build would write: a post added to a
    category rewrites that category's feeds, the site's, its tags' and its authors', not the
    others.

    Signed by what the items show of each of its posts (its catalog fingerprint), which posts
    it holds, and the settings (in the base signature). Full-text items show whole posts,
    which the fingerprint does not cover: those feeds are always written out again.
    """
    if build_state(app).config.feed_fulltext:
        return False
    signature = page_signature(
        app,
        "feed",
        app.builder.name,
        base,
        fallback_date().isoformat(),
        f"{scope.path}|{scope.title}|{scope.description}|{scope.home_docname}",
        ",".join(post.key for post in scope.posts),
        *(post.fingerprint() for post in scope.posts),
    )
    return is_current(app, f"{FEEDS_DIR}:{scope.path}", signature, paths)


def _remove_stale(folder: Path, current: set[Path]) -> None:
    """Feeds of a category that no longer exists would otherwise live on after a clean build."""
    names = {name for name, _, _ in FORMATS.values()}
    for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
        if path.is_file() and path.name in names and path not in current:
            path.unlink()


# -- Sphinx events -----------------------------------------------------------------------------


def _enabled(app: Sphinx) -> bool:
    return app.builder.name in SITE_BUILDERS and bool(site_url(app))


def _builder_inited(app: Sphinx) -> None:
    if app.builder.name in SITE_BUILDERS and not site_url(app):
        logger.warning(
            "no feeds written: set html_baseurl in conf.py to the site's absolute URL "
            "(feeds need absolute links)",
            type="kb",
            subtype="feeds",
        )


def _html_collect_pages(app: Sphinx):
    if not (_enabled(app) and has_catalog(app)):
        return
    write_feeds(app)
    # The feeds page: every feed and its URLs, rendered again only when they change.
    scopes = feed_scopes(app, get_catalog(app))
    base, formats = site_url(app), build_state(app).config.feed_formats
    signature = page_signature(
        app,
        FEEDS_PAGE,
        base,
        *formats,
        *(f"{s.kind}|{s.path}|{s.name}|{s.home_docname}" for s in scopes),
    )
    if should_write(app, FEEDS_PAGE, signature):
        body = feeds_page_html(app, scopes, formats, base, root_prefix(app, FEEDS_PAGE))
        context = {"title": FEEDS_TITLE, "kb_title": FEEDS_TITLE, "kb_body": Markup(body)}
        yield FEEDS_PAGE, context, FEEDS_TEMPLATE


def discovery_links(app: Sphinx, pagename: str) -> str:
    """``<link rel="alternate">`` tags: the site feeds, and on an archive page its own."""
    base = site_url(app)
    paths = [FEEDS_DIR]
    archive = re.sub(r"/page/\d+$", "", pagename)
    state = build_state(app)
    scope = state.feed_archives.get(archive)
    if scope is not None:
        paths.append(scope)
    links = []
    for path in paths:
        title = (state.feed_titles or {})[path]
        for fmt in state.config.feed_formats:
            _, media_type, label = FORMATS[fmt]
            links.append(
                f'<link rel="alternate" type="{media_type}" '
                f'title="{escape(f"{title} ({label})", quote=True)}" '
                f'href="{escape(feed_url(base, path, fmt), quote=True)}" />'
            )
    return "\n".join(links) + "\n"


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    state = build_state(app)
    if not _enabled(app) or state.feed_titles is None:
        return
    context["metatags"] = context.get("metatags", "") + discovery_links(app, pagename)
    # What a reader sees: the sidebar's "Subscribe", and an archive's own feed under its title.
    formats, prefix = state.config.feed_formats, root_prefix(app, pagename)
    context["kb_subscribe_html"] = Markup(sidebar_subscribe_html(app, formats, prefix))
    path = state.feed_archives.get(re.sub(r"/page/\d+$", "", pagename))
    if path is not None:
        kind = state.feed_kinds[path]
        context["kb_archive_feeds_html"] = Markup(
            archive_subscribe_html(app, path, kind, formats, prefix)
        )


def _warn_shared_urls(scopes: list[Scope]) -> None:
    # ablog's slugs drop punctuation: "C++" and "C#" share one archive page and one feed URL.
    # Tags and series come from the posts, and the front-matter checks report a shared page at
    # the post's line; categories and authors come from conf.py.
    first_title: dict[str, str] = {}
    for scope in scopes:
        if scope.path.startswith((f"{FEEDS_DIR}/tag/", f"{FEEDS_DIR}/series/")):
            continue
        if scope.path in first_title:
            logger.warning(
                "%r and %r would share the feed %s/; rename one of them in the posts' "
                "front matter so that their names differ in more than punctuation",
                first_title[scope.path],
                scope.title,
                scope.path,
                type="kb",
                subtype="feeds",
            )
        first_title.setdefault(scope.path, scope.title)


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    # What autodiscovery needs on every page, computed once: feed titles and archive scopes.
    scopes = feed_scopes(app, catalog)
    if _enabled(app):
        _warn_shared_urls(scopes)
    state = build_state(app)
    state.feed_titles = {scope.path: scope.title for scope in scopes}
    state.feed_archives = {s.home_docname: s.path for s in scopes if s.path != FEEDS_DIR}
    state.feed_kinds = {scope.path: scope.kind for scope in scopes}


def setup_feeds(app: Sphinx) -> None:
    app.connect("builder-inited", _builder_inited)
    app.connect("kb-catalog-built", _catalog_built)
    app.connect("html-page-context", _html_page_context)
    app.connect("html-collect-pages", _html_collect_pages)
