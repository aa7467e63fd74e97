"""Warnings about a notebook name the line of its file, as ``kb check`` does.

MyST-NB numbers the lines of an ``.ipynb`` by cell (``nb.ipynb:20002`` for the second cell),
so a warning from MyST, Sphinx or kb about a cell's text pointed at a line the file does not
have. A filter on the warning stream, after Sphinx has written each record's location, puts
the file's own line there (:func:`kb.checks.notebook.file_line`): the line of that source line
in the JSON, else of its cell.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from sphinx.application import Sphinx

from ..checks.bounded import read_bounded
from ..checks.notebook import CELL_LINES, file_line

_LOCATION = re.compile(r"^(?P<path>.+\.ipynb):(?P<line>\d+)$")


class NotebookLines(logging.Filter):
    """Rewrites ``x.ipynb:20002`` locations to the file's own lines."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.found: dict[tuple[str, int], int | None] = {}  # one filter per build

    def filter(self, record: logging.LogRecord) -> bool:
        location = getattr(record, "location", None)
        found = _LOCATION.match(location) if isinstance(location, str) else None
        if found and int(found["line"]) >= CELL_LINES:
            line = self._line(found["path"], int(found["line"]))
            if line is not None:
                record.location = f"{found['path']}:{line}"
        return True

    def _line(self, path: str, line: int) -> int | None:
        if (path, line) not in self.found:
            try:
                text = read_bounded(Path(path), self.limit).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            self.found[path, line] = file_line(text, line) if text else None
        return self.found[path, line]


def _warning_handlers() -> list[logging.Handler]:
    return [
        handler
        for handler in logging.getLogger("sphinx").handlers
        if any(type(f).__name__ == "WarningLogRecordTranslator" for f in handler.filters)
    ]


def _add_filter(app: Sphinx) -> None:
    # Sphinx gives each application fresh handlers, so the filter lives as long as the build.
    for handler in _warning_handlers():
        if not any(isinstance(f, NotebookLines) for f in handler.filters):
            handler.addFilter(NotebookLines(app.config.kb_max_file_bytes))


def setup_lines(app: Sphinx) -> None:
    app.connect("builder-inited", _add_filter)
