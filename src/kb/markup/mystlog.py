"""A filter on MyST's logger for one build.

:mod:`.headings` and :mod:`.optioncomments` each leave one of MyST's warnings out where kb's
checks report the same problem in their own words. MyST logs while it parses, before any
transform, so the place is its logger; the logger is the process's and outlives the
application, so each filter is added at ``builder-inited`` and removed at ``build-finished``.
An application that never reached ``build-finished`` (made, then not built, or stopped) left
its filter there: builds in one process follow each other, so a filter of the same class still
on the logger at ``builder-inited`` is stale, and goes first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sphinx.application import Sphinx

from ..core.state import build_state
from ..upstream.myst_parser import myst_warning_logger


def filter_myst_warnings(app: Sphinx, make: Callable[[Sphinx], logging.Filter]) -> None:
    """Put the filter ``make(app)`` makes on MyST's logger for each build of ``app``."""

    def add(app: Sphinx) -> None:
        logger = myst_warning_logger()
        quiet = make(app)
        for stale in [f for f in logger.filters if type(f) is type(quiet)]:
            logger.removeFilter(stale)
        build_state(app).myst_filters.append(quiet)
        logger.addFilter(quiet)

    app.connect("builder-inited", add)
    app.connect("build-finished", _remove_filters)


def _remove_filters(app: Sphinx, exception) -> None:
    state = build_state(app)
    for quiet in state.myst_filters:
        myst_warning_logger().removeFilter(quiet)
    state.myst_filters.clear()
