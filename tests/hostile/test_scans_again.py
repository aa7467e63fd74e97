"""The source folder's scans told what was saved (kb.core.finding.found_again) find what a whole
scan finds.

``kb serve``'s standby checks, at each save, that the scans it made its application with (the
drafts, the sources refused as unsafe) find the same again. Where its stamps show that no file
came or went, it tells each scan which files were saved instead of letting it read every post
again. Here Hypothesis draws saves of every kind a scan judges (a date moved into the future or
removed, a post grown past the size limit, a post replaced by a link out of the repository, a
loop of links, a FIFO) and the day turning, stamps the folder as the standby does, and compares
the scan told what was saved with a new whole scan of the same files.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.checks.sourcefiles import UnsafeScan
from kb.core.drafts import DraftScan
from kb.core.finding import SinceScanned, found_again
from kb.incremental.standby import source_stamps

PATTERN = ["posts/*/*.md", "posts/*/*.ipynb"]
LIMIT = 300  # bytes: a post grown past it is refused
#: The posts and other files the saves pick from; ``posts/b/sub`` is walked for unsafe
#: sources, though no pattern matches its posts.
FILES = [
    "posts/a/one.md",
    "posts/a/two.md",
    "posts/a/three.md",
    "posts/b/four.md",
    "posts/b/five.ipynb",
    "posts/b/sub/six.md",
    "posts/a/data.csv",
    "notes/seven.md",
]
DAY = 86_400
TODAY = 20_000 * DAY  # 2024-10-04, as SOURCE_DATE_EPOCH

saves = st.one_of(
    st.tuples(st.just("date"), st.sampled_from(FILES), st.sampled_from([-3, 0, 1, 5, None])),
    st.tuples(
        st.sampled_from(["grow", "shrink", "link in", "link out", "loop", "fifo"]),
        st.sampled_from(FILES),
        st.none(),
    ),
    st.tuples(st.just("day passes"), st.none(), st.none()),
)


def _text(day_offset: int | None, padding: int = 0) -> str:
    date = "" if day_offset is None else f"date: {_iso(TODAY // DAY + day_offset)}\n"
    return f"---\nblogpost: true\n{date}---\n\n# A post\n\n{'x' * padding}\n"


def _iso(days: int) -> str:
    from datetime import date, timedelta

    return (date(1970, 1, 1) + timedelta(days=days)).isoformat()


def _make(site: Path) -> None:
    for relpath in FILES:
        path = site / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_text(-1))
    (site / "elsewhere.md").write_text(_text(-2))
    (site.parent / "outside.md").write_text(_text(-2))


def _replace(path: Path, make) -> None:
    """A save as an editor makes it: whatever was there, replaced."""
    if path.is_symlink() or path.exists():
        path.unlink()
    make(path)


def _save(site: Path, kind: str, relpath: str | None, value, clock: list[int]) -> None:
    if kind == "day passes":
        clock[0] += DAY
        os.environ["SOURCE_DATE_EPOCH"] = str(clock[0])
        return
    assert relpath is not None
    path = site / relpath
    if kind == "date":
        _replace(path, lambda p: p.write_text(_text(value)))
    elif kind == "grow":
        _replace(path, lambda p: p.write_text(_text(-1, padding=2 * LIMIT)))
    elif kind == "shrink":
        _replace(path, lambda p: p.write_text(_text(-1)))
    elif kind == "link in":
        _replace(path, lambda p: p.symlink_to(site / "elsewhere.md"))
    elif kind == "link out":
        _replace(path, lambda p: p.symlink_to(site.parent / "outside.md"))
    elif kind == "loop":
        _replace(path, lambda p: p.symlink_to(p.name))
    elif kind == "fifo":
        _replace(path, os.mkfifo)
    # Each save gets a time of its own, whatever the clock's resolution (as the standby's
    # tests do): a stamp is the file's identity, times and size.
    stamp = 1_700_000_000_000_000_000 + clock[1]
    clock[1] += 1_000_000
    os.utime(path, ns=(stamp, stamp), follow_symlinks=False)


def _scans(site: Path):
    return [
        DraftScan(str(site), PATTERN),
        UnsafeScan(site, PATTERN, (".md", ".ipynb", ".rst"), LIMIT),
    ]


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(TODAY))
    return tmp_path


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(changes=st.lists(st.lists(saves, min_size=1, max_size=4), min_size=1, max_size=3))
def test_a_scan_told_what_was_saved_finds_what_a_whole_scan_finds(site, changes):
    root = site / "site"
    shutil.rmtree(site, ignore_errors=True)
    root.mkdir(parents=True)
    os.environ["SOURCE_DATE_EPOCH"] = str(TODAY)
    _make(root)
    clock = [TODAY, 0]
    build = root / "_build"
    scans = _scans(root)
    found = [scan() for scan in scans]
    for saved_together in changes:
        before = source_stamps(root, build / "html", build / "doctrees")
        for kind, relpath, value in saved_together:
            _save(root, kind, relpath, value, clock)
        after = source_stamps(root, build / "html", build / "doctrees")
        since = None
        if before.keys() == after.keys():
            saved = frozenset(path for path in after if before[path] != after[path])
            unseen = tuple(path[:-1] for path in after if path.endswith("/"))
            since = SinceScanned(saved, unseen)
        for scan, was, whole in zip(scans, found, _scans(root), strict=True):
            assert found_again(scan, was, since) == whole()
        # As the standby does after a build: the next application is made with whole scans.
        scans = _scans(root)
        found = [scan() for scan in scans]


def test_a_scan_that_cannot_see_every_file_it_reads_reads_them_all(site):
    root = site / "site"
    root.mkdir()
    _make(root)
    scan = DraftScan(str(root), PATTERN)
    found = scan()
    post = root / "posts/a/one.md"
    post.write_text(_text(3))
    os.utime(post, ns=(1_700_000_000_000_000_000,) * 2)
    # The stamps did not look into posts/a (a link to a folder, say), so they saw no save:
    # the scan reads every post again.
    assert found_again(scan, found, SinceScanned(frozenset(), ("posts/a",))) == ["posts/a/one.md"]
    assert found_again(scan, found, SinceScanned(frozenset(), ("",))) == ["posts/a/one.md"]
