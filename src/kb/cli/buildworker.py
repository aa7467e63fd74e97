"""A warm process for ``kb serve``'s rebuilds: import once, fork a fresh build for each change.

A rebuild as its own ``python -m sphinx`` pays Python's start-up and the imports of Sphinx,
docutils, MyST, ablog, furo and kb on every save: about 1 s on a quiet 2-core machine, more
than the rest of a one-post rebuild. This worker imports all of that once, then forks a child
for each build. The child starts with every module loaded and none of the state of an earlier
build (each build runs in a new child, as each ``sphinx-build`` runs in a new process), runs
Sphinx's own ``build_main`` and exits with its status.

Protocol (one JSON object per line, over two pipes whose descriptors the server passes on the
command line): the server sends ``{"arguments": [...]}`` (``sphinx-build``'s arguments); the
worker answers ``{"status": N}`` when the build has finished, or ``{"stale": true}`` and exits
when a module it imported has changed on disk since (kb's own source while someone works on
it, or a package upgraded): the server then starts a new worker, which imports the new code.
End of input (the server has gone) ends the worker.

Run as ``python -m kb.cli.buildworker REQUEST_FD REPLY_FD CONFDIR``.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.metadata
import json
import os
import sys
import traceback
from pathlib import Path


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
    try:
        extensions = Config.read(confdir, overrides={}, tags=Tags()).extensions
    except Exception:  # noqa: BLE001  (the build itself reports a broken conf.py)
        return
    for name in extensions:
        if isinstance(name, str):
            _import_quietly(name)


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
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
                with os.fdopen(modules_write, "w", encoding="utf-8") as modules:
                    modules.write("\n".join(sorted(sys.modules)))
            os._exit(status)
    os.close(modules_write)
    with os.fdopen(modules_read, "r", encoding="utf-8") as modules:
        imported = modules.read().split()  # until the child exits: a full pipe never blocks it
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status), imported


def import_what_builds_import(names: list[str]) -> bool:
    """Import the modules a build imported that this process has not; True if there were any."""
    missing = [name for name in names if name not in sys.modules]
    for name in missing:
        _import_quietly(name)
    return bool(missing)


def serve_requests(request_fd: int, reply_fd: int, imported: ImportedFiles) -> None:
    with (
        os.fdopen(request_fd, "r", encoding="utf-8") as requests,
        os.fdopen(reply_fd, "w", encoding="utf-8") as replies,
    ):
        for line in requests:
            if imported.changed():
                replies.write(json.dumps({"stale": True}) + "\n")
                replies.flush()
                return
            arguments = json.loads(line)["arguments"]
            status, modules = build_in_child(arguments, keep_open=(request_fd, reply_fd))
            replies.write(json.dumps({"status": status}) + "\n")
            replies.flush()
            # While the author reads the page: what this build imported, for the next one.
            if import_what_builds_import(modules):
                imported.update()
                gc.collect()
                gc.freeze()


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
