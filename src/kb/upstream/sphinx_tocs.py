"""Sphinx's table of contents of each document (``env.tocs``), kept pickled one by one.

``env.tocs`` maps each document to a tree of docutils nodes: its sections, as the sidebars and
toctrees show them. Sphinx pickles the whole environment after every build that read anything,
and every build unpickles it: at 10,000 posts the tocs were 260,000 nodes, a quarter of the
environment's 70 MB but half of the time to pickle it (1.0 s of 1.9 s) and 0.49 s of the 1.19 s
to load it, while a build reads the tocs of the few documents whose pages it writes.

:class:`PickledTocs` is the mapping kb puts in its place (:func:`keep_tocs_pickled`): it
pickles to each document's toc pickled on its own, and what it loads stays those bytes until a
build reads that entry. An entry that was read (and so may have been changed in place: Sphinx
numbers sections in the nodes themselves) or set is pickled again when the environment is; one
that was not is the same bytes it was loaded from. So the environment holds what Sphinx's plain
dictionary would, and ``kb serve``'s next build loads it in half the time.

Sphinx reads and writes ``env.tocs`` with ``[]``, ``in`` and ``pop`` (its toctree collector
and adapter, and the gettext builder), which any mapping offers; nothing in Sphinx, ablog or
furo asks for a ``dict``. ``tests/test_upstream.py`` checks that the pages and environment of
a build are those of one with Sphinx's dictionary.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, MutableMapping
from typing import Any


class PickledTocs(MutableMapping[str, Any]):
    """``env.tocs``, each entry a toc node or, until it is read, the bytes it was loaded from."""

    __slots__ = ("_entries",)

    def __init__(self, tocs: dict[str, Any] | None = None) -> None:
        self._entries: dict[str, Any] = dict(tocs or {})

    def __getitem__(self, docname: str) -> Any:
        entry = self._entries[docname]
        if isinstance(entry, bytes):
            # From now on the node may change in place: it is pickled again with the environment.
            entry = self._entries[docname] = pickle.loads(entry)  # noqa: S301  (Sphinx's own file)
        return entry

    def __setitem__(self, docname: str, toc: Any) -> None:
        self._entries[docname] = toc

    def __delitem__(self, docname: str) -> None:
        del self._entries[docname]

    def __contains__(self, docname: object) -> bool:
        return docname in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __reduce__(self) -> tuple[Any, tuple[dict[str, bytes]]]:
        return _loaded, (self.pickled(),)

    def pickled(self) -> dict[str, bytes]:
        """Each document's toc, pickled: the bytes it was loaded from where no one read it."""
        return {
            docname: entry
            if isinstance(entry, bytes)
            else pickle.dumps(entry, pickle.HIGHEST_PROTOCOL)
            for docname, entry in self._entries.items()
        }

    def read_since_loaded(self) -> list[str]:
        """The documents whose entry was read or set since it was loaded (for tests)."""
        return [docname for docname, entry in self._entries.items() if not isinstance(entry, bytes)]


def _loaded(pickled: dict[str, bytes]) -> PickledTocs:
    tocs = PickledTocs()
    tocs._entries = pickled
    return tocs


def keep_tocs_pickled(env) -> None:
    """Put a :class:`PickledTocs` in place of the environment's ``tocs`` dictionary (a new
    environment's, or one pickled before kb did this), with the same entries."""
    if not isinstance(env.tocs, PickledTocs):
        env.tocs = PickledTocs(env.tocs)
