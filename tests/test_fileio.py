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
