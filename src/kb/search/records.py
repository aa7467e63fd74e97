"""Search records: the indexed part of each searchable page, kept in the doctree folder.

Pagefind reads these small files (the marked body and its metadata, formulas as TeX) instead
of the written pages: on a 1000-post site it would otherwise spend most of its time parsing
sidebars, heads and icons it throws away.
"""

from __future__ import annotations

import os
import re
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

from ..core.fileio import write_atomically
from ..core.journal import SEARCH_FILES
from ..core.parts import UNSEARCHED_LISTS, UNSEARCHED_PART, without
from ..core.urls import site_path
from .marking import is_searchable_doc, searchable_html

# -- Search records ----------------------------------------------------------------------------

#: In the doctree folder: one small HTML file per searchable page, at the page's path in the
#: site, holding only what Pagefind reads (the marked body and its metadata).
RECORDS_DIR = f"{SEARCH_FILES}records"


def record_html(body: str, language: str) -> str:
    """A page as Pagefind needs to see it: its language and its marked body, no chrome."""
    return (
        f'<!DOCTYPE html><html lang="{escape(language)}"><head><meta charset="utf-8">'
        f"</head><body>{body}</body></html>"
    )


def _indexed_body(body: str) -> str:
    """A page's body without what Pagefind skips in it that other posts make: a post's
    related posts (kb.pages.related) and its other unsearched parts (the series box, "Linked
    from", kb.pages.postpage), and the lists of posts in a page's text (the home page's latest
    posts, an ablog ``postlist``). A post added or retitled elsewhere changes those on many
    pages, and then changes no record but its own: Pagefind indexes one shard again, not two
    or half of them."""
    for name in ("related", *UNSEARCHED_LISTS, UNSEARCHED_PART):
        body = without(body, name)
    return body


#: A MathML formula in a page's body; MathML has no nested <math>.
_MATHML = re.compile(r"<math\b[^>]*>.*?</math>", re.DOTALL)


def formulas_tex(doctree) -> list[tuple[str, bool]]:
    """The TeX source of each formula of a page, in the order the page shows them, and
    whether it is displayed (a block) or inline."""
    if doctree is None:
        return []
    found = doctree.findall(lambda node: isinstance(node, nodes.math | nodes.math_block))
    return [(node.astext().strip(), isinstance(node, nodes.math_block)) for node in found]


def math_as_tex(body: str, formulas: list[tuple[str, bool]]) -> str:
    """The body with each MathML formula replaced by its TeX source, ``$…$`` inline and
    ``$$…$$`` displayed, for the index: a snippet then reads ``$$C_{ij} = \\sum_{c} …$$``.

    The formulas pair with the page's MathML in order; should they not (a formula the build
    could not convert is shown as TeX already, a raw ``<math>`` in a post), the MathML is
    left out of the record rather than guessed at."""
    found = _MATHML.findall(body)
    if len(found) != len(formulas):
        return _MATHML.sub(" ", body)
    replacements = iter(formulas)

    def tex(match: re.Match) -> str:
        source, display = next(replacements)
        source = " ".join(source.split())
        marked = f"$${source}$$" if display else f"${source}$"
        return f' <span class="kb-math-tex">{escape(marked, quote=False)}</span> '

    return _MATHML.sub(tex, body)


def write_search_record(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """Keep the indexed part of each searchable page as it is written.

    Why not index the pages themselves: on a 1000-post site Pagefind then spends most of its
    time parsing sidebars, heads and icons it throws away, and the pages are read again to
    decide whether anything changed. The records are a third of the bytes, and a page left
    unchanged keeps its record from the build that wrote it. Runs late, after every other
    handler has finished the body.
    """
    if not context.get("kb_search_meta"):
        return
    # A new file, not the old one rewritten: a Pagefind run still reading the previous
    # record through its staging link (kb serve's background indexing) keeps a whole file.
    write_atomically(
        records_root(app) / site_path(app, pagename),
        record_html(
            searchable_html(
                math_as_tex(_indexed_body(context["body"]), formulas_tex(doctree)),
                context["kb_search_meta"],
            ),
            app.config.language or "en",
        ),
    )


def records_root(app: Sphinx) -> Path:
    return Path(app.doctreedir) / RECORDS_DIR


def search_sources(app: Sphinx) -> dict[str, str]:
    """What to index: each current searchable page's path in the site, and its record.

    Listed from the environment, not from the output folder: the page of a post deleted
    since the last build is still on disk, and must not be found. A page with no record
    (its record folder was deleted, say) is indexed from its written page instead. Paths are
    strings: a Path for each of 10,000 pages cost a quarter of a second of every build.
    """
    folders = (str(records_root(app)), str(app.outdir))
    sources = {}
    for docname in sorted(app.env.found_docs):
        if not is_searchable_doc(app, docname):
            continue
        relpath = site_path(app, docname)
        for folder in folders:
            candidate = os.path.join(folder, relpath)
            if os.path.isfile(candidate):
                sources[relpath] = candidate
                break
    return sources


#: What Pagefind counts as a word: a letter or a digit (a page without one is not indexed).
_WORD = re.compile(r"[^\W_]")


def holds_a_word(source: str) -> bool:
    """Whether Pagefind finds a word to index in ``source`` (a record or a written page):
    in its ``data-pagefind-body``, outside the parts marked ``data-pagefind-ignore``. A post
    whose title and text are only punctuation (``# /``) has none, and Pagefind leaves it out
    of the index."""
    from lxml import html as lxml_html

    try:
        tree = lxml_html.fromstring(Path(source).read_bytes())
    except (OSError, ValueError):
        return True  # unreadable here: counted as Pagefind will have counted it
    for ignored in tree.xpath("//*[@data-pagefind-ignore]"):
        ignored.drop_tree()
    bodies = tree.xpath("//*[@data-pagefind-body]") or [tree]
    return any(_WORD.search(body.text_content()) for body in bodies)


def prune_records(app: Sphinx, sources: dict[str, str]) -> None:
    """Remove the records of pages that are gone (a post deleted or renamed): never indexed,
    they would only pile up. Done when the sources changed, so the bundle was made again."""
    # Text paths and one walk: a path object for each record and each file found took
    # 24 ms of every plain edit at 1000 posts, this 3.5 ms.
    root = str(records_root(app))
    current = {os.path.normpath(os.path.join(root, relpath)) for relpath in sources}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if path not in current:
                os.unlink(path)
