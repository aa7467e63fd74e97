"""Docutils (and its settings as Sphinx makes them): what kb needs beyond documents it parses."""

from __future__ import annotations

from docutils import nodes


def writer_settings(env) -> object:
    """Docutils settings for a document kb writes itself (an excerpt), as Sphinx makes them
    for its own documents: the HTML writer's defaults with the environment's overrides.

    Public docutils API (``get_default_settings``) rather than Sphinx's private
    ``_get_settings``; building the option parser costs about 5 ms, so callers cache it.
    """
    from docutils.frontend import get_default_settings
    from sphinx.writers.html import HTMLWriter

    settings = get_default_settings(HTMLWriter)
    vars(settings).update(env.settings)
    return settings


def detach(node: nodes.Node) -> nodes.Node:
    """Cut a copied node loose from the document it was copied from.

    Sphinx's ``deepcopy`` points every copied node at the original document, so keeping the
    copy in the environment would pickle the post's whole doctree (and its settings) with it:
    at 1000 posts that made the environment 68 MB and a no-change rebuild spend seconds
    unpickling it. ``Node.document`` is a public, settable attribute in docutils.
    """
    for descendant in node.findall():
        descendant.document = None
    return node
