"""What the readers of :mod:`~kb.importer.wxr` and :mod:`~kb.importer.feeds` hand on: items.

A WordPress export and a feed say the same things in different words; each reader turns its
entries into :class:`Item` records, so the rest of the importer never looks at XML again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


class ImportFileError(Exception):
    """The file cannot be imported at all (unreadable, malformed, an unknown format)."""


@dataclass
class Category:
    name: str
    nicename: str = ""  # WordPress's slug of the category, when the export gives it

    def matches(self, text: str) -> bool:
        wanted = text.strip().casefold()
        return wanted in (self.name.strip().casefold(), self.nicename.strip().casefold())


@dataclass
class Item:
    """One entry of the file: a post, a page, an attachment, a menu item, a feed item."""

    line: int  # where it starts in the file, for messages (file:line)
    kind: str = "post"  # WordPress's post_type: post, page, attachment, nav_menu_item, ...
    status: str = "publish"  # publish, draft, pending, private, future, trash, inherit
    title: str = ""
    slug: str = ""  # WordPress's post_name, when the export gives one
    link: str = ""  # the address it had on the old site
    date: datetime | None = None  # published, in UTC
    modified: datetime | None = None  # last changed, in UTC
    authors: list[str] = field(default_factory=list)  # logins (WXR) or names (feeds)
    categories: list[Category] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    tag_slugs: dict[str, str] = field(default_factory=dict)  # name -> WordPress's slug
    # Feeds do not tell categories from tags: their terms land here and are sorted by name.
    terms: list[str] = field(default_factory=list)
    content: str = ""  # the body's HTML; empty for a feed item with only a summary
    excerpt: str = ""  # the hand-written excerpt (WXR) or the feed's summary, HTML
    source_id: str = ""  # the guid (WXR, RSS) or id (Atom): the same post in every export
    post_id: str = ""  # WordPress's numeric id, for ?p=123 links
    password: bool = False  # password-protected on WordPress
    parent: str = ""  # WordPress's post_parent (an attachment's post, a page's parent page)
    attachment_url: str = ""  # an attachment's file
    raw: bool = True  # content as stored (shortcodes, no <p>) rather than as a feed renders it

    @property
    def label(self) -> str:
        return f'"{" ".join(self.title.split())}"' if self.title.strip() else "(no title)"


@dataclass
class Source:
    """The file as a whole: its format, its site's address, its items and authors."""

    format: str  # "wxr", "rss" or "atom"
    site_url: str = ""  # the WordPress site's own address: links below it are site-relative
    items: list[Item] = field(default_factory=list)
    author_names: dict[str, str] = field(default_factory=dict)  # WXR login -> display name
    # WXR attachments by post id: url, parent (post id), title, caption, alt, image (bool)
    attachments: dict[str, dict] = field(default_factory=dict)


#: XML namespaces of the formats kb import reads.
ATOM = "http://www.w3.org/2005/Atom"
CONTENT = "http://purl.org/rss/1.0/modules/content/"
DC = "http://purl.org/dc/elements/1.1/"
