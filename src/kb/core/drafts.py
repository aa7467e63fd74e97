"""Drafts: a post dated after today (UTC) is not on the site until its day.

A normal build does not even read a draft: its file joins ``exclude_patterns`` at
``config-inited``, so no page, listing, feed item, sitemap entry, search record or tag page
used only by drafts can come out of it, and a published post that links to it fails the
build with Sphinx's own "unknown document" warning at the link. ``kb_drafts = True`` (``kb
serve --drafts``, which builds into a folder of its own) reads and shows them.

"Today" is the day of ``SOURCE_DATE_EPOCH`` when it is set (reproducible builds), else the
clock's. Only the ``date:`` line of each post's front matter is read here (a line scan, not a
YAML parse: a few milliseconds for a thousand posts), or an ``.ipynb``'s ``date`` metadata; a
date the checks reject is no draft.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, date, datetime, timedelta
from glob import glob
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

_DATE_LINE = re.compile(rb"^date:[ \t]*[\"']?(\d{4}-\d{2}-\d{2})", re.MULTILINE)
#: How much of a post to scan for its front matter's date.
_HEAD = 4096


def today() -> date:
    """The build's day, in UTC: from ``SOURCE_DATE_EPOCH`` if set, else from the clock."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), UTC).date()
    return datetime.now(UTC).date()


def publish_cutoff() -> datetime:
    """A post dated before this instant (the start of tomorrow, UTC) is published."""
    start = datetime.combine(today(), datetime.min.time(), tzinfo=UTC)
    return start + timedelta(days=1)


def post_day(path: Path) -> date | None:
    """The day in a post's front matter ``date:`` line, or None (no front matter, no date,
    or not a real day: the checks report those). A notebook's is in its metadata."""
    if path.suffix == ".ipynb":
        return _notebook_day(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD)
    except OSError:
        return None
    if not head.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        return None
    end = head.find(b"\n---", 3)
    found = _DATE_LINE.search(head, 0, end if end > 0 else len(head))
    if found is None:
        return None
    try:
        return date.fromisoformat(found.group(1).decode())
    except ValueError:
        return None


def _notebook_day(path: Path) -> date | None:
    # The metadata follows the cells (nbformat sorts the keys): the whole file is read, which
    # takes a millisecond for a notebook with its figures.
    try:
        metadata = json.loads(path.read_text(encoding="utf-8-sig")).get("metadata", {})
        return date.fromisoformat(str(metadata.get("date", ""))[:10])
    except (OSError, ValueError, AttributeError):
        return None


def draft_sources(srcdir: str, patterns) -> list[str]:
    """Paths (relative to ``srcdir``) of the posts matching ``patterns`` (ablog's
    ``blog_post_pattern``) that are dated after today."""
    patterns = [patterns] if isinstance(patterns, str) else list(patterns or ())
    last = today()
    drafts = set()
    for pattern in patterns:
        for path in glob(os.path.join(srcdir, pattern), recursive=True):
            day = post_day(Path(path))
            if day is not None and day > last:
                drafts.add(Path(path).relative_to(srcdir).as_posix())
    return sorted(drafts)


def _exclude_drafts(app: Sphinx, config) -> None:
    if config.kb_drafts:
        return
    drafts = draft_sources(str(app.srcdir), config.blog_post_pattern)
    if drafts:
        logger.info("kb: %d draft(s) dated after %s left out: %s", len(drafts), today(), drafts)
        # A new list: the default is shared, and Sphinx compares it with the last build's.
        config.exclude_patterns = [*config.exclude_patterns, *drafts]


def setup_drafts(app: Sphinx) -> None:
    # Before ablog's own config-inited handler (500) matches blog_post_pattern to files.
    app.connect("config-inited", _exclude_drafts, priority=400)
