"""Which feeds exist: the whole site, each category and series (tags, authors: settings).

A :class:`Scope` is one feed whatever its formats; its URLs are fixed by its folder under
``feeds/`` and the format's file name.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from sphinx.application import Sphinx

from ..core.posts import Catalog, Post
from ..core.state import build_state
from ..core.urls import as_uri

FEEDS_DIR = "feeds"
#: format -> (file name, media type, name shown in a reader's feed picker)
FORMATS = {
    "rss": ("rss.xml", "application/rss+xml", "RSS"),
    "atom": ("atom.xml", "application/atom+xml", "Atom"),
    "json": ("feed.json", "application/feed+json", "JSON Feed"),
}


@dataclass(frozen=True)
class Scope:
    """One feed, whatever its formats: the whole site, or one collection."""

    path: str  # folder under the output, e.g. feeds/category/article
    title: str
    description: str
    home_docname: str
    posts: tuple[Post, ...]
    kind: str = "site"  # or the collection's kind: category, tag, author, series
    name: str = ""  # the site's, collection's or series' own name: "Article"


# -- Which feeds exist -------------------------------------------------------------------------


def feed_scopes(app: Sphinx, catalog: Catalog) -> list[Scope]:
    config = build_state(app).config
    length = config.feed_length
    name = config.site_name
    scopes = [
        Scope(
            FEEDS_DIR,
            name,
            f"The newest posts of {name}.",
            app.config.root_doc,
            tuple(catalog.posts[:length]),
            name=name,
        )
    ]
    kinds = ["category"] + ["tag"] * config.feed_tags + ["author"] * config.feed_authors
    kinds += ["location", "language"]  # ablog's; none unless a post names one
    for kind in kinds:
        for collection in catalog.collections[kind]:
            slug = posixpath.basename(collection.docname)
            title = collection.title
            scopes.append(
                Scope(
                    f"{FEEDS_DIR}/{kind}/{slug}",
                    f"{name} — {title}",
                    f"The newest posts of {name}, {title[0].lower()}{title[1:]}.",
                    collection.docname,
                    tuple(collection.posts[:length]),
                    kind=kind,
                    name=collection.name,
                )
            )
    # Each series has a feed too, newest part first like every feed.
    for one in catalog.series:
        series_name, slug, docname = one.name, one.slug, one.docname
        newest = sorted(one.posts, key=lambda post: (-post.date.timestamp(), post.title))
        scopes.append(
            Scope(
                f"{FEEDS_DIR}/series/{slug}",
                f"{name} — Series: {series_name}",
                f"The posts of the series {series_name} on {name}.",
                docname,
                tuple(newest[:length]),
                kind="series",
                name=series_name,
            )
        )
    return scopes


def feed_url(base: str, scope_path: str, fmt: str) -> str:
    return as_uri(f"{base}{scope_path}/{FORMATS[fmt][0]}")


def page_url(app: Sphinx, base: str, docname: str) -> str:
    if docname == app.config.root_doc:
        return as_uri(base)
    return as_uri(base + app.builder.get_target_uri(docname))
