"""Keep Python's cycle collector off the objects that live for the whole build.

An incremental build spends much of its time unpickling the environment: millions of small
objects (docutils nodes of every page's table of contents, ablog's and kb's post records). The
cycle collector runs every 700 new objects and, as they pile up, walks everything already
loaded again: at 1000 posts it doubled the unpickling time (0.45 s against 0.15 s with the
collector off) and cost about a second of each no-change rebuild
(``benchmarks/build_speed.py``).

So the collector pauses while the environment loads, and what exists then (imported modules,
the configuration, the loaded environment) is moved to the permanent generation that
collections never walk (:func:`gc.freeze`). Later garbage is collected as usual: doctrees are
cyclic (a node points to its parent) and a clean build of many posts needs them freed.

The build's end freezes everything that is left, too. A ``sphinx-build`` process ends right
after it, and Python's shutdown would otherwise walk and free every object of the build one by
one: 1.2 to 1.6 s of a 4 s no-change rebuild at 1000 posts. Frozen cycles (the application,
the environment, every doctree node) are left to the operating system, which takes the whole
memory back at once; files are closed and flushed by their owners, never by a collection. A
process that runs several builds (the tests) gives the earlier build's objects back when the
next one starts, and frees what is garbage among them there.
"""

from __future__ import annotations

import gc

from sphinx.application import Sphinx

from ..core import events
from ..core.state import build_state

#: Whether the last build in this process ended with its objects frozen.
_left_frozen = False


def _before_environment_loads(app: Sphinx, config) -> None:
    global _left_frozen
    if _left_frozen:  # an earlier build in this process: what it left may now be garbage
        gc.unfreeze()
        gc.collect()
        _left_frozen = False
    build_state(app).collector_was_enabled = gc.isenabled()
    gc.freeze()
    gc.disable()


def _after_environment_loaded(app: Sphinx) -> None:
    gc.freeze()
    if build_state(app).collector_was_enabled:
        gc.enable()


def _build_finished(app: Sphinx, exception) -> None:
    global _left_frozen
    gc.freeze()
    _left_frozen = True


def setup_collector(app: Sphinx) -> None:
    # config-inited is the last event before Sphinx unpickles the environment and
    # builder-inited the first after it (Sphinx.__init__: _init_env, then _init_builder).
    app.connect("config-inited", _before_environment_loads, priority=events.COLLECTOR_PAUSE)
    app.connect("builder-inited", _after_environment_loaded, priority=events.ENVIRONMENT_LOADED)
    # Last of all build-finished handlers: the pages, feeds and search index are written.
    app.connect("build-finished", _build_finished, priority=events.FREEZE_LEFTOVERS)
