"""Writing build files so that a reader never sees half of one.

Pagefind may be reading a search record through a staging link while the next build writes
it again (``kb serve`` indexes in the background), and parallel writers may draw the same
chart: each file is written under another name and renamed into place.

:func:`crash_point` lets the tests stop a build at a chosen write (``tests/hostile``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path


def write_atomically(path: Path, text: str, durable: bool = False) -> None:
    """Write ``text`` to ``path`` as a new file that replaces the old one whole; with
    ``durable``, on disk (``fsync``) before it replaces it."""
    _replace(path, text.encode("utf-8"), durable)


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a file created, renamed or removed in it) to disk."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_if_changed(path: Path, data: str | bytes) -> bool:
    """Write ``data`` atomically unless the file already holds exactly it; True if written.

    Leaving an unchanged file alone keeps its time stamp, so servers and rsync see no change.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if holds_exactly(path, raw):
        return False
    _replace(path, raw)
    return True


def holds_exactly(path: Path, raw: bytes) -> bool:
    """Whether the file at ``path`` is there with exactly the bytes ``raw`` (its size is
    compared first, so a changed file is seldom read)."""
    try:
        return path.stat().st_size == len(raw) and path.read_bytes() == raw
    except OSError:
        return False


def _replace(path: Path, data: bytes, durable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
    try:
        with open(partial, "wb") as handle:
            crash_point("partial")
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


class BackgroundWrites:
    """Atomic writes carried out by a few threads while the build goes on.

    Renaming a new file over an old one makes ext4 flush the new file's data first
    (``auto_da_alloc``): about 1 ms a page, which adding a post paid about 1600 times in a row
    (every page's sidebar lists the newest posts) at 1000 posts. The file system does that
    work with the lock that keeps Python to one thread released, so a few threads overlap it.
    :meth:`wait` returns once every write is done, and raises the first error of any.
    """

    THREADS = 4

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[Future] = []

    def write(self, path: str | Path, data: str | bytes) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.THREADS, thread_name_prefix="kb-write")
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self._pending.append(self._pool.submit(_background_replace, Path(path), raw))

    def wait(self) -> None:
        pending, self._pending = self._pending, []
        try:
            for write in pending:
                write.result()
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None


def _background_replace(path: Path, data: bytes) -> None:
    crash_point("background")
    _replace(path, data)


# -- Stopping a build on purpose (tests) ---------------------------------------------------------

#: ``KB_CRASH_AT=<stage>:<n>[:<how>]``: the ``n``-th time the build passes ``crash_point(stage)``
#: it stops, ``how`` being ``KILL`` (SIGKILL, the default), ``TERM`` (SIGTERM) or ``RAISE`` (an
#: exception). Read at each crash point (a dictionary lookup), so that a build forked from a
#: warm process (kb serve's worker, the tests) reads its own.
CRASH_VARIABLE = "KB_CRASH_AT"
_crash_counts: dict[str, int] = {}
_crash_lock = threading.Lock()


class CrashPoint(RuntimeError):
    """The exception ``KB_CRASH_AT=<stage>:<n>:RAISE`` raises."""


def crashing() -> bool:
    """Whether this process was started to stop at a crash point."""
    return bool(os.environ.get(CRASH_VARIABLE))


def count_crash_points_afresh() -> None:
    """In a copy of a process that carries on the build's work as its own process (kb serve's
    indexer): count the stages from 0, as a process started anew does."""
    _crash_counts.clear()


def crash_point(stage: str) -> None:
    """A place where ``tests/hostile/test_interrupted.py`` may stop the build."""
    wanted = os.environ.get(CRASH_VARIABLE)
    if not wanted or not wanted.startswith(stage + ":"):
        return
    count, _, how = wanted[len(stage) + 1 :].partition(":")
    with _crash_lock:
        _crash_counts[stage] = seen = _crash_counts.get(stage, 0) + 1
    if seen != int(count or 1):
        return
    if how == "RAISE":
        raise CrashPoint(f"{CRASH_VARIABLE}={wanted}")
    os.kill(os.getpid(), signal.SIGTERM if how == "TERM" else signal.SIGKILL)


def file_version(info: os.stat_result) -> tuple[int, int, int]:
    """A file's identity and version as a build goes by them: inode, modification time (ns)
    and size. A save gives a new one (a new inode when an editor renames a new file over the
    old one); a save within the same tick of the file system's clock and of the same size
    does not, as for Sphinx, which compares modification times."""
    return (info.st_ino, info.st_mtime_ns, info.st_size)


def file_stamp(info: os.stat_result) -> tuple[int, int, int, int]:
    """:func:`file_version` and the change time: a file made unreadable (chmod) keeps its
    version, not its stamp."""
    return (*file_version(info), info.st_ctime_ns)


def walk_files(
    root: str | os.PathLike[str], descend: Callable[[os.DirEntry, str], bool]
) -> Iterator[tuple[str, os.DirEntry]]:
    """Every entry under ``root`` that is not a folder, with its path relative to ``root``
    (``/``-separated), found with one ``scandir`` per folder; a folder is walked into when
    ``descend(entry, relative_path)`` says so (links to folders never are). A folder that
    cannot be read is skipped, as a build skips it."""
    pending = [(os.fspath(root), "")]
    while pending:
        folder, relative = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = relative + entry.name
            if not entry.is_dir(follow_symlinks=False):
                yield name, entry
            elif descend(entry, name):
                pending.append((entry.path, name + "/"))


def file_times(root: str | os.PathLike[str], skipped: frozenset[str]) -> list[str]:
    """Every file under ``root`` but those of folders named in ``skipped``, as
    ``relative/path:modification time in ns``, sorted: what changes when a file is added,
    removed, renamed or saved (one ``scandir`` a folder, with :func:`walk_files`)."""
    files = walk_files(root, lambda entry, _: entry.name not in skipped)
    return sorted(f"{name}:{entry.stat().st_mtime_ns}" for name, entry in files)
