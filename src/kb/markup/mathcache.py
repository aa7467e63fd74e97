"""Formulas converted by earlier builds, kept beside the doctrees: Node.js and Temml start
only for a formula no earlier build converted.

Starting ``node`` with Temml costs about 0.1 s of a build that converts anything. An edit of
a post with math re-reads the post and converts every formula of it again, so without this
store each such edit paid the start-up although its formulas had not changed (a CPU profile
of a one-post edit at 1000 posts: 0.10 s of 3.0 s in Temml).

An entry is a formula's TeX and display flag with its MathML or the message of why it has
none. The file carries a signature of what makes the MathML (Temml's script, its runner and
``math.py``): a file of another signature is ignored, never trusted. The file is JSON, read
with a size limit, and written whole (a temporary name, then a rename), so a build stopped at
any moment leaves the old file or the new one; any subset of entries is correct.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from ..checks.bounded import read_bounded
from ..core.fileio import write_atomically
from . import temml

FILE = "kb-math.json"
#: Enough for every formula of a large site; beyond it the oldest entries go first.
MAX_ENTRIES = 50_000
MAX_BYTES = 64 * 2**20
_MADE_BY = (temml.HERE / "temml.cjs", temml.SCRIPT, Path(__file__).with_name("math.py"))


def signature() -> str:
    digest = hashlib.sha256()
    for path in _MADE_BY:
        digest.update(path.read_bytes())
    return digest.hexdigest()


class MathStore:
    """Conversions by key (``"1" + tex`` for a display formula, ``"0" + tex`` inline)."""

    def __init__(self, path: Path, load: bool = True) -> None:
        self.path, self.signature = path, signature()
        self.entries: dict[str, list] = {}
        self.changed = False
        self.lock = threading.Lock()
        if load:
            self._load()

    def _load(self) -> None:
        try:
            stored = json.loads(read_bounded(self.path, MAX_BYTES))
        except (OSError, ValueError, RecursionError):
            return  # none yet, cut short, too large or damaged: converted again
        if not isinstance(stored, dict) or stored.get("signature") != self.signature:
            return
        entries = stored.get("entries")
        if isinstance(entries, dict):
            self.entries = {
                key: value
                for key, value in entries.items()
                if isinstance(value, list)
                and len(value) == 2
                and value[0] in ("mathml", "error")
                and isinstance(value[1], str)
            }

    def get(self, tex: str, display: bool) -> tuple[str, str] | None:
        with self.lock:
            found = self.entries.get(_key(tex, display))
        return (found[0], found[1]) if found else None

    def put(self, tex: str, display: bool, kind: str, text: str) -> None:
        with self.lock:
            self.entries[_key(tex, display)] = [kind, text]
            self.changed = True

    def save(self) -> None:
        with self.lock:
            if not self.changed:
                return
            keys = list(self.entries)[-MAX_ENTRIES:]
            entries = {key: self.entries[key] for key in keys}
            self.changed = False
        text = json.dumps({"signature": self.signature, "entries": entries}, ensure_ascii=False)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, text)


def _key(tex: str, display: bool) -> str:
    return ("1" if display else "0") + tex
