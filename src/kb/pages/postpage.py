"""A post's own page: the parts kb adds around what the author wrote.

Each part is a :class:`post_part` node placed in the doctree when the page is resolved for
writing (``doctree-resolved``), in a slot: right under the title (this module's header: date,
updates, authors, labels, reading time; the series box) or after the body (the cite block).
Features contribute parts with :func:`add_post_part`; their order is declared there, not by
event priorities. External posts' headers also say where the article lives and link there.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from ..core.catalog import get_catalog, has_catalog
from ..core.fragments import FRAGMENT, is_fragment
from ..core.html import add_html_node
from ..core.parts import UNSEARCHED_PART, marked, render_part
from ..core.posts import Post
from ..core.records import PostPart
from ..core.state import build_state
from ..core.urls import root_prefix
from .entries import format_date, label_links, meta_line


def post_meta_html(app: Sphinx, post: Post, prefix: str) -> str:
    """The line under the title (the template ``kb/parts/post-meta.html``): not words of the
    page for search, whose results show the date and categories from the metadata."""
    updated = None
    if post.updated.date() > post.date.date():
        updated = (post.updated.date().isoformat(), format_date(post.updated))
    return render_part(
        app,
        "post-meta",
        post=post,
        meta_html=meta_line(post, prefix),
        updated=updated,
        minutes=post.reading_minutes,
    )


def post_labels_html(app: Sphinx, post: Post, prefix: str) -> str:
    """Tags, location and language, where an external post lives (the template
    ``kb/parts/post-labels.html``): words a search finds."""
    places = [("Location", post.locations), ("Language", post.languages)]
    return render_part(
        app,
        "post-labels",
        post=post,
        tags_html=label_links(post.tags, prefix) if post.tags else "",
        places=[(name, label_links(labels, prefix)) for name, labels in places if labels],
        external_link=post.external_link,
    ).strip()


# -- The post page's parts ----------------------------------------------------------------------


class post_part(nodes.General, nodes.Element):
    """A part of a post's own page (its header, series box, cite block), added to the doctree
    when the page is resolved for writing, with its HTML made from the catalog."""


#: Around a part that is no word of the page for the search index (other posts' titles, the
#: citation that repeats the title), whatever the part's template writes.
UNSEARCHED = ('<div class="kb-post-part" data-pagefind-ignore="all">', "</div>")


def visit_post_part(translator, node: post_part) -> None:
    # Not in fragments of the post written elsewhere (a feed's full text).
    if not translator.document.get(FRAGMENT):
        html = node["html"]
        searched = node.get("searched", False)
        if not searched:
            html = marked(UNSEARCHED_PART, UNSEARCHED[0] + html + UNSEARCHED[1])
        translator.body.append(html)
    raise nodes.SkipNode


def add_post_part(app: Sphinx, slot: str, order: int, render, searched: bool = False) -> None:
    """Contribute a part to every post's own page (see :class:`~kb.core.records.PostPart`)."""
    parts = build_state(app).post_parts
    parts.append(PostPart(slot, order, render, searched))
    parts.sort(key=lambda part: (part.slot, part.order))


def _doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if is_fragment(doctree) or app.builder.format != "html" or not has_catalog(app):
        return
    post = get_catalog(app).by_docname(docname)
    if post is None:
        return
    prefix = root_prefix(app, docname)
    parts: dict[str, list[nodes.Node]] = {"under-title": [], "end": []}
    for part in build_state(app).post_parts:
        html = part.render(app, post, prefix)
        if html:
            node = post_part("", html=html, searched=part.searched, classes=["kb-post-part"])
            parts[part.slot].append(node)
    title = next(iter(doctree.findall(nodes.title)), None)
    if title is not None and isinstance(title.parent, nodes.section):
        title.parent.insert(title.parent.index(title) + 1, parts["under-title"])
    else:
        doctree.insert(0, parts["under-title"])
    doctree.extend(parts["end"])


def post_page(app: Sphinx, pagename: str, doctree) -> Post | None:
    """The post a page being written shows, when it is a post's own page."""
    if doctree is None or not has_catalog(app):
        return None
    return get_catalog(app).by_docname(pagename)


def setup_postpage(app: Sphinx) -> None:
    add_html_node(app, post_part, visit_post_part)
    add_post_part(app, "under-title", 10, post_meta_html)
    add_post_part(app, "under-title", 15, post_labels_html, searched=True)
    app.connect("doctree-resolved", _doctree_resolved)
