"""Raw HTML in a post gets onto its page only as the one sanitizer leaves it.

The site promises that no page loads anything from another host (no CDN, no tracker, no
embedded player) and runs only its own scripts. A post can still hold raw HTML: Markdown's
inline and block HTML and ``{raw} html`` become docutils ``raw`` nodes that every page,
listing and feed would copy as they are. When the post is read, each one's text is replaced
by what :func:`kb.checks.sanitize.sanitize` makes of it (an allow-list on nh3, a browser-grade
HTML5 parser), so the page can never hold an element, attribute or URL that the policy does
not allow, and what it dropped is a warning at its line, the same that ``kb check`` gives
(:func:`kb.checks.rawhtml.markdown_problems`). So is a Markdown image or ``{image}``/
``{figure}`` from another host, which is left out. Listings and feeds take the post's excerpt
from its doctree after this, so each problem is reported once. A notebook's outputs are
sanitized when the notebook is read (:mod:`kb.notebooks.outputs`) and marked, so they are not
cleaned twice.

Settings: ``kb_allow_raw_html_hosts`` lists hosts a post's HTML and images may load from, and
whose pages an ``<iframe>`` may show (the site's own host may always be loaded from, never
framed), ``kb_allow_raw_scripts = True`` lets posts run scripts: the sanitizer then passes
``<script>``, ``on…`` attributes and ``javascript:`` links through.
"""

from __future__ import annotations

import os
import posixpath
from urllib.parse import urlsplit

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.osutil import relative_uri

from ..checks.namedfiles import html_file
from ..checks.rawhtml import Policy, describe, host_of, problems, remote_image_message, sanitize
from ..checks.sanitize import SANITIZED, local_files
from ..core import events, paths
from ..core.paths import read_again
from ..core.state import build_state
from ..core.urls import site_url

__all__ = ["policy_of", "problems", "setup_rawhtml"]

logger = logging.getLogger(__name__)


def _line(node: nodes.Node) -> tuple[str | None, int | None]:
    """The source and line of a node, or of its nearest ancestor that has them."""
    while node is not None:
        if node.line:
            return node.source, node.line
        node = node.parent
    return None, None


def policy_of(app: Sphinx, context: str = "post") -> Policy:
    """The site's policy for HTML from content, from its settings."""
    settings = build_state(app).config
    own = urlsplit(site_url(app)).hostname
    return Policy.make(settings.allow_raw_html_hosts, own, settings.allow_raw_scripts, context)


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    policy = policy_of(app)
    for raw in list(doctree.findall(nodes.raw)):
        if "html" not in raw.get("format", "").split() or raw.get(SANITIZED):
            continue
        result = sanitize(raw.astext(), policy)
        raw.children[:] = [nodes.Text(result.html)]
        raw[SANITIZED] = True
        _note_local_files(app, raw, result.html)
        if not result.drops:
            continue
        source, line = _line(raw)
        source = source or str(app.env.doc2path(app.env.docname))
        for drop in result.drops:
            where = f"{source}:{line + drop.line - 1}" if line else str(source)
            logger.warning(describe(drop), location=where, type="kb", subtype="raw-html")
        read_again(app.env)
    for image in list(doctree.findall(nodes.image)):
        uri = image.get("uri", "")
        host = host_of(uri)
        if host and host not in policy.hosts:
            logger.warning(
                remote_image_message(uri, host),
                location=image,
                type="kb",
                subtype="remote-image",
            )
            image.parent.remove(image)
            read_again(app.env)


# -- Files beside the post that raw HTML shows --------------------------------------------------

#: On a raw node: the local URLs of its HTML and the source file each names.
LOCAL_FILES = "kb_local_files"


def _note_local_files(app: Sphinx, raw: nodes.raw, html: str) -> None:
    """A file beside the post that raw HTML shows (``<img src="images/x.png">``) is checked as
    a Markdown image is, and copied to ``_images/`` as Sphinx copies one; its URL is pointed at
    the copy when the page is written (:func:`_point_at_copies`)."""
    env, files = app.env, {}
    source, first = _line(raw)
    source = source or str(env.doc2path(env.docname))
    for tag, attribute, url, line in local_files(html):
        label, shown, rules = html_file(tag, attribute, url)  # as kb check judges it
        if not shown or url in files:
            continue
        path = paths.named_path(env, shown)
        where = f"{source}:{first + line - 1}" if first else str(source)
        if paths.check(env, label, shown, path, where, must_exist=True, **rules):
            relpath = os.path.relpath(path, env.srcdir).replace(os.sep, "/")
            env.images.add_file(env.docname, relpath)
            env.note_dependency(str(path))
            files[url] = relpath
    if files:
        raw[LOCAL_FILES] = files


def _point_at_copies(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    images = getattr(app.builder, "images", None)
    if images is None:
        return  # a builder that copies no images (LaTeX copies its own from nodes.image)
    folder = relative_uri(app.builder.get_target_uri(docname), app.builder.imagedir)
    for raw in doctree.findall(nodes.raw):
        files = raw.get(LOCAL_FILES)
        if not files:
            continue
        html = raw.astext()
        for url, relpath in files.items():
            if relpath not in app.env.images:
                continue
            name = app.env.images[relpath][1]
            images[relpath] = name
            copy = posixpath.join(folder, name)
            for attribute in ("src", "poster"):
                html = html.replace(f'{attribute}="{_attr(url)}"', f'{attribute}="{_attr(copy)}"')
        raw.children[:] = [nodes.Text(html)]


def _attr(value: str) -> str:
    # As html5ever (nh3) writes an attribute's value.
    return value.replace("&", "&amp;").replace("\u00a0", "&nbsp;").replace('"', "&quot;")


def setup_rawhtml(app: Sphinx) -> None:
    # Before ablog (500) and the catalog (600) keep the post's excerpt; before Sphinx's image
    # collector (500), which clears a document's images when it is read again.
    app.connect("doctree-read", _doctree_read, priority=events.RAW_HTML)
    app.connect("doctree-resolved", _point_at_copies)
