"""WordPress eXtended RSS (WXR 1.0-1.2, from Tools > Export) into :class:`~.model.Item` records.

An export holds every post type of the site: posts, pages, attachments, menu items, reusable
blocks and more, each with its status (``publish``, ``draft``, ``pending``, ``private``, ...).
This module reads them all; :mod:`~kb.importer.command` decides what becomes a post. The
content is as WordPress stores it: shortcodes unexpanded and, from the classic editor, no
``<p>`` (WordPress adds those when it shows a page, and so do we, in :mod:`.shortcodes`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import unquote

from lxml import etree

from .model import CONTENT, DC, Category, Item, Source

EXCERPT_SUFFIX = "excerpt/"
IMAGE = re.compile(r"\.(png|jpe?g|gif|webp|svg|avif|bmp)$", re.I)


def read(root: etree._Element, wp: str) -> Source:
    channel = root.find("channel")
    ns = {"wp": wp, "content": CONTENT, "excerpt": wp + EXCERPT_SUFFIX, "dc": DC}

    def text(element, path: str) -> str:
        found = element.find(path, ns)
        return "".join(found.itertext()).strip() if found is not None else ""

    site_url = text(channel, "wp:base_blog_url") or text(channel, "link")
    source = Source("wxr", site_url=site_url)
    for author in channel.iterfind("wp:author", ns):
        login = text(author, "wp:author_login")
        if login:
            source.author_names[login] = text(author, "wp:author_display_name") or login
    for element in channel.iterfind("item"):
        item = _item(element, text, ns)
        source.items.append(item)
        if item.kind == "attachment" and item.post_id and item.attachment_url:
            alt = next(
                (
                    text(meta, "wp:meta_value")
                    for meta in element.iterfind("wp:postmeta", ns)
                    if text(meta, "wp:meta_key") == "_wp_attachment_image_alt"
                ),
                "",
            )
            source.attachments[item.post_id] = {
                "url": item.attachment_url,
                "parent": item.parent,
                "title": item.title,
                "caption": item.excerpt.strip(),
                "alt": alt,
                "image": bool(IMAGE.search(item.attachment_url)),
            }
    return source


def _item(element, text, ns) -> Item:
    kind = text(element, "wp:post_type") or "post"
    item = Item(
        line=element.sourceline or 1,
        kind=kind,
        status=text(element, "wp:status") or "publish",
        title=text(element, "title"),
        slug=unquote(text(element, "wp:post_name")),
        link=text(element, "link"),
        date=_gmt(text(element, "wp:post_date_gmt")) or _gmt(text(element, "wp:post_date")),
        modified=_gmt(text(element, "wp:post_modified_gmt")),
        authors=[text(element, "dc:creator")] if text(element, "dc:creator") else [],
        content=_raw(element.find("content:encoded", ns)),
        excerpt=_raw(element.find("excerpt:encoded", ns)),
        source_id=text(element, "guid") or text(element, "link"),
        post_id=text(element, "wp:post_id"),
        password=bool(text(element, "wp:post_password")),
        parent=text(element, "wp:post_parent"),
        attachment_url=text(element, "wp:attachment_url"),
    )
    for term in element.iterfind("category"):
        name = "".join(term.itertext()).strip()
        if not name:
            continue
        if term.get("domain") == "post_tag":
            item.tags.append(name)
            item.tag_slugs[name] = unquote(term.get("nicename") or "")
        elif term.get("domain") in ("category", None):
            item.categories.append(Category(name, unquote(term.get("nicename") or "")))
    return item


def _raw(element) -> str:
    return "".join(element.itertext()) if element is not None else ""


def _gmt(value: str) -> datetime | None:
    """``2025-01-14 09:30:00`` (WordPress's GMT columns) as UTC; drafts have ``0000-00-00``."""
    try:
        moment = datetime.strptime(value.strip()[:19], "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC)
