"""The `kb` command: `kb new` never overwrites, `kb check` is fast and exact, `kb serve` serves.

And what a failed build leaves behind: the sources and the previous output, untouched.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml
from authoring import BAD, GOOD, build, run_check, snapshot
from bs4 import BeautifulSoup
from websockets.sync.client import connect

from kb.cli import main
from kb.cli.main import slug_for
from kb.site import check_files, open_site

SRC = Path(__file__).parent.parent / "src"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture
def site(tmp_path) -> Path:
    """A copy of the good test site to write into."""
    root = tmp_path / "site"
    shutil.copytree(GOOD, root)
    return root


def kb(root: Path, *args: str) -> tuple[int, str, str]:
    """Run `kb ARGS` inside ``root``: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def front_matter(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


def heading(html: str) -> str:
    """The page's title, without Sphinx's permalink sign."""
    found = BeautifulSoup(html, "lxml").find("h1")
    if found is None:
        return ""
    for permalink in found.select("a.headerlink"):
        permalink.decompose()
    return found.get_text(strip=True)


# -- kb new -------------------------------------------------------------------------------------


def test_new_writes_a_post_that_checks_and_builds(site):
    status, out, err = kb(
        site, "new", "FP8 on Hopper: Part 3", "--category", "Article", "--category",
        "Benchmarks", "--tag", "fp8", "--tag", "C++", "--author", "mira", "--author", "tomas",
        "--series", "Kernel tutorial", "--part", "3", "--external", "https://example.org/fp8",
        "--date", "2025-09-01", "--description", "Part 3: scaling factors.",
    )  # fmt: skip
    assert (status, out, err) == (0, "posts/2025/fp8-on-hopper-part-3.md\n", "")
    path = site / "posts/2025/fp8-on-hopper-part-3.md"
    assert front_matter(path) == {
        "blogpost": True,
        "date": date(2025, 9, 1),
        "category": "Article, Benchmarks",
        "tags": ["fp8", "C++"],
        "author": "mira, tomas",
        "description": "Part 3: scaling factors.",
        "series": "Kernel tutorial",
        "part": 3,
        "external_link": "https://example.org/fp8",
    }
    assert "\n# FP8 on Hopper: Part 3\n" in path.read_text(encoding="utf-8")
    assert run_check(site) == (0, [], "kb check: 4 post(s), no errors\n")
    app, warnings = build(site)
    assert warnings == []
    page = (Path(app.outdir) / "posts/2025/fp8-on-hopper-part-3.html").read_text(encoding="utf-8")
    assert heading(page) == "FP8 on Hopper: Part 3"


def test_new_leaves_the_description_to_write_and_check_says_so(site):
    before = datetime.now(UTC).date()
    status, out, _ = kb(
        site, "new", "Café au lait & CUDA", "--category", "Article", "--author", "mira"
    )
    after = datetime.now(UTC).date()
    assert status == 0
    relpath = out.strip()
    assert relpath in {f"posts/{d.year}/cafe-au-lait-cuda.md" for d in (before, after)}
    assert front_matter(site / relpath)["date"] in {before, after}
    message = (
        "`description` is empty: write one or two sentences for listings and feeds, "
        "or remove the line to use the first paragraph"
    )
    assert run_check(site, relpath)[:2] == (1, [(relpath, 7, message)])


def test_new_never_overwrites(site):
    args = ("new", "Tiling basics", "--category", "Article", "--date", "2025-03-14")
    before = snapshot(site)
    status, out, err = kb(site, *args)
    assert (status, out) == (2, "")
    assert err == (
        "kb new: posts/2025/tiling-basics.md already exists and kb new never overwrites: "
        "edit that file, or choose another title\n"
    )
    assert snapshot(site) == before


REFUSALS = {
    "slug taken in another year": (
        ["Tiling basics", "--category", "Article", "--date", "2026-02-01"],
        'the slug "tiling-basics" is taken by posts/2025/tiling-basics.md: two posts with one '
        "slug share a label; choose another title",
    ),
    "unknown category and author": (
        ["New post", "--category", "article", "--author", "bob"],
        'unknown category "article" (did you mean "Article"?); allowed are Article, Benchmarks '
        '(kb_categories in conf.py)\nkb new: unknown author "bob"; known authors are mira, '
        "tomas (keys of blog_authors in conf.py)",
    ),
    "series part taken": (
        [
            "New post",
            "--category",
            "Article",
            "--series",
            "Kernel tutorial",
            "--part",
            "2",
            "--date",
            "2026-02-01",
        ],
        'part 2 of series "Kernel tutorial" is also posts/2025/pipelining.md:8: give each part '
        "its own number",
    ),  # fmt: skip
    "part without series": (
        ["New post", "--category", "Article", "--part", "2"],
        "--part needs --series NAME: a part is a part of a series",
    ),
    "impossible date": (
        ["New post", "--category", "Article", "--date", "2025-02-30"],
        '--date "2025-02-30" is not a day: write it as YYYY-MM-DD, e.g. 2025-03-14',
    ),
    "tag slug clash": (
        ["New post", "--category", "Article", "--tag", "C#", "--date", "2026-02-01"],
        'tag "C#" and tag "C++" (posts/2025/tiling-basics.md:5) both get the page blog/tag/c, '
        'so one overwrites the other: write "C++" if they mean the same, or rename this one',
    ),
    "external link": (
        ["New post", "--category", "Article", "--external", "ftp://example.org/x"],
        'external_link "ftp://example.org/x" is not an http(s) URL: write the full address, '
        "e.g. `external_link: https://example.org/article`",
    ),
    "no letters in title": (
        ["???", "--category", "Article"],
        'the title "???" has no letters or digits to make a file name from',
    ),  # fmt: skip
    "line break in title": (
        ["Title\n---\nblogpost: false", "--category", "Article"],
        "the title contains a line break: write it on one line",
    ),
    "control character in description": (
        ["Title", "--category", "Article", "--description", "One\x1b[2J sentence."],
        "--description contains the control character U+001B: remove it (a tab too: use spaces)",
    ),
    "tab in a tag": (
        ["Title", "--category", "Article", "--tag", "fp8\tgemm"],
        "--tag 'fp8\\tgemm' contains the control character U+0009: remove it (a tab too: use "
        "spaces)",
    ),
    "line break in series": (
        ["Title", "--category", "Article", "--series", "A\u2028B"],
        "--series contains a line break: write it on one line",
    ),
    "series without a name": (
        ["Title", "--category", "Article", "--series", "+++"],
        'series "+++" has no letters or digits, so its page would have no name: spell it out, '
        "e.g. `series: CUTLASS GEMM tutorial`",
    ),
}


@pytest.mark.parametrize("args, message", REFUSALS.values(), ids=REFUSALS.keys())
def test_new_refuses_with_a_reason_and_writes_nothing(site, args, message):
    before = snapshot(site)
    assert kb(site, "new", *args) == (2, "", f"kb new: {message}\n")
    assert snapshot(site) == before


def test_new_cuts_a_long_title_at_a_hyphen(site):
    title = "Word " * 100 + "end"  # 503 characters: a file name the system would refuse
    status, out, err = kb(
        site, "new", title, "--category", "Article", "--author", "mira", "--date", "2025-05-05"
    )
    slug = "-".join(["word"] * 16)  # 79 characters: the last "word" before 80
    assert (status, out, err) == (0, f"posts/2025/{slug}.md\n", "")
    assert f"\n# {title}\n" in (site / out.strip()).read_text(encoding="utf-8")


def test_slugs_stop_at_80_characters():
    assert slug_for("x" * 79 + " yy") == "x" * 79
    assert slug_for("x" * 100) == "x" * 80
    assert slug_for("Tiling basics") == "tiling-basics"


def test_new_never_writes_through_a_link(site):
    link = site / "posts/2025/dangling.md"
    link.symlink_to(site / "elsewhere/missing.md")
    before = snapshot(site)
    assert kb(site, "new", "Dangling", "--category", "Article", "--date", "2025-01-01") == (
        2,
        "",
        f"kb new: posts/2025/dangling.md is a broken symbolic link (to {site}/elsewhere/"
        "missing.md); kb new never writes through a link: remove the link, or choose another "
        "title\n",
    )
    assert not (site / "elsewhere").exists()
    assert link.is_symlink() and snapshot(site) == before
    link.unlink()
    link.symlink_to(site / "posts/2025/tiling-basics.md")
    status, _, err = kb(site, "new", "Dangling", "--category", "Article", "--date", "2025-01-01")
    assert status == 2
    assert err.split(" (to ")[0] == "kb new: posts/2025/dangling.md is a symbolic link"


@pytest.mark.parametrize("folder", ["posts/2024", "posts"])
def test_new_refuses_a_file_where_its_folder_goes(site, folder):
    if folder == "posts":
        shutil.rmtree(site / "posts")
    (site / folder).write_text("not a folder\n", encoding="utf-8")
    before = snapshot(site)
    assert kb(site, "new", "Year", "--category", "Article", "--date", "2024-01-01") == (
        2,
        "",
        f"kb new: {folder} is a file, not a folder: kb new writes posts into posts/<year>/; move "
        "that file away\n",
    )
    assert snapshot(site) == before


def test_new_refuses_what_it_cannot_write(site, monkeypatch):
    folder = site / "posts/2023"
    folder.mkdir()
    folder.chmod(0o555)
    if os.geteuid() == 0:
        # root writes into a read-only folder anyway: the system's refusal is simulated.
        real_open = os.open

        def refusing_open(path, *args, **kwargs):
            if Path(path).parent == folder:
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr(os, "open", refusing_open)
    try:
        result = kb(
            site,
            "new",
            "Read only",
            "--category",
            "Article",
            "--author",
            "mira",
            "--date",
            "2023-01-01",
        )
    finally:
        monkeypatch.undo()
        folder.chmod(0o755)
    assert result == (
        2,
        "",
        "kb new: cannot write posts/2023/read-only.md: Permission denied; make posts/2023 "
        "writable, or write elsewhere\n",
    )
    assert list(folder.iterdir()) == []


# -- kb check -----------------------------------------------------------------------------------


def test_check_usage_errors(site, tmp_path):
    assert kb(site, "check", "posts/nope.md") == (
        2,
        "",
        "kb check: posts/nope.md: no such file or folder\n",
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert kb(empty, "check", "--root", ".") == (
        2,
        "",
        "kb check: . has no conf.py: --root must name the site folder\n",
    )


def test_check_as_a_command_prints_file_and_line(site):
    shutil.copy(BAD / "posts/2025/date-timezone.md", site / "posts/2025/")
    before = snapshot(site)
    result = subprocess.run(
        [sys.executable, "-m", "kb.cli", "check"], cwd=site / "posts", env=ENV,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stdout == (
        "2025/date-timezone.md:3: date 2025-03-14T09:30:00+01:00 has a time zone, which crashes "
        "ablog: dates are UTC and carry no zone, write `date: 2025-03-14`\n"
    )
    assert snapshot(site) == before


def test_check_finds_the_one_mistake_among_hundreds_of_posts(site):
    # Not timed: a shared machine's load decides a wall-clock bound (it failed at load 7).
    (site / "posts/2024").mkdir()
    for number in range(300):
        # One planted mistake: a later post spells a tag that clashes with C++.
        day, tag = ("2025-12-01", "C#") if number == 150 else ("2024-05-01", f"topic-{number % 20}")
        (site / f"posts/2024/note-{number:03}.md").write_text(
            f"---\nblogpost: true\ndate: {day}\ncategory: Article\ntags: [gemm, {tag}]\n"
            f"author: mira\n---\n\n# Note {number}\n\nParagraph {number}, with "
            "[a link](/posts/2025/tiling-basics.md).\n\n" + "More text about kernels.\n\n" * 40,
            encoding="utf-8",
        )
    checked = open_site(site)
    problems = check_files(checked, checked.post_paths(), today=date(2030, 1, 1))
    assert [(path, p.line) for path, p in problems] == [("posts/2024/note-150.md", 5)]


# -- A failed build -------------------------------------------------------------------------------


def sphinx_build(root: Path, *options: str) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-n",
        "--no-color",
        *options,
        "-b",
        "html",
        ".",
        "_build/html",
    ]
    return subprocess.run(command, cwd=root, env=ENV, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_failed_build_keeps_sources_and_previous_output(site):
    assert sphinx_build(site, "-W").returncode == 0
    output = site / "_build/html"
    previous = {p: p.read_bytes() for p in output.rglob("*.html")}
    shutil.copy(BAD / "posts/2025/date-timezone.md", site / "posts/2025/")
    sources = snapshot(site)
    warning = (
        f"{site}/posts/2025/date-timezone.md:3: WARNING: date 2025-03-14T09:30:00+01:00 has a "
        "time zone, which crashes ablog: dates are UTC and carry no zone, write "
        "`date: 2025-03-14` [kb.frontmatter]"
    )
    for attempt in range(2):  # and again: a post with problems is read on every build
        failed = sphinx_build(site, "-W")
        assert failed.returncode == 1, attempt
        assert warning in failed.stderr.splitlines(), attempt
        assert "Traceback" not in failed.stderr
        assert snapshot(site) == sources
        assert {p: p.read_bytes() for p in previous} == previous


# -- kb serve -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch_until(url: str, wanted, timeout: float) -> str:
    """GET ``url`` until ``wanted(html)`` holds; the last page, or a failure after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # A page replaced while the server sends it arrives short (IncompleteRead): the
        # server took its length from the old file. Ask again, as a reader's reload does.
        with (
            contextlib.suppress(OSError, http.client.HTTPException),
            urllib.request.urlopen(url, timeout=5) as response,
        ):
            html = response.read().decode()
            if wanted(html):
                return html
        time.sleep(0.5)
    pytest.fail(f"{url} did not serve what was expected within {timeout} s")


def test_serve_previews_and_rebuilds_on_save(site, tmp_path):
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "kb.cli", "serve", "--root", str(site), "--port", str(port)],
        env=ENV, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/"
        assert heading(fetch_until(url, lambda h: heading(h), 120)) == "Authoring Test Site"
        index = site / "index.md"
        with connect(f"ws://127.0.0.1:{port}/websocket-reload") as browser:
            index.write_text(index.read_text().replace("# Authoring Test Site", "# Saved again"))
            # The browser is told to reload once the page is written, and finds it then.
            assert browser.recv(timeout=120) == "refresh"
            with urllib.request.urlopen(url, timeout=5) as response:
                assert heading(response.read().decode()) == "Saved again"
        # Before the build had ended: the server says when it showed the pages.
        deadline = time.monotonic() + 120
        while "(the changed pages in " not in (tmp_path / "serve.log").read_text():
            assert time.monotonic() < deadline, "the rebuild never showed its pages early"
            time.sleep(0.2)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=20)
        log.close()
