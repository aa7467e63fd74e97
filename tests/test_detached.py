"""The detached copy of a build's process that carries on its work (kb serve's indexer)."""

from __future__ import annotations

import json
import os

import pytest

from kb.core.detached import run_detached

pytestmark = pytest.mark.unit  # forks, builds nothing


def _read_to_end(descriptor: int) -> bytes:
    data = b""
    while chunk := os.read(descriptor, 4096):
        data += chunk
    os.close(descriptor)
    return data


def test_the_copy_keeps_only_the_descriptors_it_is_given_and_writes_to_its_log(tmp_path):
    kept_read, kept = os.pipe()
    other_read, other = os.pipe()
    seen = tmp_path / "seen.json"

    def work() -> int:
        descriptors = sorted(int(name) for name in os.listdir("/proc/self/fd"))
        seen.write_text(json.dumps({"descriptors": descriptors, "session": os.getsid(0)}))
        print("written by the copy")  # sys.stdout here is pytest's capture, not a descriptor
        os.write(kept, b"done")
        return 0

    assert run_detached(work, [kept], tmp_path / "copy.log")
    os.close(kept)
    os.close(other)
    # Each pipe's end comes once no process holds its write end: the copy never held
    # `other`, and let go of `kept` when it exited.
    assert _read_to_end(other_read) == b""
    assert _read_to_end(kept_read) == b"done"
    found = json.loads(seen.read_text())
    assert kept in found["descriptors"] and other not in found["descriptors"]
    assert found["session"] != os.getsid(0)  # a Ctrl-C in the build's terminal misses it
    assert (tmp_path / "copy.log").read_text() == "written by the copy\n"


def test_a_copy_that_fails_says_why_in_its_log(tmp_path):
    done_read, done = os.pipe()

    def work() -> int:
        raise ValueError("the reason")

    assert run_detached(work, [done], tmp_path / "copy.log")
    os.close(done)
    assert _read_to_end(done_read) == b""  # the copy has exited
    log = (tmp_path / "copy.log").read_text()
    assert "Traceback" in log and "ValueError: the reason" in log
