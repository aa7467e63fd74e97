"""A Markdown document whose headings start at ``##`` gets one warning, kb's, not one per ``##``.

MyST warns "Document headings start at H2, not H1 [myst.header]" at every ``##`` of a document
with no ``#`` title, and says nothing of what to do. The checks say it once, at the first
heading's line, with the fix (:func:`kb.checks.postbody.heading_problems`, through the checks
that ``kb check`` and the build run on every post and page). For such a document, and only
for it, MyST's warnings of that one kind are then left out: its log records, by a filter on
MyST's logger, and the warning nodes it leaves in the doctree (which would reach the page
with ``keep_warnings``, and the excerpt), by a transform.

Why a filter on MyST's logger: Sphinx's ``suppress_warnings`` (which MyST obeys) is global, and
its ``myst.header`` would silence every header warning of every document, a jump from ``##``
to ``####`` included; MyST has no setting per document. A transform comes too late, as MyST
logs while it parses, before any transform runs. A filter on that one logger (records of type
``myst.header``, whose message is MyST's "Document headings start at H…, not H1") sees nothing
else, is added for the build and removed after it, and drops a record only when the checks
report the document: it runs them on the file, as the build's own check will, the first time
MyST warns about that document (a document without the warning costs nothing). Should MyST
change its words or its logger, its warning comes back beside kb's, and
``tests/test_headings.py`` fails; nothing is ever silenced without kb's warning in its place.
"""

from __future__ import annotations

import logging
import re
import weakref
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

from ..checks.model import Rules
from ..checks.notebook import check_source, is_ipynb
from ..checks.pages import check_page, says_blogpost
from ..core import ablog
from .mystlog import filter_myst_warnings

#: MyST's message for a document whose first heading is below H1 (``update_section_level_state``
#: in myst_parser's ``mdit_to_docutils/base.py``); an H2 to H4 jump is another message.
HEADINGS_START = re.compile(r"Document headings start at H[2-6], not H1")
#: In ``env.current_document``: whether kb reports the document being read (decided once).
REPORTED = "kb_headings_reported"


def kb_reports(env, docname: str) -> bool:
    """Whether the checks the build runs on ``docname`` (kb.core.validation's on a post,
    kb.pages.evergreen's on a page) report that its headings start below ``#``."""
    path = Path(env.doc2path(docname))
    if path.suffix == ".rst":
        return False
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return False
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if docname in ablog.matched_posts(env.config) or (
        not is_ipynb(path.name) and says_blogpost(text, rst=False)
    ):
        # Rules of no site: which categories or authors it knows says nothing of headings.
        _, problems = check_source(path.name, text, Rules(()))
    elif is_ipynb(path.name):
        return False  # a notebook that is not a post is not checked
    else:
        _, problems = check_page(text)
    return any(problem.key == "heading" and problem.is_error for problem in problems)


class QuietHeadingsStart(logging.Filter):
    """Leaves out MyST's "Document headings start at H2" for a document kb reports."""

    def __init__(self, app: Sphinx) -> None:
        super().__init__()
        # Weakly: the logger is the process's, and a build that does not reach
        # build-finished (kb serve's next standby, forked while it builds) leaves it there.
        self._app = weakref.ref(app)

    def filter(self, record: logging.LogRecord) -> bool:
        if (getattr(record, "type", None), getattr(record, "subtype", None)) != ("myst", "header"):
            return True
        if not HEADINGS_START.fullmatch(record.getMessage()):
            return True
        app = self._app()
        env = app.env if app is not None else None
        location = getattr(record, "location", None)
        docname = location[0] if isinstance(location, tuple) else None
        if env is None or docname is None or docname != env.docname:
            return True
        document = env.current_document
        if REPORTED not in document:
            document[REPORTED] = kb_reports(env, docname)
        return not document[REPORTED]


class DropHeadingsStartNodes(SphinxTransform):
    """The warning nodes MyST left in the doctree of a document whose warnings were left out."""

    default_priority = 780  # before the checks (790) and ablog (800), which read the excerpt

    def apply(self, **kwargs) -> None:
        if not self.env.current_document.get(REPORTED):
            return
        for message in list(self.document.findall(nodes.system_message)):
            text = "".join(child.astext() for child in message.children)  # not its location
            if HEADINGS_START.fullmatch(text.removesuffix("[myst.header]").strip()):
                message.parent.remove(message)


def setup_headings(app: Sphinx) -> None:
    filter_myst_warnings(app, QuietHeadingsStart)
    app.add_transform(DropHeadingsStartNodes)
