"""sphinx-autobuild's server, reused by ``kb serve`` (:mod:`kb.cli.serve`).

sphinx-autobuild documents its command, not its modules: its file watcher
(``sphinx_autobuild.server.RebuildServer``), its filter of ignored paths and the middleware
that adds the reload script to each page are used here as its own ``__main__`` uses them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

#: How long (ms) the watcher waits for more changes before it reports those it saw
#: (watchfiles' ``step``). Its default, 50 ms, made the rebuild start 75-100 ms after the save
#: (two steps: one to see the change, one with nothing new); a save, an editor's write and
#: rename or a tool's few files at once, lands within a few milliseconds, and a change that
#: comes later starts one more rebuild, as any later save does.
WATCH_STEP_MS = 10


def watcher_class():
    """sphinx-autobuild's watcher, rebuilding in a thread of this process (where the warm
    worker's pipes are) rather than in a new process per change; the server keeps answering
    while a build runs, as before. The browsers reload when the rebuild calls its
    ``pages_written`` argument, and when it ends if it returns True (``kb.cli.reloads``).

    ``RebuildServer.watch`` is replaced; it reads the server's undocumented ``paths``,
    ``ignore``, ``change_callback`` and ``flag`` (the event that tells the browsers to reload),
    as sphinx-autobuild's own ``watch`` does.
    """
    from sphinx_autobuild.server import RebuildServer
    from watchfiles import awatch

    class Watcher(RebuildServer):
        async def watch(self) -> None:
            loop = asyncio.get_running_loop()

            def reload() -> None:  # from the rebuild's thread
                loop.call_soon_threadsafe(self.flag.set)

            async for changes in awatch(
                *self.paths,
                watch_filter=lambda _, path: not self.ignore(path),
                step=WATCH_STEP_MS,
            ):
                changed = [Path(path).resolve() for _, path in changes]
                rebuild = self.change_callback
                if await asyncio.to_thread(rebuild, changed_paths=changed, pages_written=reload):
                    self.flag.set()

    return Watcher


def ignore_filter(paths: list[Path]):
    """sphinx-autobuild's filter of the paths whose changes start no rebuild
    (``sphinx_autobuild.filter.IgnoreFilter``: these paths, no regular expressions)."""
    from sphinx_autobuild.filter import IgnoreFilter

    return IgnoreFilter(paths, [])


def reload_middleware(ws_url: str):
    """The Starlette middleware that adds sphinx-autobuild's reload script to each page
    (``sphinx_autobuild.middleware.JavascriptInjectorMiddleware``), its web socket at
    ``ws_url``."""
    from sphinx_autobuild.middleware import JavascriptInjectorMiddleware
    from starlette.middleware import Middleware

    return Middleware(JavascriptInjectorMiddleware, ws_url=ws_url)
