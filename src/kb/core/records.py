"""Plain records that the typed build state (:mod:`.state`) holds, below it.

Each is defined here rather than in the module that makes it, so that ``state.py`` can name
its type while every module that reads or writes the state imports ``state.py``: the import
graph has no circle and no import that runs back up. The modules that make them import them
from here (and their old names stay there for readers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from sphinx.application import Sphinx

from ..checks.model import PostFacts
from .posts import Post, digest


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


@dataclass(frozen=True)
class Outgoing:
    """What one document's text links to."""

    docs: frozenset[str] = frozenset()  # docnames
    labels: frozenset[str] = frozenset()  # {ref} labels (and MyST links to a label)
    terms: frozenset[str] = frozenset()  # {term} targets, casefolded


@dataclass
class LinkedBefore:
    """Where the links that may lead elsewhere led before a build read again, added or removed
    the documents ``changed`` (:func:`kb.core.links.links_before`)."""

    changed: set[str] = field(default_factory=set)
    #: The documents whose links lead to one of them, by name, label or term (or nowhere).
    candidates: set[str] = field(default_factory=set)
    #: What each of them (that was there) showed of itself to links: its title and anchors.
    faces: dict[str, tuple] = field(default_factory=dict)
    #: Each label and term the candidates link to: the document that defined it, or None.
    places: dict[tuple[str, str], str | None] = field(default_factory=dict)


@dataclass
class PostSource:
    """What one read of a post left in the environment (pickled between builds)."""

    facts: PostFacts | None = None  # the checks' findings, for the checks across posts
    flawed: bool = False  # the checks found an error: read again on every build
    fields: dict = field(default_factory=dict)  # what listings need; empty: not a post
    sections: list[dict] = field(default_factory=list)  # the same, for each section post


Signer = Callable[[Sphinx, str], str]


class PostsByDocument(Protocol):
    """Posts listed by document (each post's related posts): a dict, or one that makes each
    document's list when first asked for (``kb.pages.related.RelatedPosts``)."""

    def get(self, docname: str, /) -> list[Post] | None: ...


@dataclass(frozen=True)
class CheckedAhead:
    """The build folders' files of each document, checked by ``kb serve``'s standby while it
    waited (:func:`kb.incremental.freshness.check_ahead`): of ``documents``, those whose
    doctree is missing or cut short, and those whose page is there whole."""

    documents: frozenset[str]
    damaged_doctrees: frozenset[str]
    whole_pages: frozenset[str]


@dataclass(frozen=True)
class Region:
    """A part of every page, between two markers, that can be replaced on a written page."""

    name: str
    start: str  # the region begins with this text
    end: str  # and ends with the first occurrence of this text after its start
    signature: str
    render: Callable[[Sphinx, str], str]  # (app, pagename) -> the region's HTML on that page


@dataclass(frozen=True)
class Content:
    """The part of a generated page that follows the catalog while the rest of the page stays
    the same: a listing's posts, which shift by one on every page when a post is added.

    The page's template puts ``start`` and ``end`` around it; when only the content changed,
    it is replaced in the written page (a file read and an atomic write) instead of the page
    being rendered again through the theme (adding a post at 1000 posts re-rendered 366
    listing pages: 5.3 s)."""

    signature: str
    start: str
    end: str
    render: Callable[[], str]  # the HTML between the markers, exactly as the template puts it


@dataclass(frozen=True)
class PagePart:
    """A part of a document's page that shows other posts (a post's related posts), between
    two markers the page always has. Its signature is kept apart from the page's: when only
    the part changed, it is replaced in the written page instead of Sphinx writing the page
    again (an added post changed the related posts of 20 pages at 1000 posts, each then
    rendered through the theme)."""

    name: str
    start: str
    end: str
    sign: Signer  # (app, docname) -> what the part shows on that page
    render: Callable[[Sphinx, str], str]  # (app, docname) -> the HTML between the markers
    # Called once before every document's part is signed: what the parts show made for all
    # pages together (the related lists: only those that can change made again), rather than
    # one page at a time as the pages Sphinx writes ask.
    before_signing: Callable[[Sphinx], None] | None = None


@dataclass(frozen=True)
class ListingPage:
    """One page of one listing (:func:`kb.pages.listings.paginate`): the listing's own page
    (number 0, the newest posts), or a numbered page, counted from the oldest."""

    docname: str  # this page
    base: str  # the listing's own page
    title: str
    number: int  # 0 for the listing's own page; 1 for the oldest numbered page
    last: int  # the newest numbered page (0: the listing has none)
    posts: tuple[Post, ...]

    def page_docname(self, number: int) -> str:
        return self.base if number == 0 else f"{self.base}/page/{number}"

    @property
    def newer(self) -> int | None:
        """The page of the next newer posts (0: the listing's own), or None."""
        if self.number == 0:
            return None
        return self.number + 1 if self.number < self.last else 0

    @property
    def older(self) -> int | None:
        """The page of the next older posts, or None."""
        if self.number == 0:
            return self.last or None
        return self.number - 1 or None


@dataclass(frozen=True)
class PostPart:
    """A part of every post's own page (:func:`kb.pages.postpage.add_post_part`)."""

    slot: str  # "under-title" (after the <h1>) or "end" (after the body)
    order: int  # within the slot, lower first
    render: Callable[[Sphinx, Post, str], str]  # (app, post, prefix to the root) -> HTML
    searched: bool = False  # its words are the page's for the search index (the tags)


@dataclass(frozen=True)
class DatasetEntry:
    """One dataset with the page that shows it."""

    dataset: Dataset
    page_title: str
    post: Post | None  # None on a page that is not a post

    def fingerprint(self) -> str:
        post = self.post.fingerprint() if self.post else ""
        return digest([self.dataset.fingerprint(), self.page_title, post])


@dataclass
class NotebookRecord:
    """A notebook post, as read (pickled with the environment)."""

    kind: str  # "ipynb" or "text"
    source: str  # the source file, relative to the source folder
    ipynb: str | None = None  # a text notebook as an .ipynb; None: the source is one


class SearchRun(Protocol):
    """Pagefind indexing a build's pages (:class:`kb.search.pagefind.IndexRun`), started while
    the build writes and finished at its end."""

    reindexed: bool

    def wait(self) -> int: ...

    def cancel(self) -> None: ...

    def finish(self) -> None: ...
