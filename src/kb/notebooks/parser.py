"""The parser of ``.md`` and ``.ipynb`` sources: MyST, or MyST-NB for a notebook.

A ``.md`` file is a MyST text notebook when its front matter says so (``file_format:
mystnb``), as MyST-NB decides; every other ``.md`` goes to MyST-Parser as before, after a
substring test that costs nothing. Only a notebook imports MyST-NB (:mod:`.render`), so a
build that reads no notebook (a no-change rebuild, an edit of a Markdown post) never pays for
it. A notebook that cannot be read (not JSON, not nbformat 4, a date YAML reads as a date)
is rendered as an empty page: the checks report it at its line for a post, and so does this
parser for any other notebook, so a build never ends in a traceback.
"""

from __future__ import annotations

import os

from myst_parser.parsers.sphinx_ import MystParser
from sphinx.application import Sphinx
from sphinx.util import logging

from ..checks.notebook import notebook_kind, read_problems
from ..core import ablog

logger = logging.getLogger(__name__)

#: The file type Sphinx gives ``.ipynb`` sources.
NOTEBOOK_FILETYPE = "jupyter_notebook"


class NotebookParser(MystParser):
    """MyST-Parser, handing notebooks to MyST-NB."""

    supported = (*MystParser.supported, NOTEBOOK_FILETYPE)

    def parse(self, inputstring: str, document) -> None:
        env = document.settings.env
        path = str(env.doc2path(env.docname))
        translated = str(document.current_source or "").endswith("<translated>")
        kind = "" if translated else notebook_kind(path, inputstring)
        if not kind:
            return super().parse(inputstring, document)
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


def flawed(env) -> set[str]:
    """Notebooks whose reading warned: read again by every build until fixed, so that a
    second ``sphinx-build -W`` cannot pass on a warning it no longer shows."""
    if not hasattr(env, "kb_notebooks_flawed"):
        env.kb_notebooks_flawed = set()
    return env.kb_notebooks_flawed


def _outdated(app: Sphinx, env, added, changed, removed) -> list[str]:
    return sorted(flawed(env) - set(removed))


def _purge(app: Sphinx, env, docname: str) -> None:
    flawed(env).discard(docname)


def _merge(app: Sphinx, env, docnames, other) -> None:
    flawed(env).update(flawed(other) & set(docnames))


def setup_parser(app: Sphinx) -> None:
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.add_source_suffix(".ipynb", NOTEBOOK_FILETYPE)
    # Replaces MyST-Parser's parser of "markdown" (it is the same parser for Markdown).
    app.add_source_parser(NotebookParser, override=True)
