"""Pagefind's bundle layout, which Pagefind does not document: kb reads and writes it only for
the Pagefind versions it was checked against.

:mod:`kb.search.merge`, :mod:`kb.search.metafields` and :mod:`kb.search.cbor` merge shards'
bundles into one, and :mod:`kb.search.canonical` puts a bundle's filters in a stable order,
reading Pagefind's files as Pagefind 1.5 writes them. With any other Pagefind, kb indexes every
page in one plain Pagefind run and leaves its bundle as Pagefind wrote it.
"""

from __future__ import annotations

import importlib.metadata
import os

#: The Pagefind versions whose bundle layout kb knows, exactly. Another version is added
#: here only once ``tests/test_search_shards.py`` and ``tests/test_search.py`` pass with it:
#: they compare merged bundles with bundles Pagefind writes in one run.
KNOWN_VERSIONS = frozenset({"1.5.2"})

#: The distributions that carry Pagefind's binary, in the order ``pagefind.service`` looks.
_BINARIES = ("pagefind-bin-extended", "pagefind-bin")


def installed_version() -> str:
    """The version of the Pagefind binary that runs, as ``pagefind.service.get_executable``
    finds it: its package's version, "unknown" for a binary named by ``PAGEFIND_BINARY_PATH``
    or found on ``PATH``."""
    if os.environ.get("PAGEFIND_BINARY_PATH") is not None:
        return "unknown"
    for name in _BINARIES:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


def layout_is_known(version: object) -> bool:
    """Whether kb may read and write the bundles of this Pagefind version: the installed one's
    (:func:`installed_version`) before it runs, or the one a bundle's ``pagefind-entry.json``
    names."""
    return version in KNOWN_VERSIONS
