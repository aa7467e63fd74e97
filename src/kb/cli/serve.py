"""``kb serve``: a live preview on 127.0.0.1 that rebuilds on save and reloads the browser.

It is sphinx-autobuild's server (its file watcher, the reload socket and the script it adds to
each page) with kb's way of building: each rebuild is forked from a warm worker
(:mod:`.buildworker`) that has imported Sphinx and every extension once, instead of a new
``python -m sphinx`` that imports them again on every save, and that makes the next build's
application while the author reads the page. ``--cold`` builds the old way; ``--unprepared``
forks each build from the worker without making its application ahead (both for comparison).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..site import Site

#: Folders whose changes never start a rebuild: sphinx-autobuild's list and ours.
IGNORED = (
    *("_build", "tests", "node_modules", "venv", ".venv", ".git", ".hg", ".svn", ".idea"),
    *(".vscode", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".nox", ".tox", ".pytype"),
)


def build_folders(root: Path, drafts: bool = False) -> tuple[Path, Path]:
    """The output and doctree folders of a build of the site at ``root``.

    ``make html`` and ``kb serve`` share ``_build/html`` and ``_build/doctrees``: one state per
    output folder, so any sequence of the two leaves what a clean build leaves. A preview with
    drafts is another site (other pages exist), so it has folders of its own.
    """
    base = root / "_build" / ("drafts" if drafts else "")
    return base / "html", base / "doctrees"


def sphinx_arguments(root: Path, drafts: bool = False) -> list[str]:
    """``sphinx-build``'s arguments for one of kb serve's rebuilds."""
    outdir, doctrees = build_folders(root, drafts)
    return [
        "-b",
        "html",
        str(root),
        str(outdir),
        "-d",
        str(doctrees),
        "-n",
        # The edited page first; the search index follows a few seconds later.
        "-D",
        "kb_search_defer=1",
        *(["-D", "kb_drafts=1"] if drafts else []),
    ]


class WorkerGone(Exception):
    """The warm worker exited, or answered that its imported code is out of date."""


class WarmWorker:
    """The server's end of :mod:`.buildworker`."""

    def __init__(self, confdir: Path) -> None:
        request_read, self._request_write = os.pipe()
        self._reply_read, reply_write = os.pipe()
        command = [sys.executable, "-m", "kb.cli.buildworker"]
        self.process = subprocess.Popen(
            [*command, str(request_read), str(reply_write), str(confdir)],
            pass_fds=(request_read, reply_write),
            stdin=subprocess.DEVNULL,
        )
        os.close(request_read)
        os.close(reply_write)
        self._requests = os.fdopen(self._request_write, "w", encoding="utf-8")
        self._replies = os.fdopen(self._reply_read, "r", encoding="utf-8")
        #: Whether the last build was the one the worker had prepared ahead of the change.
        self.last_prepared = False
        #: The standby's process, as the last :meth:`wait_prepared` found it.
        self.standby_pid: int | None = None
        #: Whether the last build changed the output after it said the pages were written
        #: (or did not say so): the browsers are to reload at its end (:mod:`.reloads`).
        self.last_changed = True

    def build(
        self,
        arguments: list[str],
        prepare: bool = True,
        pages_written: Callable[[], None] | None = None,
    ) -> int:
        """Build, calling ``pages_written`` when the documents' pages are on disk (if the
        prepared application builds); then, unless ``prepare`` is False, make the next
        build's application while waiting for the next change
        (:class:`kb.cli.buildworker.Standby`)."""
        try:
            request = {"arguments": arguments, "prepare": prepare}
            self._requests.write(json.dumps(request) + "\n")
            self._requests.flush()
            reply = self._reply()
            if reply.get("written"):
                if pages_written is not None:
                    pages_written()
                reply = self._reply()
        except OSError as error:
            raise WorkerGone(str(error)) from error
        if "status" not in reply:
            raise WorkerGone("stale" if reply.get("stale") else "exited")
        self.last_prepared = bool(reply.get("prepared"))
        self.last_changed = bool(reply.get("changed", True))
        return reply["status"]

    def _reply(self) -> dict:
        line = self._replies.readline()
        return json.loads(line) if line else {}

    def wait_prepared(self) -> bool:
        """Wait until the next build's application is made; False if none is being made.
        :attr:`standby_pid` is then the process that made it."""
        try:
            self._requests.write(json.dumps({"wait": "prepared"}) + "\n")
            self._requests.flush()
            line = self._replies.readline()
        except OSError as error:
            raise WorkerGone(str(error)) from error
        reply = json.loads(line) if line else {}
        self.standby_pid = reply.get("pid")
        return bool(reply.get("prepared"))

    def close(self) -> None:
        for stream in (self._requests, self._replies):
            with contextlib.suppress(OSError):
                stream.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Rebuilds:
    """Called with the changed paths: rebuild, through the warm worker unless ``cold``."""

    def __init__(
        self, root: Path, arguments: list[str], url: str, cold: bool = False, prepare: bool = True
    ) -> None:
        self.root, self.arguments, self.url, self.cold = root, arguments, url, cold
        self.prepare = prepare
        self.worker: WarmWorker | None = None

    def __call__(
        self,
        *,
        changed_paths: Sequence[Path] = (),
        pages_written: Callable[[], None] | None = None,
    ) -> bool:
        """Rebuild; ``pages_written`` is called as soon as the changed documents' pages are
        written. True if the browsers are to reload at the end (:mod:`.reloads`): always,
        unless ``pages_written`` was called and the rest of the build changed no file a page
        shows."""
        shown = [_shown(path, self.root) for path in changed_paths[:5] if path.exists()]
        if shown:
            _say(f"Detected changes ({', '.join(shown)})")
        _say("Rebuilding..." if changed_paths else "Starting initial build")
        start = time.perf_counter()
        told: list[float] = []

        def written() -> None:
            told.append(time.perf_counter() - start)
            if pages_written is not None:
                pages_written()

        status = self.build(written)
        seconds = time.perf_counter() - start
        early = f" (the changed pages in {told[0]:.2f} s)" if told else ""
        if status == 0:
            _say(f"Built in {seconds:.2f} s{early}; serving on {self.url}")
        else:
            _say(
                f"The build failed (exit status {status}): fix what it reports above and save"
                f" again. {self.url} still serves the last pages that built."
            )
        return not told or self.worker is None or self.worker.last_changed

    def build(self, pages_written: Callable[[], None] | None = None) -> int:
        if self.cold:
            return self._cold_build()
        for _ in range(2):  # a stale or dead worker is replaced once, then built cold
            if self.worker is None:
                self.worker = WarmWorker(self.root)
            try:
                return self.worker.build(self.arguments, self.prepare, pages_written)
            except WorkerGone as gone:
                self.worker.close()
                self.worker = None
                if str(gone) == "stale":
                    _say("Code that the builds import has changed: starting a fresh worker")
        return self._cold_build()

    def _cold_build(self) -> int:
        command = [sys.executable, "-m", "sphinx", *self.arguments]
        return subprocess.run(command, check=False).returncode

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _say(message: str) -> None:
    print(f"[kb serve] {message}", file=sys.stderr, flush=True)


def _whole_files_class():
    from starlette.datastructures import Headers
    from starlette.exceptions import HTTPException
    from starlette.responses import FileResponse, Response
    from starlette.staticfiles import NotModifiedResponse, StaticFiles

    class WholeFiles(StaticFiles):
        """Starlette's static files, each sent from one read of one opened file.

        Starlette takes a file's size when it finds the file and opens it again to send it: a
        rebuild that renames a new page over the old one in between made the server announce
        one length and send another (``IncompleteRead`` in the browser or a test). Every page
        and bundle file is renamed into place whole (kb.core.output, kb.search.bundle), so
        the bytes read here are the old file or the new one, and the length is theirs."""

        def file_response(self, full_path, stat_result, scope, status_code: int = 200):
            try:
                with open(full_path, "rb") as handle:
                    opened = os.fstat(handle.fileno())
                    data = handle.read()
            except OSError as error:  # gone between the lookup and the read
                raise HTTPException(status_code=404) from error
            described = FileResponse(full_path, status_code=status_code, stat_result=opened)
            if self.is_not_modified(described.headers, Headers(scope=scope)):
                return NotModifiedResponse(described.headers)
            headers = {
                key: value
                for key, value in described.headers.items()
                if key.lower() != "content-length"
            }
            return Response(data, status_code=status_code, headers=headers)

    return WholeFiles


def serve(
    site: Site, port: int, drafts: bool = False, cold: bool = False, prepare: bool = True
) -> int:
    """Build the site, then serve it and rebuild on every save until Ctrl-C."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Mount, WebSocketRoute

    from ..upstream.sphinx_autobuild import ignore_filter, reload_middleware, watcher_class

    root = site.root.resolve()
    outdir, doctrees = build_folders(root, drafts)
    outdir.mkdir(parents=True, exist_ok=True)
    url_host = f"127.0.0.1:{port}"
    arguments = sphinx_arguments(root, drafts)
    rebuilds = Rebuilds(root, arguments, f"http://{url_host}/", cold, prepare)
    ignore = ignore_filter([*(root / name for name in IGNORED), outdir, doctrees])
    watcher = watcher_class()([root], ignore, change_callback=rebuilds)
    app = Starlette(
        routes=[
            WebSocketRoute("/websocket-reload", watcher, name="reload"),
            Mount("/", app=_whole_files_class()(directory=outdir, html=True), name="static"),
        ],
        middleware=[reload_middleware(url_host)],
        lifespan=watcher.lifespan,
    )
    try:
        rebuilds(changed_paths=())
        _say("Waiting for changes...")
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    except KeyboardInterrupt:
        pass
    finally:
        rebuilds.close()
    return 0
