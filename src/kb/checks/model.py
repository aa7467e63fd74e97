"""What the checks speak of: the site's rules, a field of front matter, a problem, the facts
of a post."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True)
class Rules:
    """What the site allows, from its conf.py (``kb_categories``, ``blog_authors``)."""

    categories: tuple[str, ...]
    authors: tuple[str, ...] = ()  # empty: the site names no authors, so any name goes
    today: date | None = None  # posts dated later are scheduled; None skips that test
    date_format: str = "%d %B %Y"  # ablog's post_date_format: a date in it is read as ablog does


@dataclass(frozen=True)
class Problem:
    line: int
    message: str
    key: str = ""  # the front-matter key at fault, if any
    level: str = "error"  # or "scheduled" (a future date), "draft" (no date) or "warning":
    # reported, no error
    subject: str = ""  # the value at fault, when the key holds several (one old address)

    @property
    def is_error(self) -> bool:
        return self.level == "error"


@dataclass
class Field:
    value: object
    line: int
    raw: str = ""  # the text as written, for a scalar
    error: str = ""  # why YAML could not build the value (an impossible date)

    @property
    def shown(self) -> str:
        return self.raw or json.dumps(self.value, default=str)

    @property
    def is_empty(self) -> bool:
        return self.value is None or (isinstance(self.value, str) and not self.value.strip())


@dataclass
class PostFacts:
    """What the checks across posts (:mod:`kb.checks.sitechecks`) need to know about one post."""

    title: str = ""
    title_line: int = 1
    date: str = ""  # YYYY-MM-DD when valid: of two clashing posts, the older keeps its claim
    undated: bool = False  # no date at all: a draft, as ablog keeps one (never on the site)
    tags: list[str] = field(default_factory=list)
    tags_line: int = 1
    series: str = ""
    series_line: int = 1
    part: str = ""
    part_line: int = 1
    links: list[tuple[str, int]] = field(default_factory=list)
    redirects: list[str] = field(default_factory=list)  # old addresses, each a valid docname
    redirect_line: int = 1
