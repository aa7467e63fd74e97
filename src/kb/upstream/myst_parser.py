"""MyST-Parser: where its warnings go."""

from __future__ import annotations

import logging


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
