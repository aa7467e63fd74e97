"""kb serve's prepared builds: the next build's application is made while the author reads the
page, and used only when a new one would be the same (kb.incremental.standby).

The rules are tested in-process on an application prepared as the worker prepares it; the
worker is tested end to end: an edit is built by the prepared application, and after a
sequence of edits, additions, deletions, renames and a configuration change, every file a
reader can fetch is the file a clean build writes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sitebuild import copy_root
from test_output import site_files, wait_for_background_index

from kb.cli.serve import WarmWorker, build_folders, sphinx_arguments
from kb.core.output import lock_folders, release
from kb.core.state import build_state
from kb.incremental.standby import Inputs, source_stamps, state_stamps, still_current
from kb.upstream.sphinx import PreparedBuild


@pytest.fixture
def site(tmp_path) -> Path:
    return copy_root("listings", tmp_path / "site").resolve()


def _build_with_worker(site: Path) -> None:
    worker = WarmWorker(site)
    try:
        assert worker.build(sphinx_arguments(site) + ["-q"], prepare=False) == 0
    finally:
        worker.close()
    wait_for_background_index(site)


class Prepared:
    """An application prepared as the worker's standby prepares it, in this process."""

    def __init__(self, site: Path) -> None:
        self.build = PreparedBuild(sphinx_arguments(site) + ["-q"])
        args = self.build.args
        sources = source_stamps(args.sourcedir, args.outputdir, args.doctreedir)
        self.build.prepare()
        self.app = self.build.app
        assert self.app is not None
        self.made_from = Inputs(sources, state_stamps(self.app))
        release(build_state(self.app).locks)

    def still_current(self) -> bool:
        app = self.app
        held = lock_folders([app.outdir, app.doctreedir])
        try:
            return still_current(app, self.made_from)
        finally:
            release(held)

    def close(self) -> None:
        self.build.close()


@pytest.fixture
def prepared(site):
    _build_with_worker(site)
    made = Prepared(site)
    yield made
    made.close()


def _later(path: Path) -> None:
    """Make sure a rewrite of ``path`` gets another stamp, whatever the clock's resolution."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    _later(path)


def test_an_edited_post_keeps_the_prepared_application(site, prepared):
    assert prepared.still_current()
    _edit(site / "posts/post-14.md", "# Post 14", "# Post 14, edited")
    assert prepared.still_current()


def test_an_edit_saved_by_renaming_a_new_file_over_the_post_keeps_it(site, prepared):
    post = site / "posts/post-14.md"
    new = post.with_name(".post-14.md.tmp")
    new.write_text(post.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    os.replace(new, post)  # as many editors save: a new inode, the folder changed
    assert prepared.still_current()


@pytest.mark.parametrize(
    "change",
    [
        "added post",
        "deleted post",
        "renamed post",
        "configuration",
        "image",
        "post made a draft",
        "another build",
    ],
)
def test_any_other_change_discards_the_prepared_application(site, prepared, change):
    post = site / "posts/post-14.md"
    if change == "added post":
        (site / "posts/post-28.md").write_text(post.read_text(encoding="utf-8"))
    elif change == "deleted post":
        post.unlink()
    elif change == "renamed post":
        post.rename(site / "posts/post-14-renamed.md")
    elif change == "configuration":
        _edit(site / "conf.py", "kb_page_size = 10", "kb_page_size = 5")
    elif change == "image":
        (site / "posts/chart.png").write_bytes(b"\x89PNG not really")
    elif change == "post made a draft":
        # A document's text, but a step read it before the environment loaded: the drafts.
        text = post.read_text(encoding="utf-8")
        date_line = next(line for line in text.splitlines() if line.startswith("date:"))
        _edit(post, date_line, "date: 2999-01-01")
    elif change == "another build":
        # make html in another terminal while kb serve waits, after an edit that alone would
        # keep the application: the saved state changed under it.
        _edit(post, "# Post 14", "# Post 14, edited")
        _build_with_worker(site)
    assert not prepared.still_current()


@pytest.mark.slow
def test_the_worker_builds_an_edit_with_the_prepared_application(site):
    worker = WarmWorker(site)
    arguments = sphinx_arguments(site) + ["-q"]
    try:
        assert worker.build(arguments) == 0
        assert not worker.last_prepared  # the first build has nothing prepared
        _edit(site / "posts/post-14.md", "# Post 14", "# Post 14, edited")
        assert worker.build(arguments, prepare=False) == 0
        assert worker.last_prepared
        page = (build_folders(site)[0] / "posts/post-14.html").read_text(encoding="utf-8")
        assert "Post 14, edited" in page
        # Asked not to prepare, the worker forks a fresh build, as before.
        assert not worker.wait_prepared()
        _edit(site / "posts/post-14.md", "Post 14, edited", "Post 14, edited again")
        assert worker.build(arguments) == 0
        assert not worker.last_prepared
        assert "edited again" in (build_folders(site)[0] / "posts/post-14.html").read_text()
    finally:
        worker.close()


@pytest.mark.slow
def test_after_any_sequence_the_worker_leaves_a_clean_builds_files(site, tmp_path):
    posts = site / "posts"
    template = (posts / "post-14.md").read_text(encoding="utf-8")
    # Each change, and whether the prepared application may build it (only a document's text).
    steps = [
        (lambda: _edit(posts / "post-14.md", "# Post 14", "# Post 14, retitled"), True),
        (lambda: _edit(posts / "post-27.md", "# Post 27", "# Post 27, newest retitled"), True),
        (
            lambda: (posts / "post-28.md").write_text(
                template.replace("# Post 14", "# Post 28").replace("2025-", "2026-"),
                encoding="utf-8",
            ),
            False,
        ),
        (lambda: _edit(posts / "post-03.md", "# Post 03", "# Post 03, edited"), True),
        (lambda: (posts / "post-05.md").unlink(), False),
        (lambda: (posts / "post-06.md").rename(posts / "post-06-moved.md"), False),
        (lambda: _edit(posts / "post-06-moved.md", "# Post 06", "# Post 06, moved"), True),
        (lambda: _edit(site / "conf.py", "kb_page_size = 10", "kb_page_size = 7"), False),
        (lambda: _edit(posts / "post-14.md", "Post 14, retitled", "Post 14, twice"), True),
    ]
    worker = WarmWorker(site)
    arguments = sphinx_arguments(site) + ["-q"]
    prepared = []
    try:
        assert worker.build(arguments) == 0
        for step, _ in steps:
            wait_for_background_index(site)
            assert worker.wait_prepared()
            step()
            assert worker.build(arguments) == 0
            prepared.append(worker.last_prepared)
    finally:
        worker.close()
    wait_for_background_index(site)
    assert prepared == [expected for _, expected in steps]

    clean = tmp_path / "clean"
    clean.mkdir()
    for path in site.rglob("*"):
        relative = path.relative_to(site)
        if relative.parts[0] != "_build" and path.is_file():
            (clean / relative).parent.mkdir(parents=True, exist_ok=True)
            (clean / relative).write_bytes(path.read_bytes())
    _build_with_worker(clean)
    got, expected = site_files(build_folders(site)[0]), site_files(build_folders(clean)[0])
    assert sorted(got) == sorted(expected)
    assert [name for name in expected if got[name] != expected[name]] == []


@pytest.mark.slow
def test_what_preparing_logs_is_shown_once_with_the_build_that_uses_it(site, tmp_path, capfd):
    """A warning of a step run while the application is prepared (a post that is a link out of
    the repository, refused at config-inited) is held until the build and shown once, whether
    the prepared application builds or gives way to a fresh one."""
    outside = tmp_path / "outside.md"
    outside.write_text("---\ndate: 2025-01-01\n---\n# Outside\n", encoding="utf-8")
    (site / "posts/linked.md").symlink_to(outside)
    worker = WarmWorker(site)
    arguments = sphinx_arguments(site) + ["-q"]
    try:
        assert worker.build(arguments) == 0
        first = capfd.readouterr().err
        assert worker.wait_prepared()  # and logged the warning
        _edit(site / "posts/post-14.md", "# Post 14", "# Post 14, edited")
        assert capfd.readouterr().err == "", "the prepared application's log was not held"
        assert worker.build(arguments) == 0
        assert worker.last_prepared
        second = capfd.readouterr().err
        assert worker.wait_prepared()
        (site / "posts/post-29.md").write_text(
            (site / "posts/post-14.md").read_text(encoding="utf-8"), encoding="utf-8"
        )
        assert worker.build(arguments) == 0
        assert not worker.last_prepared  # a new file: built afresh
        third = capfd.readouterr().err
    finally:
        worker.close()
    for err in (first, second, third):
        assert err.count("linked.md:1") == 1, err
