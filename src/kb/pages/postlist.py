"""ablog's ``postlist`` directive, filled from the catalog with every option ablog documents.

ablog fills its own ``postlist`` at ``doctree-resolved``: it deep-copies each listed post's
excerpt paragraphs and hands each copy alone to ``env.resolve_references``, which emits
``doctree-resolved`` again with the paragraph as the "doctree" and the *host* page as its
docname. Every handler that adds parts to a page (the post's header, related posts, the cite
block, backlinks) took that paragraph for the host page and put its parts in it: each excerpt
showed the host post's header and ended with its related posts and cite block, inside a
``<p>``, repeating ``kb-related-title`` and ``kb-cite-title``. Its excerpt is not the one the
listings show either (ablog's first paragraph, not the post's description or ``:excerpt: N``).

So each ``postlist`` is filled here first (before ablog's handler, which then finds none):
from the catalog, as HTML, with the excerpt the listings show (rendered once per build,
:mod:`kb.core.fragments`), and no document is resolved again. What each option does, as
ablog's manual says ("Posting and listing"):

* the argument: at most that many posts (all by default), newest first; the host page never
  lists itself;
* ``:tags:``, ``:author:``, ``:category:``, ``:location:``, ``:language:``: only posts with
  every label named (an author by ``blog_authors`` key or full name); a name no published
  post has is a warning (ablog ignores it, and a typo would list every post);
* ``:format:``: each entry's line, from ``{date}``, ``{title}``, ``{author}``,
  ``{category}``, ``{tags}``, ``{location}``, ``{language}`` (default ``{date} - {title}``);
  labels link their archives;
* ``:date:``: the ``strftime`` format of ``{date}`` (default ``post_date_format_short``);
* ``:sort:``: the chosen posts oldest first;
* ``:excerpts:``: each post's excerpt under its line; ``:expand: TEXT``: a link to the post
  after it;
* ``:list-style:``: ``none`` (default), ``circle`` or ``disc``.

Anything else (an unknown ``{key}``, a list style ablog does not name, ``:expand:`` without
``:excerpts:``) is a warning at the directive's file and line, never dropped in silence.
Pages with a list are rewritten when any post's listing changes (:func:`add_signer`).
"""

from __future__ import annotations

from datetime import datetime
from html import escape
from string import Formatter

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from ..core import ablog, events
from ..core.catalog import get_catalog, has_catalog
from ..core.collectors import DocumentTables
from ..core.fragments import is_fragment
from ..core.html import add_html_node
from ..core.parts import marked
from ..core.posts import Catalog, Label, Post, digest
from ..core.state import env_state
from ..core.urls import relocate_links, root_prefix
from ..incremental.freshness import add_signer

logger = logging.getLogger(__name__)

DEFAULT_FORMAT = "{date} - {title}"
#: The ``{keys}`` of ``:format:``, as ablog knows them.
FORMAT_KEYS = ("date", "title", "author", "category", "tags", "location", "language")
#: ``:list-style:`` values ablog's manual names; ablog's default is ``none``.
LIST_STYLES = ("none", "circle", "disc")
#: Filter options -> (the catalog's kind of label, the Post attribute holding them).
FILTERS = {
    "tags": ("tag", "tags"),
    "author": ("author", "authors"),
    "category": ("category", "categories"),
    "location": ("location", "locations"),
    "language": ("language", "languages"),
}
#: Format keys naming labels -> the Post attribute holding them.
LABEL_KEYS = {key: attr for key, (_, attr) in FILTERS.items()}


class postlist(nodes.General, nodes.Element):
    """A ``postlist`` filled from the catalog: its HTML, written as it is."""


def visit_postlist(translator, node: postlist) -> None:
    translator.body.append(node["html"])
    raise nodes.SkipNode


def _warn(node: nodes.Element, message: str, *args) -> None:
    logger.warning("postlist: " + message, *args, location=node, type="kb", subtype="postlist")


# -- Choosing the posts ------------------------------------------------------------------------


def _labels(post: Post, attr: str) -> tuple[Label, ...]:
    return getattr(post, attr, ())


def chosen_posts(app: Sphinx, node: nodes.Element, docname: str, catalog: Catalog) -> list[Post]:
    """The posts a ``postlist`` shows, in the order it shows them."""
    posts = [post for post in catalog.posts if post.docname != docname]
    authors = app.config.blog_authors or {}
    for option, (kind, attr) in FILTERS.items():
        names = [name for name in node.get(option) or () if name]
        if node.get(option) and not names:
            _warn(node, "`:%s:` names nothing: give a name, or remove the option", option)
        known = {collection.name for collection in catalog.collections.get(kind, ())}
        for name in names:
            wanted = authors[name][0] if option == "author" and name in authors else name
            if wanted not in known:
                _warn(
                    node,
                    "no published post has the %s %r, so the list is empty: check its spelling",
                    kind,
                    name,
                )
            posts = [p for p in posts if any(lb.name == wanted for lb in _labels(p, attr))]
    length = node.get("length")
    if length is not None and length < 1:
        _warn(node, "shows %d posts: give a number of 1 or more, or none for all", length)
    elif length is not None:
        posts = posts[:length]
    if node.get("sort"):
        posts.reverse()  # the newest chosen, oldest first
    return posts


# -- Writing the list --------------------------------------------------------------------------


def _parse(format_: str) -> list[tuple[str, str | None]]:
    return [(text, key) for text, key, _, _ in Formatter().parse(format_)]


def _format_fields(node: nodes.Element) -> list[tuple[str, str | None]]:
    """The ``:format:`` as (text, key) pairs; the default format after a warning."""
    given = node.get("format") or DEFAULT_FORMAT
    try:
        fields = _parse(given)
    except ValueError as error:
        _warn(node, "`:format:` %r cannot be read (%s): write keys as {title}", given, error)
        return _parse(DEFAULT_FORMAT)
    unknown = [key for _, key in fields if key is not None and key not in FORMAT_KEYS]
    if unknown:
        _warn(
            node,
            "`:format:` has {%s}, which ablog does not know: use %s (%r is shown instead)",
            unknown[0],
            ", ".join(f"{{{key}}}" for key in FORMAT_KEYS),
            DEFAULT_FORMAT,
        )
        return _parse(DEFAULT_FORMAT)
    return fields


def _date_format(app: Sphinx, node: nodes.Element) -> str:
    given = node.get("date") or app.config.post_date_format_short
    try:
        datetime(2000, 1, 1).strftime(given)
    except ValueError as error:
        _warn(node, "`:date:` %r is not a strftime format (%s): try %%d %%B %%Y", given, error)
        return app.config.post_date_format_short
    return given


def _link(uri: str, text: str, external: bool = False) -> str:
    kind = 'class="reference external" rel="external"' if external else 'class="reference internal"'
    return f'<a {kind} href="{escape(uri, quote=True)}">{text}</a>'


def _label_links(app: Sphinx, docname: str, labels: tuple[Label, ...]) -> str:
    """Each label linked to its archive, as ablog links them (the name in emphasis)."""
    return ", ".join(
        _link(
            app.builder.get_relative_uri(docname, label.docname), f"<em>{escape(label.name)}</em>"
        )
        for label in labels
    )


def entry_line(app: Sphinx, docname: str, post: Post, fields, date_format: str) -> str:
    """One post's line, ``:format:`` filled; ``ablog-post-title`` when it shows the title."""
    parts = []
    for text, key in fields:
        parts.append(escape(text))
        if key == "date":
            parts.append(escape(post.date.strftime(date_format)))
        elif key == "title" and post.external_link:
            parts.append(_link(post.external_link, escape(post.title), external=True))
        elif key == "title":
            parts.append(
                _link(
                    app.builder.get_relative_uri(docname, post.docname) + post.anchor,
                    escape(post.title),
                )
            )
        elif key is not None:
            parts.append(_label_links(app, docname, _labels(post, LABEL_KEYS[key])))
    titled = any(key == "title" for _, key in fields)
    opening = '<p class="ablog-post-title">' if titled else "<p>"
    return f"{opening}{''.join(parts)}</p>"


def postlist_html(app: Sphinx, node: nodes.Element, docname: str, catalog: Catalog) -> str:
    """The list's HTML on ``docname``'s page; warnings at the directive for what cannot be."""
    posts = chosen_posts(app, node, docname, catalog)
    fields = _format_fields(node)
    date_format = _date_format(app, node)
    style = node.get("list-style") or "none"
    if style not in LIST_STYLES:
        _warn(node, "`:list-style:` %r is not one of ablog's: use none, circle or disc", style)
        style = "none"
    excerpts, expand = node.get("excerpts"), node.get("expand")
    if expand is not None and not excerpts:
        _warn(node, "`:expand:` shows under an excerpt: add `:excerpts:`, or remove `:expand:`")
    elif expand is not None and not expand.strip():
        _warn(node, "`:expand:` needs the text of its link, such as `:expand: Read more…`")
    prefix = root_prefix(app, docname)
    items = []
    for post in posts:
        item = entry_line(app, docname, post, fields, date_format)
        if excerpts and post.excerpt_html:
            excerpt = relocate_links(post.excerpt_html, prefix)
            item += f'<div class="ablog-post-excerpt">{excerpt}</div>'
            if expand and expand.strip():
                uri = app.builder.get_relative_uri(docname, post.docname) + post.anchor
                link = _link(uri, f"<em>{escape(expand.strip())}</em>")
                item += f'<p class="ablog-post-expand">{link}</p>'
        items.append(f'<li class="ablog-post">{item}</li>')
    # Other posts' titles and excerpts: a search for them finds those posts, not this page;
    # between kb's markers, the list is left out of the page's search record too.
    return marked(
        "postlist",
        f'<ul class="postlist-style-{style} postlist" style="list-style-type: {style}" '
        f"data-pagefind-ignore>{''.join(items)}</ul>",
    )


# -- Events ------------------------------------------------------------------------------------


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    docs = env_state(app.env).postlist_docs
    if ablog.postlist_directives(doctree):
        docs.add(app.env.docname)


def _doctree_resolved(app: Sphinx, doctree: nodes.Element, docname: str) -> None:
    if is_fragment(doctree) or app.builder.format != "html" or not has_catalog(app):
        return  # other builders: ablog's own list
    catalog = get_catalog(app)
    for node in ablog.postlist_directives(doctree):
        html = postlist_html(app, node, docname, catalog)
        node.replace_self(postlist("", html=html))


def _signer(app: Sphinx, docname: str) -> str:
    """A page with a ``postlist`` shows any published post (filters pick among them all)."""
    if docname not in env_state(app.env).postlist_docs or not has_catalog(app):
        return ""
    return digest([post.fingerprint() for post in get_catalog(app).posts])


class PostlistCollector(DocumentTables):
    """The documents with ablog's ``postlist`` (noted at ``doctree-read``, priority 600, after
    ablog's handler: not in ``process_doc``, which runs at 500)."""

    purged = ("postlist_docs",)


def setup_postlist(app: Sphinx) -> None:
    add_html_node(app, postlist, visit_postlist)
    # After ablog's doctree-read handler (500); before its process_postlist (500), which
    # would resolve copies of excerpts one by one (see the module's doc).
    app.connect("doctree-read", _doctree_read, priority=events.READ_POST_RECORDS)
    app.connect("doctree-resolved", _doctree_resolved, priority=events.FILL_POSTLIST)
    app.add_env_collector(PostlistCollector)
    add_signer(app, _signer)
