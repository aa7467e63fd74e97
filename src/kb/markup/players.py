"""``{video}`` and ``{audio}``: a file of the repository shown in the browser's own player.

::

    :::{video} talk.mp4
    :poster: talk.jpg

    The talk, recorded at the workshop.
    :::

The file (and the poster) travel as Sphinx download references, so the path rule of
:mod:`.files` judges them like any ``{download}`` (inside the repository, a regular file, under
``kb_max_file_bytes``) and Sphinx copies them to ``_downloads/``. The page shows
``<video controls>`` (or ``<audio controls>``) with a download link inside, for browsers and
builders without a player, and the content as the caption. A player never loads from another
host (the site's privacy rule): a URL is a warning that says to copy the file in, and the
page keeps a plain link to it.
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath
from urllib.parse import quote

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from ..core import paths
from ..upstream.sphinx import downloads_path

REMOTE_REFUSED = paths.Refusal(
    "would load from another host, which the site never does",
    "copy the file into the repository, next to the post, and name it instead",
)


class player(nodes.General, nodes.Element):
    """A media player: ``kind`` is ``video`` or ``audio``; children: the file's download
    reference (marked ``kb_media``), the poster's (``kb_poster``), the caption."""


class PlayerDirective(SphinxDirective):
    required_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = {"poster": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        kind = self.name
        target = self.arguments[0].strip()
        name = PurePosixPath(target.split("?", 1)[0]).name or target
        if "://" in target or target.startswith("//"):
            paths.warn(kind, target, REMOTE_REFUSED, self.get_location(), reading=self.env)
            return [nodes.paragraph("", "", nodes.reference(target, name, refuri=target))]
        node = player(kind=kind)
        self.set_source_info(node)
        media = self._download(target, f"{kind.title()}: {name}")
        media["kb_media"] = True
        node += nodes.paragraph("", "", media)
        poster = self.options.get("poster", "").strip()
        if kind == "video" and poster and "://" not in poster:
            reference = self._download(poster, f"Poster: {PurePosixPath(poster).name}")
            reference["kb_poster"] = True
            node += nodes.paragraph("", "", reference)
        if self.content:
            caption = nodes.container(classes=["kb-player-caption"])
            self.state.nested_parse(self.content, self.content_offset, caption)
            node += caption
        return [node]

    def _download(self, target: str, text: str) -> addnodes.download_reference:
        reference = addnodes.download_reference(
            target, "", nodes.literal(text, text), reftarget=target, refdoc=self.env.docname,
            refexplicit=True, refdomain="", reftype="download",
        )  # fmt: skip
        self.set_source_info(reference)
        return reference


def _href(translator, reference) -> str:
    return posixpath.join(downloads_path(translator.builder), quote(reference["filename"]))


def _copied(node: player, mark: str):
    """The download reference marked ``mark`` that Sphinx copied (a refused one is gone)."""
    for reference in node.findall(addnodes.download_reference):
        if reference.get(mark) and reference.get("filename"):
            return reference
    return None


def visit_player_html(translator, node: player) -> None:
    media = _copied(node, "kb_media")
    if media is None:  # refused: the warning said why; the text stays, without a player
        return
    kind = node["kind"]
    attributes = {"controls": "", "preload": "metadata", "src": _href(translator, media)}
    poster = _copied(node, "kb_poster")
    if poster is not None:
        attributes["poster"] = _href(translator, poster)
    translator.body.append('<figure class="kb-player">')
    translator.body.append(translator.starttag(node, kind, "", **attributes).rstrip("\n"))
    # The download link, inside the element, is what a browser without the player shows.
    translator.body.append("<p>")
    translator.body.append(
        f'<a class="reference download internal" download="" href="{_href(translator, media)}">'
    )
    translator.body.append(translator.encode(media.astext()))
    translator.body.append(f"</a></p></{kind}>")
    captions = [c for c in node.children if "kb-player-caption" in c.get("classes", ())]
    for caption in captions:
        translator.body.append("<figcaption>")
        for child in caption.children:
            child.walkabout(translator)
        translator.body.append("</figcaption>")
    translator.body.append("</figure>\n")
    raise nodes.SkipNode


def _children(translator, node) -> None:
    """Other builders, and a refused file: the children (the link's text, the caption)."""


def setup_players(app: Sphinx) -> None:
    app.add_node(
        player,
        html=(visit_player_html, _children),
        latex=(_children, _children),
        text=(_children, _children),
        man=(_children, _children),
        texinfo=(_children, _children),
    )
    app.add_directive("video", PlayerDirective)
    app.add_directive("audio", PlayerDirective)
