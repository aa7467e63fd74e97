"""Benchmark datasets: what each ``benchmark`` figure shows, kept per document.

The ``benchmark`` directive (kb.benchmark) reads a post's CSV files while the post is read and
leaves one :class:`Dataset` per file it shows, with the facts a reader compares across posts:
GPU, data type, when it was measured, software, the best value and its share of the GPU's
peak, where to download the data, and the command that produced it. They live in the
environment per document (``env_state(env).datasets``, purged and merged by a collector, so
parallel reads are safe), like :mod:`kb.core.catalog`'s post sources. Outputs read them through
:func:`datasets_of` and :func:`find`; a figure that compares with another post's dataset
names it as ``<docname>#<name>``.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .collectors import DocumentTables
from .records import Dataset as Dataset
from .records import DocumentDatasets, Reference
from .records import Series as Series
from .state import env_state

# -- The environment's record ---------------------------------------------------------------


def _store(env: BuildEnvironment) -> dict[str, DocumentDatasets]:
    return env_state(env).datasets


def record(env: BuildEnvironment, docname: str, datasets, references) -> None:
    """What the document being read shows (replaces any earlier record of it)."""
    if datasets or references:
        _store(env)[docname] = DocumentDatasets(list(datasets), list(references))
    else:
        _store(env).pop(docname, None)


def datasets_of(env: BuildEnvironment, docname: str) -> list[Dataset]:
    entry = _store(env).get(docname)
    return entry.datasets if entry else []


def references_of(env: BuildEnvironment, docname: str) -> list[Reference]:
    entry = _store(env).get(docname)
    return entry.references if entry else []


def documents(env: BuildEnvironment) -> list[str]:
    """The documents that show or compare datasets, sorted."""
    return sorted(_store(env))


def find(env: BuildEnvironment, key: str) -> Dataset | None:
    """The dataset named ``<docname>#<name>``, or None."""
    docname, _, name = key.partition("#")
    return next((d for d in datasets_of(env, docname) if d.name == name), None)


class DatasetCollector(DocumentTables):
    """A document's datasets, written by the ``benchmark`` directive (:func:`record`)."""

    purged = ("datasets",)


def setup_datasets(app: Sphinx) -> None:
    app.add_env_collector(DatasetCollector)
