"""Small pieces of HTML that more than one output writes."""

from __future__ import annotations

from html import escape

#: The attributes that make a scrolling block reachable by keyboard and announced (axe's
#: ``scrollable-region-focusable``): code blocks, wide tables, display math, the BibTeX entry.
FOCUSABLE = 'tabindex="0" role="group" aria-label="{label}"'


def focusable(label: str) -> str:
    """The attributes of a focusable scrolling block named ``label``, for a start tag."""
    return FOCUSABLE.format(label=escape(" ".join(label.split()), quote=True))
