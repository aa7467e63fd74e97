"""Reads that must never happen (issue 31, item 4): FIFOs, devices, files over the limit, posts
and folders that are links leading out of the repository or round, includes of a post by
itself and cycles of includes.

The site is tests/roots/test-hostile-reads, plus what a repository cannot hold, made here: a
FIFO post, FIFOs and a link to /dev/zero that posts include (with MyST's ``{include}``,
``{literalinclude}``, ``{csv-table}`` and rST's ``include``), a file over the site's
``kb_max_file_bytes`` (64 KiB), a post that is a link to a file outside the repository, a
post that is a link to itself, a link to the folder above and one to a folder outside. The
build and `kb check` run as commands with a time limit, so a read that blocks fails the test
instead of hanging it; the site is built twice (the second build must warn again).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent / "roots" / "test-hostile-reads"
SECRET = "OUTSIDE-SECRET-4e1c"
LIMIT = 120  # seconds: the whole build of this site takes a few
WARNING = re.compile(r"^(?P<path>.+?):(?P<line>\d+): WARNING: (?P<message>.*) \[kb\.path\]$")
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<message>.*)$")


def make_site(folder: Path) -> Path:
    site = folder / "site"
    shutil.copytree(ROOT, site)
    outside = folder / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(
        "---\nblogpost: true\ndate: 2025-03-05\ncategory: Article\nauthor: ada\n"
        f"description: {SECRET}.\n---\n\n# {SECRET}\n\n{SECRET} text\n"
    )
    posts, data = site / "posts/2025", site / "posts/data"
    for fifo in (posts / "pipe.md", data / "fifo.md", data / "fifo.csv"):
        os.mkfifo(fifo)
    (data / "zero.md").symlink_to("/dev/zero")
    (data / "large.md").write_text("a" * 70_000)
    (posts / "huge.md").write_text("---\nblogpost: true\n---\n\n# Huge\n\n" + "a" * 70_000)
    (posts / "linked.md").symlink_to("../../../outside/secret.md")
    (posts / "self.md").symlink_to("self.md")
    (posts / "up").symlink_to("..")
    (posts / "away").symlink_to("../../../outside")
    return site


def sources(site: Path) -> dict[str, str]:
    """Every entry under the site (build output aside) as what it is, without following a
    link or opening a FIFO: the sources are never changed."""
    found = {}
    for parent, folders, files in os.walk(site):
        folders[:] = [f for f in folders if f != "_build"]
        for name in (*folders, *files):
            path = Path(parent, name)
            relpath = path.relative_to(site).as_posix()
            if path.is_symlink():
                found[relpath] = "-> " + os.readlink(path)
            elif path.is_file():
                found[relpath] = path.read_text(errors="replace")
            else:
                found[relpath] = "folder" if path.is_dir() else "special"
    return found


def run(site: Path, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *command], cwd=site, capture_output=True, text=True, timeout=LIMIT
    )


def build(site: Path) -> tuple[int, list[tuple[str, int, str]], str]:
    done = run(site, "-m", "sphinx", "-b", "html", "-q", ".", "_build/html", "-d", "_build/dt")
    lines = re.sub(r"\x1b\[[0-9;]*m", "", done.stderr).splitlines()
    warnings = []
    for line in lines:
        found = WARNING.match(line)
        if found:
            path = os.path.relpath(found["path"], site)
            warnings.append((path, int(found["line"]), found["message"]))
    return done.returncode, warnings, done.stderr


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reads")
    site = make_site(folder)
    before = sources(site)
    check = run(site, "-m", "kb.cli", "check")
    first = build(site)
    second = build(site)
    return site, before, check, first, second


FIFO_POST = (
    "this post is not an ordinary file but a FIFO (named pipe), whose reading waits forever, "
    "and is never read: put an ordinary file here"
)
HUGE_POST = (
    "this post is larger than kb_max_file_bytes (64 KiB) and is never read: split it, or raise "
    "kb_max_file_bytes in conf.py"
)
LINK_OUT_POST = (
    "this post is a symbolic link to a file outside the repository, which is never read or "
    "published: put the file itself here instead of the link"
)
LOOP_POST = (
    "this post is a symbolic link that leads to itself (a loop): replace the link with the file"
)
FOLDER_OUT = (
    "this folder is a symbolic link that leads outside the repository, and nothing under it is "
    "read: put the folder itself here instead of the link"
)
FOLDER_LOOP = (
    "this folder is a symbolic link to a folder that holds it (a loop), which would be walked "
    "forever, and nothing under it is read: remove the link"
)
#: What kb check and the build both say about the post folder's own files.
SOURCE_PROBLEMS = [
    ("posts/2025/away", 1, FOLDER_OUT),
    ("posts/2025/huge.md", 1, HUGE_POST),
    ("posts/2025/linked.md", 1, LINK_OUT_POST),
    ("posts/2025/pipe.md", 1, FIFO_POST),
    ("posts/2025/self.md", 1, LOOP_POST),
    ("posts/2025/up", 1, FOLDER_LOOP),
]
FIFO = "is a FIFO (named pipe), whose reading would wait forever; name an ordinary file instead"
LINK_OUT = (
    "leads outside the repository through a symbolic link; put the file in the repository, next "
    "to the post, and give its path relative to the post"
)
LARGE = (
    "is larger than kb_max_file_bytes (64 KiB); make the file smaller, or raise "
    "kb_max_file_bytes in conf.py"
)
CIRCLE = "remove the {include} that closes the circle"
INCLUDES = "posts/2025/includes.md"
#: What the build says about the files that posts include.
INCLUDE_PROBLEMS = [
    (INCLUDES, 11, f"include: '../data/fifo.md' {FIFO}"),
    (INCLUDES, 14, f"include: '../data/zero.md' {LINK_OUT}"),
    (INCLUDES, 17, f"include: '../data/large.md' {LARGE}"),
    (INCLUDES, 23, f"literalinclude: '../data/fifo.md' {FIFO}"),
    (INCLUDES, 26, f"literalinclude: '../data/zero.md' {LINK_OUT}"),
    (INCLUDES, 29, f"literalinclude: '../data/large.md' {LARGE}"),
    (INCLUDES, 32, f"csv-table: :file: '../data/fifo.csv' {FIFO}"),
    (INCLUDES, 36, "include: '../data' is a folder; name an ordinary file instead"),
    (
        "posts/2025/itself.md",
        11,
        "include: 'itself.md' includes a file that is already being included "
        f"(posts/2025/itself.md → posts/2025/itself.md); {CIRCLE}",
    ),
    (
        "posts/2025/rst.md",
        12,
        "include: 'rst.md' includes a file that is already being included "
        f"(posts/2025/rst.md → posts/2025/rst.md); {CIRCLE}",
    ),
    ("posts/2025/rst.md", 16, f"include: '../data/fifo.md' {FIFO}"),
    (
        "posts/data/two.md",
        3,
        "include: '../data/one.md' includes a file that is already being included "
        "(posts/2025/cycle.md → posts/data/one.md → posts/data/two.md → posts/data/one.md); "
        f"{CIRCLE}",
    ),
]


def test_kb_check_refuses_every_post_that_is_no_file_of_the_repository(hostile):
    _, _, check, _, _ = hostile
    problems = [
        (found["path"], int(found["line"]), found["message"])
        for found in map(LINE.match, check.stdout.splitlines())
    ]
    assert check.returncode == 1
    assert problems == SOURCE_PROBLEMS


def test_the_build_says_the_same_and_refuses_every_include_at_its_line(hostile):
    _, _, _, (status, warnings, stderr), _ = hostile
    assert status == 0, stderr  # no traceback, no hang; -W would make each warning an error
    assert sorted(w for w in warnings if w[0] in dict.fromkeys(p for p, *_ in SOURCE_PROBLEMS)) == (
        SOURCE_PROBLEMS
    )
    assert sorted(set(warnings) - set(SOURCE_PROBLEMS)) == sorted(INCLUDE_PROBLEMS)
    assert "Traceback" not in stderr and "RecursionError" not in stderr


def test_a_second_build_says_it_all_again(hostile):
    _, _, _, (_, first, _), (status, second, stderr) = hostile
    assert status == 0, stderr
    assert sorted(second) == sorted(first)


def test_nothing_refused_is_read_or_published(hostile):
    site, *_ = hostile
    html = site / "_build/html"
    pages = {p.relative_to(html).as_posix() for p in html.rglob("*.html")}
    for refused in ("linked", "pipe", "huge", "self"):
        assert f"posts/2025/{refused}.html" not in pages
    assert not any(page.startswith(("posts/2025/up/", "posts/2025/away/")) for page in pages)
    for page in html.rglob("*"):
        if page.is_file():
            assert SECRET.encode() not in page.read_bytes(), page
    text = (html / "posts/2025/includes.html").read_text()
    assert "FINE-INCLUDED-TEXT" in text  # the one include that is fine
    assert "aaaaaaaaaa" not in text  # nothing of the file over the limit


def test_no_source_is_touched(hostile):
    site, before, *_ = hostile
    assert sources(site) == before
