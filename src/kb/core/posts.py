"""The catalog's records: a post, its labels, the collections and series that group posts.

Plain data, built once per build by :mod:`kb.core.catalog`; every output reads these and
nothing else about the posts.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from ..checks.slugs import join

WORDS_PER_MINUTE = 230
SUPPLEMENT = "supplement"

#: Kinds of collection, their catalog path under the blog and the heading of their archives.
KINDS = {
    "category": ("category", "Category"),
    "tag": ("tag", "Tag"),
    "author": ("author", "Author"),
    # ablog's :location: and :language:, archived under ablog's names when a post has them.
    "location": ("location", "Location"),
    "language": ("language", "Language"),
    "year": (None, "Year"),
}


def digest(parts) -> str:
    """A short stable signature of some strings (what freshness compares between builds)."""
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()


@dataclass(frozen=True)
class Label:
    """A category, tag, author or year, with the archive page that lists it."""

    kind: str
    name: str
    docname: str
    url: str | None = None  # an author's own page, when configured


@dataclass
class Post:
    """Everything a listing, feed, sidebar or series box shows about one post."""

    docname: str
    title: str
    date: datetime
    updated: datetime
    authors: tuple[Label, ...]
    categories: tuple[Label, ...]
    tags: tuple[Label, ...]
    year: Label
    excerpt_html: str  # links relative to the site root; see kb.core.urls.relocate_links
    excerpt_text: str
    words: int
    external_link: str = ""
    series: str = ""
    part: str = ""
    image: str = ""
    redirects: tuple[str, ...] = ()  # old addresses (docnames) that redirect here
    published: bool = True
    undated: bool = False  # a draft without a date (ablog's), dated the preview's day to sort
    locations: tuple[Label, ...] = ()  # ablog's :location: and :language:
    languages: tuple[Label, ...] = ()
    # ablog's section post: the id of the section of its file's page that it posts on its
    # own; "" for a file's own post. A section post is listed, archived and in the feeds,
    # leading to that section; it has no page, series, related posts or old addresses.
    section: str = ""

    @property
    def key(self) -> str:
        """What tells this post from every other: its document, and its section if any."""
        return f"{self.docname}#{self.section}" if self.section else self.docname

    @property
    def anchor(self) -> str:
        """What a link to the post adds to its page's address: ``#section`` or nothing."""
        return f"#{self.section}" if self.section else ""

    @property
    def reading_minutes(self) -> int:
        return max(1, round(self.words / WORDS_PER_MINUTE))

    @property
    def labels(self) -> tuple[Label, ...]:
        return (*self.categories, *self.tags, *self.authors, *self.locations, *self.languages,
                self.year)  # fmt: skip

    @property
    def part_number(self) -> int | None:
        """The part as a number; None for a supplement, a missing or an invalid part."""
        part = self.part.strip()
        return int(part) if part.isdigit() and int(part) > 0 else None

    @property
    def is_supplement(self) -> bool:
        return self.part.strip().casefold() == SUPPLEMENT

    def fingerprint(self) -> str:
        """What listings show of this post; a change here means listings must be rewritten.

        Computed once: every listing page that shows the post signs with it (about eight
        thousand calls per build at 1000 posts), and a post does not change within a build.
        """
        cached = self.__dict__.get("_fingerprint")
        if cached is not None:
            return cached
        parts = [
            self.key,
            self.title,
            self.date.isoformat(),
            self.updated.isoformat(),
            self.external_link,
            self.series,
            self.part,
            self.excerpt_html,
            *(f"{label.kind}:{label.name}" for label in self.labels),
        ]
        self.__dict__["_fingerprint"] = signature = digest(parts)
        return signature


@dataclass
class Collection:
    """Posts sharing a label, newest first."""

    label: Label
    posts: list[Post] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.label.name

    @property
    def docname(self) -> str:
        return self.label.docname

    @property
    def title(self) -> str:
        """The heading of its archive page: "Category: Article"."""
        return f"{KINDS[self.label.kind][1]}: {self.name}"


def reading_order(post: Post):
    # Numbered parts first, by number; then supplements and unnumbered posts, oldest first.
    # The docname breaks ties so the order never depends on the file system.
    number = post.part_number
    if number is not None:
        return (0, number, post.date.timestamp(), post.docname)
    return (1, 0, post.date.timestamp(), post.docname)


@dataclass(frozen=True)
class Series:
    """One series: its name, where its page lives and its posts in reading order."""

    name: str
    slug: str
    docname: str
    posts: tuple[Post, ...]

    def position(self, post: Post) -> int:
        return next(i for i, member in enumerate(self.posts) if member.docname == post.docname)

    def signature(self) -> str:
        """What a member's series box shows: a change rewrites every member's page."""
        return digest(
            [
                self.name,
                *(f"{p.docname}\x1e{p.title}\x1e{p.part}\x1e{p.external_link}" for p in self.posts),
            ]
        )


@dataclass(repr=False)
class Catalog:
    """All published posts of a build, newest first, with their collections and series."""

    posts: list[Post]
    drafts: list[Post]
    collections: dict[str, list[Collection]]  # kind -> collections sorted for display
    series: list[Series]  # sorted by name
    blog_path: str

    def __post_init__(self) -> None:
        # A page's post: never one of the section posts of the same file.
        self._by_docname = {p.docname: p for p in (*self.posts, *self.drafts) if not p.section}
        self._series_of = {post.docname: one for one in self.series for post in one.posts}

    def __repr__(self) -> str:
        # Sphinx logs repr() of every event's arguments; the dataclass repr of a thousand
        # posts took a quarter of a second on each build.
        return f"<Catalog: {len(self.posts)} posts, {len(self.drafts)} drafts>"

    @cached_property
    def page_posts(self) -> list[Post]:
        """The published posts that have a page of their own (no section posts), newest
        first: what related posts, backlinks, the glossary and the sitemap go through."""
        return [post for post in self.posts if not post.section]

    def by_docname(self, docname: str) -> Post | None:
        return self._by_docname.get(docname)

    def series_of(self, docname: str) -> Series | None:
        return self._series_of.get(docname)

    def catalog_docname(self, kind: str) -> str:
        """The page listing all collections of a kind (all tags, all years, …)."""
        path = KINDS[kind][0]
        return join(self.blog_path, path) if path else f"{self.blog_path}/archive"

    @property
    def series_catalog_docname(self) -> str:
        return join(self.blog_path, "series")
