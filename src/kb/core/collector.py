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
cyclic (a node points to its parent) and a clean build of many posts needs them freed. The
build's end puts everything back (:func:`gc.unfreeze`), so a process that runs several builds
(the tests, a warm ``kb serve`` worker) can still free what an earlier build left.
"""

from __future__ import annotations

import gc

from sphinx.application import Sphinx


def _before_environment_loads(app: Sphinx, config) -> None:
    app.kb_collector_was_enabled = gc.isenabled()
    gc.freeze()
    gc.disable()


def _after_environment_loaded(app: Sphinx) -> None:
    gc.freeze()
    if getattr(app, "kb_collector_was_enabled", True):
        gc.enable()


def _build_finished(app: Sphinx, exception) -> None:
    gc.unfreeze()


def setup_collector(app: Sphinx) -> None:
    # config-inited is the last event before Sphinx unpickles the environment and
    # builder-inited the first after it (Sphinx.__init__: _init_env, then _init_builder).
    app.connect("config-inited", _before_environment_loads, priority=0)
    app.connect("builder-inited", _after_environment_loaded, priority=0)
    app.connect("build-finished", _build_finished, priority=1000)
