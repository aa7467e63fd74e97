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

A build that reads many documents freezes as it goes. A full collection walks every object not
frozen, and Python runs one each time that heap has grown by a quarter: reading 1000 posts
(their doctrees wait in memory for the writing phase) took 19 full collections, 4.2 s of a 28 s
read, and the writing phase's one walked everything read, 1.9 s. So before a document is read
(before Sphinx makes its new doctree), what the last one left is collected (its garbage, and
any doctree dropped from memory, :mod:`.doctrees`) and the rest frozen; the same once every
document is read. Each collection then walks one document's objects, not everything read
before: 1.2 s for the 1017 of a clean build of 1000 posts. What is frozen and later let go (a
doctree once its page is written) stays until the process ends, as it would at the build's end;
a clean build's peak is the same at 1000 posts (351 MB against 348 MB), and 4.5% higher at 3000
posts with 300 doctrees kept in memory (465 MB against 445 MB): those kept stay through the
writing phase.

A build that reads few documents (an edit) makes little garbage, but its catalog and page
signatures are made anew, and each full collection walked them and what the reading made (an
edit at 10,000 posts: two before its page was written, of 0.04-0.14 s, finding 0 to 261
objects): it freezes what exists once every document is read, and again when the pages are
about to be written, without collecting first. What it leaves frozen is at most what a full
collection would have found then (the collector runs one each time the heap grows by a
quarter). ``kb serve``'s standby makes what it makes ahead with the collector paused
(:func:`paused_while_working_ahead`), then collects and freezes once, and waits for the author
(:func:`freeze_while_waiting`): the build's collections then walk only
what the build makes.

The build's end freezes everything that is left, too. A ``sphinx-build`` process ends right
after it, and Python's shutdown would otherwise walk and free every object of the build one by
one: 1.2 to 1.6 s of a 4 s no-change rebuild at 1000 posts. Frozen cycles (the application,
the environment, every doctree node) are left to the operating system, which takes the whole
memory back at once; files are closed and flushed by their owners, never by a collection.

Freezing pays only in a process that runs one build, which is every build kb runs itself:
``sphinx-build``, ``make html`` and each build ``kb serve`` forks. A process that goes on to
build again (the tests, a script that embeds Sphinx) must give the first build's frozen objects
back, and that takes a collection that walks its whole heap: 0.1 s in a test process, before
every build, while the tiny sites the tests build took 0.4 s each. So the second build in a
process gives back what the first one froze, once, and from then on the process freezes
nothing: its builds pause the collector while the environment loads, and leave their garbage
to the collector as any program does.

``kb serve``'s standby that goes on after its build (:mod:`kb.cli.buildworker`: the build
forks the next standby where Sphinx would pickle the environment) is a process of its own
kind. Once the build before it has written its pages, it collects that build's application
and freezes what is left, the environment among it (:func:`between_builds`); the first time,
it gives back first what the first standby's build froze. From then on it freezes nothing:
the collector runs while it makes its application, is paused while it works ahead and stays
off through its build (:func:`build_to_hand_over`), since that process ends with its build
and the copy it forks collects, once, on the other processor while the build writes. What
it made ahead is then walked by no collection of the build.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum

from sphinx.application import Sphinx

from ..core import events
from ..core.state import build_state
from ..upstream import sphinx as upstream_sphinx


class _Process(Enum):
    """What the builds of this process have done with the collector so far."""

    NO_BUILD_YET = "no build yet"  # the next build freezes what it keeps
    LEFT_FROZEN = "left frozen"  # a build froze its objects: the next one gives them back
    BUILDS_AGAIN = "builds again"  # the process builds repeatedly: nothing is frozen any more
    KEEPS = "keeps its environment"  # kb serve's standby: frozen between its builds only


_process = _Process.NO_BUILD_YET

#: A build that reads this many documents or more freezes what each leaves as it reads.
FREEZE_READING_FROM = 64


def _before_environment_loads(app: Sphinx, config) -> None:
    global _process
    state = build_state(app)
    state.collector_was_enabled = gc.isenabled()
    if _process is _Process.LEFT_FROZEN:  # what the earlier build left may now be garbage
        gc.unfreeze()
        gc.collect()
        _process = _Process.BUILDS_AGAIN
    state.collector_freezes = _process is _Process.NO_BUILD_YET
    if state.collector_freezes:
        gc.freeze()
    gc.disable()


def _after_environment_loaded(app: Sphinx) -> None:
    state = build_state(app)
    if state.collector_freezes:
        gc.freeze()
    if state.collector_was_enabled:
        gc.enable()


def _before_reading(app: Sphinx, env, docnames: list[str]) -> None:
    state = build_state(app)
    state.collector_freezes_reading = (
        state.collector_freezes
        and state.collector_was_enabled
        and len(docnames) >= FREEZE_READING_FROM
    )


def _freeze_what_was_read(app: Sphinx, *arguments) -> None:
    if build_state(app).collector_freezes_reading:
        gc.collect()
        gc.freeze()


def _freeze_what_is_kept(app: Sphinx, *arguments) -> None:
    """Once every document is read, and again once the catalog and the page signatures are
    made: what they made lives until the build ends, out of the way of the full collections.
    A build that read few documents made little garbage (an edit at 10,000 posts: its full
    collections found 0 to 261 objects, and walked the catalog and the page signatures for
    0.04-0.14 s each): it freezes without the collection's walk."""
    state = build_state(app)
    if state.collector_freezes_reading:
        gc.collect()
    if state.collector_freezes:
        gc.freeze()


def pause_for_work_ahead(app: Sphinx) -> bool:
    """Pause the collector for ``kb serve``'s standby's work ahead
    (:func:`paused_while_working_ahead`); whether it was running, to be resumed once that work
    is done."""
    freezes = build_state(app).collector_freezes or _process is _Process.KEEPS
    paused = freezes and gc.isenabled()
    if paused:
        gc.disable()
    return paused


@contextmanager
def paused_while_working_ahead(app: Sphinx, paused_before: bool = False) -> Iterator[None]:
    """``kb serve``'s standby makes ahead what the next build can (:mod:`kb.cli.buildworker`)
    with the collector paused, as while the environment loads: at 10,000 posts that work
    makes the catalog's records and the related lists' vectors, hundreds of thousands of
    objects that live until the build ends, and the collector walked them in a full collection
    and about 200 younger ones: the steps took 1.54 s with it on, 1.40 s paused (medians of
    ``benchmarks/standby_ahead.py``). :func:`freeze_while_waiting` then collects once, where
    the author has not saved yet. A standby that began that work while the last build
    finished, before its application was made, paused the collector then
    (:func:`pause_for_work_ahead`, ``paused_before``): it stays paused until the freeze, since
    resumed in between it walked what those first steps made in a young and a middle
    collection (0.2 s at 10,000 posts)."""
    paused = pause_for_work_ahead(app) or paused_before
    try:
        yield
    finally:
        # A standby that goes on after its build leaves it off (build_to_hand_over).
        if paused and _process is not _Process.KEEPS:
            gc.enable()


def freeze_while_waiting(app: Sphinx, collect: bool = True) -> None:
    """``kb serve``'s standby has made its application and what the build can make ahead
    (:mod:`kb.cli.buildworker`), and waits for the author: collect and freeze it now, while
    no one waits, so that the build's full collections walk only what the build makes (its
    first one took 50-110 ms at 10,000 posts, 25-40 ms after this). Where the author has
    saved already (``collect`` False), it freezes without the collection's walk, as a build
    that read few documents does (:func:`_freeze_what_is_kept`)."""
    if build_state(app).collector_freezes:
        if collect:
            gc.collect()
        gc.freeze()


def between_builds(application: Callable[[], object | None]) -> bool:
    """``kb serve``'s standby goes on to the next build with the environment of the one it
    made (:mod:`kb.cli.buildworker`): once that build's application is dropped, collect it
    and freeze what is left (the environment, the modules), so that the next builds' full
    collections walk only what they make; whether the application is gone (``application``:
    a weak reference to it). From then on, the process freezes nothing else: what a build
    makes is its own garbage once the next build begins, and a frozen object that becomes
    garbage stays until the process ends. The first time, what the first build froze (its
    application, the catalog, all it made ahead) is given back first, at the cost of one
    collection that walks the whole heap. Where the application is still held (by a
    reference this module does not know of), nothing is frozen: the caller ends the process
    rather than keep a build's application a build longer each time."""
    global _process
    if _process is not _Process.KEEPS:  # the first build froze (and a copy forked while it
        gc.unfreeze()  # built has not seen its end, which says so)
    _process = _Process.KEEPS
    gc.collect()
    gone = application() is None
    if gone:
        gc.freeze()
    gc.enable()  # off in the build this process was forked from (build_to_hand_over)
    return gone


def build_to_hand_over() -> None:
    """The collector off for the whole build of a standby that goes on after it
    (:func:`between_builds`), from the work ahead (:func:`paused_while_working_ahead` leaves
    it paused) to the build's end: the process that builds ends with its build, and the copy
    it forks collects what it needs, once, while the build writes its pages. With what is
    made ahead not frozen, the build's collections walked the catalog's records and the
    related lists' vectors (a young one at the save, 0.12 s at 10,000 posts): a save's page
    came 0.2-0.3 s later. The first standby's build (its process loaded the environment)
    freezes as every build does."""
    if _process is _Process.KEEPS:
        gc.disable()


def _build_finished(app: Sphinx, exception) -> None:
    global _process
    if build_state(app).collector_freezes:
        gc.freeze()
        _process = _Process.LEFT_FROZEN


def setup_collector(app: Sphinx) -> None:
    # config-inited is the last event before Sphinx unpickles the environment and
    # builder-inited the first after it (Sphinx.__init__: _init_env, then _init_builder).
    app.connect("config-inited", _before_environment_loads, priority=events.COLLECTOR_PAUSE)
    app.connect("builder-inited", _after_environment_loaded, priority=events.ENVIRONMENT_LOADED)
    # Last: the documents to read are all known (the collector's own step, not theirs).
    app.connect("env-before-read-docs", _before_reading, priority=events.COUNT_READS)
    # What the last document read left, before the next one, or the last of them.
    app.connect(
        upstream_sphinx.BEFORE_EACH_READ,
        _freeze_what_was_read,
        priority=events.FREEZE_DOCUMENT_READ,
    )
    app.connect("env-updated", _freeze_what_is_kept, priority=events.FREEZE_WHAT_WAS_READ)
    app.connect("write-started", _freeze_what_is_kept)
    # Last of all build-finished handlers: the pages, feeds and search index are written.
    app.connect("build-finished", _build_finished, priority=events.FREEZE_LEFTOVERS)
