"""Bounded reads (issue 31): the one reader of files that posts, notebooks and `kb import` name.

A FIFO, a device, a folder, a link that leads out or round, a file over the limit: refused
before anything blocks or reads past the limit.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from kb.checks.bounded import ReadRefused, read_bounded, refusal


def test_a_regular_file_up_to_the_limit_is_read(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"a" * 100)
    assert read_bounded(path, 100) == b"a" * 100
    assert read_bounded(path, 100, root=tmp_path) == b"a" * 100


def test_one_byte_over_the_limit_is_refused(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"a" * 101)
    with pytest.raises(ReadRefused) as refused:
        read_bounded(path, 100)
    assert refused.value.refusal.reason == "is larger than kb_max_file_bytes (100 bytes)"


def test_the_limit_holds_while_reading_whatever_the_size_says():
    # /proc files say they hold 0 bytes: the limit is what stops the read, not the size.
    maps = Path("/proc/self/maps")
    if not maps.exists() or os.stat(maps).st_size != 0:
        pytest.skip("needs Linux's /proc")
    with pytest.raises(ReadRefused, match="larger than kb_max_file_bytes"):
        read_bounded(maps, 16)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    outcome = []
    reader = threading.Thread(target=lambda: outcome.append(_refused(fifo)), daemon=True)
    reader.start()
    reader.join(10)
    assert outcome == ["is a FIFO (named pipe), whose reading would wait forever"]


def test_a_device_and_a_folder_are_refused(tmp_path):
    assert _refused("/dev/zero") == "is a device, whose reading may never end"
    assert _refused(tmp_path) == "is a folder"


def test_links_that_lead_out_or_round_are_refused(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    (root / "out.txt").symlink_to("../secret.txt")
    (root / "loop.txt").symlink_to("loop.txt")
    (root / "zero.md").symlink_to("/dev/zero")
    out = "leads outside the repository through a symbolic link"
    assert _refused(root / "out.txt", root) == out
    assert _refused(root / "zero.md", root) == out
    assert _refused(root / "loop.txt", root) == "is a symbolic link that leads to itself (a loop)"
    assert _refused(tmp_path / "secret.txt", root) == "is outside the repository"


def test_refusal_alone_never_opens_the_file(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # os.stat only: a FIFO opened for reading with no writer would block this call.
    assert refusal(fifo, 100).reason.startswith("is a FIFO")
    assert refusal(tmp_path / "missing", 100) is None  # the reader says "not found" itself


def _refused(path, root=None) -> str:
    try:
        read_bounded(path, 1 << 20, root)
    except ReadRefused as error:
        return error.refusal.reason
    return "read"
