"""When a post is on the site: "today" for every command, and a post's day read quickly.

A post dated after today (UTC) is a draft. Today is the day of ``SOURCE_DATE_EPOCH`` when it
is set (reproducible builds, and tests), else the clock's; ``kb check``, ``kb new`` and the
build all ask here, so they agree on which posts are drafts.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, date, datetime

from .bounded import DEFAULT_LIMIT, refusal
from .dates import ABLOG_DATE_FORMAT, text_day

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


def front_matter_day(head: bytes, date_format: str = ABLOG_DATE_FORMAT) -> date | None:
    """The day on the ``date:`` line of the front matter that ``head`` starts with, read as
    the checks read it (:mod:`kb.checks.dates`), or None (no front matter, no date, or not a
    date: the checks report those). A line scan, not a YAML parse: a thousand posts take a few
    milliseconds."""
    if not head.lstrip(b"\xef\xbb\xbf").startswith(b"---"):
        return None
    end = head.find(b"\n---", 3)
    found = _DATE_LINE.search(head, 0, end if end > 0 else len(head))
    if found is None:
        return None
    written = next(group for group in found.groups() if group is not None)
    return text_day(written.decode("utf-8", "replace"), date_format)


def file_day(path, date_format: str = ABLOG_DATE_FORMAT) -> date | None:
    """:func:`front_matter_day` of the file at ``path``; None if it cannot be read. A
    notebook's (``.ipynb``) is in its metadata."""
    if refusal(path, DEFAULT_LIMIT) is not None:
        return None  # a FIFO, a device, too large: reported, and never read (checks/sourcefiles)
    if str(path).endswith(".ipynb"):
        return _notebook_day(path, date_format)
    try:
        with open(path, "rb") as handle:
            return front_matter_day(handle.read(HEAD_BYTES), date_format)
    except OSError:
        return None


def _notebook_day(path, date_format: str) -> date | None:
    # The metadata follows the cells (nbformat sorts the keys): the whole file is read, which
    # takes a millisecond for a notebook with its figures.
    try:
        with open(path, encoding="utf-8-sig") as handle:
            metadata = json.load(handle).get("metadata", {})
        return text_day(str(metadata.get("date", "")), date_format)
    except (OSError, ValueError, AttributeError, RecursionError):  # nested too deeply: reported
        return None
