""" "Download the notebook": a link under a notebook post's title, the ``.ipynb`` beside its page.

An ``.ipynb`` post's file is copied as it is (``posts/2026/x.ipynb`` → ``posts/2026/x.ipynb``
in the output, beside ``x.html``); a text notebook is written as the ``.ipynb`` MyST-NB reads
from it, with fixed cell ids, so two builds write the same bytes. The link is a node placed
when the notebook is read, written with the page (never in excerpts or feeds), and kept out of
the search index. Files are written once the pages are, only when their bytes change; the
file of a notebook that is gone (deleted, renamed, now Markdown) is removed, as its page is.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.osutil import relative_uri

from ..core.collectors import DocumentTables
from ..core.fileio import write_if_changed
from ..core.fragments import is_fragment
from ..core.html import add_html_node
from ..core.records import NotebookRecord
from ..core.state import env_state
from ..core.urls import SITE_BUILDERS
from ..upstream.sphinx import page_being_written

#: In the doctree folder: the notebook files the last build wrote into the output folder.
STATE_FILE = "kb-notebooks.json"
STYLESHEET = "kb-notebook.css"


class notebook_download(nodes.General, nodes.Element):
    """The "Download the notebook" line; its text is written with the page (no words in the
    doctree, so the reading time and the excerpt never count it)."""


def add_download(
    env: BuildEnvironment, document: nodes.document, docname: str, kind: str, ipynb: str | None
) -> None:
    """Record a notebook just read, and put its download line under its title."""
    source = Path(env.doc2path(docname))
    record = NotebookRecord(kind, source.relative_to(env.srcdir).as_posix(), ipynb)
    notebooks(env)[docname] = record
    size = len(ipynb.encode()) if ipynb is not None else source.stat().st_size
    node = notebook_download(target=f"{docname}.ipynb", size=size)
    title = next(iter(document.findall(nodes.title)), None)
    if title is not None and isinstance(title.parent, nodes.section):
        title.parent.insert(title.parent.index(title) + 1, node)


def notebooks(env: BuildEnvironment) -> dict[str, NotebookRecord]:
    return env_state(env).notebooks


def _size(size: int) -> str:
    return f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} bytes"


def visit_download(translator, node: notebook_download) -> None:
    if not is_fragment(translator.document):
        builder = translator.builder
        href = relative_uri(builder.get_target_uri(page_being_written(builder)), node["target"])
        name = os.path.basename(node["target"])
        translator.body.append(
            '<p class="kb-notebook-download" data-pagefind-ignore>'
            f'<a class="reference download" href="{href}" download="{name}">'
            "Download the notebook</a> "
            f'<span class="kb-notebook-file">({name}, Jupyter notebook, {_size(node["size"])})'
            "</span></p>"
        )
    raise nodes.SkipNode


# -- Writing the files ---------------------------------------------------------------------------


def _write_downloads(app: Sphinx, *args):
    if app.builder.name not in SITE_BUILDERS:
        return []
    env, outdir = app.env, Path(app.outdir)
    written = set()
    for docname, record in sorted(notebooks(env).items()):
        if docname not in env.found_docs:
            continue
        relpath = f"{docname}.ipynb"
        if record.ipynb is not None:
            data = record.ipynb.encode()
        else:
            data = (Path(env.srcdir) / record.source).read_bytes()
        write_if_changed(outdir / relpath, data)
        written.add(relpath)
    state = Path(app.doctreedir) / STATE_FILE
    try:
        previous = set(json.loads(state.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        previous = set()
    for relpath in sorted(previous - written):
        path = (outdir / relpath).resolve()
        if path.suffix == ".ipynb" and outdir.resolve() in path.parents:
            path.unlink(missing_ok=True)
    write_if_changed(state, json.dumps(sorted(written)))
    return []


def _page_context(app: Sphinx, pagename: str, templatename, context, doctree) -> None:
    # The notebook cells' styles, on the pages that have them only.
    if doctree is not None and pagename in notebooks(app.env):
        app.add_css_file(STYLESHEET)


class NotebookCollector(DocumentTables):
    """The notebook posts, as read (recorded by the parser: :func:`add_download`)."""

    purged = ("notebooks",)


def setup_download(app: Sphinx) -> None:
    add_html_node(app, notebook_download, visit_download)
    app.connect("html-collect-pages", _write_downloads)
    app.connect("html-page-context", _page_context)
    app.add_env_collector(NotebookCollector)
