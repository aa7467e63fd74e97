"""Dates and times of front matter (``date``, ``updated``): what YAML and ablog accept.

A date is ``YYYY-MM-DD``, optionally with a time; it carries no zone (dates are UTC) and must
exist: ablog crashed on a zone, on a day that does not exist and on an hour 25.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time

from .messages import say
from .model import Field

_ISO_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?")
_ZONE = re.compile(r"\d[T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)$", re.I)


def date_errors(item: Field, key: str = "date") -> list[str]:
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
        return [say("zone", key=key, shown=shown, day=shown[:10])]
    if isinstance(value, date):
        return []
    if item.is_empty:
        return [say("empty_date", key=key)]
    if not _ISO_DAY.fullmatch(str(value).strip()):
        return [say("not_a_date", key=key, shown=str(value).strip())]
    return []


def _day(item: Field) -> date:
    """The day of a ``date`` or ``updated`` that :func:`date_errors` accepted."""
    value = item.value
    day = value.date() if isinstance(value, datetime) else value
    return day if isinstance(day, date) else date.fromisoformat(str(value).strip()[:10])


def day_of(item: Field) -> date:
    """The day of a ``date`` or ``updated`` that :func:`date_errors` accepted."""
    value = item.value
    day = value.date() if isinstance(value, datetime) else value
    return day if isinstance(day, date) else date.fromisoformat(str(value).strip()[:10])
