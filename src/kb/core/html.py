"""Small pieces of HTML that more than one output writes."""

from __future__ import annotations

from html import escape

from docutils import nodes

#: The attributes that make a scrolling block reachable by keyboard and announced (axe's
#: ``scrollable-region-focusable``): code blocks, wide tables, display math, the BibTeX entry.
FOCUSABLE = 'tabindex="0" role="group" aria-label="{label}"'


def focusable(label: str) -> str:
    """The attributes of a focusable scrolling block named ``label``, for a start tag."""
    return FOCUSABLE.format(label=escape(" ".join(label.split()), quote=True))


def reader_text(node: nodes.Node) -> str:
    """The text a reader sees of ``node``: raw HTML, comments and system messages left out,
    so an excerpt or a description never carries markup (``<span style=...>By Ada</span>``
    is "By Ada")."""
    hidden = (nodes.raw, nodes.comment, nodes.system_message)
    parts = []
    for text in node.findall(nodes.Text):
        parent = text.parent
        while parent is not None and not isinstance(parent, hidden) and parent is not node:
            parent = parent.parent
        if not isinstance(parent, hidden):
            parts.append(text.astext())
    return "".join(parts)


def skip_node(translator, node: nodes.Node) -> None:
    """What every writer but HTML does with a node only a web page shows: nothing."""
    raise nodes.SkipNode


def add_html_node(app, node: type[nodes.Element], visit, depart=None, elsewhere=None) -> None:
    """Register ``node``, which the HTML writer shows with ``visit`` and ``depart``; every
    other writer of Sphinx's (LaTeX, text, man, Texinfo) skips it, or uses ``elsewhere``
    (a ``(visit, depart)`` pair). Each writer is named: a ``**dict`` of them could also fill
    ``add_node``'s ``override``."""
    other = elsewhere or (skip_node, None)
    app.add_node(node, html=(visit, depart), latex=other, text=other, man=other, texinfo=other)
