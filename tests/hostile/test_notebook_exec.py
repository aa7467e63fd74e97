"""Only the site's opt-in runs a notebook's code (issue 31, item 3).

tests/roots/test-hostile-notebooks holds notebooks whose metadata (an .ipynb) or front matter
(a text notebook) carries MyST-NB's own settings (``mystnb: {execution_mode: force}``, which
overrode every ``nb_*`` of conf.py) or jupyter-cache's (``execution``), a notebook page that
is no post, and one text notebook the site lets run (``kb_execute: force``). Every code cell
writes a marker file beside its notebook if it runs: after `kb check` and a build, only the
opted-in notebook's marker exists (which also proves a kernel runs here), and `kb check` and
the build refuse the others at the same file:line in the same words.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent / "roots" / "test-hostile-notebooks"
WARNING = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+): WARNING: (?P<message>.*) \[(?P<type>[\w.]+)\]$"
)
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<message>.*)$")


def _run(site: Path, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *command], cwd=site, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    site = tmp_path_factory.mktemp("notebooks") / "site"
    shutil.copytree(ROOT, site)
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    check = _run(site, "-m", "kb.cli", "check")
    done = _run(site, "-m", "sphinx", "-b", "html", "-q", ".", "_build/html", "-d", "_build/dt")
    warnings = []
    for line in re.sub(r"\x1b\[[0-9;]*m", "", done.stderr).splitlines():
        found = WARNING.match(line)
        if found:
            path = os.path.relpath(found["path"], site)
            warnings.append((path, int(found["line"]), found["message"], found["type"]))
    return site, before, check, done, warnings


def own(key: str, where: str) -> str:
    return (
        f"`{key}` sets how this notebook is run or rendered, which only the site decides (a "
        f"notebook never runs unless it says `kb_execute`): remove `{key}` from the {where}; to "
        "run the notebook, write `kb_execute: cache`"
    )


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def expected(site: Path) -> list[tuple[str, int, str]]:
    posts = site / "posts/2025"
    meta = "notebook's metadata"
    return [
        (
            "posts/2025/cached.ipynb",
            line_of(posts / "cached.ipynb", '"mystnb"'),
            own("mystnb", meta),
        ),
        (
            "posts/2025/execution.ipynb",
            line_of(posts / "execution.ipynb", '"execution"'),
            own("execution", meta),
        ),
        (
            "posts/2025/forced.ipynb",
            line_of(posts / "forced.ipynb", '"mystnb"'),
            own("mystnb", meta),
        ),
        (
            "posts/2025/text-forced.md",
            line_of(posts / "text-forced.md", "mystnb:"),
            own("mystnb", "front matter"),
        ),
    ]


def test_no_notebook_runs_unless_the_site_lets_it(built):
    site, *_ = built
    markers = sorted(p.relative_to(site).as_posix() for p in site.rglob("ran-*.txt"))
    if importlib.util.find_spec("ipykernel") is None:
        assert markers == []
        pytest.skip("no Jupyter kernel here: the opted-in notebook cannot prove execution works")
    assert markers == ["posts/2025/ran-opted-in.txt"]


def test_kb_check_refuses_each_notebook_setting_at_its_line(built):
    site, _, check, _, _ = built
    problems = [
        (m["path"], int(m["line"]), m["message"])
        for m in map(LINE.match, check.stdout.splitlines())
    ]
    assert check.returncode == 1
    assert problems == expected(site)


def test_the_build_refuses_them_in_the_same_words(built):
    site, _, _, done, warnings = built
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    posts = sorted((p, n, m) for p, n, m, kind in warnings if kind == "kb.frontmatter")
    assert posts == expected(site)
    page = site / "pages/page.ipynb"
    assert [(p, n, m) for p, n, m, kind in warnings if kind == "kb.notebook"] == [
        ("pages/page.ipynb", line_of(page, '"mystnb"'), own("mystnb", "notebook's metadata"))
    ]


def test_a_refused_notebook_shows_none_of_its_code(built):
    site, *_ = built
    for name in ("forced", "cached", "text-forced"):
        text = (site / f"_build/html/posts/2025/{name}.html").read_text()
        assert "could not be read" in text
        assert "ran-" not in text


def test_no_source_is_touched(built):
    site, before, *_ = built
    now = {p: p.read_bytes() for p in site.rglob("*") if p.is_file() and "_build" not in p.parts}
    now = {p: data for p, data in now.items() if not p.name.startswith("ran-")}
    assert now == before
