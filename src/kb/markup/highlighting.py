"""Syntax highlighting: modern PTX, and code blocks without a span around each blank.

Pygments' PTX lexer predates Hopper and Blackwell: it fails on the ``::`` qualifiers of
instructions such as ``cp.async.bulk.shared::cluster`` or ``wgmma.mma_async`` operands and on
``@p`` predicate guards, and Sphinx then warns and falls back. This lexer extends it.

Pygments' HTML writes every run of blanks between two tokens as ``<span class="w"> </span>``:
24 bytes for one space, 2 KB in a 20-line CUDA block. A blank has no colour to show, so our
formatter writes blanks as plain text; the code, what a reader copies and every other
token's class are unchanged.
"""

from __future__ import annotations

import functools

from pygments.formatters import HtmlFormatter
from pygments.lexer import inherit
from pygments.lexers.ptx import PtxLexer
from pygments.token import Keyword, Operator, Text, Whitespace
from sphinx.application import Sphinx


class ModernPtxLexer(PtxLexer):
    """PTX with ``::`` state-space qualifiers and predicate guards."""

    name = "PTX"
    aliases = ["ptx"]

    tokens = {
        "root": [
            # A whole instruction or operand with qualifiers: ``cp.async.bulk.shared::cluster``.
            (r"[A-Za-z_][\w.]*(?:::[A-Za-z0-9_][\w.]*)+", Keyword),
            (r"@!?", Operator),
            (r"[|&^~]", Operator),
            inherit,
        ],
    }


class BlankAsTextHtmlFormatter(HtmlFormatter):
    """Pygments' HTML formatter, with whitespace tokens written as plain text (no span)."""

    def format(self, tokensource, outfile):
        tokens = ((Text if _is_blank(kind) else kind, value) for kind, value in tokensource)
        return super().format(tokens, outfile)


@functools.cache
def _is_blank(kind) -> bool:
    # Remembered per token type: ``in`` walks the type's ancestry, and a clean build of 1000
    # posts asks about 300,000 times.
    return kind in Whitespace


def _builder_inited(app: Sphinx) -> None:
    # Sphinx's highlighter makes its formatter from this attribute (PygmentsBridge invites
    # replacing the class); set on this builder's bridge only, not on the class for every app.
    highlighter = getattr(app.builder, "highlighter", None)
    if highlighter is not None and highlighter.dest == "html":
        highlighter.formatter = BlankAsTextHtmlFormatter


def setup_highlighting(app: Sphinx) -> None:
    app.add_lexer("ptx", ModernPtxLexer)
    app.connect("builder-inited", _builder_inited)
