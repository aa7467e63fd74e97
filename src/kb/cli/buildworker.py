"""A warm process for ``kb serve``'s rebuilds: import once, fork the builds from it.

A rebuild as its own ``python -m sphinx`` pays Python's start-up and the imports of Sphinx,
docutils, MyST, ablog, furo and kb on every save: about 1 s on a quiet 2-core machine, more
than the rest of a one-post rebuild. This worker imports all of that once, then forks the
children that build. A child starts with every module loaded and none of the state of an
earlier build, as each ``sphinx-build`` runs in a new process; a standby that stays (below)
builds again with its last build's environment, and nothing else of that build.

The worker forks the next build ahead of the change (a :class:`Standby`): while the author
reads the page, that child reads the configuration, sets up the extensions and loads the
environment, then waits. When the author saves, it builds if what it was made from is
unchanged but for the text of documents (:mod:`kb.incremental.standby`), and otherwise gives
way to a fresh child. The build of a standby forks the next standby itself, where Sphinx
would pickle the environment (:class:`_NextStandby`): that copy holds the environment as Sphinx
would have pickled it, and makes the next build's application with it on the other processor
while the build writes its pages (:func:`_stand_by`). No build after the first standby's
loads the environment or saves it: at 10,000 posts a forked copy took about 1.2 s of processor
time to pickle it on every save and the next standby 0.5 s to load it, on two processors that
a save every 3.3 s kept busy. Each standby tells the worker, after its build, the modules it
imported, the lexers it compiled and the posts' days it read
(:func:`kb.core.drafts.days_read`), so that the children it forks next start with them too.

Where :data:`STAY_VARIABLE` is set to ``0`` (or the first time), the next standby is forked
by the worker as soon as the build has written the documents' pages, not when it ends. Where
the environment is large (:data:`LOAD_WHILE_THE_LAST_BUILD_FINISHES`), that child scans the
sources and loads the environment the build saves while the build writes the other pages,
and takes the folders' lock only then (:func:`kb.core.output.load_before_locking`).
Otherwise it waits until no build holds the folders, as one forked after the build.

Protocol (one JSON object per line, over two pipes whose descriptors the server passes on the
command line): the server sends ``{"arguments": [...], "prepare": B}`` (``sphinx-build``'s
arguments; whether to prepare the next build after this one); the worker answers
``{"written": true}`` when the standby's build has written the documents' pages (the browsers
may reload, :mod:`.reloads`), then ``{"status": N, "prepared": B, "changed": C}`` when the
build has finished (``B``: whether the standby built it; ``C``: whether the output changed
after ``written``, or there was none). It answers ``{"stale": true}`` instead, and exits, when
a module it imported has changed on disk since (kb's own source while someone works on it, or
a package upgraded): the server then starts a new worker, which imports the new code.
``{"wait": "prepared"}`` is answered with ``{"prepared": B, "pid": P}`` once the standby has
made its application (``B``: whether there is one; ``P``: its process), for tests and
benchmarks that change files only then. End of input (the server has gone) ends the worker.

Run as ``python -m kb.cli.buildworker REQUEST_FD REPLY_FD CONFDIR``.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.metadata
import json
import os
import signal
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.environment import BuildEnvironment

    from .reloads import Shown


def warm_up(confdir: Path) -> None:
    """Import what a build of the site at ``confdir`` imports: Sphinx with its built-in
    extensions, the installed HTML themes, and the extensions the site's ``conf.py`` names."""
    import sphinx.cmd.build  # noqa: F401  (build_main, for every child)
    from sphinx.config import Config
    from sphinx.util.tags import Tags

    from ..upstream.sphinx import builtin_extensions

    for name in builtin_extensions():
        _import_quietly(name)
    for theme in importlib.metadata.entry_points(group="sphinx.html_themes"):
        _import_quietly(theme.module)
    for name in LAZILY_IMPORTED:
        _import_quietly(name)
    try:
        config = Config.read(confdir, overrides={}, tags=Tags())
    except Exception:  # noqa: BLE001  (the build itself reports a broken conf.py)
        return
    for name in config.extensions:
        if isinstance(name, str):
            _import_quietly(name)
    language = getattr(config, "highlight_language", "default")
    compile_common_lexers((language,) if isinstance(language, str) else ())


#: What a build imports only once it reads and writes a page, or only in ``kb serve``: the
#: worker learns it from its builds (:func:`import_what_builds_import`), but its first build
#: is most often one with nothing to write (the site was built before), so the author's first
#: save paid for it: its page was written 0.41 s after the save reached the standby, the next
#: one's 0.26 s (1000 posts); with these imported and compiled first, 0.28-0.29 s.
LAZILY_IMPORTED = (
    "numpy",  # kb: when related posts are computed, so that a plain build without them does not
    # kb serve's own steps: the standby's application, the build in steps, the early reload
    "kb.incremental.standby",
    "kb.upstream.sphinx_build",
    "kb.upstream.sphinx_read",
    "kb.upstream.furo",
    "kb.cli.reloads",
    # the standard library's, on first use: a date read by strptime, a source read as
    # utf-8-sig (Sphinx's source_encoding), docutils' asdom()
    "_strptime",
    "encodings.utf_8_sig",
    "xml.dom.minidom",
)

#: Languages whose Pygments rules the worker compiles before any build highlights them
#: (python is also what Sphinx's "default" language is): 5-20 ms each, paid by each build's
#: first page that shows one until the worker has learnt it from a build.
COMMON_LANGUAGES = ("python", "c", "cpp", "cuda", "bash", "console")


def compile_common_lexers(extra: tuple[str, ...] = ()) -> None:
    """Compile the rules of the lexers for :data:`COMMON_LANGUAGES` and ``extra`` (the
    site's ``highlight_language``), as a build that highlighted them would."""
    from pygments.lexers import find_lexer_class_by_name
    from pygments.util import ClassNotFound

    from ..upstream.pygments import compile_lexers

    names = []
    for language in dict.fromkeys((*COMMON_LANGUAGES, *extra)):
        try:
            lexer = find_lexer_class_by_name("python" if language == "default" else language)
        except ClassNotFound:
            continue  # the build says so where the language is used
        names.append(f"{lexer.__module__}:{lexer.__qualname__}")
    compile_lexers(names)


def _import_quietly(name: str) -> None:
    # A module that fails to import is the build's to report, at its own place.
    with contextlib.suppress(Exception):
        importlib.import_module(name)


class ImportedFiles:
    """The files behind the modules this process has imported, and when each last changed."""

    def __init__(self) -> None:
        self.mtimes = self._now()

    def update(self) -> None:
        """Add the modules imported since (those already known keep their first time)."""
        self.mtimes = {**self._now(), **self.mtimes}

    @staticmethod
    def _now() -> dict[str, int]:
        mtimes = {}
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str):
                with contextlib.suppress(OSError):
                    mtimes[path] = os.stat(path).st_mtime_ns
        return mtimes

    def changed(self) -> list[str]:
        changed = []
        for path, mtime in self.mtimes.items():
            try:
                if os.stat(path).st_mtime_ns != mtime:
                    changed.append(path)
            except OSError:
                changed.append(path)
        return changed


def build_in_child(arguments: list[str], keep_open: tuple[int, ...] = ()) -> tuple[int, list[str]]:
    """Fork; the child runs one ``sphinx-build`` and exits. The build's exit status, and the
    modules the child had imported by then (the worker imports them too, for the next build:
    extensions import much of their code only in their ``setup()``)."""
    modules_read, modules_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: one build, then exit without running the parent's cleanup
        status = 2
        try:
            os.close(modules_read)
            for descriptor in keep_open:
                os.close(descriptor)  # the protocol is the worker's, not the build's
            from sphinx.cmd.build import build_main

            status = build_main(arguments)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 2
        except BaseException:  # noqa: BLE001  (a crash must not run the worker's own loop)
            traceback.print_exc()
        finally:
            _exit_child(status, modules_write)
    os.close(modules_write)
    with os.fdopen(modules_read, "r", encoding="utf-8") as modules:
        imported = modules.read().splitlines()  # until the child exits: a full pipe never blocks it
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status), imported


def import_what_builds_import(names: list[str]) -> bool:
    """Import the modules a build imported that this process has not, and compile the
    Pygments lexers it compiled (:mod:`kb.upstream.pygments`); True if there were any. Keep
    the posts' days it read (:func:`kb.core.drafts.learn_days`), for the next standby's scan."""
    from ..core.drafts import learn_days
    from ..upstream.pygments import compile_lexers

    said = [name for name in names if "=" in name]
    for line in said:
        if line.startswith(DRAFT_DAYS):
            learn_days(line.removeprefix(DRAFT_DAYS))
    lexers = [name.removeprefix(LEXER) for name in said if name.startswith(LEXER)]
    missing = [name for name in names if name not in sys.modules and "=" not in name]
    for name in missing:
        _import_quietly(name)
    return compile_lexers(lexers) or bool(missing)


#: How a child names a lexer it compiled, among the modules it imported (no module's name has
#: a ``=``).
LEXER = "pygments-lexer="
#: How it hands over the posts' days it read (:func:`kb.core.drafts.days_read`), on one line.
DRAFT_DAYS = "drafts-days="


#: What a standby child writes once it has made its application and what it makes ahead (before
#: its verdict).
READY = b"ready\n"
#: What it writes once its build has written the documents' pages (:mod:`.reloads`).
WRITTEN = b"written\n"
#: What it writes after that if the output was the same when the build ended.
SETTLED = b"settled\n"


class Standby:
    """A child that has made the next build's application ahead of the change (Sphinx's
    configuration, every extension's setup and ``config-inited`` and ``builder-inited`` steps,
    the environment: :class:`~kb.upstream.sphinx_build.PreparedBuild`) and waits. Told to build, it
    builds with that application if a new one would be the same
    (:func:`kb.incremental.standby.still_current`), and otherwise says so and exits: the worker
    then builds in a fresh child, as it does with no standby.

    A standby whose build ended well :attr:`stays`: the copy its build forked (or, where the
    build read nothing, the same process) makes the next build's application with that
    build's environment (:func:`_stand_by`), and the worker forks no new one; :attr:`pid` is
    then that process, which is not the worker's child."""

    def __init__(self, arguments: list[str], keep_open: tuple[int, ...] = ()) -> None:
        self.arguments = arguments
        go_read, self.go_fd = os.pipe()
        self.result_fd, result_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.go_fd)
            os.close(self.result_fd)
            for descriptor in keep_open:
                os.close(descriptor)  # the protocol is the worker's, not the build's
            _stand_by(arguments, go_read, result_write)  # never returns
        os.close(go_read)
        os.close(result_write)
        self._results = os.fdopen(self.result_fd, "r", encoding="utf-8")
        self._ready = False
        self._forked_here = True  # the worker's child, which it waits for
        #: Whether a standby is still there for the next build (this one, or the copy its
        #: build forked: :attr:`pid`).
        self.stays = False

    def wait_ready(self) -> None:
        """Return once the child has made its application (or has exited)."""
        if not self._ready:
            self._results.readline()
            self._ready = True

    def build(self, written: Callable[[], None]) -> tuple[int, list[str], bool] | None:
        """The build's exit status, the modules it had imported and whether the output changed
        after it called ``written`` (once the documents' pages were on disk; True if it did
        not call it), or None if the prepared application is not the one a new build would
        make. Afterwards :attr:`stays` says whether the child makes the next build's
        application too; if not, it has exited."""
        with contextlib.suppress(OSError):  # a child that died reads as one that said no
            os.write(self.go_fd, b"go\n")
        self.wait_ready()
        changed = True
        line = self._results.readline()
        if line == WRITTEN.decode():
            written()
            line = self._results.readline()
            if line == SETTLED.decode():
                changed = False
                line = self._results.readline()
        report = _read_report(line)
        self._ready = False
        self.stays = report["stays"]
        if self.stays and report["pid"] != self.pid:
            # The copy its build forked stays; the process that built exits.
            self._reap()
            self.pid, self._forked_here = report["pid"], False
        elif not self.stays:
            self._end()
        if report["verdict"] != "built":
            return None
        return report["status"], report["imported"], changed

    def _end(self) -> None:
        """Close this side of the pipes and wait for the child to end: for its pipe to
        close (a standby forked by the build before is not the worker's child to wait for)."""
        os.close(self.go_fd)  # end of input: a child still waiting exits without building
        self._results.read()
        self._results.close()
        self._reap()
        self.stays = False

    def _reap(self) -> None:
        if self._forked_here:
            os.waitpid(self.pid, 0)

    def discard(self) -> None:
        self._end()


#: The environment variable that, set to ``0``, makes every standby end after its build, as
#: before standbys stayed: for a benchmark comparing the two.
STAY_VARIABLE = "KB_SERVE_STANDBY_STAYS"


def _stays() -> bool:
    return os.environ.get(STAY_VARIABLE, "1") != "0"


def _read_report(line: str) -> dict:
    """What a standby says once its build is over (:func:`_report`); a child that died
    before saying it, as one that did not build."""
    try:
        report = json.loads(line)
    except ValueError:
        report = None
    if not isinstance(report, dict):
        return {"verdict": "stale", "status": 2, "imported": [], "stays": False, "pid": 0}
    return report


def _report(result_fd: int, verdict: str, status: int, stays: bool, pid: int) -> None:
    """Say how the build went, on one line: whether the standby built it (``verdict``), its
    status, the modules it had imported, the lexers it compiled and the posts' days it read
    (:func:`_imported`), and whether a standby stays for the next build, and which process
    it is (``pid``: this one, or the copy its build forked)."""
    sys.stdout.flush()
    sys.stderr.flush()
    report = {"verdict": verdict, "status": status, "imported": _imported(), "stays": stays}
    report["pid"] = pid
    with (
        contextlib.suppress(BrokenPipeError),  # discarded: the worker reads no more
        open(result_fd, "w", encoding="utf-8", closefd=False) as result,
    ):
        result.write(json.dumps(report) + "\n")


def _stand_by(arguments: list[str], go_fd: int, result_fd: int) -> NoReturn:
    """The standby child: prepare, wait for the word, build if still current
    (:func:`_stand_by_once`); where that build ended well, the next standby goes on with its
    environment, and this process exits once the build has; otherwise, or at the end of the
    input, it exits.

    The next standby is this process's copy, forked where Sphinx would pickle the environment
    (:class:`_NextStandby`): it holds the environment as Sphinx would pickle it, and makes the
    next application and what it can ahead on the other processor while the build writes its
    pages. Where the build read nothing, there is no such point: this process goes on itself,
    with the environment its build ended with, once that build has ended."""
    from ..incremental.collector import between_builds

    status = 2
    go = os.fdopen(go_fd, "rb", buffering=0)
    given: BuildEnvironment | None = None
    before: _BuildBefore | None = None
    try:
        while True:
            handed: tuple | None = None
            try:
                done = _stand_by_once(arguments, go, result_fd, given, before)
            except _HandedOver as handover:  # the next standby, forked by the build
                handed = (handover.environment, handover.application, handover.build)
            if handed is not None:  # out of the handler: its traceback held the build's frames
                given, application, build_before = handed
                build_before.wait_for_its_pages()
                # The build's application goes; if it cannot (held where kb does not know),
                # this standby ends, as applications must not pile up: the worker forks a
                # fresh one.
                if not between_builds(application):
                    build_before.end_unsaid()
                before = build_before
                continue
            status = done.status
            if done.next is not None and done.next.pid:  # the copy its build forked goes on
                _report(result_fd, done.verdict, status, stays=True, pid=done.next.pid)
                done.next.go_on()
                break
            stays = done.kept is not None and between_builds(done.application)
            _report(result_fd, done.verdict, status, stays=stays, pid=os.getpid())
            if not stays:
                break
            given, before = done.kept, None
    except KeyboardInterrupt:  # Ctrl-C in kb serve's terminal: the server stops too
        status = 130
    except BaseException:  # noqa: BLE001  (a crash must not run the worker's own loop)
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)


def _nothing() -> None:
    return None


@dataclass
class _Done:
    """How one standby's turn ended (:func:`_stand_by_once`)."""

    status: int = 2
    #: Whether it built (``"built"``) or gave way to a fresh build (``"stale"``).
    verdict: str = "stale"
    #: A weak reference to its application.
    application: Callable[[], object] = _nothing
    #: The environment for the next standby, where this process goes on with it itself.
    kept: BuildEnvironment | None = None
    #: The next standby, where the build forked one.
    next: _NextStandby | None = None


def _stand_by_once(
    arguments: list[str],
    go,
    result_fd: int,
    given: BuildEnvironment | None,
    before: _BuildBefore | None,
) -> _Done:
    """One standby: prepare (with ``given``, the environment of the build before, where this
    process made it or was forked by it: ``before``, which it waits for before it says it is
    ready), wait for the word, build if still current. Raises :class:`_HandedOver` in the
    next standby its build forks."""
    import weakref

    from ..core.output import loaded_what_is_saved, lock_build_folders, release
    from ..core.state import build_state
    from ..incremental.collector import build_to_hand_over
    from ..incremental.standby import Inputs, source_stamps, state_stamps, still_current
    from ..upstream.sphinx_build import PreparedBuild, let_go

    done = _Done()
    made_from = None
    tell = _TellWritten(result_fd)
    word: _Word | None = None
    try:
        prepared = PreparedBuild(arguments, environment=given)
        args = prepared.args
        word = _Word(go, Path(args.doctreedir), Path(args.outputdir))
        early = _WhileTheLastBuildFinishes(told=word.arrived)
        _follow_the_last_build(Path(args.outputdir), Path(args.doctreedir), early, given)
        given = None  # the application has it now
        # Before the application is made: a file changed while it is made counts as changed.
        sources = source_stamps(args.sourcedir, args.outputdir, args.doctreedir)
        prepared.prepare()
        app = prepared.app
        if app is not None:
            done.application = weakref.ref(app)
            if loaded_what_is_saved():
                made_from = Inputs(sources, state_stamps(app))
            # While it waits, another build (make html) may take the folders; if one does,
            # the state files differ and this application is not used.
            release(build_state(app).locks)
        if made_from is not None:
            work_ahead(app, told=word.arrived, begun=early)
        if before is not None:
            before.wait_for_its_report()  # what this says comes after it
        try:
            # Ready once it has made what it makes ahead (all of it, unless told to build
            # while it did): what it made is what it had to go by.
            os.write(result_fd, READY)
        except BrokenPipeError:  # discarded while it prepared (kb serve stopped): exit quietly
            told = b""
        else:
            told = word.wait()
        if told and app is not None and made_from is not None:
            build_state(app).locks = lock_build_folders(app)
            word.done()  # before the build forks anything: the thread has ended
            if still_current(app, made_from):
                done.verdict = "built"
                stays = _stays()
                tell.next = done.next = _NextStandby(app) if stays else None
                if stays:
                    build_to_hand_over()
                done.status = prepared.run(
                    save_environment_aside=True,
                    pages_written=tell.written,
                    questions=build_state(app).questions_ahead,
                    environment_aside=done.next.fork if done.next else None,
                )
                if tell.shown is not None and not tell.shown.changed():
                    os.write(result_fd, SETTLED)
                if done.next is not None and done.next.pid is None:
                    done.next = None  # the build read nothing: no copy was forked
                if done.status == 0 and stays and done.next is None:
                    done.kept = let_go(app)
    except _HandedOver:
        raise
    except SystemExit as stop:
        done.status = stop.code if isinstance(stop.code, int) else 2
        done.kept = None
    except KeyboardInterrupt:  # Ctrl-C in kb serve's terminal: the server stops too
        done.status, done.kept = 130, None
    except BaseException:  # noqa: BLE001  (a crash must not run the worker's own loop)
        traceback.print_exc()
        done.kept = None
    finally:
        if word is not None:
            word.done()
    if done.next is not None and done.next.pid is not None and done.status != 0:
        done.next.stop()
        done.next = None
    return done


class _HandedOver(BaseException):
    """Raised in the next standby where its build forked it (:class:`_NextStandby`): it
    leaves the build's frames, which are the build's process's to finish, for
    :func:`_stand_by`'s loop. Not an ``Exception``: no handler of the build catches it."""

    def __init__(self, environment: BuildEnvironment, application, build: _BuildBefore) -> None:
        super().__init__()
        self.environment = environment
        self.application = application
        self.build = build


class _NextStandby:
    """The build's ``environment_aside`` (:func:`kb.upstream.sphinx_build.build_update`):
    where Sphinx would pickle the environment, fork the next standby. The copy holds the
    environment as Sphinx would pickle it; it lets go of the build's application and locks,
    and raises :class:`_HandedOver`. The build tells it, through a pipe of their own, when the
    documents' pages are written (the copy begins its work then, not to slow the page) and
    when it has said how it ended (what the copy says comes after that); a build that
    fails stops it."""

    def __init__(self, app) -> None:
        self.app = app
        self.pid: int | None = None
        self._tell: int | None = None

    def fork(self, environment: BuildEnvironment) -> _NextStandby:
        import weakref

        from ..core.output import forget_locks
        from ..upstream.sphinx_build import let_go

        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            self.pid = os.fork()
        except OSError:  # no memory for a copy: this process goes on after its build
            os.close(read)
            os.close(write)
            self.pid = None
            return self
        if self.pid == 0:
            os.close(write)
            forget_locks()  # the build's, which it holds on
            app, self.app = self.app, None
            application = weakref.ref(app)
            raise _HandedOver(let_go(app), application, _BuildBefore(read))
        os.close(read)
        self._tell = write
        return self

    def pages_written(self) -> None:
        self._say(_BuildBefore.PAGES)

    def go_on(self) -> None:
        """The build has said how it ended: the next standby goes on alone."""
        self._say(_BuildBefore.REPORTED)
        self._close()

    def _say(self, word: bytes) -> None:
        if self._tell is not None:
            with contextlib.suppress(OSError):
                os.write(self._tell, word)

    def _close(self) -> None:
        if self._tell is not None:
            os.close(self._tell)
            self._tell = None

    def stop(self) -> None:
        """The build failed (or was stopped): the next standby goes, unused."""
        self._close()
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None

    def wait(self) -> None:
        """Where Sphinx's saved environment is waited for: the next standby goes on alone."""


class _BuildBefore:
    """The next standby's end of its pipe from the build that forked it
    (:class:`_NextStandby`)."""

    PAGES = b"p"
    REPORTED = b"r"

    def __init__(self, read: int) -> None:
        self._read = read
        self._heard = b""

    def _until(self, word: bytes) -> None:
        while word not in self._heard:
            try:
                chunk = os.read(self._read, 16)
            except OSError:
                chunk = b""
            if not chunk:
                if word not in self._heard:
                    self.end_unsaid()
                return
            self._heard += chunk

    def wait_for_its_pages(self) -> None:
        self._until(self.PAGES)

    def wait_for_its_report(self) -> None:
        self._until(self.REPORTED)
        os.close(self._read)

    @staticmethod
    def end_unsaid() -> NoReturn:
        """The build ended without saying how (killed), or this standby cannot go on:
        exit, without a word to the worker, which the build's silence has told already."""
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(2)


class _Word:
    """The worker's word to build, read by a thread of its own as soon as it comes (the
    author has saved), wherever the standby is: loading the environment, making a step
    ahead, or waiting. From then until this build holds its folders (:meth:`done`), a note
    says that a build waits for them (:func:`kb.core.waiting.waiting_said`): the search
    indexer of the build before, which holds them while it indexes that build's pages,
    stops before it merges them, and this build's indexer indexes the newer pages. At 10,000
    posts, saves 3.3 s apart came while that indexer still ran (up to 1 s of its work
    left), on the same two processors as the standby and the build. (The thread runs Python
    only between the standby's calls into C: a save that comes while it unpickles the
    environment, one call of about 0.5 s at 10,000 posts, is said once that call returns.)
    The end of the input (the standby discarded) says nothing."""

    def __init__(self, go, doctreedir: Path, outdir: Path) -> None:
        import threading

        self.told = b""
        self._arrived = threading.Event()
        self._built = threading.Event()
        self._thread = threading.Thread(
            target=self._listen, args=(go, doctreedir, outdir), name="kb-word", daemon=True
        )
        self._thread.start()

    def _listen(self, go, doctreedir: Path, outdir: Path) -> None:
        from ..core.waiting import waiting_said

        try:
            told = go.readline()  # one word per build: the standby may stay for the next
        except (OSError, ValueError):  # closed
            told = b""
        if told:
            try:
                with waiting_said(doctreedir, outdir):
                    self._tell(told)
                    self._built.wait()
            except OSError:  # no note could be written: the build goes on without it
                pass
        self._tell(told)

    def _tell(self, told: bytes) -> None:
        if not self._arrived.is_set():
            self.told = told
            self._arrived.set()

    def arrived(self) -> bool:
        """Whether the word (or the end of the input) has come."""
        return self._arrived.is_set()

    def wait(self) -> bytes:
        """The word; empty at the end of the input."""
        self._arrived.wait()
        return self.told

    def done(self) -> None:
        """This build holds its folders, or will not build: the note goes."""
        self._built.set()
        if self._arrived.is_set():
            self._thread.join()


#: An environment this large (about 4,500 posts) is loaded while the last build writes its
#: other pages: at 10,000 posts (70 MB) the next standby was made about 1.5 s sooner. A smaller
#: one loads after that build and its search indexer, as the standby's work would otherwise
#: slow the indexer on the same processors (at 1000 posts, 7 MB: a search 5-15% later, paired,
#: for a standby made a few tenths of a second sooner).
LOAD_WHILE_THE_LAST_BUILD_FINISHES = 32 * 1024 * 1024

#: Another size in bytes for that choice (0: every environment), read by each standby: the
#: tests drive the early load on sites of a few posts, and a benchmark may compare the two.
LOAD_EARLY_VARIABLE = "KB_SERVE_LOAD_EARLY_BYTES"


def _load_early_from() -> int:
    given = os.environ.get(LOAD_EARLY_VARIABLE, "")
    return int(given) if given.isdigit() else LOAD_WHILE_THE_LAST_BUILD_FINISHES


def _follow_the_last_build(
    outdir: Path,
    doctreedir: Path,
    meanwhile: _WhileTheLastBuildFinishes,
    given: BuildEnvironment | None = None,
) -> None:
    """A standby is made once the build before it has written the documents' pages
    (:class:`Builds`), or is forked by that build (:class:`_NextStandby`): where the
    environment is large, it loads the one that build saves as soon as it is saved (or takes
    the one it was ``given``), does ``meanwhile`` while that build finishes, and takes the
    folders' lock after (:func:`kb.core.output.load_before_locking`); otherwise it starts
    once no build (nor the search indexer it left) holds the folders."""
    from sphinx.application import ENV_PICKLE_FILENAME

    from ..core.output import load_before_locking, wait_until_no_build_holds

    environment = doctreedir / ENV_PICKLE_FILENAME
    try:
        large = environment.stat().st_size >= _load_early_from()
    except OSError:
        large = False  # none yet: the build before makes it
    if large:
        load_before_locking(environment, meanwhile, given=given is not None)
    else:
        wait_until_no_build_holds([outdir, doctreedir])


def work_ahead(
    app, told: Callable[[], bool] = lambda: False, begun: _WhileTheLastBuildFinishes | None = None
) -> None:
    """While the author reads: what the next build can make of the environment before the
    change, step by step (:func:`ahead_steps`, from the first that was not made while the
    last build finished, where it ``begun``), then out of the cycle collector's way. Once
    ``told()`` (the author has saved: the word to build is waiting), it stops after the step
    it is in, and the build makes what was not made ahead, if it needs it. A failure here only
    leaves it to the build too."""
    from ..incremental.collector import freeze_while_waiting, paused_while_working_ahead

    saved = False
    made, paused = (begun.made, begun.paused_collector) if begun else (0, False)
    with paused_while_working_ahead(app, paused_before=paused):
        for step in ahead_steps()[made:]:
            saved = told()
            if saved:
                break
            step(app)
        freeze_while_waiting(app, collect=not saved)  # where the build waits, no walk of the heap


def ahead_steps() -> list[Callable]:
    """What a standby makes ahead, in this order: first what every build takes, each step
    before the ones that spare its build less for the time they take (where Pagefind's
    binary is; the post records, :func:`kb.core.catalog.make_ahead`; what the related lists
    take of each record, :func:`kb.pages.related.make_ahead`; the checks across posts;
    Sphinx's answers before the read, told what changed since by
    :func:`kb.incremental.standby.still_current`; which doctrees and pages are whole,
    :func:`kb.incremental.freshness.check_ahead`, which spares the build only its check of
    the doctrees, the pages' being after its page; what the related lists choose from,
    :func:`kb.pages.related.make_lists_ahead`); last what only a build that changes how often
    a post uses its words takes (the lists made, :func:`kb.pages.related.rank_ahead`): at
    10,000 posts about 0.55 s of the 1.4 s (``benchmarks/standby_ahead.py``), which a save
    that comes sooner does not wait for. Its build makes them where it needs them, from the
    posts and terms before its read. A save that comes while a step runs waits for that step:
    Sphinx's answers and the check of what is whole are two steps (at 10,000 posts about 0.3
    and 0.2 s), so that it waits for at most one of them."""
    from ..incremental.freshness import check_ahead
    from ..pages.related import make_lists_ahead, rank_ahead

    return [
        *environment_steps(),
        _guarded(_answer_ahead, "questions_ahead"),
        _guarded(check_ahead, "checked_ahead"),
        _guarded(make_lists_ahead, "related_ahead"),
        _guarded(rank_ahead, "related_ahead"),
    ]


def environment_steps() -> list[Callable]:
    """The first of :func:`ahead_steps`: those that read the loaded environment, the settings
    and the sources alone, not the last build's pages or records. A standby that loads the
    environment while the last build finishes makes them until that build ends
    (:class:`_WhileTheLastBuildFinishes`)."""
    from ..core.catalog import make_ahead
    from ..core.validation import check_across_posts_ahead
    from ..pages.related import make_ahead as related_ahead
    from ..search.index import find_pagefind_ahead

    return [
        find_pagefind_ahead,
        _guarded(make_ahead, "catalog_ahead"),
        _guarded(related_ahead),  # what it made of each record before failing is right
        _guarded(check_across_posts_ahead, "site_checks_ahead"),
    ]


class _WhileTheLastBuildFinishes:
    """What a standby that loaded the environment early does until the last build ends
    (:func:`kb.core.output.load_before_locking`): :func:`environment_steps`, in order, each
    begun only while that build runs and the author has not saved. :func:`work_ahead` goes on
    from the first it did not make. At 10,000 posts the last build writes its other pages
    for up to about 1.2 s after the standby has loaded (none on a quiet machine, where the
    load ends with the build), and the steps take about 0.45 s."""

    def __init__(self, told: Callable[[], bool]) -> None:
        self._told = told
        self.made = 0
        #: Whether it paused the collector, which stays paused until the work ahead is done.
        self.paused_collector = False

    def __call__(self, app, building: Callable[[], bool]) -> None:
        from ..incremental.collector import pause_for_work_ahead

        self.paused_collector = pause_for_work_ahead(app) or self.paused_collector
        for step in environment_steps():
            if self._told() or not building():
                return
            step(app)
            self.made += 1


def _guarded(step: Callable, *made: str) -> Callable:
    """``step``, whose failure leaves the build state's ``made`` attributes None: the build
    makes those itself, and reports what fails."""

    def guarded(app) -> None:
        from ..core.state import build_state

        try:
            step(app)
        except Exception:  # noqa: BLE001  (the build makes it itself, and reports)
            state = build_state(app)
            for name in made:
                setattr(state, name, None)

    return guarded


def _answer_ahead(app) -> None:
    from sphinx.util.logging import suppress_logging

    from ..core.state import build_state
    from ..upstream.sphinx_read import AnsweredAhead

    # Quietly: the build asks again where the answer may differ, and says what Sphinx says.
    with suppress_logging():
        build_state(app).questions_ahead = AnsweredAhead(app.builder)


class _TellWritten:
    """The standby build's ``pages_written``: say so to the worker at once, then stamp the
    output as the browsers will be shown it (:class:`kb.cli.reloads.Shown`)."""

    def __init__(self, result_fd: int) -> None:
        self.result_fd = result_fd
        self.shown: Shown | None = None
        #: The next standby the build forked, told too (it begins its work then).
        self.next: _NextStandby | None = None

    def written(self, app) -> None:
        from .reloads import Shown, ready_to_show, search_page

        ready_to_show(app)
        os.write(self.result_fd, WRITTEN)
        if self.next is not None:
            self.next.pages_written()
        self.shown = Shown(app.outdir, search_page(app))


def _imported() -> list[str]:
    """What a child tells the worker it has learnt, one name per line (the worker imports
    and compiles them too, :func:`import_what_builds_import`): the modules it imported, the
    lexers it compiled, and the posts' days it read."""
    from ..core.drafts import days_read
    from ..upstream.pygments import compiled_lexers

    lines = sorted(sys.modules)
    lines += [LEXER + name for name in compiled_lexers()]
    lines.append(DRAFT_DAYS + days_read())
    return lines


def _exit_child(status: int, result_fd: int) -> NoReturn:
    """End a forked build: flush its output, send what it learnt (:func:`_imported`), and
    exit without running the worker's cleanup."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
        with os.fdopen(result_fd, "w", encoding="utf-8") as result:
            result.write("\n".join(_imported()))
    os._exit(status)


class Builds:
    """The worker's builds, one request at a time, and the standby made for the next one."""

    def __init__(self, replies, keep_open: tuple[int, ...]) -> None:
        self.replies = replies
        self.keep_open = keep_open
        self.standby: Standby | None = None

    def reply(self, message: dict) -> None:
        self.replies.write(json.dumps(message) + "\n")
        self.replies.flush()

    def wait_prepared(self) -> None:
        if self.standby is not None:
            self.standby.wait_ready()
        pid = self.standby.pid if self.standby is not None else None
        self.reply({"prepared": self.standby is not None, "pid": pid})

    def build(self, arguments: list[str], prepare: bool) -> list[str]:
        """Build with the standby if it was made for ``arguments``, else in a fresh child;
        reply, and return the modules the build imported. With ``prepare``, the standby
        stays for the next build where its build ended well (:attr:`Standby.stays`);
        where standbys do not stay (:data:`STAY_VARIABLE`), the next one is made as soon as
        the standby's build has written the documents' pages, and on a large site loads the
        environment the build saves while the build writes the rest
        (:func:`_follow_the_last_build`)."""
        standby, self.standby = self.standby, None
        built = None
        if standby is not None and standby.arguments == arguments:

            def written() -> None:
                self.reply({"written": True})
                if prepare and not _stays():  # the standby's pipes are the worker's own
                    keep_open = (*self.keep_open, standby.result_fd, standby.go_fd)
                    self.standby = Standby(arguments, keep_open)

            built = standby.build(written)
            if standby.stays and prepare:
                self.standby = standby
            elif standby.stays:
                standby.discard()
        elif standby is not None:
            standby.discard()
        prepared = built is not None
        if built is None:
            built = (*build_in_child(arguments, keep_open=self.keep_open), True)
        status, modules, changed = built
        self.reply({"status": status, "prepared": prepared, "changed": changed})
        return modules

    def prepare(self, arguments: list[str]) -> None:
        """Make the next build's standby, unless the last build made it already."""
        if self.standby is None:
            self.standby = Standby(arguments, keep_open=self.keep_open)

    def discard(self) -> None:
        if self.standby is not None:
            self.standby.discard()
            self.standby = None


def serve_requests(request_fd: int, reply_fd: int, imported: ImportedFiles) -> None:
    """Answer ``kb serve``'s requests until it closes its end; and where it has gone while a
    build ran (killed, or its terminal closed), end quietly, once the build is over: there is
    no one to answer, and a traceback would land in the author's terminal."""
    try:
        _answer(request_fd, reply_fd, imported)
    except BrokenPipeError:
        return


def _answer(request_fd: int, reply_fd: int, imported: ImportedFiles) -> None:
    with (
        os.fdopen(request_fd, "r", encoding="utf-8") as requests,
        os.fdopen(reply_fd, "w", encoding="utf-8") as replies,
    ):
        builds = Builds(replies, keep_open=(request_fd, reply_fd))
        try:
            for line in requests:
                if imported.changed():
                    builds.reply({"stale": True})
                    return
                request = json.loads(line)
                if "arguments" not in request:  # {"wait": "prepared"}
                    builds.wait_prepared()
                    continue
                prepare = request.get("prepare", True)
                modules = builds.build(request["arguments"], prepare)
                # While the author reads the page: what this build imported and compiled, for
                # the next one, and the next build's application.
                if import_what_builds_import(modules):
                    imported.update()
                    gc.collect()
                    gc.freeze()
                if prepare:
                    builds.prepare(request["arguments"])
        finally:
            builds.discard()


def main(argv: list[str]) -> int:
    request_fd, reply_fd, confdir = int(argv[0]), int(argv[1]), Path(argv[2])
    try:
        warm_up(confdir)
        imported = ImportedFiles()
        # What the warm-up loaded lives as long as the worker: keep the collector off it, in
        # the worker and in every child.
        gc.collect()
        gc.freeze()
        serve_requests(request_fd, reply_fd, imported)
    except KeyboardInterrupt:  # Ctrl-C in kb serve's terminal reaches the worker too
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
