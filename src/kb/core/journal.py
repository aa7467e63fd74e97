"""The journal that makes a stopped build harmless.

kb keeps one record of what the last build wrote (``kb-state.json`` in the doctree folder:
each page's signature, see :mod:`kb.incremental.freshness`), and in the same file what
features keep between builds (:attr:`BuildState.kept_sections`: the formulas converted, the
related-post lists). A record vouches for pages on disk, so it
must never outlive a build that rewrote them and did not finish: a build stopped by SIGTERM
(a cancelled CI job, a stopped ``kb serve``) or SIGKILL (out of memory, power loss) after
rewriting a few pages with a new title left those pages behind, and once the title was
changed back the record of the last *finished* build said they were current.

So, as a database does it, the build writes its intent down before its first write and
removes it after its last:

* **begin** (before the first page, in-place refresh or file group kb vouches for is
  written): ``kb-state.journal`` is created next to the state and flushed to disk
  (``fsync``), listing the pages this build may write that the state does not know of;
  a page found later (a new tag's page) is added before it is written.
* **commit** (at ``build-finished``, after the last write): the new state replaces the old
  one, is flushed to disk, and the journal is removed.

A build that finds a journal (it holds the folder's lock, so the journal's writer is dead)
trusts no signature of the state: every page is written as a clean build writes it, while
Sphinx's environment is kept when Sphinx finds it valid. It removes the half-written files
(``*.partial``) the stopped build left, and the pages of both the state and the journal that
no longer exist. Its own journal keeps the names of the one it found, so that a recovery
stopped in turn is recovered the same way; features' sections are not trusted either. A
no-change build writes nothing, so it begins no journal and pays nothing.

The file is read once, with a size limit, and a section a feature finds of the wrong shape
is dropped by that feature (made again), never trusted.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from ..checks.bounded import read_bounded
from .fileio import fsync_folder, write_atomically

STATE_FILE = "kb-state.json"
JOURNAL_FILE = "kb-state.journal"

#: How the names of the search index's files in the doctree folder begin (``kb.search``
#: names each with it): its indexer writes them after the build that started it, while the
#: next standby is made, and no build reads them before it holds every lock, so they are not
#: among the state files that say another build ran (:func:`kb.incremental.standby.state_stamps`).
SEARCH_FILES = "kb-search-"
#: The state of a site of 10,000 posts with every formula stored is a few tens of MB.
MAX_STATE_BYTES = 256 * 2**20
#: Files of earlier versions of kb whose content is now a section of the state file.
FORMER_FILES = ("kb-math.json", "kb-related.json")
#: What every journal begins with: a journal cut short before it says even that is still a
#: journal (the build may have written nothing yet, but it is not known).
HEADER = "kb-journal 1\n"
PARTIAL_SUFFIX = ".partial"


class Journal:
    """The state of the last finished build in ``doctreedir``, and this build's journal."""

    def __init__(self, doctreedir: str | Path) -> None:
        folder = Path(doctreedir)
        self.state_path = folder / STATE_FILE
        self.path = folder / JOURNAL_FILE
        self._descriptor: int | None = None
        self._noted: set[str] = set()
        self._expected: list[str] = []
        try:
            text = read_bounded(self.path, MAX_STATE_BYTES).decode("utf-8", errors="replace")
        except FileNotFoundError:
            text = None
        except OSError:
            text = ""  # a journal that cannot be read still says a build was stopped
        #: The pages a stopped build named, or None when the last build finished.
        self.interrupted: list[str] | None = None
        if text is not None:
            self.interrupted = [line for line in text.splitlines() if line and line != HEADER[:-1]]
            self._noted.update(self.interrupted)
        self._stored = _read_state(self.state_path)

    @property
    def recovering(self) -> bool:
        return self.interrupted is not None

    def load_state(self) -> dict:
        """The last finished build's state; a bare one when there is none, when it cannot be
        read, or when a stopped build may have changed what it vouches for (only the names
        of pages are kept then, for removing those that are gone)."""
        state = self._stored
        if self.recovering:
            names = dict.fromkeys([*_names(state, "docs"), *_names(state, "pages")], "")
            names.update(dict.fromkeys(self.interrupted or (), ""))
            return {"docs": {}, "pages": names}
        return state

    def kept(self, section: str) -> Any:
        """What the last finished build kept under ``section`` (a feature's, see
        :attr:`BuildState.kept_sections`); None when there is none or a build was stopped."""
        return None if self.recovering else self._stored.get(section)

    def known(self, names) -> None:
        """Names the state already lists: never written to the journal."""
        self._noted.update(names)

    def expect(self, names) -> None:
        """Names this build may write, written to the journal when it begins."""
        self._expected.extend(name for name in names if name not in self._noted)

    def begin(self, name: str | None = None) -> None:
        """Before a write: the journal exists and names ``name``. The first call creates it
        and flushes it to disk; later ones cost nothing unless ``name`` is new."""
        new = [n for n in dict.fromkeys([*self._expected, name]) if n and n not in self._noted]
        if self._descriptor is not None and not new:
            return
        self._expected = []
        text = "".join(f"{n}\n" for n in new)
        if self._descriptor is None:
            # A recovering build appends to the journal it found: should it be stopped too,
            # the next build still removes what either stopped build may have written.
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
            self._descriptor = os.open(self.path, flags, 0o644)
            os.write(self._descriptor, ((HEADER if not self.recovering else "") + text).encode())
            os.fsync(self._descriptor)
            fsync_folder(self.path.parent)
        elif text:
            os.write(self._descriptor, text.encode("utf-8"))
        self._noted.update(new)

    @property
    def begun(self) -> bool:
        return self._descriptor is not None

    def commit(self, state: dict) -> None:
        """After the last write: ``state`` replaces the old one, and the journal is gone."""
        write_atomically(self.state_path, json.dumps(state, sort_keys=True), durable=True)
        for name in FORMER_FILES:
            (self.state_path.parent / name).unlink(missing_ok=True)
        self.close()
        self.path.unlink(missing_ok=True)
        fsync_folder(self.path.parent)
        self.interrupted = None

    def close(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None


def _read_state(path: Path) -> dict:
    """The state file's record; empty when there is none, or it is too large, cut short or
    damaged (everything is then made and written again)."""
    try:
        state = json.loads(read_bounded(path, MAX_STATE_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return state if isinstance(state, dict) else {}


def _names(state: dict, section: str) -> list[str]:
    found = state.get(section)
    return [name for name in found if isinstance(name, str)] if isinstance(found, dict) else []


def remove_partial_files(*folders: str | Path) -> None:
    """Delete what writers stopped half-way left (``<name>.<pid>.partial``). Only while this
    build holds the folders' locks: no live writer can own one then."""
    for folder in folders:
        for parent, _, files in os.walk(folder):
            for name in files:
                if name.endswith(PARTIAL_SUFFIX):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(parent, name))
