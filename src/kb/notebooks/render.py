"""Rendering a notebook with MyST-NB: imported only when a notebook is read.

MyST-NB's parser renders the notebook as it stands: its stored outputs (text, images as
files, HTML, errors), or, for a text notebook, its code. It runs the notebook only when the
post opts in with ``kb_execute: cache`` (through jupyter-cache, in ``_build/.jupyter_cache``)
or ``kb_execute: force``: kb sets MyST-NB's ``execution_mode`` for that one notebook. Then
outputs that would run scripts or load from another host are dropped (:mod:`.outputs`), and
the post gets its "Download the notebook" link (:mod:`.download`).
"""

from __future__ import annotations

import json
import logging as std_logging

import nbformat
from docutils import nodes
from myst_nb.core.read import read_myst_markdown_notebook
from sphinx.util import logging

from ..checks.frontmatter import read_front_matter
from ..checks.notebook import find_lines
from ..upstream.myst_nb import notebook_parser as make_notebook_parser
from .download import add_download
from .outputs import describe_figures, drop_unsafe_outputs
from .state import flawed

logger = logging.getLogger(__name__)


def render_notebook(text: str, document: nodes.document, kind: str) -> bool:
    """Render ``text``, a notebook of ``kind`` ("ipynb" or "text"), into ``document``; False
    when MyST-NB failed (reported here), leaving ``document`` empty."""
    env = document.settings.env
    docname = env.docname
    metadata, lines = _metadata(text, kind)
    mode = metadata.get("kb_execute")
    notebook_parser = make_notebook_parser(env)
    everywhere = env.mystnb_config
    if mode in ("cache", "force"):
        env.mystnb_config = everywhere.copy(execution_mode=mode)
    warnings = _WarningCount()
    std_logging.getLogger("sphinx").addHandler(warnings)
    try:
        notebook_parser.parse(text, document)
        drop_unsafe_outputs(document, docname, lambda cell: _cell_line(kind, lines, cell))
        _drop_widget_state(env, docname, lines.get(("metadata", "widgets"), 1))
    except Exception as error:  # MyST-NB's own failure: reported, never a traceback
        document.children.clear()
        for key in ("nb_renderer", "nb_js_files"):
            document.attributes.pop(key, None)
        message = f"MyST-NB could not render this notebook ({type(error).__name__}: {error})"
        logger.warning(message, location=(docname, 1), type="kb", subtype="notebook")
        return False
    finally:
        env.mystnb_config = everywhere
        std_logging.getLogger("sphinx").removeHandler(warnings)
        if warnings.count:
            flawed(env).add(docname)
    describe_figures(document)
    # A text notebook is converted once; an .ipynb is copied when the site is written.
    add_download(
        env, document, docname, kind, _as_ipynb(text, env, docname) if kind == "text" else None
    )
    return True


class _WarningCount(std_logging.Handler):
    """Counts the warnings logged while a notebook is read (MyST-NB's, MyST's, kb's)."""

    def __init__(self) -> None:
        super().__init__(std_logging.WARNING)
        self.count = 0

    def emit(self, record: std_logging.LogRecord) -> None:
        self.count += 1


def _metadata(text: str, kind: str) -> tuple[dict, dict[tuple, int]]:
    """The notebook's metadata (front matter), and the lines of an .ipynb's keys and cells."""
    if kind == "ipynb":
        return json.loads(text).get("metadata", {}), find_lines(text)
    fields, _, _ = read_front_matter(text)
    return {key: item.value for key, item in fields.items()}, {}


def _cell_line(kind: str, lines: dict[tuple, int], cell: int | None) -> int | None:
    """Where a cell starts: its line in the .ipynb; None for a text notebook, whose nodes
    carry their own line."""
    if kind != "ipynb" or cell is None:
        return None
    return lines.get(("cells", cell), 1)


def _drop_widget_state(env, docname: str, line: int) -> None:
    """Widget state in the notebook's metadata makes MyST-NB add ipywidgets' scripts, which
    load from another host: kb never adds them, and says so."""
    data = getattr(env, "nb_metadata", {}).get(docname, {})
    if data.pop("js_files", None):
        logger.warning(
            "the notebook's widget state (metadata `widgets`) is dropped: widgets need scripts "
            "from another host, which the site never loads; clear the widgets in Jupyter "
            "(Widgets → Clear Notebook Widget State) and save",
            location=(docname, line),
            type="kb",
            subtype="notebook",
        )


def _as_ipynb(text: str, env, docname: str) -> str:
    """A text notebook as an .ipynb, read the way MyST-NB read it, with ids that do not
    change from one build to the next (nbformat makes random ones)."""
    notebook = read_myst_markdown_notebook(
        text, config=env.myst_config, add_source_map=False, path=str(env.doc2path(docname))
    )
    for number, cell in enumerate(notebook.cells, start=1):
        cell["id"] = f"cell-{number}"
    return nbformat.writes(notebook)
