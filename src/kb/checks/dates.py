"""Dates and times of front matter (``date``, ``updated``): what YAML and ablog accept.

A date is read as ablog reads it: first with the site's ``post_date_format`` (ablog's default
``%d %B %Y``, e.g. ``14 March 2026``), then by ``dateutil``'s parser (``Mar 14, 2026``,
``14/03/2026``, ``2026-03-14 09:30``), so every post a stock ablog blog dates is dated the same
here. Two things ablog lets through are refused, as they would make the site wrong or crash
it: a date missing its day, month or year (dateutil fills the gap from the clock, so the post
would move every day), and a time zone (ablog crashes comparing it with a date without one).
A day that does not exist and an hour 25 are named as such.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time

from dateutil.parser import ParserError
from dateutil.parser import parse as dateutil_parse

from .messages import say
from .model import Field

#: ablog's default ``post_date_format``.
ABLOG_DATE_FORMAT = "%d %B %Y"

_ISO_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?")
_ZONE = re.compile(r"\d[T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)$", re.I)
#: Two defaults for the parts a text leaves out: a text read the same under both is whole.
_GAPS = (datetime(2000, 1, 1), datetime(2001, 2, 2))
#: Longer than any date a person writes; dateutil's time grows with the text.
_LONGEST = 100


def ablog_datetime(text: str, date_format: str = ABLOG_DATE_FORMAT) -> datetime | None:
    """The moment ``text`` names as ablog reads it, or None: not a date, or one with a part
    left out (a day, a month, a year) or a time zone (see the module's docstring)."""
    text = text.strip()
    if not text or len(text) > _LONGEST:
        return None
    try:
        return datetime.strptime(text, date_format)
    except ValueError:
        pass
    try:
        first, second = (dateutil_parse(text, default=gap) for gap in _GAPS)
    except (ParserError, ValueError, OverflowError, TypeError):
        return None
    if first.date() != second.date() or first.tzinfo is not None:
        return None
    return first


def date_errors(item: Field, key: str = "date", date_format: str = ABLOG_DATE_FORMAT) -> list[str]:
    """Why a ``date`` or ``updated`` value would not work, if it would not."""
    value, shown = item.value, item.shown.strip()
    written = _ISO_DAY.match(shown)
    if written and (item.error or isinstance(value, str)):
        # A day and time as text, or one YAML could not build: say which part is impossible.
        day, hour, minute, second = written.groups()
        try:
            date.fromisoformat(day)
            if hour is not None:
                time(int(hour), int(minute), int(second or 0))
        except ValueError as error:
            kind = "not_a_day" if "day" in str(error) or "month" in str(error) else "not_a_time"
            return [say(kind, key=key, shown=shown, reason=error, day=day)]
    if item.error:
        return [say("not_a_day", key=key, shown=item.shown, reason=item.error)]
    if (isinstance(value, datetime) and value.tzinfo is not None) or _ZONE.search(shown):
        return [say("zone", key=key, shown=shown, day=_zoned_day(shown))]
    if isinstance(value, date):
        return []
    if item.is_empty:
        return [say("empty_date", key=key)]
    text = str(value).strip()
    if _ISO_DAY.fullmatch(text) or ablog_datetime(text, date_format) is not None:
        return []
    return [say("not_a_date", key=key, shown=text)]


def _zoned_day(shown: str) -> str:
    """The day a text with a time zone names, for the fix the message suggests."""
    if _ISO_DAY.match(shown):
        return shown[:10]
    try:
        return dateutil_parse(shown, default=_GAPS[0]).date().isoformat()
    except (ParserError, ValueError, OverflowError, TypeError):
        return "YYYY-MM-DD"


def day_of(item: Field, date_format: str = ABLOG_DATE_FORMAT) -> date:
    """The day of a ``date`` or ``updated`` that :func:`date_errors` accepted."""
    value = item.value
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    if _ISO_DAY.fullmatch(text):
        return date.fromisoformat(text[:10])
    moment = ablog_datetime(text, date_format)
    if moment is None:
        raise ValueError(f"{text!r} is not a date date_errors accepts")
    return moment.date()


def text_day(text: str, date_format: str = ABLOG_DATE_FORMAT) -> date | None:
    """The day a date written as text names (ISO, or as ablog reads it), or None."""
    item = Field(text.strip(), 0, raw=text.strip())
    return None if date_errors(item, date_format=date_format) else day_of(item, date_format)
