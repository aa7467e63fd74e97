"""Building a copy of a test root, more than once in one test (incremental builds)."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

ROOTS = Path(__file__).parent / "roots"


def copy_root(name: str, dest: Path) -> Path:
    """A writable copy of ``tests/roots/test-<name>`` (no build output)."""
    shutil.copytree(ROOTS / f"test-{name}", dest, ignore=shutil.ignore_patterns("_build"))
    return dest


def build(make_app, srcdir: Path, buildername: str = "html", **kwargs):
    """Build ``srcdir`` (output in ``srcdir/_build``) and leave no state for the next build.

    A second Sphinx app in one process warns about node classes registered twice unless the
    first one's global state is cleaned up (kb starts every build with fresh ablog state).
    """
    app = make_app(buildername, srcdir=srcdir, **kwargs)
    try:
        app.build()
    finally:
        app.cleanup()
    return app


class BuiltOnce:
    """A copy of a test root built once (by ``build``), then given to each test as it was.

    Restored at the same path each time, with the files' times, so the saved environment and
    the build's records (which name the folder) hold for it as they would after the build:
    what a test starts from is the built site, without building it again."""

    def __init__(self, name: str, home: Path, build) -> None:
        self.site = copy_root(name, home / "site").resolve()
        build(self.site)
        self.pristine = home / "pristine"
        shutil.copytree(self.site, self.pristine, symlinks=True)

    def restore(self) -> Path:
        shutil.rmtree(self.site)
        shutil.copytree(self.pristine, self.site, symlinks=True)
        return self.site


@contextlib.contextmanager
def warm_worker(site: Path) -> Iterator:
    """kb serve's warm worker (:class:`kb.cli.serve.WarmWorker`) for ``site``, closed after."""
    from kb.cli.serve import WarmWorker

    worker = WarmWorker(site)
    try:
        yield worker
    finally:
        worker.close()
