"""From an item to a post: what is published, its file name, front matter and old address.

The rules, in the order they apply:

- Only published posts become posts. Drafts, pending, scheduled, private, trashed and
  password-protected posts, pages, attachments, menu items and other post types are
  reported as not imported (:func:`not_published`): WordPress never showed them as posts.
- The slug is WordPress's ``post_name`` (else the title's), folded to ``a-z0-9-``; the file is
  ``posts/<year of the GMT date>/<slug>.md``.
- Categories must be the site's (``kb_categories``), directly (any case, name or WordPress
  slug) or through ``--map-category OLD=NEW``; an item with any other category is an error.
  A feed does not tell categories from tags: its terms that are categories are categories,
  the others tags.
- Authors are ``blog_authors`` keys: a login that is a key, ``--map-author LOGIN=KEY``, or a
  display name that is the same as one in ``blog_authors``. Any other author is an error.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

import yaml

from .model import Item

#: What is not imported, and why: (the reason the summary counts, what the item's line says).
NOT_POSTS = {
    "page": ("page", "a page that is not published"),
    "attachment": ("attachment", "an uploaded file: copied with the posts that show it"),
    "nav_menu_item": ("menu item", "a menu item of the WordPress theme"),
}
NOT_PUBLISHED = {
    "draft": "draft",
    "auto-draft": "draft",
    "pending": "pending review",
    "future": "scheduled",
    "private": "private",
    "trash": "trashed",
}
_SAFE_SEGMENT = re.compile(r"^[\w.~+-]+$")


class ItemError(Exception):
    """Why an item cannot become a post; the message says what to do. ``kind`` groups the
    same problem of many items in the summary; ``subject`` is what it is about."""

    def __init__(self, message: str, kind: str = "", subject: str | list[str] = ""):
        super().__init__(message)
        self.kind = kind or "other"
        self.subject = [subject] if isinstance(subject, str) else subject


class ItemErrors(Exception):
    """Every problem of one item, found in one pass."""

    def __init__(self, errors: list[ItemError]):
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


@dataclass
class Names:
    """The site's categories and authors, and the user's mappings (all compared casefolded)."""

    categories: tuple[str, ...]
    authors: dict[str, str]  # blog_authors key -> display name
    category_map: dict[str, str] = field(default_factory=dict)
    author_map: dict[str, str] = field(default_factory=dict)
    author_names: dict[str, str] = field(default_factory=dict)  # WXR login -> display name
    tag_map: dict[str, str] = field(default_factory=dict)
    default_category: str = ""
    categories_as_tags: bool = False

    def category(self, *spellings: str) -> str | None:
        for spelling in spellings:
            wanted = spelling.strip().casefold()
            if wanted in self.category_map:
                return self.category_map[wanted]
            found = next((c for c in self.categories if c.casefold() == wanted), None)
            if found:
                return found
        return None

    def author(self, login: str) -> str | None:
        if not self.authors:  # the site names no authors, so any name goes
            return login
        display = self.author_names.get(login, login)
        for spelling in (login, display):
            wanted = spelling.strip().casefold()
            if wanted in self.author_map:
                return self.author_map[wanted]
            for key, name in self.authors.items():
                if wanted in (key.casefold(), name.casefold()):
                    return key
        return None


def not_published(item: Item) -> tuple[str, str]:
    """Why the item is no post of the site: (reason, explanation); ("", "") for a post."""
    if item.kind != "post":
        return NOT_POSTS.get(item.kind, (item.kind, f"a WordPress {item.kind}, not a post"))
    if item.status == "private":
        return "private", "private on WordPress: only its author and editors could read it"
    if item.status != "publish":
        status = NOT_PUBLISHED.get(item.status, item.status)
        return status, f"{status} on WordPress, never published: publish it there and export again"
    if item.password:
        return "password-protected", "password-protected on WordPress: not for every reader"
    return "", ""


def slugify(text: str, limit: int = 80) -> str:
    """``a-z0-9-`` only, at most ``limit`` characters (cut at a hyphen when there is one)."""
    folded = unicodedata.normalize("NFKD", html.unescape(text)).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    if len(slug) > limit:
        cut = slug[:limit]
        slug = cut.rsplit("-", 1)[0] if "-" in cut[limit // 2 :] else cut
    return slug.strip("-")


def categories_and_tags(item: Item, names: Names) -> tuple[list[str], list[str]]:
    tags = list(item.tags)
    if item.terms:  # a feed: each term is a category if it can be one, else a tag
        found = [(term, names.category(term)) for term in item.terms]
        categories = [c for _, c in found if c]
        tags += [term for term, c in found if not c]
        if not categories and names.default_category:
            categories = [names.default_category]
        if not categories:
            raise ItemError(
                f"none of its terms ({', '.join(item.terms) or 'none'}) is a category of the "
                f"site ({', '.join(names.categories)}): add --default-category CATEGORY or "
                "--map-category 'TERM=CATEGORY'",
                "category",
                list(item.terms) or ["(none)"],
            )
        return list(dict.fromkeys(categories)), tags
    categories = []
    unknown: list[str] = []
    for category in item.categories:
        if category.nicename.casefold() == "uncategorized" and not names.category(category.name):
            continue  # WordPress's own default: no category at all
        mapped = names.category(category.name, category.nicename)
        (categories if mapped else unknown).append(mapped or category.name)
    if names.categories_as_tags:
        tags += unknown
    if (unknown or not categories) and names.default_category:
        if not categories or not names.categories_as_tags:
            categories.append(names.default_category)
        unknown = []
    if unknown or not categories:
        missing = ", ".join(f'"{name}"' for name in unknown) or "none"
        first = unknown[0] if unknown else "OLD"
        site = names.categories[0] if names.categories else "NEW"
        raise ItemError(
            f"category {missing} is not one of the site's ({', '.join(names.categories)}): "
            f"add --default-category {site}, --map-category '{first}={site}' or a --map file, "
            "or add it to kb_categories in conf.py",
            "category",
            unknown or ["(none)"],
        )
    tags = [names.tag_map.get(tag.strip().casefold(), tag) for tag in tags]
    return list(dict.fromkeys(categories)), tags


def authors(item: Item, names: Names) -> list[str]:
    keys: list[str] = []
    unknown: list[str] = []
    for login in item.authors:
        key = names.author(login)
        (keys if key else unknown).append(key or login)
    if unknown:
        raise ItemError(
            f'author "{unknown[0]}" is not a key of blog_authors ({", ".join(names.authors)}): '
            f"add --map-author '{unknown[0]}=KEY' or a --map file, or add the author to "
            "blog_authors in conf.py",
            "author",
            unknown[0],
        )
    return list(dict.fromkeys(keys))


def plain_text(fragment: str) -> str:
    """An excerpt's HTML as one line of text."""
    from bs4 import BeautifulSoup

    text = " ".join(BeautifulSoup(fragment, "html.parser").get_text(" ").split())
    return re.sub(r"\s*\[(?:…|\.\.\.)\]$", " …", text)  # a feed's "[…]": cut here


def old_path(link: str, site_url: str) -> str:
    """The path of ``link`` below the WordPress site's own address, or "" when it has none."""
    parts, base = urlsplit(link.strip()), urlsplit(site_url.strip())
    if (
        not parts.path
        or parts.query
        or (parts.netloc and base.netloc and parts.netloc != base.netloc)
    ):
        return ""
    path, prefix = unquote(parts.path), unquote(base.path).rstrip("/")
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        path = path[len(prefix) :]
    return path if path.strip("/") else ""


def redirect_docname(path: str) -> str:
    """ablog's ``redirect`` for an old path: ``/2025/01/14/x/`` -> ``2025/01/14/x/index``."""
    segments = [s for s in path.split("/") if s]
    if not segments or any(
        s in (".", "..") or not _SAFE_SEGMENT.match(s) or len(s.encode()) > 200 for s in segments
    ):
        return ""  # not a name a file can have everywhere
    if path.endswith("/") or "." not in segments[-1]:
        segments.append("index")
    elif segments[-1].endswith((".html", ".htm", ".php")):
        segments[-1] = segments[-1].rsplit(".", 1)[0]
    else:
        return ""
    return "/".join(segments)


def scalar(text: str, flow: bool = False) -> str:
    """``text`` as YAML reads it back unchanged: plain when that is safe, quoted otherwise."""
    probe, expected = (f"[{text}]", [text]) if flow else (f"k: {text}", {"k": text})
    try:
        if text == text.strip() and yaml.safe_load(probe) == expected:
            return text
    except yaml.YAMLError:
        pass
    return json.dumps(text, ensure_ascii=False)


def clean_tag(tag: str) -> str:
    """A tag ablog keeps as written: ASCII, no commas, quotes or backslashes."""
    folded = unicodedata.normalize("NFKD", html.unescape(tag)).encode("ascii", "ignore").decode()
    folded = re.sub(r"[,\"\\]+", " ", folded)
    return " ".join(folded.split()).strip("'[]")


def title_text(title: str) -> str:
    """A title as WordPress shows it, as text: its inline HTML (``<em>``...) read as a browser
    reads it, so "Title <em>With</em> Markup" is "Title With Markup", not its tags."""
    from bs4 import BeautifulSoup

    return " ".join(BeautifulSoup(title, "html.parser").get_text().split())


def escape_title(title: str) -> str:
    """A title as Markdown text that shows exactly its text (:func:`kb.importer.escape.text`)."""
    from .escape import text

    return text(title_text(title))


def page_front_matter(source_id: str) -> list[str]:
    """A page's: not in any toctree until the author lists it (no warning meanwhile)."""
    return ["orphan: true", *([f"source_id: {scalar(source_id)}"] if source_id else [])]


def front_matter(
    day: str,
    updated: str,
    categories: list[str],
    tags: list[str],
    authors: list[str],
    description: str,
    external: str,
    redirect: str,
    source_id: str,
) -> list[str]:
    lines = ["blogpost: true", f"date: {day}"]
    lines += [f"updated: {updated}"] if updated else []
    lines.append(f"category: {scalar(', '.join(categories))}")
    if tags:
        lines.append(f"tags: [{', '.join(scalar(tag, flow=True) for tag in tags)}]")
    lines += [f"author: {scalar(', '.join(authors))}"] if authors else []
    lines += [f"description: {json.dumps(description, ensure_ascii=False)}"] if description else []
    lines += [f"external_link: {scalar(external)}"] if external else []
    lines += [f"redirect: {scalar(redirect)}"] if redirect else []
    lines += [f"source_id: {scalar(source_id)}"] if source_id else []
    return lines
