"""A build that waits for its folders says so, to a process that holds them for a build before.

``kb serve``'s search indexer outlives the build that started it: it holds the output and
doctree folders until the new bundle is in place (:mod:`kb.core.output`,
:mod:`kb.search.worker`). When the author saved again before it had finished, the next build
waited for all of it, about a second of merging at 10,000 posts on two processors, and then
indexed the same pages again: at saves about 3 s apart every save paid for an index that the
next one replaced.

Now a build that finds the folders held says, while it waits, which output folder it is going
to write (:func:`waiting_said`): a note in the doctree folder's ``kb-building`` folder, in a file
it holds a lock on. The indexer looks for the note between its steps (before each Pagefind run
and before the merge, :func:`build_waiting`) and gives up where the note names its own output
folder: what it leaves is what a stopped indexer leaves, which the waiting build's indexer
repairs, and the search page keeps naming the bundle it named. A note whose writer has gone
(killed while it waited) holds no lock, and says nothing.

No Sphinx here: the indexer imports this module, and starts without Sphinx's logging
(``tests/test_search_shards.py``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks, so no builds waiting for each other
    fcntl = None  # type: ignore[assignment]  # mypy types a module name as never None

#: The folder in the doctree folder whose lock a build holds and does not hand on
#: (:mod:`kb.core.output`); the note is kept in it, out of the files a standby compares
#: (:func:`kb.incremental.standby.state_stamps`).
BUILDING = "kb-building"
#: The note's name in :data:`BUILDING`.
WAITING_NOTE = "waiting"


class Superseded(Exception):
    """Raised where a process that holds the folders for an earlier build gives its work up
    to a build that waits for them (:func:`build_waiting`)."""


def stop_if(superseded: Callable[[], bool]) -> None:
    """Raise :class:`Superseded` where ``superseded()`` says so."""
    if superseded():
        raise Superseded("a build waits for the folders")


def _note(doctreedir: Path) -> Path:
    return Path(doctreedir) / BUILDING / WAITING_NOTE


def _said(outdir: Path) -> bytes:
    return os.fsencode(os.path.realpath(outdir))


@contextlib.contextmanager
def waiting_said(doctreedir: Path, outdir: Path) -> Iterator[None]:
    """While in it: a note, locked by this process, that a build waits to write ``outdir``.

    The note is written under another name and renamed into place once locked and whole, so a
    reader never finds it empty or unlocked while its writer waits."""
    if fcntl is None:
        yield
        return
    note = _note(doctreedir)
    note.parent.mkdir(parents=True, exist_ok=True)
    partial = note.with_name(f"{WAITING_NOTE}.{os.getpid()}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(partial, flags, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        os.write(descriptor, _said(outdir))
        os.replace(partial, note)
        yield
    finally:
        with contextlib.suppress(OSError):
            # Only its own: another build may have said since that it waits too.
            if os.stat(note).st_ino == os.fstat(descriptor).st_ino:
                note.unlink()
        partial.unlink(missing_ok=True)
        os.close(descriptor)  # and its lock


def build_waiting(doctreedir: Path, outdir: Path) -> bool:
    """Whether a build is waiting now for the folders, to write ``outdir``."""
    if fcntl is None:
        return False
    try:
        descriptor = os.open(_note(doctreedir), os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # its writer holds it: it waits
        else:
            return False  # left by a build that has gone
        said = os.read(descriptor, 4096)
    finally:
        os.close(descriptor)
    return said == _said(outdir)
