"""kb serve reloads the browsers as soon as the edited pages are written, and once more only if
the rest of the build changed a file a page shows (kb.cli.reloads).

The comparison is tested on folders of files; the worker and the server's rebuilds end to end:
the page shown early is the finished build's page, byte for byte, and an edit that changes
a listing too reloads the browsers a second time, once the listing is written."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest
from helpers import write_files
from sitebuild import copy_root, warm_worker

from kb.cli.reloads import Shown
from kb.cli.serve import Rebuilds, build_folders, sphinx_arguments

# -- What counts as a change (no build) -----------------------------------------------------------


def _output(tmp_path: Path) -> Path:
    out = tmp_path / "html"
    files = {
        "index.html": "<p>home</p>",
        "posts/a.html": "<p>a</p>",
        "_static/basic.css": "body {}",
        "pagefind/pagefind-entry.json": "{}",
        "objects.inv": "inventory",
        ".buildinfo": "config",
    }
    write_files(out, files)
    return out


def _write_new_file(path: Path, text: str) -> None:
    """Write ``text`` as a new file renamed over ``path`` (a new stamp, as a build writes)."""
    new = path.with_name(path.name + ".new")
    new.write_text(text, encoding="utf-8")
    os.replace(new, path)


@pytest.mark.unit
def test_an_output_left_alone_has_not_changed(tmp_path):
    out = _output(tmp_path)
    assert not Shown(out).changed()


@pytest.mark.unit
@pytest.mark.parametrize("change", ["page rewritten", "page added", "page removed", "static"])
def test_a_file_a_page_shows_added_removed_or_rewritten_has_changed(tmp_path, change):
    out = _output(tmp_path)
    shown = Shown(out)
    if change == "page rewritten":
        _write_new_file(out / "posts/a.html", "<p>a, edited</p>")
    elif change == "page added":
        (out / "posts/b.html").write_text("<p>b</p>", encoding="utf-8")
    elif change == "page removed":
        (out / "posts/a.html").unlink()
    else:
        _write_new_file(out / "_static/basic.css", "body { margin: 0 }")
    assert shown.changed()


@pytest.mark.unit
def test_a_write_under_way_has_not_changed_anything_until_its_rename(tmp_path):
    """The search indexer fills the search page in as the build ends (a new file, renamed over
    it): a comparison that finds the new file before the rename sees nothing changed yet."""
    out = _output(tmp_path)
    shown = Shown(out, "search.html")
    (out / "search.html.4242.139.partial").write_text("<p>half</p>", encoding="utf-8")
    (out / "posts/.a.html.4242.partial").write_text("<p>half</p>", encoding="utf-8")
    assert not shown.changed()
    os.replace(out / "posts/.a.html.4242.partial", out / "posts/a.html")
    assert shown.changed()


@pytest.mark.unit
def test_a_static_file_written_again_with_its_bytes_has_not_changed(tmp_path):
    """Sphinx renders basic.css and documentation_options.js again on every build."""
    out = _output(tmp_path)
    shown = Shown(out)
    _write_new_file(out / "_static/basic.css", "body {}")
    assert not shown.changed()


@pytest.mark.unit
def test_the_search_bundle_and_sphinxs_records_are_not_compared(tmp_path):
    """The search bundle is written after the build (kb_search_defer); .buildinfo and
    objects.inv are written on every build, and no page shows them."""
    out = _output(tmp_path)
    shown = Shown(out)
    _write_new_file(out / "pagefind/pagefind-entry.json", '{"version": 2}')
    (out / "pagefind/fragment/en_1.pf_fragment").parent.mkdir(parents=True)
    (out / "pagefind/fragment/en_1.pf_fragment").write_bytes(b"\x00")
    _write_new_file(out / "objects.inv", "another inventory")
    _write_new_file(out / ".buildinfo", "another config")
    assert not shown.changed()


@pytest.mark.unit
def test_the_search_pages_bundle_part_is_not_compared_and_the_rest_is(tmp_path):
    """kb serve's indexer fills the search page's bundle part in once the build has said it
    succeeded: that is no change of the build's (it raced the comparison), the page's other
    bytes are."""
    from kb.search.pagefind import BUNDLE_END, BUNDLE_START

    out = _output(tmp_path)
    page = out / "search.html"

    def search_page(bundle: str, heading: str = "Search") -> str:
        return f"<h1>{heading}</h1>{BUNDLE_START}{bundle}{BUNDLE_END}<p>results</p>"

    page.write_text(search_page('<link href="pagefind/pagefind-entry.json?1">'), "utf-8")
    shown = Shown(out, "search.html")
    _write_new_file(page, search_page('<link href="pagefind/pagefind-entry.json?2">'))
    assert not shown.changed()
    _write_new_file(page, search_page('<link href="pagefind/pagefind-entry.json?2">', "Find"))
    assert shown.changed()
    # Without its name, the search page is a page as any other.
    page.write_text(search_page("1"), "utf-8")
    shown = Shown(out)
    _write_new_file(page, search_page("2"))
    assert shown.changed()


# -- The worker and the server's rebuilds ---------------------------------------------------------


@pytest.fixture
def site(tmp_path) -> Path:
    return copy_root("listings", tmp_path / "site").resolve()


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    _write_new_file(path, text.replace(old, new))


def _append(path: Path, text: str) -> None:
    _write_new_file(path, path.read_text(encoding="utf-8") + text)


class Early:
    """A ``pages_written`` callback that keeps what two pages and the code colours held
    when it was called."""

    def __init__(self, site: Path) -> None:
        out = build_folders(site)[0]
        self.post, self.listing = out / "posts/post-14.html", out / "blog.html"
        self.colours = out / "_static/pygments.css"
        self.seen: list[tuple[bytes, bytes]] = []
        self.colours_seen: list[bytes] = []

    def __call__(self) -> None:
        self.seen.append((self.post.read_bytes(), self.listing.read_bytes()))
        self.colours_seen.append(self.colours.read_bytes())


@pytest.mark.slow
def test_the_edited_page_is_shown_before_the_build_ends_as_it_ends(site):
    arguments = sphinx_arguments(site) + ["-q"]
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        assert worker.wait_prepared()
        post = site / "posts/post-14.md"
        # Not the excerpt the listing shows, and no word the related lists count (three
        # letters or more): no other page changes.
        _append(post, "\n1729, 4104.\n")
        early = Early(site)
        assert worker.build(arguments, pages_written=early) == 0
        assert worker.last_prepared
        [(page, _)] = early.seen
        assert b"1729, 4104." in page
        assert page == early.post.read_bytes()  # the finished build's page, byte for byte
        # furo's code colours, which furo writes over Sphinx's only at build-finished.
        assert early.colours_seen == [early.colours.read_bytes()]
        assert b"prefers-color-scheme: dark" in early.colours_seen[0]
        assert not worker.last_changed  # nothing else a page shows: no second reload

        # A new title is on the listing too, which the build writes after the pages.
        assert worker.wait_prepared()
        _edit(post, "# Post 14", "# Post 14, renamed")
        early = Early(site)
        assert worker.build(arguments, pages_written=early) == 0
        [(page, listing)] = early.seen
        assert b"Post 14, renamed" in page and page == early.post.read_bytes()
        assert b"Post 14, renamed" not in listing
        assert b"Post 14, renamed" in early.listing.read_bytes()
        assert worker.last_changed  # so the browsers reload once more


@pytest.mark.slow
def test_the_server_reloads_early_and_again_only_when_more_changed(site):
    arguments = sphinx_arguments(site) + ["-q"]
    rebuilds = Rebuilds(site, arguments, "http://127.0.0.1:1/")
    post = site / "posts/post-14.md"
    try:
        assert rebuilds(changed_paths=())  # the first build: nothing was shown early
        for old, new, again in [
            (None, "\n1729, 4104.\n", False),
            # Words the related lists count: other posts' lists change, after the early reload.
            (None, "\nA last paragraph about zebrafish.\n", True),
            ("# Post 14", "# Post 14, renamed", True),
        ]:
            assert rebuilds.worker is not None and rebuilds.worker.wait_prepared()
            if old is None:
                _append(post, new)
            else:
                _edit(post, old, new)
            told: list[bool] = []
            again_at_end = rebuilds(changed_paths=[post], pages_written=partial(told.append, True))
            assert told == [True]
            assert again_at_end is again
        # Unprepared (a fresh child for each build): the browsers reload at the end only.
        rebuilds.prepare = False
        assert rebuilds.worker.wait_prepared()  # the standby made after the last build
        _edit(post, "# Post 14, renamed", "# Post 14")
        rebuilds(changed_paths=[post])  # built by that standby; the next has none
        _edit(post, "# Post 14", "# Post 14, again")
        told = []
        assert rebuilds(changed_paths=[post], pages_written=partial(told.append, True))
        assert told == []
    finally:
        rebuilds.close()


@pytest.mark.slow
def test_a_deleted_posts_page_is_gone_when_the_pages_are_shown(site):
    arguments = sphinx_arguments(site) + ["-q"]
    page = build_folders(site)[0] / "posts/post-14.html"
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        assert page.is_file()
        assert worker.wait_prepared()
        (site / "posts/post-14.md").unlink()
        there: list[bool] = []
        assert worker.build(arguments, pages_written=lambda: there.append(page.exists())) == 0
        assert worker.last_prepared
        assert there == [False]
        assert worker.last_changed  # the listings that showed it are written after


@pytest.mark.slow
def test_a_standby_discarded_while_it_prepares_exits_without_a_traceback(site, capfd):
    """kb serve stopped (or a build asked for with other arguments) while the next build's
    application is being made: the standby's word that it is ready finds no reader."""
    from kb.cli.buildworker import Standby

    standby = Standby(sphinx_arguments(site) + ["-q"])
    standby.discard()  # at once: it is still making its application (about a second)
    assert "Traceback" not in capfd.readouterr().err
