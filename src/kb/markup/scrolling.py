"""Everything that scrolls sideways can be reached with the keyboard, with or without script.

A code block, a table or a display formula wider than the column scrolls on its own (furo's
``pre``, ``.table-wrapper``; kb-math.css's ``div.kb-math``). A scrolling region must take
keyboard focus so that a reader without a mouse can scroll it (WCAG 2.1.1; axe's
``scrollable-region-focusable``), and what takes focus needs a role and a name to be
announced. Whether a block overflows depends on the reader's screen, so each of them is
written focusable when the HTML is written: ``tabindex="0"``, ``role="group"`` (not a
landmark: a post with twenty code blocks would otherwise list twenty landmarks) and an
``aria-label`` from its caption, its language or its equation number.

Code blocks are written by Sphinx's own visitor (which highlights them), and table wrappers
by docutils'; we register visitors that call the translator's own and add the attributes to
the element it wrote (``app.add_node(..., override=True)``, public API). kb.markup.math
writes the attributes on display formulas itself.
"""

from __future__ import annotations

import functools
import re

from docutils import nodes
from sphinx.application import Sphinx

from ..core.html import focusable

PRE = re.compile(r"<pre(?=[\s>])")
PLAIN_LANGUAGES = {"", "default", "none", "text", "plain", "txt"}


@functools.cache
def language_name(language: str) -> str:
    """``cuda`` -> ``CUDA``, ``shell`` -> ``Bash``: the name Pygments gives the language."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language).name
    except ClassNotFound:
        return language


def code_label(node: nodes.literal_block) -> str:
    """A code block's caption, else ``Code (CUDA)``, else ``Code``."""
    parent = node.parent
    if (
        isinstance(parent, nodes.container)
        and "literal-block-wrapper" in parent["classes"]
        and isinstance(parent[0], nodes.caption)
    ):
        return parent[0].astext()
    language = node.get("language", "")
    return "Code" if language in PLAIN_LANGUAGES else f"Code ({language_name(language)})"


def visit_literal_block(self, node: nodes.literal_block) -> None:
    start = len(self.body)
    try:
        type(self).visit_literal_block(self, node)  # the translator's own; raises SkipNode
    finally:
        # The code's <pre> scrolls: the last one written (a block with line numbers has a
        # <pre> of numbers before it).
        for index in range(len(self.body) - 1, start - 1, -1):
            matches = list(PRE.finditer(self.body[index]))
            if matches:
                end = matches[-1].end()
                chunk = self.body[index]
                self.body[index] = f"{chunk[:end]} {focusable(code_label(node))}{chunk[end:]}"
                break


def table_label(wrapper: nodes.container) -> str:
    """The table's caption; else the caption of the figure it is part of (a benchmark's
    table is captioned once, under its chart); else "Table"."""
    for table in wrapper.findall(nodes.table):
        title = next(iter(table.findall(nodes.title)), None)
        if title is not None:
            return title.astext()
        break
    for ancestor in _ancestors(wrapper):
        if isinstance(ancestor, nodes.figure):
            caption = next(iter(ancestor.findall(nodes.caption)), None)
            if caption is not None:
                return caption.astext()
    return "Table"


def _ancestors(node: nodes.Node):
    while node.parent is not None:
        node = node.parent
        yield node


def visit_container(self, node: nodes.container) -> None:
    if "table-wrapper" not in node["classes"]:
        type(self).visit_container(self, node)
        return
    start = len(self.body)
    type(self).visit_container(self, node)
    self.body[start] = self.body[start].replace("<div", f"<div {focusable(table_label(node))}", 1)


def setup_scrolling(app: Sphinx) -> None:
    # The "html" handlers serve every builder of that format (dirhtml, singlehtml) too.
    app.add_node(nodes.literal_block, override=True, html=(visit_literal_block, None))
    app.add_node(nodes.container, override=True, html=(visit_container, None))
