"""HTML fragments written outside a page: excerpts (once per build) and feeds' full text.

A fragment is written as the post's own page would write it (its relative image and download
paths, its section and figure numbers), then its links are rebased onto the site root, so
that every listing, feed and sidebar can place it with its own prefix.
"""

from __future__ import annotations

from docutils import nodes
from docutils.utils import new_document
from sphinx.application import Sphinx
from sphinx.util import logging

from ..upstream.docutils import writer_settings
from ..upstream.sphinx import writing_as
from .state import build_state
from .urls import rebase_links

#: Set on documents kb writes as fragments: ``doctree-resolved`` handlers that add parts
#: to a post's own page (its header, series box, cite block) leave these alone.
FRAGMENT = "kb_fragment"


def is_fragment(doctree: nodes.document) -> bool:
    return bool(doctree.get(FRAGMENT))


#: Marks a container of an excerpt's parts (ablog's ``:excerpt: N`` paragraphs, its
#: ``:image: N`` picture): rendered as its children, with no box around them.
EXCERPT_PARTS = "kb_excerpt_parts"


def render_excerpt(app: Sphinx, docname: str, paragraph: nodes.Element | None) -> str:
    """Render a post's excerpt once, with links relative to the site root."""
    if paragraph is None:
        return ""
    builder = app.builder
    document = new_document(str(app.env.doc2path(docname)), _settings(app))
    document[FRAGMENT] = True
    if paragraph.get(EXCERPT_PARTS):  # several paragraphs, or a picture: written as they are
        document.extend(child.deepcopy() for child in paragraph.children)
    else:
        document.append(paragraph.deepcopy())
    for xref in document.findall(nodes.Element):
        if "refdoc" in xref:
            xref["refdoc"] = docname
    # Resolve and write as on the post's own page (MyST resolves links from the node's
    # refdoc, Sphinx's roles from the page: only the post's page makes both agree), then
    # rebase every relative link onto the site root. Problems are already reported on the post.
    page = builder.get_target_uri(docname)
    if any(document.findall(nodes.image)):
        builder.post_process_images(document)  # the picture ablog's :image: N shows
    with logging.suppress_logging():
        app.env.resolve_references(document, docname, builder)
    return rebase_links(write_fragment(builder, docname, document), page)


def write_fragment(builder, docname: str, document: nodes.document) -> str:
    """HTML of ``document`` as ``docname``'s own page would write it, leaving the builder as
    it was."""
    with writing_as(builder, docname):
        visitor = builder.create_translator(document, builder)
        document.walkabout(visitor)
        return "".join(visitor.fragment).strip()


def _settings(app: Sphinx):
    """Docutils settings for fragment documents, made once per build (about 5 ms each)."""
    state = build_state(app)
    if state.writer_settings is None:
        state.writer_settings = writer_settings(app.env)
    return state.writer_settings
