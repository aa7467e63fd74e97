"""Posts written as Jupyter notebooks: ``.ipynb`` files and MyST text notebooks, read by MyST-NB.

MyST-NB costs a second and more to import (nbformat, jupyter-cache, SQLAlchemy), which a build
of Markdown posts must not pay: kb registers MyST-NB's settings and a parser of its own, and
imports MyST-NB only when a notebook is read or written (:mod:`.parser`, :mod:`.outputs`).

* :mod:`.settings` declares MyST-NB's ``nb_*`` settings (nothing runs by default:
  ``nb_execution_mode = "off"``) and makes MyST-NB's configuration for each build.
* :mod:`.parser` reads ``.md`` files (MyST, or MyST-NB for a text notebook) and ``.ipynb``;
  a notebook the checks cannot read (:mod:`kb.checks.notebook`) is rendered as nothing.
* :mod:`.render` renders a notebook through MyST-NB, runs it only when its front matter says
  ``kb_execute: cache`` (or ``force``), and drops outputs that would run scripts or load code
  from another host, with a warning at the cell.
* :mod:`.outputs` picks each output's form when a page is written, as MyST-NB does.
* :mod:`.lines` makes a warning about a cell name the file's own line, not MyST-NB's
  ``(cell + 1) * 10000 + line``.
* :mod:`.download` links "Download the notebook" under the post's title and writes the
  ``.ipynb`` next to the page.
"""

from sphinx.application import Sphinx

from . import download, lines, outputs, parser, settings


def setup_notebooks(app: Sphinx) -> None:
    settings.setup_settings(app)
    parser.setup_parser(app)
    outputs.setup_outputs(app)
    download.setup_download(app)
    lines.setup_lines(app)


__all__ = ["setup_notebooks"]
