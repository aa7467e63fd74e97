"""`kb import` reads its file with kb's bounded reader (issue 31, item 4): `kb import /dev/zero`
ended in a MemoryError and `kb import` of a FIFO hung. Each is now refused at once, in one line,
and nothing is written."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent / "roots" / "test-authoring"
REGULAR = "name an ordinary file instead"


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(ROOT, root)
    return root


def kb_import(site: Path, name: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kb.cli", "import", name],
        cwd=site,
        capture_output=True,
        text=True,
        timeout=60,  # a FIFO used to block here forever
    )


def posts(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in (site / "posts").rglob("*"))


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (
            lambda site: os.mkfifo(site / "feed.xml"),
            "is a FIFO (named pipe), whose reading would wait forever",
        ),
        (
            lambda site: (site / "feed.xml").symlink_to("/dev/zero"),
            "is a device, whose reading may never end",
        ),
        (lambda site: (site / "feed.xml").mkdir(), "is a folder"),
    ],
    ids=["fifo", "dev-zero", "folder"],
)
def test_kb_import_refuses_what_is_no_ordinary_file(site, make, reason):
    make(site)
    before = posts(site)
    done = kb_import(site, "feed.xml")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"feed.xml: cannot read this file ({reason}; {REGULAR})\n"
    assert posts(site) == before
