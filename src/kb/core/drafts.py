"""Drafts: a post dated after today (UTC) is not on the site until its day, and a post without a
date (ablog's draft) is not on the site until it has one.

A normal build does not even read a draft: it is left out of the files Sphinx finds
(:mod:`.finding`), so no page, listing, feed item, sitemap entry, search record or tag page
used only by drafts can come out of it, and a published post that links to it fails the
build with Sphinx's own "unknown document" warning at the link. Adding a draft costs a build
no more than a rebuild with nothing changed. ``kb_drafts = True`` (``kb serve --drafts``,
which builds into a folder of its own) reads and shows them.

"Today" is :func:`kb.checks.schedule.today`, as for ``kb check``. Only the ``date:`` line of
each post's YAML front matter is read here (or an ``.ipynb``'s ``date`` metadata); a post in
another of ablog's forms (an rst field list, a ``post`` directive) is read by the checks' own
reader, so the build's drafts are the posts kb check calls drafts. A date the checks reject is
no draft. A draft is still checked on every build (:mod:`kb.core.validation`), as
``kb check`` checks it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from sphinx.application import Sphinx
from sphinx.util import logging

from ..checks.dates import ABLOG_DATE_FORMAT
from ..checks.schedule import UNDATED, file_day, today
from ..checks.sourcefiles import post_folders
from ..upstream.ablog import pattern_matches
from . import events
from .fileio import file_stamp
from .finding import leave_out, scanned
from .state import build_state

logger = logging.getLogger(__name__)


def publish_cutoff() -> datetime:
    """A post dated before this instant (the start of tomorrow, UTC) is published."""
    start = datetime.combine(today(), datetime.min.time(), tzinfo=UTC)
    return start + timedelta(days=1)


def draft_sources(srcdir: str, patterns, date_format: str = ABLOG_DATE_FORMAT) -> list[str]:
    """Paths (relative to ``srcdir``) of the posts matching ``patterns`` (ablog's
    ``blog_post_pattern``) that are dated after today, or not dated."""
    return DraftScan(srcdir, patterns, date_format)()


@dataclass
class DraftScan:
    """:func:`draft_sources` as a scan that can also be run again knowing what was saved since
    (``kb serve``'s standby: :func:`kb.core.finding.found_again`)."""

    srcdir: str
    patterns: object
    date_format: str = ABLOG_DATE_FORMAT
    #: Each post's day, by its relative path, as the last whole scan read it.
    days: dict[str, date | str | None] = field(default_factory=dict, repr=False)

    @property
    def folders(self) -> list[str]:
        """The folders whose files the scan reads (and their folders, all the way down)."""
        return post_folders(self.patterns)

    def __call__(self) -> list[str]:
        self.days = {
            relpath: self._day(relpath) for relpath in pattern_matches(self.srcdir, self.patterns)
        }
        return _drafts(self.days)

    def again(self, found: list[str], saved: Collection[str]) -> list[str]:
        """The drafts now, from the last whole scan's days, when since then no file under
        :attr:`folders` came or went and only the files ``saved`` changed: their days are read
        again, and today is today (a post dated tomorrow is no draft after midnight)."""
        days = self.days
        return _drafts({path: self._day(path) if path in saved else days[path] for path in days})

    def _day(self, relpath: str) -> date | str | None:
        return _known_day(os.path.join(self.srcdir, relpath), self.date_format)


def _drafts(days: dict[str, date | str | None]) -> list[str]:
    last = today()
    return sorted(
        relpath
        for relpath, day in days.items()
        if day == UNDATED or (isinstance(day, date) and day > last)
    )


#: Each post's day as :func:`file_day` read it, by its path and date format, with the file's
#: stamp when it was read (:func:`~.fileio.file_stamp`: inode, modification time, size and
#: change time). ``kb serve``'s standby scans every post when it prepares and again when it is
#: told to build, to check that nothing it was made from has changed
#: (:mod:`kb.incremental.standby`); the second scan then reads only the files saved in between:
#: 4 ms instead of 18 ms at 1000 posts. kb serve's worker keeps what each build read for the
#: standbys it forks next (:func:`days_read`, :func:`learn_days`), so that they too read only
#: the files saved since: at 10,000 posts a whole scan took 0.27 s (1.4 s with the files
#: out of the page cache), one with the days learnt 0.09 s (`benchmarks/standby_ahead.py`).
_days: dict[tuple[str, str], tuple[tuple[int, int, int, int], date | str | None]] = {}
#: The keys of :data:`_days` this process read from the file itself: what it hands on
#: (:func:`days_read`). A child forked from kb serve's worker has the worker's days already.
_read_here: set[tuple[str, str]] = set()


def _known_day(path: str, date_format: str) -> date | str | None:
    try:
        stamp = file_stamp(os.stat(path))
    except OSError:
        return file_day(path, date_format)  # gone: file_day says so, as for any other
    known = _days.get((path, date_format))
    if known is not None and known[0] == stamp:
        return known[1]
    day = file_day(path, date_format)
    _days[(path, date_format)] = (stamp, day)
    _read_here.add((path, date_format))
    return day


def days_read() -> str:
    """The posts' days this process read from their files (not those it learnt), as one line
    of JSON for :func:`learn_days` in another process: after an edit, the one post saved."""
    entries = []
    for key in _read_here:
        stamp, day = _days[key]
        entries.append([*key, *stamp, day.isoformat() if isinstance(day, date) else day])
    return json.dumps(entries, separators=(",", ":"))


def learn_days(line: str) -> None:
    """Keep the days another process read (:func:`days_read`), for the processes this one forks
    next: each is used only while its file keeps the stamp it had when it was read. A line that
    is not whole (that process was killed as it wrote it) teaches nothing."""
    try:
        entries = json.loads(line)
        learnt = {
            (path, date_format): ((ino, mtime, size, ctime), _day_from(day))
            for path, date_format, ino, mtime, size, ctime, day in entries
        }
    except (ValueError, TypeError):
        return
    _days.update(learnt)


def _day_from(written: str | None) -> date | str | None:
    if written is None or written == UNDATED:
        return written
    return date.fromisoformat(written)


def _find_drafts(app: Sphinx, config) -> None:
    state = build_state(app)
    state.draft_sources = []
    if config.kb_drafts:
        return
    scan = DraftScan(str(app.srcdir), config.blog_post_pattern, config.post_date_format)
    drafts = state.draft_sources = scanned(app, "drafts", scan)
    if drafts:
        logger.info(
            "kb: %d draft(s), dated after %s or undated, left out: %s", len(drafts), today(), drafts
        )
        leave_out(app, drafts)


def setup_drafts(app: Sphinx) -> None:
    # Before ablog's own config-inited handler (500) matches blog_post_pattern to files.
    app.connect("config-inited", _find_drafts, priority=events.FIND_DRAFTS)
