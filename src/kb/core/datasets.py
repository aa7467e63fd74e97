"""Benchmark datasets: what each ``benchmark`` figure shows, kept per document.

The ``benchmark`` directive (kb.benchmark) reads a post's CSV files while the post is read and
leaves one :class:`Dataset` per file it shows, with the facts a reader compares across posts:
GPU, data type, when it was measured, software, the best value and its share of the GPU's
peak, where to download the data, and the command that produced it. They live in the
environment per document (``env_state(env).datasets``, with purge and merge handlers, so parallel
reads are safe), like :mod:`kb.core.catalog`'s post sources. Outputs read them through
:func:`datasets_of` and :func:`find`; a figure that compares with another post's dataset
names it as ``<docname>#<name>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .posts import digest
from .state import env_state


@dataclass(frozen=True)
class Series:
    """One line or set of bars: its label and points, in the dataset's unit."""

    label: str
    points: tuple[tuple[float | str, float], ...]


@dataclass(frozen=True)
class Dataset:
    """One CSV file as a figure shows it (after its ``:filter:``)."""

    docname: str
    name: str  # unique in its document; ``<docname>#<name>`` names it across the site
    anchor: str  # the id of the figure that shows it
    title: str
    line: int  # of the directive, for messages
    csv: str  # the file, relative to the source folder
    csv_download: str = ""  # where the build publishes it, relative to the output folder
    metadata: str = ""
    metadata_download: str = ""
    gpu_key: str = ""  # in the GPU registry (kb/data/hardware.toml), when it is there
    gpu_name: str = ""
    gpu_short: str = ""  # "H200"
    dtype: str = ""
    measured: str = ""  # YYYY-MM-DD
    software: str = ""  # as the caption says it: "torch 2.11.0, CUDA 13.0"
    versions: tuple[tuple[str, str], ...] = ()  # (label, version): ("torch", "2.11.0"), …
    unit: str = ""  # of the measured column
    metric: str = ""  # the peak's metric key (dense_bf16), else what the unit measures
    metric_label: str = ""  # "dense BF16", "bandwidth"
    x: str = ""
    x_label: str = ""
    x_unit: str = ""
    y: str = ""  # the measured column (the first, when a figure shows several)
    y_label: str = ""
    group: str = ""
    filter: str = ""
    best: float | None = None
    best_shown: str = ""  # rounded as the figure's table rounds it
    best_at: str = ""  # where: "M = N = K 8192, bf16"
    peak: float | None = None  # in ``unit``
    peak_source: str = ""
    command: str = ""  # what produced the CSV, from the metadata (the Reproduce block)
    series: tuple[Series, ...] = field(default=(), repr=False)

    @property
    def key(self) -> str:
        return f"{self.docname}#{self.name}"

    @property
    def percent_of_peak(self) -> float | None:
        if self.best is None or not self.peak:
            return None
        return round(100 * self.best / self.peak, 1)

    def fingerprint(self) -> str:
        """Everything a page that shows or compares with this dataset may show of it."""
        return digest([repr(self), repr(self.series)])


@dataclass(frozen=True)
class Reference:
    """A figure's ``:compare:`` entry: another dataset, by ``<docname>#<name>``."""

    target: str
    line: int
    unit: str = ""  # the unit the figure draws in, when it says (``:unit:``, its own CSV)


@dataclass
class DocumentDatasets:
    datasets: list[Dataset] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)


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


def _purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _store(env).pop(docname, None)


def _merge_info(app: Sphinx, env: BuildEnvironment, docnames, other) -> None:
    theirs = _store(other)
    for docname in docnames:
        if docname in theirs:
            _store(env)[docname] = theirs[docname]


def setup_datasets(app: Sphinx) -> None:
    app.connect("env-purge-doc", _purge_doc)
    app.connect("env-merge-info", _merge_info)
