"""Build files are replaced whole: a reader holding the old file keeps all of it."""

from __future__ import annotations

import os

from kb.core.fileio import write_atomically


def test_write_atomically_replaces_the_file_and_leaves_a_linked_copy_whole(tmp_path):
    path = tmp_path / "records" / "posts" / "a.html"
    write_atomically(path, "first version")
    staged = tmp_path / "staging.html"
    os.link(path, staged)  # as kb.search.pagefind stages a record for Pagefind
    write_atomically(path, "second version")
    assert path.read_text(encoding="utf-8") == "second version"
    assert staged.read_text(encoding="utf-8") == "first version"
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.html"]  # no partial left


def test_background_writes_are_all_on_disk_when_wait_returns(tmp_path):
    from kb.core.fileio import BackgroundWrites

    writes = BackgroundWrites()
    paths = [tmp_path / "pages" / f"page-{number}.html" for number in range(200)]
    for number, path in enumerate(paths):
        writes.write(path, f"<html>page {number}</html>")
    writes.wait()
    assert [path.read_text(encoding="utf-8") for path in paths] == [
        f"<html>page {number}</html>" for number in range(200)
    ]
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == sorted(
        p.name for p in paths
    )  # no partial file left


def test_background_writes_report_the_first_failure(tmp_path):
    import pytest

    from kb.core.fileio import BackgroundWrites

    (tmp_path / "a-file").write_text("not a folder")
    writes = BackgroundWrites()
    writes.write(tmp_path / "fine.html", "fine")
    writes.write(tmp_path / "a-file" / "page.html", "cannot be written")
    with pytest.raises(OSError):
        writes.wait()
    assert (tmp_path / "fine.html").read_text(encoding="utf-8") == "fine"
    writes.wait()  # nothing left pending; usable again


def test_file_times_change_with_a_saved_added_or_removed_file_not_a_skipped_folders(tmp_path):
    from kb.core.fileio import file_times

    (tmp_path / "templates").mkdir()
    page = tmp_path / "templates" / "page.html"
    page.write_text("<p>page</p>", encoding="utf-8")
    os.utime(page, ns=(1_000_000_000, 1_000_000_000))
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "mod.pyc").write_bytes(b"compiled")
    skipped = frozenset({"__pycache__"})
    assert file_times(tmp_path, skipped) == ["templates/page.html:1000000000"]
    (tmp_path / "__pycache__" / "other.pyc").write_bytes(b"compiled again")
    assert file_times(tmp_path, skipped) == ["templates/page.html:1000000000"]
    os.utime(page, ns=(2_000_000_000, 2_000_000_000))  # saved
    assert file_times(tmp_path, skipped) == ["templates/page.html:2000000000"]
    (tmp_path / "a.css").write_text("p {}", encoding="utf-8")  # added, sorted first
    assert [line.split(":")[0] for line in file_times(tmp_path, skipped)] == [
        "a.css",
        "templates/page.html",
    ]
    page.unlink()
    assert [line.split(":")[0] for line in file_times(tmp_path, skipped)] == ["a.css"]
