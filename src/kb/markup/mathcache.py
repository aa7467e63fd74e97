"""Formulas converted by earlier builds, kept in kb's state file (:mod:`kb.core.journal`,
section ``math``): Node.js and Temml start only for a formula no earlier build converted.

Starting ``node`` with Temml costs about 0.1 s of a build that converts anything. An edit of
a post with math re-reads the post and converts every formula of it again, so without this
store each such edit paid the start-up although its formulas had not changed (a CPU profile
of a one-post edit at 1000 posts: 0.10 s of 3.0 s in Temml).

An entry is a formula's TeX and display flag with its MathML or the message of why it has
none. The section carries a signature of what makes the MathML (Temml's script, its runner
and ``math.py``): a section of another signature is ignored, never trusted, and so is any
entry of the wrong shape. The state file is read with a size limit and replaced whole at the
end of a build, so a build stopped at any moment leaves the old section or the new one; any
subset of entries is correct.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

from . import temml

SECTION = "math"
#: Enough for every formula of a large site; beyond it the oldest entries go first.
MAX_ENTRIES = 50_000
_MADE_BY = (temml.HERE / "temml.cjs", temml.SCRIPT, Path(__file__).with_name("math.py"))


def signature() -> str:
    digest = hashlib.sha256()
    for path in _MADE_BY:
        digest.update(path.read_bytes())
    return digest.hexdigest()


class MathStore:
    """Conversions by key (``"1" + tex`` for a display formula, ``"0" + tex`` inline), from
    the section an earlier build kept (``stored``, None for none)."""

    def __init__(self, stored: Any = None) -> None:
        self.signature = signature()
        self.entries: dict[str, list] = {}
        self.lock = threading.Lock()
        if isinstance(stored, dict) and stored.get("signature") == self.signature:
            self._load(stored.get("entries"))

    def _load(self, entries: Any) -> None:
        # A list of [key, kind, text], oldest first: the state file sorts a mapping's keys.
        if not isinstance(entries, list):
            return
        for entry in entries:
            if (
                isinstance(entry, list)
                and len(entry) == 3
                and isinstance(entry[0], str)
                and entry[1] in ("mathml", "error")
                and isinstance(entry[2], str)
            ):
                self.entries[entry[0]] = [entry[1], entry[2]]

    def get(self, tex: str, display: bool) -> tuple[str, str] | None:
        with self.lock:
            found = self.entries.get(_key(tex, display))
        return (found[0], found[1]) if found else None

    def put(self, tex: str, display: bool, kind: str, text: str) -> None:
        with self.lock:
            self.entries[_key(tex, display)] = [kind, text]

    def section(self) -> dict:
        """What the state file keeps: the newest ``MAX_ENTRIES`` entries."""
        with self.lock:
            keys = list(self.entries)[-MAX_ENTRIES:]
            entries = [[key, *self.entries[key]] for key in keys]
        return {"signature": self.signature, "entries": entries}


def _key(tex: str, display: bool) -> str:
    return ("1" if display else "0") + tex
