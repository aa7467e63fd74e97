"""Unique ids on pages furo has reshaped, so every page is valid HTML.

furo wraps each table and display equation in a scrolling container (``table-wrapper``,
``math-wrapper``) and copies *all* the wrapped node's attributes onto the wrapper, ids
included (``furo.WrapTableAndMathInAContainerTransform``). A labelled equation, such as
``$$ … $$ (eq-label)``, then carries its id twice: invalid HTML, and ``#equation-…`` links and
screen readers may land on either. The equation (or table) keeps its ids, because its own
permalink is built from them; the wrapper drops the copies.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

WRAPPER_CLASSES = {"table-wrapper", "math-wrapper"}


class DropCopiedWrapperIds(SphinxPostTransform):
    """Remove from furo's wrappers the ids that their wrapped node still carries."""

    formats = ("html",)
    default_priority = 510  # after furo's wrapping transform (500)

    def run(self, **kwargs) -> None:
        for wrapper in self.document.findall(nodes.container):
            if not WRAPPER_CLASSES & set(wrapper["classes"]) or len(wrapper.children) != 1:
                continue
            inner_ids = set(wrapper.children[0].get("ids", ()))
            wrapper["ids"] = [id_ for id_ in wrapper["ids"] if id_ not in inner_ids]


def setup_uniqueids(app: Sphinx) -> None:
    # (The same wrappers scroll when too wide: kb.markup.scrolling makes them focusable.)
    app.add_post_transform(DropCopiedWrapperIds)
