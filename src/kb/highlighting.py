"""Syntax highlighting for modern PTX.

Pygments' PTX lexer predates Hopper and Blackwell: it fails on the ``::`` qualifiers of
instructions such as ``cp.async.bulk.shared::cluster`` or ``wgmma.mma_async`` operands and on
``@p`` predicate guards, and Sphinx then warns and falls back. This lexer extends it.
"""

from __future__ import annotations

from pygments.lexer import inherit
from pygments.lexers.ptx import PtxLexer
from pygments.token import Keyword, Operator
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


def setup_highlighting(app: Sphinx) -> None:
    app.add_lexer("ptx", ModernPtxLexer)
