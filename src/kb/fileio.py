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
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
