"""Builds forked from the test process, as ``kb serve`` forks its rebuilds.

Each build is ``sphinx-build``'s ``build_main`` in a child process: the imports of Sphinx, the
theme and kb are paid once per test module, a build can stop itself at a crash point
(``KB_CRASH_AT``, :func:`kb.core.fileio.crash_point`) with SIGKILL or SIGTERM, and its exit
status (negative: the signal) comes back.
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import traceback
from pathlib import Path

from sphinx.cmd.build import build_main

from kb.cli.buildworker import warm_up

ROOTS = Path(__file__).parent.parent / "roots"
ENV = {"SOURCE_DATE_EPOCH": "2000000000"}  # every post published, dates fixed

warm_up(ROOTS / "test-listings")  # Sphinx, furo, MyST, ablog and kb, once for every build


def sphinx(src: Path, out: Path, extra=(), crash: str | None = None) -> int:
    """Build ``src`` into ``out/html`` in a forked child; its exit status (negative: the signal
    that stopped it). Without ``crash`` the build must succeed without a traceback."""
    arguments = ["-q", "-b", "html", *extra, "-d", str(out / "doctrees"), str(src), str(out)]
    arguments[-1] = str(out / "html")
    log = out.parent / f"{out.name}.log"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w", encoding="utf-8") as handle:
        pid = os.fork()
        if pid == 0:  # the child: one build, then exit without running pytest's cleanup
            status = 2
            try:
                os.environ.update(ENV)
                # A SIGTERM crash point must stop the build even where the process running the
                # suite ignores or blocks SIGTERM, as CI's does (children inherit both):
                # the disposition a build started from a shell gets.
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
                if crash:
                    os.environ["KB_CRASH_AT"] = crash
                os.dup2(handle.fileno(), 1)
                os.dup2(handle.fileno(), 2)
                # pytest may have replaced the streams: Sphinx and tracebacks go to the log.
                sys.stdout = sys.stderr = open(handle.fileno(), "w", closefd=False)  # noqa: SIM115
                status = build_main(arguments)
            except BaseException:  # noqa: BLE001  (the exit status says it)
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        _, wait_status = os.waitpid(pid, 0)
    status = os.waitstatus_to_exitcode(wait_status)
    if crash is None:
        output = log.read_text(encoding="utf-8")
        assert status == 0, output
        assert "Traceback" not in output, output
    return status


def files(html: Path) -> dict[str, str]:
    """Every file under ``html`` and the SHA-256 of its bytes."""
    return {
        path.relative_to(html).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(html.rglob("*"))
        if path.is_file()
    }
