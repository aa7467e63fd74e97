"""One build at a time per output folder, and pages written whole.

* **A lock.** Two builds writing one output folder (``make html`` while ``kb serve`` rebuilds)
  interleave their files and their records of what they wrote; one left an empty tag page that
  later builds kept. Each build takes an exclusive lock on its output and doctree folders (an
  advisory ``flock`` on the folders themselves: no lock file lands in the site) as soon as its
  configuration is read, before the environment is loaded; a second build says that it waits,
  then waits. The lock goes with the process, so a crashed build never leaves one behind.
* **Whole pages.** Sphinx writes each page straight into its file; a build stopped half-way
  leaves half a page. kb gives the HTML builder one change: each page is written next to its
  file and renamed over it, so a reader (or the next build) sees the old page or the new one,
  never a part; a generated page that already has those bytes is left as it is. kb registers
  no builder of its own (``add_builder(..., override=True)`` would replace, or be replaced
  by, any other extension's HTML builder): at ``builder-inited`` the builder Sphinx made,
  whatever its class (Sphinx's html or dirhtml, or another extension's subclass of them),
  becomes an instance of that class with :class:`_WholePages` mixed in
  first, so both changes apply.
  Before the first page, the build's journal is begun (:mod:`.journal`): a build stopped
  among its pages is recovered by the next one.

A build also holds a third lock, on the folder ``kb-building`` in its doctree folder, which it
does not hand on: the search indexer that outlives the build (:mod:`.detached`) holds the
output and doctree folders until its bundle is in place, and ``kb-building`` says when the
build itself has finished (:func:`locked_folders`).

``kb serve``'s standby (:mod:`kb.cli.buildworker`) makes the next build's application while
the last build finishes: it takes the lock only once it has loaded the environment that build
saved (:func:`load_before_locking`), and is used only if that file is still the one on disk
once it holds the lock (:func:`loaded_what_is_saved`). Until that build ends, it makes what
it can of the environment alone (the ``meanwhile`` of :func:`load_before_locking`). What it
waits for is the build, not
its indexer (``kb-building`` alone, unless the last build was stopped: then every lock, so
that no writer is at work while its application recovers the folders); its own build takes
every lock, and so waits for the indexer. A build that waits for the folders says so to
that indexer (:func:`lock_build_folders`, :mod:`.waiting`), which stops before it merges
the shards: the build's own indexer does that work for the newer pages.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.util import logging

from . import events
from .fileio import crash_point, file_stamp, holds_exactly
from .journal import JOURNAL_FILE
from .state import BuildState, build_state
from .waiting import BUILDING, waiting_said

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; builds are not serialised there
    fcntl = None  # type: ignore[assignment]  # mypy types a module name as never None

logger = logging.getLogger(__name__)


# -- The lock ------------------------------------------------------------------------------------

#: Folders this process holds, and how. One process runs one build at a time: a build that
#: ended without ``build-finished`` (an error while Sphinx started) must not leave the next
#: build in the same process (a test run, a preview server) waiting for itself.
_HELD: dict[Path, int] = {}


def locked_folders(app: Sphinx) -> list[Path]:
    """What a build locks: its output and doctree folders, and the doctree folder's
    :data:`BUILDING` folder."""
    return [Path(app.outdir), Path(app.doctreedir), _building(app)]


def _building(app: Sphinx) -> Path:
    return Path(app.doctreedir) / BUILDING


def lock_build_folders(app: Sphinx) -> list[Path]:
    """Every lock a build takes (:func:`locked_folders`); while it waits for them, it says so
    to the search indexer that may hold them for the build before
    (:func:`kb.core.waiting.waiting_said`), which then leaves its work to this build."""
    return lock_folders(locked_folders(app), waiting=(Path(app.doctreedir), Path(app.outdir)))


def lock_folders(
    folders: list[Path], say_so: bool = True, waiting: tuple[Path, Path] | None = None
) -> list[Path]:
    """Hold an exclusive lock on each folder, waiting (and saying so, unless not ``say_so``)
    while another process has it; ``waiting``: the doctree and output folders of a build that
    says, while it waits, that it does (:func:`lock_build_folders`)."""
    held = []
    for folder in sorted({Path(f).resolve() for f in folders}):
        folder.mkdir(parents=True, exist_ok=True)
        if folder in _HELD:
            os.close(_HELD.pop(folder))
        descriptor = _HELD[folder] = os.open(folder, os.O_RDONLY)
        held.append(folder)
        if fcntl is None:
            continue
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if say_so:
                logger.info(
                    "kb: another build is writing %s; waiting for it to finish",
                    folder,
                    color="yellow",
                )
            with waiting_said(*waiting) if waiting else contextlib.nullcontext():
                fcntl.flock(descriptor, fcntl.LOCK_EX)
            if say_so:
                logger.info("kb: the other build has finished; going on")
    return held


def _held_by_another(folders: list[Path]) -> bool:
    """Whether another process holds the lock on any of ``folders`` now (without waiting)."""
    if fcntl is None:
        return False
    for folder in folders:
        try:
            descriptor = os.open(folder, os.O_RDONLY)
        except OSError:
            continue  # not made yet: no build has it
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(descriptor)  # and the lock, where it was taken
    return False


def forget_locks() -> None:
    """In a copy of a build's process that does not carry on its work (``kb serve``'s next
    standby, forked by the build): close the descriptors that hold the build's locks. The
    locks stay the build's, which holds its own descriptors; the copy takes its own later."""
    for descriptor in _HELD.values():
        with contextlib.suppress(OSError):
            os.close(descriptor)
    _HELD.clear()


def release(held: list[Path]) -> None:
    for folder in held:
        descriptor = _HELD.pop(folder, None)
        if descriptor is not None:
            os.close(descriptor)  # closing the descriptor releases its flock
    held.clear()


def held_descriptors(app: Sphinx) -> list[int]:
    """The descriptors holding this build's locks on its folders, for a process that carries
    on its work after it (not :data:`BUILDING`'s: the build has finished once it ends)."""
    building = _building(app).resolve()
    held = build_state(app).locks
    return [_HELD[folder] for folder in held if folder in _HELD and folder != building]


def _config_inited(app: Sphinx, config) -> None:
    if _load_first is None:
        build_state(app).locks = lock_build_folders(app)


# -- The standby's environment, loaded before the lock -------------------------------------------

_Stamp = tuple[int, int, int, int] | None


def _stamp(path: Path) -> _Stamp:
    """The file's stamp (:func:`~.fileio.file_stamp`: a renamed file has a new inode); None
    where there is none."""
    try:
        return file_stamp(path.stat())
    except OSError:
        return None


#: What a standby does with its loaded environment while the last build finishes: called
#: with the application and a function that says whether that build still runs.
Meanwhile = Callable[[Sphinx, Callable[[], bool]], None]


@dataclass
class _LoadFirst:
    """What a standby knows of the saved environment: its stamp when the standby began, and
    just before Sphinx loads it; and what it does while the last build finishes."""

    environment: Path
    when_begun: _Stamp
    meanwhile: Meanwhile | None = None
    when_loaded: _Stamp = None
    #: Whether the environment is given in memory, not loaded from the file.
    given: bool = False


#: Set in ``kb serve``'s standby process only (:func:`load_before_locking`).
_load_first: _LoadFirst | None = None

#: How often a standby looks for the environment the last build saves.
_POLL_SECONDS = 0.01


def load_before_locking(
    environment: Path, meanwhile: Meanwhile | None = None, given: bool = False
) -> None:
    """For this process's build (``kb serve``'s standby, made while the last build finishes):
    wait, once the configuration is read and the sources scanned, until that build has saved
    a new ``environment`` (the file is not the one there now) or no build holds the folders;
    load it; once kb's settings are read, call ``meanwhile`` (where that build still runs),
    which works with the environment alone until the build ends; and only then take the lock,
    without saying so (the wait is for the build the standby follows). A 70 MB environment
    (10,000 posts) then loads while the last build writes its other pages and the search
    indexer runs, not after. With ``given``, the application is given the environment in
    memory, by the build it follows (which saves none): it does not wait for the file, which
    must still be as it is now once it holds the lock."""
    global _load_first
    _load_first = _LoadFirst(environment, _stamp(environment), meanwhile, given=given)


def loaded_what_is_saved() -> bool:
    """Whether the environment this process loaded is the file on disk now (call it holding
    the lock): False where the last build replaced or deleted it after it was looked at
    (a build that failed deletes it), so the application made from it is not used."""
    return _load_first is None or _stamp(_load_first.environment) == _load_first.when_loaded


def wait_until_no_build_holds(folders: list[Path]) -> None:
    """Return once no process holds the lock on ``folders`` (without taking it)."""
    while _held_by_another(folders):
        time.sleep(_POLL_SECONDS)


def _wait_for_saved_environment(app: Sphinx, config) -> None:
    if _load_first is None:
        return
    # The build the standby follows: until it has saved the environment, or ended.
    building = [_building(app)]
    while (
        not _load_first.given
        and _stamp(_load_first.environment) == _load_first.when_begun
        and _held_by_another(building)
    ):
        time.sleep(_POLL_SECONDS)
    _load_first.when_loaded = _stamp(_load_first.environment)


def _lock_once_loaded(app: Sphinx) -> None:
    """Once the environment is loaded and kb's settings read: while the last build runs, what
    the standby does meanwhile; then wait for that build to end (not for its indexer, which
    only writes the search bundle), and hold off any other build while the application is
    made. After a stopped build, for every lock: the application then recovers the
    folders (:func:`kb.core.journal.remove_partial_files`), which no writer may be using."""
    if _load_first is None:
        return
    building = [_building(app)]
    if _load_first.meanwhile is not None and _held_by_another(building):
        _load_first.meanwhile(app, lambda: _held_by_another(building))
    state = build_state(app)
    state.locks = lock_folders(building, say_so=False)
    # Holding kb-building, no build runs: a journal on disk is a stopped build's. The lock on
    # kb-building is let go and taken again with the others, in the order every build takes them.
    if (Path(app.doctreedir) / JOURNAL_FILE).exists():
        state.locks = lock_folders(locked_folders(app), say_so=False)


def _build_finished(app: Sphinx, exception) -> None:
    release(build_state(app).locks)


# -- Whole pages ---------------------------------------------------------------------------------


if TYPE_CHECKING:  # what _WholePages is mixed into; at run time it is a plain mixin
    _HTMLBuilder = StandaloneHTMLBuilder
else:
    _HTMLBuilder = object


class _WholePages(_HTMLBuilder):
    """Write each page under a temporary name, then rename it over the page."""

    #: The build state of the application that made the builder (its journal, opened by
    #: kb.incremental.freshness at builder-inited); Sphinx 9 deprecates ``builder.app``.
    _build_state: BuildState

    def handle_page(
        self, pagename, addctx, templatename="page.html", *, outfilename=None, event_arg=None
    ) -> None:
        # A generated page (a listing, the index, the search page) that already has these
        # bytes is left as it was, so its stamp changes only with its bytes (kb serve reloads
        # the browsers on that, kb.cli.reloads). A document's page is always replaced: Sphinx
        # rebuilds a document whose page is older than its source.
        final = Path(outfilename or _output_path(self, pagename))
        partial = final.with_name(f".{final.name}.{os.getpid()}.partial")
        journal = self._build_state.journal
        if journal is not None and pagename in self.env.found_docs:
            # kb.core.journal: on disk before the first document's page. Generated pages begin
            # it when freshness says they are written; genindex, which every build writes
            # again, is no page kb's records vouch for.
            journal.begin()
        crash_point("page")
        try:
            super().handle_page(
                pagename, addctx, templatename, outfilename=partial, event_arg=event_arg
            )
            crash_point("page-written")
            # Nothing when rendering failed with a warning.
            written = partial.exists()
            document = pagename in self.env.found_docs
            if written and (document or not holds_exactly(final, partial.read_bytes())):
                os.replace(partial, final)
        finally:
            partial.unlink(missing_ok=True)


def _output_path(builder, pagename: str) -> Path:
    # Sphinx 9 names it get_output_path; 8.2 only has get_outfilename.
    finder = getattr(builder, "get_output_path", None) or builder.get_outfilename
    return Path(finder(pagename))


def whole_page_class(builder_class: type, state: BuildState) -> type:
    """``builder_class`` with :class:`_WholePages` mixed in before it, for the build whose
    state is ``state`` (a class per build: the state is the class's, no attribute is hung on
    Sphinx's builder)."""
    name = f"WholePage{builder_class.__name__}"
    namespace = {"__module__": __name__, "_build_state": state}
    return type(name, (_WholePages, builder_class), namespace)


def _builder_inited(app: Sphinx) -> None:
    builder = app.builder
    if not isinstance(builder, StandaloneHTMLBuilder) or isinstance(builder, _WholePages):
        return  # no HTML pages (latex, text write their own files), or done already
    # The same object and everything it holds: only its class gains the mixin.
    builder.__class__ = whole_page_class(type(builder), build_state(app))


def setup_output(app: Sphinx) -> None:
    app.connect("builder-inited", _builder_inited, priority=events.WHOLE_PAGES)
    # First of all handlers, before the environment is loaded; released last.
    app.connect("config-inited", _config_inited, priority=events.LOCK_FOLDERS)
    app.connect(
        "config-inited", _wait_for_saved_environment, priority=events.WAIT_FOR_SAVED_ENVIRONMENT
    )
    app.connect("builder-inited", _lock_once_loaded, priority=events.LOCK_ONCE_LOADED)
    app.connect("build-finished", _build_finished, priority=events.RELEASE_FOLDERS)
