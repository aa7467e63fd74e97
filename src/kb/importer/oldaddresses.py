"""Old addresses of the WordPress site: which become redirect pages, which the host must serve.

A post's old address becomes its ``redirect:`` (a page ablog writes at that path), unless the
path lies under a folder the build writes itself (``blog/``, ``feeds/``, ``search/``, ...):
such a page would collide with the site's own, so that address goes to the host's redirects
instead, never to a front matter that ``kb check`` refuses. Host redirects are also what a
static site cannot serve at all: the feed (``/feed/``), category, tag and author archives
(``/category/x/``), and ``?p=ID`` links -- the archives, though, ``kb import`` writes into
the site's old addresses (``redirects.toml``, :func:`old_addresses_toml`), of which the build
makes redirect pages (kb/pages/redirects.py); only when the site reads no such file
(``kb_old_addresses = ""``) do they go to the host. They are printed in Read the Docs' page-redirect
form, one ``FROM TO`` pair a line (Admin > Redirects > Page redirect); ``?p=ID`` needs a host
that matches query strings (Read the Docs does not), and is printed as a comment for one.
"""

from __future__ import annotations

import json

from ..checks.oldaddresses import read_old_addresses
from ..checks.sitechecks import GENERATED
from ..checks.slugs import slugify
from ..config import KbConfig

#: Where ``kb_old_addresses`` points unless a site says otherwise.
OLD_ADDRESSES_FILE = KbConfig.old_addresses


def page_worthy(pairs: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The pairs the build will write a page for (as :mod:`kb.checks.oldaddresses` judges
    them); any other goes to the host."""
    written, _ = read_old_addresses(old_addresses_toml(pairs))
    kept = {(address.old, address.new) for address in written}
    return [pair for pair in pairs if pair[:2] in kept]


def blocked(docname: str, site) -> str:
    """The folder of the build's own pages that ``docname`` falls under, or ""."""
    blog = str(site.conf.get("blog_path") or "blog").strip("/")
    notfound = str(site.conf.get("notfound_pagename") or "404")
    lowered = docname.casefold()
    for folder in (blog, notfound, *GENERATED):
        folder = folder.casefold()
        if lowered == folder or lowered.startswith(folder + "/"):
            return folder
    return ""


def html_path(relpath: str) -> str:
    return "/" + relpath.removesuffix(".md").removesuffix("/index") + ".html"


def archive_redirects(
    names, items, blog: str, authors: dict | None = None, written_tag=lambda tag: tag
) -> list[tuple[str, str, str]]:
    """The WordPress archives the posts of ``items`` were listed in, to the site's listings:
    (old path, new path, what). The old path has WordPress's slug where the export gives it;
    the new one the slug the build gives the archive (kb.core.catalog's, of the name; an
    author's archive is named after the full name ``blog_authors`` gives the key, a tag's after
    the spelling ``written_tag`` says the post's front matter has)."""
    authors = authors or {}
    found: dict[str, tuple[str, str, str]] = {}
    blog = "/" + blog.strip("/")
    for item in items:
        for category in item.categories:
            new = names.category(category.name, category.nicename) or names.default_category
            slug = category.nicename or slugify(category.name)
            if new and slug:
                old = f"/category/{slug}/"
                found.setdefault(old, (old, f"{blog}/category/{slugify(new)}.html", "category"))
        for tag in item.tags:
            slug, new = item.tag_slugs.get(tag) or slugify(tag), slugify(written_tag(tag))
            if slug and new:
                old = f"/tag/{slug}/"
                found.setdefault(old, (old, f"{blog}/tag/{new}.html", "tag"))
        for login in item.authors:
            key = names.author(login) if names.authors else login
            if key:
                old = f"/author/{login}/"
                full = _full_name(authors, key)
                found.setdefault(old, (old, f"{blog}/author/{slugify(full)}.html", "author"))
    return sorted(found.values())


def old_addresses_toml(pairs: list[tuple[str, str, str]], header: bool = True) -> str:
    """The ``[redirects]`` table of ``pairs`` (old path, new path, what), one line each
    (``header=False``: the lines alone, to add to a table that is there)."""
    lines = (
        [
            "# The old blog's addresses, written by kb import: the build writes a page at each old",
            "# address that sends the reader to the new one (kb_old_addresses in the guides).",
            "[redirects]",
        ]
        if header
        else []
    )
    for old, new, what in pairs:
        lines.append(f"{_string(old)} = {_string(new)}  # {what}")
    return "\n".join(lines) + "\n"


def _full_name(authors: dict, key: str) -> str:
    value = authors.get(key)
    if isinstance(value, (tuple, list)) and value and isinstance(value[0], str):
        return value[0]
    return key


def _string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's), its letters as they are."""
    return json.dumps(value, ensure_ascii=False)


def feed_redirects() -> list[tuple[str, str, str]]:
    return [
        ("/feed/", "/feeds/rss.xml", "feed"),
        ("/feed/atom/", "/feeds/atom.xml", "feed"),
        ("/rss/", "/feeds/rss.xml", "feed"),
    ]


def print_redirects(pairs, stream) -> None:
    """Read the Docs page redirects, ``FROM TO``; query-string ones as a comment."""
    query = [pair for pair in pairs if "?" in pair[0]]
    for old, new, _ in pairs:
        if "?" not in old:
            print(f"{old} {new}", file=stream)
    if query:
        print(
            "# Read the Docs cannot match query strings; a host that can (Netlify: "
            '"/ p=ID /new 301", nginx: a map on $arg_p) should send these:',
            file=stream,
        )
        for old, new, _ in query:
            print(f"# {old} {new}", file=stream)
