"""Reading the file safely and telling what it is: a WordPress export, RSS 2.0 or Atom.

The XML is parsed by lxml with entity expansion, DTD loading and network access turned off,
so an export cannot make the importer read local files, fetch URLs or expand a "billion
laughs"; a malformed file is reported as ``path:line:column: what is wrong``.
"""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from ..checks.bounded import read_bounded
from ..checks.rawhtml import shorten
from .model import ATOM, ImportFileError, Source

#: WXR 1.0, 1.1 and 1.2 (and its ``excerpt`` namespace, which is not this one).
WP_NAMESPACE = re.compile(r"^https?://wordpress\.org/export/1\.\d+/$")
_LATE_DECLARATION = re.compile(rb"\s+(<\?xml[^>]*\?>)")


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        strip_cdata=True,
    )


def parse(path: Path, shown: str) -> etree._Element:
    """The root element of ``path``; ``shown`` is how messages name the file."""
    try:
        data = read_bounded(path)  # a regular file under kb_max_file_bytes' default
    except OSError as error:
        raise ImportFileError(
            f"{shown}: cannot read this file ({error.strerror or error})"
        ) from None
    if not data.strip():
        raise ImportFileError(f"{shown}:1:1: the file is empty: export it again from WordPress")
    # A plugin that prints a blank line before the export is a classic, and the XML declaration
    # must come first: blank it out (same length, so every line and column stays where it is).
    declaration = _LATE_DECLARATION.match(data)
    if declaration:
        start, end = declaration.span(1)
        data = data[:start] + b" " * (end - start) + data[end:]
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as error:
        line, column = error.position if error.position else (1, 1)
        # One line, no control characters (lxml quotes the bytes it choked on, which a
        # terminal would obey), at most 160 characters.
        message = (error.msg or str(error)).split(f", line {line}")[0]
        message = " ".join(shorten(message, 160).split())
        if (line, column) <= (1, 2) and "Start tag expected" in message:
            raise ImportFileError(
                f"{shown}:1:1: not XML: kb import reads a WordPress export (Tools > Export), "
                "an RSS 2.0 or an Atom feed"
            ) from None
        raise ImportFileError(
            f"{shown}:{line}:{column}: malformed XML ({message}): the export is cut short or "
            "damaged; export it again"
        ) from None
    if root is None:
        raise ImportFileError(f"{shown}:1:1: no XML element in this file")
    return root


def detect(root: etree._Element, shown: str) -> str:
    """``"wxr"``, ``"rss"`` or ``"atom"``; anything else is refused."""
    tag = etree.QName(root).localname if isinstance(root.tag, str) else ""
    if tag == "feed" and etree.QName(root).namespace == ATOM:
        return "atom"
    if tag == "rss":
        channel = root.find("channel")
        if channel is None:
            raise ImportFileError(f"{shown}:{root.sourceline}:1: an <rss> without a <channel>")
        if wp_namespace(root):
            return "wxr"
        return "rss"
    raise ImportFileError(
        f"{shown}:{root.sourceline or 1}:1: <{tag or root.tag}> is neither a WordPress export "
        "(Tools > Export), an RSS 2.0 feed nor an Atom feed"
    )


def wp_namespace(root: etree._Element) -> str:
    """The WordPress export namespace the file uses (WXR 1.0, 1.1 or 1.2), if any."""
    channel = root.find("channel")
    scopes = [root, channel, *(channel.iterchildren() if channel is not None else ())]
    for element in scopes[:50]:  # WordPress declares it on <rss>; look a little further
        for namespace in element.nsmap.values() if isinstance(element.tag, str) else ():
            if namespace and WP_NAMESPACE.match(namespace):
                return namespace
    return ""


def read(path: Path, shown: str) -> Source:
    """The file's items, whatever its format."""
    from . import feeds, wxr

    root = parse(path, shown)
    kind = detect(root, shown)
    if kind == "wxr":
        return wxr.read(root, wp_namespace(root))
    if kind == "rss":
        return feeds.read_rss(root)
    return feeds.read_atom(root)
