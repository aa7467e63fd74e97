"""Writers for the three feed formats: RSS 2.0, Atom 1.0 (RFC 4287) and JSON Feed 1.1.

Pure functions from a :class:`Feed` to bytes. Nothing here reads the clock, the locale or
the host's time zone: every date comes from the posts, and element and key order is fixed,
so the same feed always serialises to the same bytes. Written with lxml rather than feedgen,
which adds a generator and ``lastBuildDate = now`` and orders entries its own way.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime

from lxml import etree

ATOM_NS = "http://www.w3.org/2005/Atom"
DC_NS = "http://purl.org/dc/elements/1.1/"
CONTENT_NS = "http://purl.org/rss/1.0/modules/content/"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
XML_DECLARATION = b'<?xml version="1.0" encoding="utf-8"?>\n'
JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1"

# Characters XML 1.0 cannot carry at all; a title pasted from a terminal may hold one.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class Person:
    name: str
    url: str | None = None


@dataclass(frozen=True)
class Term:
    """A category or tag, with the archive folder that names its scheme."""

    name: str
    scheme: str


@dataclass(frozen=True)
class Item:
    id: str
    link: str
    title: str
    published: datetime
    updated: datetime
    authors: tuple[Person, ...]
    terms: tuple[Term, ...]
    content_html: str
    summary_html: str  # set in full-text mode: the excerpt, next to the full content
    summary_text: str


@dataclass(frozen=True)
class Feed:
    title: str
    description: str
    home: str  # the page this feed mirrors
    self_urls: dict[str, str]  # format -> absolute URL of that format's file
    language: str
    author: Person
    updated: datetime
    items: tuple[Item, ...]


def clean(text: str) -> str:
    return _NOT_XML.sub("", text)


def rfc3339(when: datetime) -> str:
    # Four digits for every year: strftime's %Y writes the year 999 as "999" on glibc, which
    # Atom and JSON Feed readers reject (RFC 3339 wants "0999").
    when = when.astimezone(UTC)
    return f"{when.year:04d}-{when:%m-%dT%H:%M:%S}Z"


def rfc822(when: datetime) -> str:
    # email.utils formats day and month names itself: no locale can change them.
    return format_datetime(when.astimezone(UTC), usegmt=True)


def _sub(parent, tag: str, text: str | None = None, **attrib) -> etree._Element:
    element = etree.SubElement(parent, tag, {k: clean(v) for k, v in attrib.items()})
    if text is not None:
        element.text = clean(text)
    return element


def _serialise(root) -> bytes:
    etree.indent(root, space="  ")
    return XML_DECLARATION + etree.tostring(root, encoding="utf-8") + b"\n"


def atom(feed: Feed) -> bytes:
    a = f"{{{ATOM_NS}}}"
    root = etree.Element(a + "feed", nsmap={None: ATOM_NS})
    root.set(XML_LANG, feed.language)
    _sub(root, a + "id", feed.self_urls["atom"])  # unique to each feed, stable
    _sub(root, a + "title", feed.title, type="text")
    _sub(root, a + "subtitle", feed.description, type="text")
    _sub(root, a + "updated", rfc3339(feed.updated))
    _sub(root, a + "link", rel="self", type="application/atom+xml", href=feed.self_urls["atom"])
    _sub(root, a + "link", rel="alternate", type="text/html", href=feed.home)
    _person(root, a + "author", feed.author)
    for item in feed.items:
        entry = _sub(root, a + "entry")
        _sub(entry, a + "id", item.id)
        _sub(entry, a + "title", item.title, type="text")
        _sub(entry, a + "link", rel="alternate", type="text/html", href=item.link)
        _sub(entry, a + "published", rfc3339(item.published))
        _sub(entry, a + "updated", rfc3339(item.updated))
        for person in item.authors:
            _person(entry, a + "author", person)
        for term in item.terms:
            _sub(entry, a + "category", term=term.name, scheme=term.scheme, label=term.name)
        if item.summary_html:
            _sub(entry, a + "summary", item.summary_html, type="html")
        _sub(entry, a + "content", item.content_html, type="html")
    return _serialise(root)


def _person(parent, tag: str, person: Person) -> None:
    element = _sub(parent, tag)
    _sub(element, f"{{{ATOM_NS}}}name", person.name)
    if person.url:
        _sub(element, f"{{{ATOM_NS}}}uri", person.url)


def rss(feed: Feed) -> bytes:
    nsmap = {"atom": ATOM_NS, "dc": DC_NS, "content": CONTENT_NS}
    root = etree.Element("rss", nsmap=nsmap, version="2.0")
    channel = _sub(root, "channel")
    _sub(channel, "title", feed.title)
    _sub(channel, "link", feed.home)
    _sub(channel, "description", feed.description)
    _sub(channel, "language", feed.language)
    if feed.items:
        _sub(channel, "pubDate", rfc822(max(i.published for i in feed.items)))
    _sub(channel, "lastBuildDate", rfc822(feed.updated))
    _sub(channel, "docs", "https://www.rssboard.org/rss-specification")
    _sub(
        channel,
        f"{{{ATOM_NS}}}link",
        rel="self",
        type="application/rss+xml",
        href=feed.self_urls["rss"],
    )
    for item in feed.items:
        element = _sub(channel, "item")
        _sub(element, "title", item.title)
        _sub(element, "link", item.link)
        _sub(
            element, "guid", item.id, isPermaLink="true" if item.id.startswith("http") else "false"
        )
        _sub(element, "pubDate", rfc822(item.published))
        # RSS has no "updated"; Atom's element carries it for readers that look.
        _sub(element, f"{{{ATOM_NS}}}updated", rfc3339(item.updated))
        # RSS's <author> must be an e-mail address; Dublin Core names people instead.
        for person in item.authors:
            _sub(element, f"{{{DC_NS}}}creator", person.name)
        for term in item.terms:
            _sub(element, "category", term.name, domain=term.scheme)
        if item.summary_html:
            _sub(element, "description", item.summary_html)
            _sub(element, f"{{{CONTENT_NS}}}encoded", item.content_html)
        else:
            _sub(element, "description", item.content_html)
    return _serialise(root)


def json_feed(feed: Feed) -> bytes:
    document = {
        "version": JSON_FEED_VERSION,
        "title": feed.title,
        "home_page_url": feed.home,
        "feed_url": feed.self_urls["json"],
        "description": feed.description,
        "language": feed.language,
        "authors": [_json_person(feed.author)],
        "items": [_json_item(item) for item in feed.items],
    }
    return json.dumps(document, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"


def _json_person(person: Person) -> dict:
    return {"name": person.name, **({"url": person.url} if person.url else {})}


def _json_item(item: Item) -> dict:
    data = {
        "id": item.id,
        "url": item.link,
        "title": item.title,
        "content_html": item.content_html,
        "summary": item.summary_text,
        "date_published": rfc3339(item.published),
        "date_modified": rfc3339(item.updated),
        "authors": [_json_person(p) for p in item.authors],
        # JSON Feed has tags only: categories first, then tags, each name once.
        "tags": list(dict.fromkeys(term.name for term in item.terms)),
    }
    return data


WRITERS = {"rss": rss, "atom": atom, "json": json_feed}
