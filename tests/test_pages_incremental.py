"""The navigation of the site's pages is on every page: an incremental build after a page is
added, retitled or removed writes what a clean build writes (tests/roots/test-pages)."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _build(src: Path, out: Path) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1780000000"}
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-d", str(out / "dt")]
    subprocess.run([*command, str(src), str(out / "html")], check=True, env=env)


def _differences(left: Path, right: Path) -> list[str]:
    found = []
    compare = filecmp.dircmp(left, right)
    stack = [(compare, "")]
    while stack:
        node, prefix = stack.pop()
        found += [f"{prefix}{name}" for name in node.left_only + node.right_only]
        found += [f"{prefix}{name}" for name in node.diff_files]
        stack += [(sub, f"{prefix}{name}/") for name, sub in node.subdirs.items()]
    return sorted(found)


def test_adding_retitling_and_removing_a_page_match_a_clean_build(tmp_path, rootdir):
    src = tmp_path / "src"
    shutil.copytree(rootdir / "test-pages", src)
    _build(src, tmp_path / "inc")
    page = src / "pages" / "newpage.md"
    for change in ("add", "retitle", "remove"):
        if change == "add":
            page.write_text("# A new page\n\nText of the new page.\n", encoding="utf-8")
        elif change == "retitle":
            page.write_text("# A renamed page\n\nText of the new page.\n", encoding="utf-8")
        else:
            page.unlink()
        _build(src, tmp_path / "inc")
        clean = tmp_path / f"clean-{change}"
        _build(src, clean)
        assert _differences(tmp_path / "inc" / "html", clean / "html") == [], change
