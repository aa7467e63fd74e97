"""Helpers for the authoring tests: run `kb check` and a build, and fingerprint a folder."""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
from pathlib import Path

from sphinx.testing.util import SphinxTestApp

from kb.cli import main

ROOTS = Path(__file__).parent / "roots"
BAD = ROOTS / "test-badinput"
GOOD = ROOTS / "test-authoring"

_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<message>.*)$")
_WARNING = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+): WARNING: (?P<message>.*) \[(?P<type>[\w.-]+)\]$"
)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def snapshot(root: Path) -> dict[str, str]:
    """A digest of every file under ``root``: compare two to prove nothing was touched."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "_build" not in p.parts
    }


def run_check(root: Path, *args: str) -> tuple[int, list[tuple[str, int, str]], str]:
    """Run `kb check` inside ``root``; its exit status, its problems and its summary line."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["check", *args])
    problems = [_LINE.match(line).groups() for line in out.getvalue().splitlines()]
    return status, [(path, int(line), message) for path, line, message in problems], err.getvalue()


def build(
    srcdir: Path, listeners=(), **options
) -> tuple[SphinxTestApp, list[tuple[str, int, str, str]]]:
    """Build ``srcdir`` with Sphinx's test app (``options``: its ``confoverrides``,
    ``builddir``, …; ``listeners``: (event, handler, priority) to connect); its warnings as
    (path, line, message, type)."""
    app = SphinxTestApp("html", srcdir=srcdir, warning=io.StringIO(), **options)
    for event, handler, priority in listeners:
        app.connect(event, handler, priority=priority)
    try:
        app.build()
    finally:
        app.cleanup()
    warnings = []
    for line in _ANSI.sub("", app.warning.getvalue()).splitlines():
        found = _WARNING.match(line)
        assert found, f"a warning without a location: {line}"
        path = Path(found["path"]).relative_to(srcdir).as_posix()
        warnings.append((path, int(found["line"]), found["message"], found["type"]))
    return app, warnings


def build_output(srcdir: Path, **options) -> tuple[Path, list[tuple[str, int, str, str]]]:
    """:func:`build`'s output folder and warnings: what a module's ``built`` fixture keeps."""
    app, warnings = build(srcdir, **options)
    return Path(app.outdir), warnings
