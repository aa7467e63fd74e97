"""The glossary: each entry lists the posts that link to it, and an unknown term is a warning.

Authors write the glossary with Sphinx's own ``glossary`` directive (``pages/glossary.md``)
and link a term from a post with ``{term}``. When a glossary page is written, each entry's
definition ends with "Used in" and the published posts whose text links any of its terms,
newest first (:mod:`kb.core.links` keeps each document's ``{term}`` targets). Nobody keeps
that list by hand, and the page is rewritten (not read again) whenever a list changes: its
signature is what the lists show (:func:`kb.incremental.freshness.add_signer`).

A ``{term}`` that no glossary defines is a warning at its line, in the words ``kb check``
uses (:func:`kb.checks.glossary.unknown_terms`), instead of Sphinx's own; the text stays.
"""

from __future__ import annotations

from difflib import get_close_matches
from html import escape
from typing import TYPE_CHECKING, cast

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

from ..checks.messages import say
from ..core.catalog import get_catalog, has_catalog
from ..core.fragments import is_fragment
from ..core.links import outgoing, term_key
from ..core.posts import Catalog, Post, digest
from ..core.state import build_state
from ..incremental.freshness import add_signer
from .postpage import post_part

if TYPE_CHECKING:
    from sphinx.domains.std import StandardDomain

logger = logging.getLogger(__name__)

USED_IN = "Used in:"


def _terms(app: Sphinx) -> dict[str, tuple[str, str]]:
    """Every glossary term, as :mod:`kb.core.links` records a ``{term}`` target
    (:func:`~kb.core.links.term_key`): ``(docname, anchor)``."""
    std = cast("StandardDomain", app.env.get_domain("std"))  # typed as a plain Domain
    return {term_key(name): place for (kind, name), place in std.objects.items() if kind == "term"}


def term_uses(app: Sphinx, catalog: Catalog) -> dict[str, list[Post]]:
    """For each term (casefolded), the published posts that link it, newest first."""
    links = outgoing(app.env)
    uses: dict[str, list[Post]] = {}
    for post in catalog.page_posts:
        found = links.get(post.docname)
        for term in sorted(found.terms) if found else ():
            uses.setdefault(term, []).append(post)
    return uses


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    state = build_state(app)
    state.term_uses = term_uses(app, catalog) if app.builder.format == "html" else {}
    state.glossary_docs = {docname for docname, _ in _terms(app).values()}


def _signer(app: Sphinx, docname: str) -> str:
    state = build_state(app)
    if docname not in state.glossary_docs:
        return ""
    uses = state.term_uses
    shown = [
        f"{name}\x1f" + "\x1e".join(f"{p.docname}\x1d{p.title}" for p in uses.get(name, ()))
        for name, (where, _) in sorted(_terms(app).items())
        if where == docname
    ]
    return digest(shown)


def _entry_posts(app: Sphinx, item: nodes.definition_list_item) -> list[Post]:
    """The posts that link any term of one entry, newest first, each once."""
    names = {term_key(term.astext()) for term in item.findall(nodes.term)}
    uses = build_state(app).term_uses
    chosen = {p.docname: p for name in names for p in uses.get(name, ())}
    order = {p.docname: n for n, p in enumerate(get_catalog(app).page_posts)}
    return sorted(chosen.values(), key=lambda p: order[p.docname])


def _uses_html(app: Sphinx, docname: str, posts: list[Post]) -> str:
    """The entry's "Used in" line; never words of the glossary for search (post titles)."""
    links = ", ".join(
        f'<a class="reference internal" href="{escape(uri, quote=True)}">{escape(post.title)}</a>'
        for post in posts
        if (uri := app.builder.get_relative_uri(docname, post.docname))
    )
    return f'<p class="kb-term-uses" data-pagefind-ignore><strong>{USED_IN}</strong> {links}.</p>'


def _doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if is_fragment(doctree) or app.builder.format != "html" or not has_catalog(app):
        return
    if docname not in build_state(app).glossary_docs:
        return
    for glossary in doctree.findall(addnodes.glossary):
        for item in glossary.findall(nodes.definition_list_item):
            posts = _entry_posts(app, item)
            definition = next(iter(item.findall(nodes.definition)), None)
            if posts and definition is not None:
                html = _uses_html(app, docname, posts)
                definition += post_part("", html=html, classes=["kb-post-part"])


def _missing_reference(app: Sphinx, env, node, contnode):
    """A ``{term}`` no glossary defines: kb check's message at its line, the text kept."""
    if node.get("refdomain") != "std" or node.get("reftype") != "term":
        return None
    target = " ".join(node.get("reftarget", "").split())
    guess = get_close_matches(target.casefold(), sorted(_terms(app)), 1, 0.6)
    hint = f" (did you mean {guess[0]!r}?)" if guess else ""
    logger.warning(
        say("unknown_term", term=target, hint=hint),
        location=_role_location(app, node),
        type="kb",
        subtype="term",
    )
    return contnode


def _role_location(app: Sphinx, node) -> object:
    """The file and line of the role itself. MyST gives a role the first line of its paragraph;
    kb check names the line the role is on, so the line is found again in the source, from
    the paragraph's first line on."""
    source, line, raw = node.source, node.line, node.rawsource
    if not (source and line and raw):
        return node
    if raw.startswith(":term:"):  # MyST hands the role on as reStructuredText writes it
        raw = "{term}" + raw[len(":term:") :]
    try:
        with open(source, encoding="utf-8-sig") as stream:
            lines = stream.read().splitlines()[line - 1 :]
    except (OSError, UnicodeDecodeError):
        return node
    found = next((n for n, text in enumerate(lines) if raw in text), 0)
    return f"{source}:{line + found}"


def setup_glossary(app: Sphinx) -> None:
    app.connect("kb-catalog-built", _catalog_built)
    app.connect("doctree-resolved", _doctree_resolved)
    app.connect("missing-reference", _missing_reference)
    add_signer(app, _signer)
