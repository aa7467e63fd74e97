"""Raw HTML in a post may not load anything from another host, nor run a script.

The site promises that no page loads anything from another host (no CDN, no tracker, no
embedded player) and runs only its own scripts. A post can still hold raw HTML: Markdown's
inline and block HTML and ``{raw} html`` become docutils ``raw`` nodes that every page,
listing and feed would copy as they are. Each one is parsed (``html.parser``, the way a
browser splits tags and attributes, entities decoded) when the post is read, and an element
that

* loads from another host: ``src``/``srcset`` (img, script, iframe, video, audio, source,
  track, embed, input), ``href`` of link, base and SVG's image/use, ``data`` of object,
  ``poster``, ``background``, ``action``/``formaction``, ``ping``, ``url()`` and ``@import``
  in ``style`` attributes and ``<style>``, a refresh ``<meta>``, or an ``<iframe srcdoc>``
  that does; or
* runs a script: ``<script>``, an ``on…`` attribute, a ``javascript:`` URL

is a warning at its line, and the raw HTML that holds it is left out of the page (so a build
that goes on despite the warning still keeps the promise). So is a Markdown image or
``{image}``/``{figure}`` from another host. Listings and feeds take the post's excerpt from
its doctree after this check, so each problem is reported once.

Settings: ``kb_allow_raw_html_hosts`` lists hosts a post's HTML and images may load from (the
site's own host always may), ``kb_allow_raw_scripts = True`` lets posts run scripts.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from ..checks.rawhtml import describe, host_of, problems, remote_image_message
from ..core.paths import read_again
from ..core.urls import site_url

logger = logging.getLogger(__name__)


def _line(node: nodes.Node) -> tuple[str | None, int | None]:
    """The source and line of a node, or of its nearest ancestor that has them."""
    while node is not None:
        if node.line:
            return node.source, node.line
        node = node.parent
    return None, None


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    settings = app.kb_config
    own = urlsplit(site_url(app)).hostname
    allowed = {*settings.allow_raw_html_hosts, *([own] if own else [])}
    for raw in list(doctree.findall(nodes.raw)):
        if "html" not in raw.get("format", "").split():
            continue
        found = problems(raw.astext(), allowed, settings.allow_raw_scripts)
        if not found:
            continue
        source, line = _line(raw)
        source = source or app.env.doc2path(app.env.docname)
        for finding in found:
            where = f"{source}:{line + finding.line - 1}" if line else str(source)
            logger.warning(describe(finding), location=where, type="kb", subtype="raw-html")
        raw.parent.remove(raw)
        read_again(app.env)
    for image in list(doctree.findall(nodes.image)):
        uri = image.get("uri", "")
        host = host_of(uri)
        if host and host not in allowed:
            logger.warning(
                remote_image_message(uri, host),
                location=image,
                type="kb",
                subtype="remote-image",
            )
            image.parent.remove(image)
            read_again(app.env)


def setup_rawhtml(app: Sphinx) -> None:
    # Before ablog (500) and the catalog (600) keep the post's excerpt.
    app.connect("doctree-read", _doctree_read, priority=400)
