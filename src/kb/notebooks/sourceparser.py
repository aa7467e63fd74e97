"""The parser kb gives Sphinx for ``.md`` and ``.ipynb`` sources (see :mod:`.parser`).

In a module of its own because it subclasses MyST-Parser's parser, whose import (a few tenths
of a second) the ``kb`` command never needs: :func:`.parser.setup_parser` imports it.
"""

from __future__ import annotations

import os

from myst_parser.parsers.sphinx_ import MystParser
from sphinx.util import logging

from ..checks.notebook import dates_as_text, notebook_kind, read_problems
from ..core import ablog, paths
from .state import NOTEBOOK_FILETYPE, flawed

logger = logging.getLogger(__name__)


class NotebookParser(MystParser):
    """MyST-Parser, handing notebooks to MyST-NB."""

    supported = (*MystParser.supported, NOTEBOOK_FILETYPE)

    def parse(self, inputstring: str, document) -> None:
        env = document.settings.env
        paths.guard_includes(document)  # {include} in Markdown and notebooks alike
        path = str(env.doc2path(env.docname))
        translated = str(document.current_source or "").endswith("<translated>")
        kind = "" if translated else notebook_kind(path, inputstring)
        if not kind:
            return super().parse(inputstring, document)
        if kind == "text":  # `date: 2026-05-05` as in a Markdown post, though JSON has no dates
            inputstring = dates_as_text(inputstring)
        problems = read_problems(path, inputstring)
        if problems:
            # A post's problems are reported by the checks (kb.core.validation), once.
            if env.docname not in ablog.matched_posts(env.config):
                flawed(env).add(env.docname)
                for problem in problems:
                    logger.warning(
                        problem.message,
                        location=(env.docname, problem.line),
                        type="kb",
                        subtype="notebook",
                    )
            relpath = os.path.relpath(path, env.srcdir)
            return self._say(
                f"This notebook could not be read: `kb check {relpath}` says why.", document
            )
        from .render import render_notebook  # MyST-NB: imported with the first notebook

        if not render_notebook(inputstring, document, kind):
            return self._say("This notebook could not be rendered: the build says why.", document)
        return None

    def _say(self, note: str, document) -> None:
        """A page that only says ``note``, made as MyST makes any page (its transforms need
        the settings MyST sets up)."""
        super().parse(note + "\n", document)
        env = document.settings.env
        if env.docname in ablog.matched_posts(env.config) and env.config.post_auto_orphan:
            # No post for ablog now; "not in any toctree" would only add noise to the warning.
            env.metadata[env.docname]["orphan"] = True
