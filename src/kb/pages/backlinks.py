"""Backlinks: each post and page ends with the posts that link to it ("Linked from").

Made from the links themselves (:mod:`kb.core.links`: Markdown links, ``{doc}`` and ``{ref}``
roles, as each document's text has them), once per build at ``kb-catalog-built``: for each
document, the published posts whose text links to it, newest first. A post's list is a post
part at the "end" slot, after its related posts; a page's list (About, the glossary…) is put
at the end of its body when the page is written. Both sit between markers on every page, even
empty, and are a :class:`~kb.incremental.freshness.PagePart`: a link added, removed or pointed
elsewhere in one post rewrites that post (Sphinx read it) and replaces the list in place on
just the pages whose list changed. ``{term}`` links are left to the glossary, whose entries
list their posts (:mod:`.glossary`).
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..core.catalog import get_catalog, has_catalog
from ..core.fragments import is_fragment
from ..core.links import linked_documents
from ..core.parts import markers, render_part
from ..core.posts import Catalog, Post, digest
from ..core.state import build_state
from ..core.urls import root_prefix
from ..incremental.freshness import PagePart, add_page_part
from .entries import format_date
from .postpage import add_post_part, post_part

MARKERS = markers("backlinks")
TITLE = "Linked from"


def backlinks(env, catalog: Catalog) -> dict[str, list[Post]]:
    """For each document linked from a published post, those posts, newest first."""
    found: dict[str, list[Post]] = {}
    for post in catalog.page_posts:  # newest first: each list keeps that order
        for target in sorted(linked_documents(env, post.docname)):
            found.setdefault(target, []).append(post)
    return found


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    found = backlinks(app.env, catalog) if app.builder.format == "html" else {}
    build_state(app).backlinks = found


def backlinks_of(app: Sphinx, docname: str) -> list[Post]:
    """The posts this build lists under "Linked from" on ``docname``'s page."""
    return list(build_state(app).backlinks.get(docname, ()))


def backlinks_html(app: Sphinx, posts: list[Post], prefix: str) -> str:
    """The list (the template ``kb/parts/backlinks.html``); nothing for no post."""
    if not posts:
        return ""
    items = [
        (
            f"{prefix}{post.docname}.html",
            post.title,
            post.date.date().isoformat(),
            format_date(post.date),
        )
        for post in posts
    ]
    return render_part(app, "backlinks", title=TITLE, items=items)


def _list_html(app: Sphinx, docname: str, prefix: str | None = None) -> str:
    prefix = root_prefix(app, docname) if prefix is None else prefix
    return backlinks_html(app, backlinks_of(app, docname), prefix)


def _signer(app: Sphinx, docname: str) -> str:
    posts = backlinks_of(app, docname)
    shown = [f"{p.docname}\x1e{p.title}\x1e{p.date.date()}" for p in posts]
    return digest(shown) if posts else ""


def _post_part(app: Sphinx, post: Post, prefix: str) -> str:
    return MARKERS[0] + _list_html(app, post.docname, prefix) + MARKERS[1]


def _doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """A page that is not a post: its list at the end of its body (a post's is a post part)."""
    if is_fragment(doctree) or app.builder.format != "html" or not has_catalog(app):
        return
    if get_catalog(app).by_docname(docname) is not None:
        return
    html = MARKERS[0] + _list_html(app, docname) + MARKERS[1]
    doctree.append(post_part("", html=html, classes=["kb-post-part"]))


def setup_backlinks(app: Sphinx) -> None:
    app.connect("kb-catalog-built", _catalog_built)
    app.connect("doctree-resolved", _doctree_resolved)
    add_page_part(app, PagePart("backlinks", *MARKERS, _signer, _list_html))
    add_post_part(app, "end", 7, _post_part)  # after related posts (5), before the cite (10)
