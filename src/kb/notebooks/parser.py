"""The parser of ``.md`` and ``.ipynb`` sources: MyST, or MyST-NB for a notebook.

A ``.md`` file is a MyST text notebook when its front matter says so (``file_format:
mystnb``), as MyST-NB decides; every other ``.md`` goes to MyST-Parser as before, after a
substring test that costs nothing. Only a notebook imports MyST-NB (:mod:`.render`), so a
build that reads no notebook (a no-change rebuild, an edit of a Markdown post) never pays for
it. A notebook that cannot be read (not JSON, not nbformat 4, a date YAML reads as a date)
is rendered as an empty page: the checks report it at its line for a post, and so does this
parser for any other notebook, so a build never ends in a traceback. The parser itself is
:class:`.sourceparser.NotebookParser`; notebooks that warned are read again (:func:`.state.flawed`).
"""

from __future__ import annotations

from sphinx.application import Sphinx

from ..core.collectors import DocumentTables
from .state import NOTEBOOK_FILETYPE, flawed


class FlawedNotebooks(DocumentTables):
    """The notebooks whose reading warned (noted by the parser), read again on every build."""

    purged = ("flawed_notebooks",)

    def get_outdated_docs(self, app: Sphinx, env, added, changed, removed) -> list[str]:
        return sorted(flawed(env) - set(removed))


def setup_parser(app: Sphinx) -> None:
    # MyST-Parser's own module, imported here rather than with kb (the kb command never needs
    # it); a build has already loaded it.
    from .sourceparser import NotebookParser

    app.add_env_collector(FlawedNotebooks)
    app.add_source_suffix(".ipynb", NOTEBOOK_FILETYPE)
    # Replaces MyST-Parser's parser of "markdown" (it is the same parser for Markdown).
    app.add_source_parser(NotebookParser, override=True)
