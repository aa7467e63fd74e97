"""Work that outlives the build that starts it, in a forked copy of the build's process.

``kb serve``'s search indexer (:func:`kb.search.index.index_in_background`) runs after the
build returns. Started as ``python -m kb.search.worker`` it paid an interpreter's start and
its imports (about 0.15 s on 2 cores) on the way from a save to the search; a copy of the
process that already has them starts in a few milliseconds.

The copy is made as a daemon is: forked twice, so that it is nobody's child to wait for
(the build never reaps it, and it leaves no zombie behind a long-lived process such as a test
run), in a session of its own (a Ctrl-C in ``kb serve``'s terminal stops the server, not a
bundle half written: as ``start_new_session`` did). It keeps only the descriptors it is given
(the build's locks, the pipe on which the build says it succeeded) and writes its output to a
log: a descriptor it kept by accident, the write end of that pipe above all, would keep the
build's word from ever ending.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from .fileio import count_crash_points_afresh


def run_detached(work: Callable[[], int], keep: list[int], log: Path) -> bool:
    """Run ``work()`` in a detached copy of this process that keeps only the descriptors in
    ``keep`` and writes to ``log``. False if no copy could be made (no memory for one): the
    caller then starts the work another way."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()  # else the copy would write the build's pending output again
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid == 0:
        _first_copy(work, keep, log)  # never returns
    _, status = os.waitpid(pid, 0)  # the first copy exits as soon as it has forked the second
    return os.waitstatus_to_exitcode(status) == 0


def _first_copy(work: Callable[[], int], keep: list[int], log: Path):
    status = 1
    try:
        os.setsid()
        if os.fork() == 0:
            _second_copy(work, keep, log)  # never returns
        status = 0
    except BaseException:  # noqa: BLE001  (the build reports that no copy ran)
        status = 1
    finally:
        os._exit(status)


def _second_copy(work: Callable[[], int], keep: list[int], log: Path):
    status = 1
    try:
        # Copies of the build's memory stay shared with it: a collection would touch (and
        # copy) every page of it.
        gc.disable()
        written = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(written, 1)
        os.dup2(written, 2)
        _close_all_but([0, 1, 2, *keep])
        # Python's streams too: the build's may be objects of their own (a test run's
        # capture, Sphinx's held log), which nothing reads in the copy.
        log_stream = open(1, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        sys.stdout = sys.stderr = log_stream  # until the copy exits (flushed there)
        count_crash_points_afresh()
        status = work()
    except BaseException:  # noqa: BLE001  (into the log: there is no build to report it)
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(status)  # not the build's cleanup, nor its buffered output


def _close_all_but(keep: list[int]) -> None:
    """Close every descriptor of this process but those in ``keep``."""
    start = 0
    for kept in sorted(set(keep)):
        # Never an empty range: closerange(0, 0) closes every descriptor (Python 3.11 asks
        # Linux's close_range for 0 to -1, which it reads as 0 to the largest).
        if start < kept:
            os.closerange(start, kept)
        start = kept + 1
    os.closerange(start, max(start + 1, os.sysconf("SC_OPEN_MAX")))
