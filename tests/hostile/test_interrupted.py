"""A build stopped at any moment, then one more build, gives a clean build's bytes.

Each build is ``sphinx-build``'s ``build_main`` in a process of its own, forked from this one
(as ``kb serve`` forks its rebuilds: the imports are paid once), and stops itself at a named
crash point (``KB_CRASH_AT=<stage>:<n>[:KILL|TERM|RAISE]``, see
:func:`kb.core.fileio.crash_point`): while reading, among the pages, with a page written under
its temporary name, among the in-place sidebar refreshes (background threads), after Pagefind
ran, while the bundle is published, while shards are merged, in the deferred indexer that
``kb serve`` starts. Between the stopped build and the next one the sources change back, or
stay changed. Every file of the output folder is then compared, byte for byte, with a clean
build of the same sources (``SOURCE_DATE_EPOCH`` fixed).

Two versions of the site take turns: the newest post (on every page's sidebar, in listings,
related lists and the search index) under its own title, and under another. Each folder
carries on from the step before, as a real ``_build`` does.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from forkbuild import ENV, files, sphinx

ROOT = Path(__file__).parent.parent / "roots" / "test-listings"
POST = "posts/post-27.md"
TITLES = {"A": "Post 27", "B": "Zebra Quokka Retitled"}
#: The search index in shards (about 30 searchable pages, 4 a shard): the merge runs.
SHARDED = ["-D", "kb_search_shard_size=4"]
JOURNAL = "kb-state.journal"


def set_version(src: Path, version: str) -> None:
    path = src / POST
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    heading = next(i for i, line in enumerate(lines) if line.startswith("# "))
    lines[heading] = f"# {TITLES[version]}\n"
    path.write_text("".join(lines), encoding="utf-8")


class Site:
    """A working copy of the root with its ``_build``, and clean builds to compare it with."""

    def __init__(self, base: Path, extra=()) -> None:
        self.base, self.extra = base, list(extra)
        self.src = base / "src"
        shutil.copytree(ROOT, self.src)
        self.out = base / "build"
        self.clean: dict[str, dict[str, str]] = {}
        self.version = "A"
        sphinx(self.src, self.out, self.extra)

    def clean_files(self, version: str) -> dict[str, str]:
        if version not in self.clean:
            folder = self.base / f"clean-{version}"
            shutil.copytree(ROOT, folder / "src")
            set_version(folder / "src", version)
            sphinx(folder / "src", folder / "build", self.extra)
            self.clean[version] = files(folder / "build" / "html")
        return self.clean[version]

    def stopped_build(self, version: str, crash: str) -> None:
        """Sources at ``version``, then a build that stops at ``crash``: it must stop."""
        set_version(self.src, version)
        status = sphinx(self.src, self.out, self.extra, crash)
        assert status != 0, f"the build passed {crash} without stopping there"

    def assert_clean_after_a_build(self, version: str) -> None:
        set_version(self.src, version)
        self.version = version
        sphinx(self.src, self.out, self.extra)
        assert not (self.out / "doctrees" / JOURNAL).exists()
        incremental, clean = files(self.out / "html"), self.clean_files(version)
        differ = sorted(
            k for k in incremental.keys() | clean.keys() if incremental.get(k) != clean.get(k)
        )
        assert differ == [], f"files that differ from a clean build: {differ}"

    def other(self) -> str:
        return "B" if self.version == "A" else "A"


@pytest.fixture(scope="module")
def one_run(tmp_path_factory) -> Site:
    return Site(tmp_path_factory.mktemp("one-run"))


@pytest.fixture(scope="module")
def sharded(tmp_path_factory) -> Site:
    return Site(tmp_path_factory.mktemp("sharded"), SHARDED)


# Each case: where the build stops, and whether the sources go back before the next build.
ONE_RUN_CASES = [
    ("read:1", True),  # while Sphinx reads the changed post
    ("page:3", True),  # among the pages: some carry the new title, the record says old
    ("page-written:2:TERM", False),  # a page written under its temporary name, SIGTERM
    ("background:3", True),  # among the sidebars refreshed in place, by the writer threads
    ("page:2:RAISE", True),  # an exception: build-finished runs, the record is not committed
    ("index:1", True),  # Pagefind has run, nothing published
    ("publish:3", False),  # half of the new bundle beside the old one
    ("prune:2", True),  # the search page names the new bundle, old files half removed
    ("fill:1", True),  # the bundle published, the search page not yet filled
]


@pytest.mark.parametrize(("crash", "back"), ONE_RUN_CASES, ids=[c for c, _ in ONE_RUN_CASES])
def test_a_stopped_build_then_one_more_gives_a_clean_build(one_run: Site, crash, back):
    before = one_run.version
    one_run.stopped_build(one_run.other(), crash)
    one_run.assert_clean_after_a_build(before if back else one_run.other())


def test_a_stopped_recovery_is_recovered_too(one_run: Site):
    """A build that finds a journal, stopped in turn: the next one still removes what both
    stopped builds may have written."""
    before = one_run.version
    one_run.stopped_build(one_run.other(), "page:3")
    one_run.stopped_build(before, "page:9")
    one_run.assert_clean_after_a_build(before)


def test_two_builds_at_once_into_one_folder_then_one_more(one_run: Site):
    set_version(one_run.src, one_run.other())
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html"]
    command += ["-d", str(one_run.out / "doctrees"), str(one_run.src), str(one_run.out / "html")]
    env = {**os.environ, **ENV}
    builds = [subprocess.Popen(command, env=env, stderr=subprocess.PIPE) for _ in range(2)]
    for build in builds:
        _, errors = build.communicate(timeout=300)
        assert build.returncode == 0, errors
    one_run.assert_clean_after_a_build(one_run.other())


SHARDED_CASES = [
    ("shard:1", True),  # a shard indexed and read, its record not written
    ("merge:2", True),  # among the merged bundle's files
    ("prune:1", False),
]


@pytest.mark.parametrize(("crash", "back"), SHARDED_CASES, ids=[c for c, _ in SHARDED_CASES])
def test_a_build_stopped_while_shards_merge_then_one_more(sharded: Site, crash, back):
    before = sharded.version
    sharded.stopped_build(sharded.other(), crash)
    sharded.assert_clean_after_a_build(before if back else sharded.other())


def test_the_deferred_indexer_stopped_then_one_more_build(sharded: Site):
    """``kb serve``'s indexer runs after the build returned, holding the folders' lock; it
    is killed among the merged files. The next build waits for the lock, then heals."""
    set_version(sharded.src, sharded.other())
    deferred = [*SHARDED, "-D", "kb_search_defer=1"]
    status = sphinx(sharded.src, sharded.out, deferred, crash="merge:1")
    assert status == 0  # the build itself finished; its indexer did not
    folder = os.open(sharded.out / "html", os.O_RDONLY)
    try:  # the indexer holds the folder's lock until it dies
        fcntl.flock(folder, fcntl.LOCK_EX)
    finally:
        os.close(folder)
    assert not (sharded.out / "doctrees" / "kb-search-shards" / "state").exists()
    sharded.assert_clean_after_a_build(sharded.other())


@pytest.mark.parametrize("crash", ["tell:1", "tell:1:RAISE"])
def test_a_deferred_build_stopped_after_its_indexer_started(sharded: Site, crash):
    """``kb serve``'s indexer starts once the documents are written, beside the rest of the
    build; the build is killed (or fails) before it tells the indexer it succeeded. The
    indexer leaves the search page naming a bundle that is all there; the next build heals."""
    set_version(sharded.src, sharded.other())
    status = sphinx(sharded.src, sharded.out, [*SHARDED, "-D", "kb_search_defer=1"], crash=crash)
    assert status != 0
    folder = os.open(sharded.out / "html", os.O_RDONLY)
    try:  # the indexer holds the folder's lock until it has given up
        fcntl.flock(folder, fcntl.LOCK_EX)
    finally:
        os.close(folder)
    html = sharded.out / "html"
    page = BeautifulSoup((html / "search.html").read_text(encoding="utf-8"), "html.parser")
    entry = json.loads(page.select_one("head #kb-search-entry").get_text())
    (language,) = entry["languages"].values()
    assert (html / "pagefind" / f"pagefind.{language['hash']}.pf_meta").is_file()
    assert not (sharded.out / "doctrees" / "kb-search-shards" / "state").exists()
    sharded.assert_clean_after_a_build(sharded.other())
