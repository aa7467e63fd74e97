"""Building a copy of a test root, more than once in one test (incremental builds)."""

from __future__ import annotations

import shutil
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
