"""A notebook's outputs on the page: nothing that runs a script or loads from another host.

MyST-NB renders every form of each output (a "mime bundle": PNG and plain text of one
figure) when it reads the notebook, and picks one per builder when a page is written.

* When a notebook is read (:func:`drop_unsafe_outputs`), forms that would run code in the
  reader's browser or load anything from another host are removed, with a warning at the
  cell (the verdict and its words are :mod:`kb.checks.outputs`', which ``kb check`` uses on
  the stored outputs too): JavaScript (``application/javascript``), Jupyter widgets
  (``application/vnd.jupyter.widget-view+json``, which load their code from a CDN), and HTML
  or SVG of which the one sanitizer (:mod:`kb.checks.sanitize`, the policy of raw HTML in
  posts) would drop anything. The output's other forms (a widget's plain-text repr) stay, so
  the page shows what it can. What is kept is the sanitizer's output, never the notebook's
  own bytes: an HTML form's text, and an SVG figure's file (which the site publishes and a
  reader may open by itself). A ``<style>`` in an output (pandas writes one for every
  DataFrame, matplotlib for every SVG) is dropped without a report: it is not the author's.
  An HTML table (a pandas DataFrame) is put in furo's scrolling table wrapper.
* When a page is written, MyST-NB's own transforms pick each output's form and fold cells
  tagged ``hide-input``/``hide-output``; they are imported only for a page that has
  notebook cells (:class:`SelectOutputForm`, :func:`_fold_hidden_cells`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from ..checks.outputs import HTML_FORMS, SCRIPT_FORMS, SVG_FORMS, dropped_message, loud, reason
from ..checks.sanitize import SANITIZED, Policy, sanitize, sanitize_svg
from ..core.urls import site_url
from ..upstream.sphinx import has_translation_handlers
from .download import notebooks

logger = logging.getLogger(__name__)

_TABLE = re.compile(r"<table\b", re.I)


def _is_bundle(node: nodes.Node) -> bool:
    return isinstance(node, nodes.container) and node.get("nb_element") == "mime_bundle"


def _cell_of(node: nodes.Node) -> nodes.Element | None:
    while node is not None and not (
        isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"
    ):
        node = node.parent
    return node


def drop_unsafe_outputs(
    document: nodes.document,
    docname: str,
    cell_line: Callable[[int | None], int | None],
    policy: Policy | None = None,
) -> None:
    """Remove the forms of outputs that :func:`unsafe` refuses, warning at each cell, and put
    the sanitizer's output in place of what is kept: the text of each HTML form, the file of
    each SVG figure.

    ``cell_line(index)`` is where cell ``index`` starts in an .ipynb, or None when the nodes'
    own lines are right (a text notebook). ``policy`` is the site's (kb.markup.rawhtml)."""
    env = document.settings.env
    policy = policy or _policy(env)
    srcdir = Path(env.srcdir)
    folder = Path(env.mystnb_config.output_folder).resolve()
    for bundle in list(document.findall(_is_bundle)):
        cell = _cell_of(bundle)
        index = cell.get("cell_index") if cell is not None else None
        for form in list(bundle.children):
            mime_type = form.get("mime_type", "")
            why = _clean_form(form, mime_type, policy, srcdir, folder)
            if not why:
                continue
            bundle.remove(form)
            line = cell_line(index) or bundle.line or (cell.line if cell is not None else None)
            logger.warning(
                dropped_message(index, mime_type, why, bool(bundle.children)),
                location=(docname, line),
                type="kb",
                subtype="notebook",
            )
        if not bundle.children:
            bundle.parent.remove(bundle)
            continue
        for raw in list(bundle.findall(nodes.raw)):
            raw[SANITIZED] = True
            if _TABLE.search(raw.astext()):
                # furo's scrolling wrapper, which kb gives a tab stop when it overflows.
                text = f'<div class="table-wrapper">{raw.astext()}</div>'
                wrapped = nodes.raw(text, text, format="html", classes=raw["classes"])
                wrapped[SANITIZED] = True
                raw.replace_self(wrapped)


def _policy(env) -> Policy:
    """The site's policy for HTML from content, without scripts: a notebook's never run."""
    own = urlsplit(site_url(env)).hostname
    hosts = getattr(env.config, "kb_allow_raw_html_hosts", ()) or ()
    return Policy.make(hosts, own, False, "output")


def _clean_form(
    form: nodes.Element, mime_type: str, policy: Policy, srcdir: Path, folder: Path
) -> str:
    """Why ``form`` is dropped; otherwise "" and its HTML or SVG is now the sanitizer's."""
    if mime_type in SCRIPT_FORMS:
        return SCRIPT_FORMS[mime_type]
    if mime_type in HTML_FORMS:
        raws = list(form.findall(nodes.raw))
        results = [sanitize(raw.astext(), policy) for raw in raws]
        refused = reason(loud([drop for result in results for drop in result.drops]))
        if not refused:
            for raw, result in zip(raws, results, strict=True):
                raw.children[:] = [nodes.Text(result.html)]
        return refused
    if mime_type in SVG_FORMS:
        for image in form.findall(nodes.image):
            path = _image_file(image.get("uri", ""), srcdir, folder)
            if path is None:
                return "an SVG the build cannot find"
            result = sanitize_svg(path.read_text(encoding="utf-8", errors="replace"), policy)
            refused = reason(loud(result.drops), "an SVG")
            if refused:
                return refused
            if path.read_text(encoding="utf-8", errors="replace") != result.html:
                path.write_text(result.html, encoding="utf-8")  # MyST-NB's copy, in _build
    return ""


def _image_file(uri: str, srcdir: Path, folder: Path) -> Path | None:
    """The file MyST-NB wrote for an output figure (its URI is relative to the source folder,
    led by "/"), when it is one of MyST-NB's output folder: never an author's file."""
    if not uri.startswith("/"):
        return None
    path = (srcdir / uri.lstrip("/")).resolve()
    return path if path.is_file() and path.is_relative_to(folder) else None


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

    if not has_translation_handlers(app, HideCodeCellNode, "html"):
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
