"""Keep a clean build's memory bounded: at most ``kb_doctrees_in_memory`` read doctrees wait
in memory for the writing phase.

Sphinx keeps every doctree it reads until the writing phase writes its page, so that it need
not unpickle it again (:func:`kb.upstream.sphinx.doctrees_waiting_to_be_written`). A clean build
of 10,000 posts held all 10,000 at once: most of its 2.5 GB peak. Past the limit, each doctree
read is dropped from memory before the next one is read (it was already pickled to the doctree
folder) and its page is written from that pickle, as in any incremental build. The first
doctrees read stay: Sphinx reads and writes in the same (sorted) order, so those are the ones
the writing phase meets first.

The drop comes first before a document is read: the cycle collector then frees the dropped
doctree before what the last document left is frozen (:mod:`.collector`).
"""

from __future__ import annotations

from sphinx.application import Sphinx

from ..core import events
from ..core.state import build_state
from ..upstream.sphinx import BEFORE_EACH_READ, doctrees_waiting_to_be_written


def _drop_beyond(app: Sphinx, limit: int) -> None:
    waiting = doctrees_waiting_to_be_written(app.env)
    if waiting is None:
        return
    while len(waiting) > limit:
        waiting.popitem()  # the last one read


def _before_reading(app: Sphinx, env, docname: str) -> None:
    # The last document's doctree is in by now (Sphinx adds it after doctree-read).
    _drop_beyond(app, build_state(app).config.doctrees_in_memory)


def _env_updated(app: Sphinx, env) -> None:
    _drop_beyond(app, build_state(app).config.doctrees_in_memory)


def setup_doctrees(app: Sphinx) -> None:
    app.connect(BEFORE_EACH_READ, _before_reading, priority=events.DROP_DOCTREE_READ)
    app.connect("env-updated", _env_updated, priority=events.BEFORE_DOCTREES_LOADED)
