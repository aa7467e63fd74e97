"""A notebook's outputs on the page: nothing that runs a script or loads from another host.

MyST-NB renders every form of each output (a "mime bundle": PNG and plain text of one
figure) when it reads the notebook, and picks one per builder when a page is written.

* When a notebook is read (:func:`drop_unsafe_outputs`), forms that would run code in the
  reader's browser or load anything from another host are removed, with a warning at the
  cell: JavaScript (``application/javascript``), Jupyter widgets
  (``application/vnd.jupyter.widget-view+json``, which load their code from a CDN), and HTML
  holding a ``<script>`` or loading a script, style, frame or image from another host. The
  output's other forms (a widget's plain-text repr) stay, so the page shows what it can. An
  HTML table (a pandas DataFrame) is put in furo's scrolling table wrapper.
* When a page is written, MyST-NB's own transforms pick each output's form and fold cells
  tagged ``hide-input``/``hide-output``; they are imported only for a page that has
  notebook cells (:class:`SelectOutputForm`, :func:`_fold_hidden_cells`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from .download import notebooks

logger = logging.getLogger(__name__)

#: Forms dropped whatever they hold, with what they are.
SCRIPT_FORMS = {
    "application/javascript": "JavaScript",
    "text/javascript": "JavaScript",
    "application/vnd.jupyter.widget-view+json": "a Jupyter widget, whose code loads from a CDN",
}
#: Forms that are HTML, checked for scripts and for what they load.
HTML_FORMS = ("text/html",)
_SCRIPT = re.compile(r"<script\b", re.I)
_TABLE = re.compile(r"<table\b", re.I)
_REMOTE_LOAD = re.compile(
    r"<(?:script|link|img|iframe|frame|embed|object|video|audio|source|track|input|image|use)\b"
    r"[^>]*?\s(?:src|href|data|poster|srcset|xlink:href)\s*=\s*[\"']?\s*(?:[a-z][a-z0-9+.-]*:)?//",
    re.I,
)
_REMOTE_CSS = re.compile(r"(?:url\(\s*[\"']?|@import\s+[\"']?)\s*(?:[a-z][a-z0-9+.-]*:)?//", re.I)


def unsafe(mime_type: str, html: str = "") -> str:
    """Why a form of an output may not be on a page; "" when it may."""
    if mime_type in SCRIPT_FORMS:
        return SCRIPT_FORMS[mime_type]
    if mime_type in HTML_FORMS:
        if _REMOTE_LOAD.search(html) or _REMOTE_CSS.search(html):
            return "HTML that loads from another host"
        if _SCRIPT.search(html):
            return "HTML with a script"
    return ""


def _is_bundle(node: nodes.Node) -> bool:
    return isinstance(node, nodes.container) and node.get("nb_element") == "mime_bundle"


def _cell_of(node: nodes.Node) -> nodes.Element | None:
    while node is not None and not (
        isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"
    ):
        node = node.parent
    return node


def drop_unsafe_outputs(
    document: nodes.document, docname: str, cell_line: Callable[[int | None], int | None]
) -> None:
    """Remove the forms of outputs that :func:`unsafe` refuses, warning at each cell.

    ``cell_line(index)`` is where cell ``index`` starts in an .ipynb, or None when the nodes'
    own lines are right (a text notebook)."""
    for bundle in list(document.findall(_is_bundle)):
        cell = _cell_of(bundle)
        index = cell.get("cell_index") if cell is not None else None
        for form in list(bundle.children):
            html = "".join(raw.astext() for raw in form.findall(nodes.raw))
            mime_type = form.get("mime_type", "")
            reason = unsafe(mime_type, html)
            if not reason:
                continue
            bundle.remove(form)
            line = cell_line(index) or bundle.line or (cell.line if cell is not None else None)
            number = f"cell {index + 1}" if index is not None else "a cell"
            others = "; its other forms are shown" if bundle.children else ""
            logger.warning(
                f"{number}: the {mime_type} form of an output is dropped ({reason}): pages run "
                f"no notebook scripts and load nothing from other hosts{others}. Clear the "
                "output in Jupyter, or tag the cell remove-output",
                location=(docname, line),
                type="kb",
                subtype="notebook",
            )
        if not bundle.children:
            bundle.parent.remove(bundle)
            continue
        for raw in list(bundle.findall(nodes.raw)):
            if _TABLE.search(raw.astext()):
                # furo's scrolling wrapper, which kb gives a tab stop when it overflows.
                text = f'<div class="table-wrapper">{raw.astext()}</div>'
                raw.replace_self(nodes.raw(text, text, format="html", classes=raw["classes"]))


def describe_figures(document: nodes.document) -> None:
    """An output figure's alt text, when the cell's metadata gives none (``"mystnb": {"image":
    {"alt": "…"}}``): which cell drew it, rather than the file's name."""
    for image in document.findall(nodes.image):
        cell = _cell_of(image)
        if cell is not None and not image.get("alt"):
            image["alt"] = f"Figure drawn by cell {cell.get('cell_index', 0) + 1} of the notebook"


# -- Writing a page ----------------------------------------------------------------------------


def _has_outputs(document: nodes.document) -> bool:
    return any(True for _ in document.findall(_is_bundle))


class SelectOutputForm(SphinxPostTransform):
    """MyST-NB's ``SelectMimeType`` (same priority), imported only for notebook pages."""

    default_priority = 4

    def run(self, **kwargs) -> None:
        # A dictionary look-up first: a Markdown page is never walked.
        if self.env.docname not in notebooks(self.env) or not _has_outputs(self.document):
            return
        from myst_nb.sphinx_ import SelectMimeType

        SelectMimeType(self.document).apply(**kwargs)


def _is_folded(node: nodes.Node) -> bool:
    return isinstance(node, nodes.container) and bool(node.get("hide_mode"))


def _fold_hidden_cells(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """MyST-NB's ``HideInputCells`` for cells tagged hide-input, hide-output or hide-cell; its
    node is registered with the first page that needs it, written by kb as a ``<details>``
    whose ``<summary>`` holds only text (MyST-NB's puts paragraphs there, which HTML forbids)."""
    if docname not in notebooks(app.env) or app.builder.format != "html":
        return
    if not any(True for _ in doctree.findall(_is_folded)):
        return
    from myst_nb.sphinx_ import HideCodeCellNode, HideInputCells

    handlers = app.registry.translation_handlers.get("html", {})
    if HideCodeCellNode.__name__ not in handlers:
        app.add_node(HideCodeCellNode, override=True, html=(_visit_folded, _depart_folded))
    HideInputCells(doctree).apply()


def _visit_folded(translator, node: nodes.Element) -> None:
    classes = " ".join(["kb-folded", *node["classes"]])
    translator.body.append(
        f'<details class="{escape(classes)}"><summary>{escape(node["prompt_show"])}</summary>\n'
    )


def _depart_folded(translator, node: nodes.Element) -> None:
    translator.body.append("</details>\n")


def setup_outputs(app: Sphinx) -> None:
    app.add_post_transform(SelectOutputForm)
    app.connect("doctree-resolved", _fold_hidden_cells)
