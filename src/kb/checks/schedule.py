"""When a post is on the site: "today" for every command, and a post's day read quickly.

A post dated after today (UTC) is a draft. Today is the day of ``SOURCE_DATE_EPOCH`` when it
is set (reproducible builds, and tests), else the clock's; ``kb check``, ``kb new`` and the
build all ask here, so they agree on which posts are drafts.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, date, datetime

from .bounded import DEFAULT_LIMIT, refusal
from .dates import ABLOG_DATE_FORMAT, text_day
from .model import Rules
from .notebook import check_source

#: The ``date:`` line's value, quotes and a trailing comment aside.
_DATE_LINE = re.compile(rb"""^date:[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^#\n]*))""", re.MULTILINE)
#: How much of a post to scan for its front matter's date.
HEAD_BYTES = 4096


def today() -> date:
    """The day, in UTC: from ``SOURCE_DATE_EPOCH`` if set, else from the clock."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), UTC).date()
    return datetime.now(UTC).date()


#: What :func:`file_day` gives for a post with no date at all: a draft, as ablog keeps one.
UNDATED = "undated"


def front_matter_day(head: bytes, date_format: str = ABLOG_DATE_FORMAT) -> date | str | None:
    """The day on the ``date:`` line of the front matter that ``head`` starts with, read as
    the checks read it (:mod:`kb.checks.dates`); :data:`UNDATED` for front matter without a
    ``date:`` line; or None (no front matter, not a date: the checks report those). A line scan,
    not a YAML parse: a thousand posts take a few milliseconds."""
    if not head.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        return None
    end = head.find(b"\n---", 3)
    found = _DATE_LINE.search(head, 0, end if end > 0 else len(head))
    if found is None:
        return UNDATED if end > 0 else None
    written = next(group for group in found.groups() if group is not None)
    return text_day(written.decode("utf-8", "replace"), date_format)


def file_day(path, date_format: str = ABLOG_DATE_FORMAT) -> date | str | None:
    """The day of the post at ``path``, in whichever form it gives its date (YAML front
    matter, an rst field list, ablog's ``post`` directive, a notebook's metadata);
    :data:`UNDATED` for a post without one; None if it cannot be read or is not dated as a
    post (the checks report why)."""
    if refusal(path, DEFAULT_LIMIT) is not None:
        return None  # a FIFO, a device, too large: reported, and never read (checks/sourcefiles)
    if str(path).endswith(".ipynb"):
        return _notebook_day(path, date_format)
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
            if head.lstrip(b"\xef\xbb\xbf").startswith(b"---") and head.find(b"\n---", 3) > 0:
                return front_matter_day(head, date_format)
            text = (head + handle.read()).decode("utf-8-sig", "replace")
    except OSError:
        return None
    return _text_post_day(str(path), text, date_format)


def _text_post_day(path: str, text: str, date_format: str) -> date | str | None:
    """The day of a text post without closed YAML front matter in its head: read by the
    checks' own readers (:mod:`.postforms`, :mod:`.frontmatter`), so the build's drafts are
    the posts ``kb check`` calls drafts."""
    facts, _ = check_source(path, text.replace("\r\n", "\n"), Rules((), date_format=date_format))
    if facts.undated:
        return UNDATED
    return date.fromisoformat(facts.date) if facts.date else None


def _notebook_day(path, date_format: str) -> date | str | None:
    # The metadata follows the cells (nbformat sorts the keys): the whole file is read, which
    # takes a millisecond for a notebook with its figures. A notebook is read by the checks'
    # own reader, so one they refuse (nbformat 3, not JSON) is no draft: they report it.
    try:
        with open(path, encoding="utf-8-sig") as handle:
            text = handle.read()
    except (OSError, ValueError):
        return None
    return _text_post_day(str(path), text, date_format)
