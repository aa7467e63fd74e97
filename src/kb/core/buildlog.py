"""A quiet build log: a successful build is a few lines, so its warnings stand out.

Three kinds of line said nothing an author acts on, on every build:

- MyST-Parser's whole ``MdParserConfig(...)`` (one line of about 900 characters);
- Sphinx's "Writing evaluated template result to …", once per ``_t`` static template;
- "copying downloadable files... [ 9%] posts/…/x.csv", one line per file, on every build
  (Sphinx copies them all each time): said here as one line with the count;
- "The configuration has changed (1 option: 'pygments_dark_style')": furo declares that option
  when its theme loads, after Sphinx compared this build's configuration with the last one's,
  so it is only "missing" from this one (see :mod:`kb.core.configvalues`); nothing changed.

They are left out of the status stream only (the handler that prints info records); ``-v``
shows them all again, and warnings are never touched.
"""

from __future__ import annotations

import logging

from sphinx.application import Sphinx
from sphinx.util.logging import InfoFilter

#: The start of Sphinx's per-file progress line for downloadable files (untranslated: the
#: site's language is English, and a translated message is simply shown as before).
DOWNLOADS = "copying downloadable files... "
EVALUATED = "Writing evaluated template result to"
#: Options a theme declares only when it loads, after Sphinx's comparison (furo's).
THEME_OPTIONS = ("pygments_dark_style",)


class QuietLog(logging.Filter):
    """Drops the lines above from the status stream; counts the downloads instead."""

    def __init__(self) -> None:
        super().__init__()
        self.downloads = 0  # files listed so far
        self.skip = 0  # records still to drop of the current file's line
        self.closing = False  # the last file's line is gone; the next "" ends the list

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if EVALUATED in message:
            return False
        if message.startswith("The configuration has changed (1 option: %r)") and (
            tuple(record.args or ()) in {(name,) for name in THEME_OPTIONS}
        ):
            return False
        if "myst v" in message and any(
            type(arg).__name__ == "MdParserConfig" for arg in record.args or ()
        ):
            return False
        if DOWNLOADS in message:
            # sphinx.util.display.status_iterator writes each file as three records: the
            # summary with its "[ 9%]", the file's name, then "\r" or "".
            self.downloads += 1
            self.skip = 2
            self.closing = "100%]" in message
            return False
        if self.skip:
            self.skip -= 1
            return False
        if self.closing and message == "":
            self.closing = False
            files = "file" if self.downloads == 1 else "files"
            record.msg, record.args = f"{DOWNLOADS}{self.downloads} {files}", ()
            self.downloads = 0
            return True
        return True


def _info_handlers() -> list[logging.Handler]:
    return [
        handler
        for handler in logging.getLogger("sphinx").handlers
        if any(isinstance(f, InfoFilter) for f in handler.filters)
    ]


def setup_buildlog(app: Sphinx) -> None:
    # Sphinx gives each application fresh handlers before extensions load, so a filter added
    # here lives exactly as long as this build (kb serve's worker builds many).
    if app.verbosity > 0:
        return
    for handler in _info_handlers():
        if not any(isinstance(f, QuietLog) for f in handler.filters):
            handler.addFilter(QuietLog())
