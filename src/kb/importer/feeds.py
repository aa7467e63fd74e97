"""RSS 2.0 and Atom feeds into :class:`~.model.Item` records.

A feed is what a site shows, not what it stores: the HTML is rendered (paragraphs and
shortcodes already expanded), only recent posts are in it, and categories and tags arrive
mixed as terms. An item with its full text (``content:encoded`` in RSS, ``<content>`` in
Atom) becomes a post; one with only a summary becomes an external post pointing at the
item's link. WordPress ends each summary with "The post X appeared first on Y.": the
importer drops that line (:func:`strip_footer`).
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import unquote, urlsplit

from lxml import etree

from .model import ATOM, CONTENT, DC, Item, Source

#: The line WordPress (and Yoast, and this site's own feeds) put after each item.
_FOOTER = re.compile(
    r"(<p>\s*)?The post\b.{0,600}?\b(appeared first on|was listed on)\b.{0,400}?\.?\s*(</p>)?\s*$",
    re.S | re.I,
)


def _text(element, path: str, ns: dict | None = None) -> str:
    found = element.find(path, ns)
    return "".join(found.itertext()).strip() if found is not None else ""


def read_rss(root: etree._Element) -> Source:
    channel = root.find("channel")
    ns = {"content": CONTENT, "dc": DC}
    source = Source("rss", site_url=_text(channel, "link"))
    for element in channel.iterfind("item"):
        link = _text(element, "link")
        creators = [c.strip() for c in _all(element, "dc:creator", ns)]
        creators += [_rss_author(a) for a in _all(element, "author")]
        content = _text(element, "content:encoded", ns)
        item = Item(
            line=element.sourceline or 1,
            title=html.unescape(_text(element, "title")),
            slug=_slug_from_link(link),
            link=link,
            date=_rfc822(_text(element, "pubDate")) or _iso(_text(element, "dc:date", ns)),
            authors=[c for c in creators if c],
            terms=[t.strip() for t in _all(element, "category") if t.strip()],
            content=strip_footer(content) if content else "",
            excerpt=strip_footer(_text(element, "description")),
            source_id=_text(element, "guid") or link,
            raw=False,
        )
        source.items.append(item)
    return source


def read_atom(root: etree._Element) -> Source:
    ns = {"a": ATOM}
    source = Source("atom", site_url=_alternate(root, ns))
    for element in root.iterfind("a:entry", ns):
        link = _alternate(element, ns)
        content = element.find("a:content", ns)
        body = _atom_text(content) if content is not None and not content.get("src") else ""
        item = Item(
            line=element.sourceline or 1,
            title=html.unescape(_atom_text(element.find("a:title", ns))),
            slug=_slug_from_link(link),
            link=link,
            date=_iso(_text(element, "a:published", ns) or _text(element, "a:updated", ns)),
            modified=_iso(_text(element, "a:updated", ns)),
            authors=[
                n for n in (_text(a, "a:name", ns) for a in element.iterfind("a:author", ns)) if n
            ],
            terms=[
                c.get("term", "").strip()
                for c in element.iterfind("a:category", ns)
                if c.get("term", "").strip()
            ],
            content=strip_footer(body) if body else "",
            excerpt=strip_footer(_atom_text(element.find("a:summary", ns))),
            source_id=_text(element, "a:id", ns) or link,
            raw=False,
        )
        source.items.append(item)
    return source


def strip_footer(text: str) -> str:
    """A summary without the "The post ... appeared first on ..." line WordPress adds."""
    return _FOOTER.sub("", text.strip()).strip()


def _all(element, path: str, ns: dict | None = None) -> list[str]:
    return ["".join(found.itertext()) for found in element.iterfind(path, ns)]


def _rss_author(value: str) -> str:
    """RSS's ``author`` is ``email (Name)``: the name, or the address when there is none."""
    found = re.search(r"\(([^)]+)\)", value)
    return (found.group(1) if found else value).strip()


def _alternate(element, ns) -> str:
    for link in element.iterfind("a:link", ns):
        if link.get("rel", "alternate") == "alternate" and link.get("href"):
            return link.get("href").strip()
    return ""


def _atom_text(element) -> str:
    """An Atom text construct as HTML: ``type="html"`` is escaped HTML, ``xhtml`` is markup."""
    if element is None:
        return ""
    if element.get("type") == "xhtml":
        inner = next(iter(element), None)  # the <div> around the markup
        if inner is None:
            return ""
        parts = [etree.tostring(child, encoding="unicode", with_tail=True) for child in inner]
        return _drop_namespaces((inner.text or "") + "".join(parts))
    text = "".join(element.itertext()).strip()
    return text if element.get("type") == "html" else html.escape(text, quote=False)


def _drop_namespaces(markup: str) -> str:
    return re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", markup)


def _slug_from_link(link: str) -> str:
    path = unquote(urlsplit(link).path).rstrip("/")
    last = path.rsplit("/", 1)[-1]
    return re.sub(r"\.(html?|php)$", "", last)


def _rfc822(value: str) -> datetime | None:
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def _iso(value: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
