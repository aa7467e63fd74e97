"""Writing build files so that a reader never sees half of one.

Pagefind may be reading a search record through a staging link while the next build writes
it again (``kb serve`` indexes in the background), and parallel writers may draw the same
chart: each file is written under another name and renamed into place.
"""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` as a new file that replaces the old one whole."""
    _replace(path, text.encode("utf-8"))


def write_if_changed(path: Path, data: str | bytes) -> bool:
    """Write ``data`` atomically unless the file already holds exactly it; True if written.

    Leaving an unchanged file alone keeps its time stamp, so servers and rsync see no change.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if path.read_bytes() == raw:
            return False
    except OSError:
        pass
    _replace(path, raw)
    return True


def _replace(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
