"""A MyST ``post`` directive with a ``#`` comment in its options gets kb's warning, not MyST's.

MyST reads `` #`` in a directive option as the start of a comment: it leaves the rest of the
line out of the value (``:tags: fp8 #gemm`` is the tag ``fp8``) and warns "Directive options
has # comments, which may not be supported in future versions [myst.directive_comments]",
without saying what was cut or what to write. The checks report it at the same line, with the
fix, in ``kb check`` and the build alike (:func:`kb.checks.postforms.myst_option_comments`).
At those lines, and only there, MyST's own warning is then left out: its log record, by a
filter on MyST's logger, and the warning node it leaves in the doctree, by a transform, as
:mod:`.headings` does for MyST's heading warning and for the same reasons (MyST logs while it
parses, before any transform, and ``suppress_warnings`` is the whole site's). A comment in the
options of any other directive keeps MyST's warning.
"""

from __future__ import annotations

import logging
import re
import weakref
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

from ..checks.notebook import is_ipynb
from ..checks.postforms import myst_option_comments
from .mystlog import filter_myst_warnings

#: MyST's words (``_parse_directive_options`` in myst_parser's ``parsers/directives.py``).
COMMENTS = re.compile(r"Directive options has # comments")
#: In ``env.current_document``: the lines at which kb reports a comment (decided once).
REPORTED = "kb_option_comment_lines"


def kb_reported_lines(env, docname: str) -> set[int]:
    """The lines of ``docname`` at which the build's checks report a comment in a MyST
    ``post`` directive's options."""
    path = Path(env.doc2path(docname))
    if path.suffix == ".rst" or is_ipynb(path.name):
        return set()
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return set()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return {problem.line for problem in myst_option_comments(text)}


def _reported(env, docname: str) -> set[int]:
    document = env.current_document
    if REPORTED not in document:
        document[REPORTED] = kb_reported_lines(env, docname)
    return document[REPORTED]


class QuietOptionComments(logging.Filter):
    """Leaves out MyST's warning of a comment in options where kb reports it."""

    def __init__(self, app: Sphinx) -> None:
        super().__init__()
        # Weakly: the logger is the process's, and a build that does not reach
        # build-finished (kb serve's next standby, forked while it builds) leaves it there.
        self._app = weakref.ref(app)

    def filter(self, record: logging.LogRecord) -> bool:
        kind = (getattr(record, "type", None), getattr(record, "subtype", None))
        if kind != ("myst", "directive_comments") or not COMMENTS.search(record.getMessage()):
            return True
        app = self._app()
        env = app.env if app is not None else None
        location = getattr(record, "location", None)
        if env is None or not isinstance(location, tuple) or location[0] != env.docname:
            return True
        return location[1] not in _reported(env, location[0])


class DropOptionCommentNodes(SphinxTransform):
    """The warning nodes MyST left in the doctree where its warning was left out."""

    default_priority = 780  # before the checks (790) and ablog (800), which read the excerpt

    def apply(self, **kwargs) -> None:
        reported = self.env.current_document.get(REPORTED)
        if not reported:
            return
        for message in list(self.document.findall(nodes.system_message)):
            text = "".join(child.astext() for child in message.children)
            if COMMENTS.search(text) and message.get("line") in reported:
                message.parent.remove(message)


def setup_option_comments(app: Sphinx) -> None:
    filter_myst_warnings(app, QuietOptionComments)
    app.add_transform(DropOptionCommentNodes)
