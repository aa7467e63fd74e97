"""The few places where kb needs what other packages do not offer as public API.

Each workaround lives here, with the reason, and ``tests/test_compat.py`` fails loudly when
the upstream behaviour it relies on changes. Nothing else in kb touches a private name of
Sphinx, docutils, ablog or any other package.
"""

from __future__ import annotations

import logging

from docutils import nodes
from docutils.frontend import get_default_settings
from sphinx.writers.html import HTMLWriter


def writer_settings(env) -> object:
    """Docutils settings for a document kb writes itself (an excerpt), as Sphinx makes them
    for its own documents: the HTML writer's defaults with the environment's overrides.

    Public docutils API (``get_default_settings``) rather than Sphinx's private
    ``_get_settings``; building the option parser costs about 5 ms, so callers cache it.
    """
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


def doctrees_waiting_to_be_written(env) -> dict | None:
    """The doctrees Sphinx read in this build and keeps in memory until it writes their pages
    (``env._write_doc_doctree_cache``, docname -> doctree, since Sphinx 7.3), or None when
    Sphinx no longer keeps them there.

    A page whose doctree is not there is written from the doctree pickled on disk
    (``get_doctree``), which is what every incremental build does; dropping entries only costs
    the unpickling. At 10,000 posts the kept doctrees were most of a clean build's 2.5 GB.
    """
    waiting = getattr(env, "_write_doc_doctree_cache", None)
    return waiting if isinstance(waiting, dict) else None


def myst_warning_logger() -> logging.Logger:
    """The logger MyST (and MyST-NB, through it) writes its warnings to, for a filter of kb's
    own (:mod:`kb.markup.headings`).

    MyST has no way to leave one warning out for one document: ``suppress_warnings`` is the
    whole site's, and its ``myst.header`` covers every header warning. Its
    ``create_warning`` logs through Sphinx's ``getLogger(__name__)``, that is the standard
    logger named ``sphinx.`` and its module's name; taken from the function, not spelt out,
    so that a move of the function within MyST moves the name with it.
    """
    from myst_parser.warnings_ import create_warning

    return logging.getLogger(f"sphinx.{create_warning.__module__}")
