"""Feeds: RSS 2.0, Atom 1.0 and JSON Feed 1.1, site-wide and per category (tag, author: settings).

Built from the catalog only, once the pages are written (``html-collect-pages``): each item's
content is the excerpt the catalog rendered once (or, in full-text mode, the post's body),
with every link made absolute and the "appeared first on" footer after it. A feed file is
rewritten only when its bytes change; files of feeds that no longer exist are removed.
Every page's head links the site feeds, and an archive page also links its own.

URLs, relative to the site URL (``html_baseurl``, else ablog's ``blog_baseurl``)::

    feeds/rss.xml  feeds/atom.xml  feeds/feed.json
    feeds/category/<slug>/{rss.xml,atom.xml,feed.json}
    feeds/tag/<slug>/…  feeds/author/<slug>/…   (with kb_feed_tags / kb_feed_authors)

Replaces ablog's Atom feed (kept off with ``blog_feed_templates = {}``), whose defects are
listed in shared/research/ablog.md: build-time dates, one id for all feeds, lost authors,
relative links inside content.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape, unescape
from pathlib import Path
from urllib.parse import quote, urljoin

from sphinx.application import Sphinx
from sphinx.util import logging

from . import feedformats
from .catalog import (
    SITE_BUILDERS,
    Catalog,
    Post,
    get_catalog,
    relocate_links,
    site_url,
    write_fragment,
)
from .feedformats import Feed, Item, Person, Term
from .freshness import is_current, page_signature
from .listings import listing_title
from .series import series_collections

logger = logging.getLogger(__name__)

FEEDS_DIR = "feeds"
#: format -> (file name, media type, name shown in a reader's feed picker)
FORMATS = {
    "rss": ("rss.xml", "application/rss+xml", "RSS"),
    "atom": ("atom.xml", "application/atom+xml", "Atom"),
    "json": ("feed.json", "application/feed+json", "JSON Feed"),
}
#: Builders whose output is the web site (not epub, not singlehtml).


@dataclass(frozen=True)
class Scope:
    """One feed, whatever its formats: the whole site, or one collection."""

    path: str  # folder under the output, e.g. feeds/category/article
    title: str
    description: str
    home_docname: str
    posts: tuple[Post, ...]


# -- Which feeds exist -------------------------------------------------------------------------


def feed_scopes(app: Sphinx, catalog: Catalog) -> list[Scope]:
    config = app.kb_config
    length = config.feed_length
    name = config.site_name
    scopes = [
        Scope(
            FEEDS_DIR,
            name,
            f"The newest posts of {name}.",
            app.config.root_doc,
            tuple(catalog.posts[:length]),
        )
    ]
    kinds = ["category"] + ["tag"] * config.feed_tags + ["author"] * config.feed_authors
    for kind in kinds:
        for collection in catalog.collections[kind]:
            slug = posixpath.basename(collection.docname)
            title = listing_title(kind, collection)
            scopes.append(
                Scope(
                    f"{FEEDS_DIR}/{kind}/{slug}",
                    f"{name} — {title}",
                    f"The newest posts of {name}, {title[0].lower()}{title[1:]}.",
                    collection.docname,
                    tuple(collection.posts[:length]),
                )
            )
    # Each series has a feed too, newest part first like every feed.
    for series_name, slug, docname, posts in series_collections(catalog):
        newest = sorted(posts, key=lambda post: (-post.date.timestamp(), post.title))
        scopes.append(
            Scope(
                f"{FEEDS_DIR}/series/{slug}",
                f"{name} — Series: {series_name}",
                f"The posts of the series {series_name} on {name}.",
                docname,
                tuple(newest[:length]),
            )
        )
    return scopes


def as_uri(url: str) -> str:
    """Percent-encode what a URL may not hold (a Hebrew tag's slug, a space); keep the rest."""
    return quote(url, safe="/:?#[]@!$&'()*+,;=%~")


def feed_url(base: str, scope_path: str, fmt: str) -> str:
    return as_uri(f"{base}{scope_path}/{FORMATS[fmt][0]}")


def page_url(app: Sphinx, base: str, docname: str) -> str:
    if docname == app.config.root_doc:
        return as_uri(base)
    return as_uri(base + app.builder.get_target_uri(docname))


# -- Items -------------------------------------------------------------------------------------

_LINK_ATTRIBUTE = re.compile(r'(\s(?:href|src)=")([^"]*)(")')
_FIRST_H1 = re.compile(r"<h1[^>]*>.*?</h1>", re.DOTALL)
_HEADERLINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.DOTALL)


def absolute_links(html: str, base: str) -> str:
    """Resolve every ``href``/``src`` against ``base`` (the page the HTML was written for)."""

    def resolve(match: re.Match) -> str:
        url = as_uri(urljoin(base, unescape(match.group(2))))
        return match.group(1) + escape(url, quote=True) + match.group(3)

    return _LINK_ATTRIBUTE.sub(resolve, html)


def footer_html(app: Sphinx, post: Post, link: str, base: str) -> str:
    config = app.kb_config
    template = config.feed_footer_external if post.external_link else config.feed_footer
    if not template:
        return ""
    post_link = f'<a href="{escape(link, quote=True)}">{escape(post.title)}</a>'
    site_link = f'<a href="{escape(base, quote=True)}">{escape(config.site_name)}</a>'
    return f"<p>{template.format(post_link=post_link, site_link=site_link)}</p>"


def full_text_html(app: Sphinx, docname: str, url: str) -> str:
    """A post's body as its page shows it, title and ¶ marks removed, links absolute.

    Rendered from the doctree here rather than captured at ``html-page-context``: an
    incremental or parallel build does not write every post page in this process.
    """
    builder = app.builder
    with logging.suppress_logging():  # problems are reported on the post's own page
        doctree = app.env.get_and_resolve_doctree(docname, builder)
    doctree.settings = builder.docsettings
    body = write_fragment(builder, docname, doctree)
    body = _HEADERLINK.sub("", _FIRST_H1.sub("", body, count=1))
    return absolute_links(body.strip(), url)


def feed_item(app: Sphinx, catalog: Catalog, post: Post, base: str) -> Item:
    url = page_url(app, base, post.docname)
    link = post.external_link or url
    blog = base + catalog.blog_path
    excerpt = absolute_links(relocate_links(post.excerpt_html, base), url)
    footer = footer_html(app, post, link, base)
    if app.kb_config.feed_fulltext:
        content, summary = full_text_html(app, post.docname, url) + footer, excerpt
    else:
        content, summary = excerpt + footer, ""
    return Item(
        id=url,
        link=link,
        title=post.title,
        published=post.date,
        updated=post.updated,
        authors=tuple(Person(a.name, a.url) for a in post.authors),
        terms=tuple(Term(c.name, f"{blog}/category/") for c in post.categories)
        + tuple(Term(t.name, f"{blog}/tag/") for t in post.tags),
        content_html=content,
        summary_html=summary,
        summary_text=post.excerpt_text,
    )


def fallback_date() -> datetime:
    """The date of a feed with no items: SOURCE_DATE_EPOCH, else the epoch; never the clock."""
    return datetime.fromtimestamp(int(os.environ.get("SOURCE_DATE_EPOCH", "0")), UTC)


def feed_author(app: Sphinx) -> str:
    author = app.config.author
    return author if author and author != "Author name not set" else app.kb_config.site_name


def build_feed(app: Sphinx, scope: Scope, items: dict[str, Item], base: str) -> Feed:
    chosen = tuple(items[post.docname] for post in scope.posts)
    formats = app.kb_config.feed_formats
    return Feed(
        title=scope.title,
        description=scope.description,
        home=page_url(app, base, scope.home_docname),
        self_urls={fmt: feed_url(base, scope.path, fmt) for fmt in formats},
        language=app.config.language or "en",
        author=Person(feed_author(app)),
        updated=max((item.updated for item in chosen), default=fallback_date()),
        items=chosen,
    )


# -- Writing -----------------------------------------------------------------------------------


def write_if_changed(path: Path, data: bytes) -> bool:
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def write_feeds(app: Sphinx) -> dict[Path, bool]:
    """Write every feed; return each file with whether it was (re)written."""
    base = site_url(app)
    catalog = get_catalog(app)
    scopes = feed_scopes(app, catalog)
    needed = {post.docname: post for scope in scopes for post in scope.posts}
    outdir = Path(app.outdir)
    paths = {
        (scope.path, fmt): outdir / scope.path / FORMATS[fmt][0]
        for scope in scopes
        for fmt in app.kb_config.feed_formats
    }
    if _feeds_are_current(app, base, scopes, needed.values(), paths.values()):
        return dict.fromkeys(paths.values(), False)
    items = {name: feed_item(app, catalog, post, base) for name, post in sorted(needed.items())}
    written = {}
    for scope in scopes:
        feed = build_feed(app, scope, items, base)
        for fmt in app.kb_config.feed_formats:
            path = paths[scope.path, fmt]
            written[path] = write_if_changed(path, feedformats.WRITERS[fmt](feed))
    _remove_stale(outdir / FEEDS_DIR, set(written))
    return written


def _feeds_are_current(app: Sphinx, base: str, scopes, posts, paths) -> bool:
    """Whether the feeds on disk are those this build would write (a no-change rebuild).

    Signed by what the items show of each post (its catalog fingerprint), which posts each
    feed holds, and the settings (in the base signature). Full-text items show whole posts,
    which the fingerprint does not cover: those feeds are always written out again.
    """
    if app.kb_config.feed_fulltext:
        return False
    signature = page_signature(
        app,
        "feeds",
        app.builder.name,
        base,
        fallback_date().isoformat(),
        *(f"{s.path}|{s.title}|{s.description}|{s.home_docname}" for s in scopes),
        *(",".join(post.docname for post in s.posts) for s in scopes),
        *(post.fingerprint() for post in posts),
    )
    return is_current(app, FEEDS_DIR, signature, paths)


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
    if _enabled(app) and hasattr(app.env, "kb_catalog"):
        write_feeds(app)
    return []


def discovery_links(app: Sphinx, pagename: str) -> str:
    """``<link rel="alternate">`` tags: the site feeds, and on an archive page its own."""
    base = site_url(app)
    paths = [FEEDS_DIR]
    archive = re.sub(r"/page/\d+$", "", pagename)
    scope = app.env.kb_feed_archives.get(archive)
    if scope is not None:
        paths.append(scope)
    links = []
    for path in paths:
        title = app.env.kb_feed_titles[path]
        for fmt in app.kb_config.feed_formats:
            _, media_type, label = FORMATS[fmt]
            links.append(
                f'<link rel="alternate" type="{media_type}" '
                f'title="{escape(f"{title} ({label})", quote=True)}" '
                f'href="{escape(feed_url(base, path, fmt), quote=True)}" />'
            )
    return "\n".join(links) + "\n"


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if not _enabled(app) or not hasattr(app.env, "kb_feed_titles"):
        return
    context["metatags"] = context.get("metatags", "") + discovery_links(app, pagename)


def _warn_shared_urls(scopes: list[Scope]) -> None:
    # ablog's slugs drop punctuation: "C++" and "C#" share one archive page and one feed URL.
    first_title: dict[str, str] = {}
    for scope in scopes:
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
    app.env.kb_feed_titles = {scope.path: scope.title for scope in scopes}
    app.env.kb_feed_archives = {s.home_docname: s.path for s in scopes if s.path != FEEDS_DIR}


def setup_feeds(app: Sphinx) -> None:
    app.connect("builder-inited", _builder_inited)
    app.connect("kb-catalog-built", _catalog_built)
    app.connect("html-page-context", _html_page_context)
    app.connect("html-collect-pages", _html_collect_pages)
