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
