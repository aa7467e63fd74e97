"""Where things live: the site's absolute URL, a page's file, and links between pages.

Every output names other pages; these few functions are the one place that knows how a
docname becomes a file and a link, so that listings, feeds, search and previews agree.
Root-relative links (``blog/tag/gemm.html``) are the common currency: fragments shared by
many pages (excerpts, the sidebar) are rendered once with them, and each page prefixes them
with its own way back to the root.
"""

from __future__ import annotations

import os
import re
from html import escape, unescape
from pathlib import Path
from urllib.parse import quote, urljoin

#: Builders whose output is a browsable site with one HTML file per page.
SITE_BUILDERS = ("html", "dirhtml")


def site_url(app) -> str:
    """The site's absolute URL with a trailing slash (``html_baseurl``, else ablog's
    ``blog_baseurl``), or "" when none is configured."""
    url = (app.config.html_baseurl or getattr(app.config, "blog_baseurl", "") or "").strip()
    return url if not url or url.endswith("/") else url + "/"


def as_uri(url: str) -> str:
    """Percent-encode what a URL may not hold (a Hebrew tag's slug, a space); keep the rest."""
    return quote(url, safe="/:?#[]@!$&'()*+,;=%~")


def is_notfound_page(config, pagename: str) -> bool:
    """Whether ``pagename`` is sphinx-notfound-page's 404 page: a server shows it at whatever
    address was missed, so its links are absolute, never shared with another page's."""
    return pagename == getattr(config, "notfound_pagename", None)


def root_prefix(app_or_builder, pagename: str) -> str:
    """The relative path from a page back to the site root (``../`` per level); for the 404
    page, which a server shows at whatever address was missed, the site's absolute root
    (sphinx-notfound-page's ``notfound_urls_prefix``), so that every part of it links right."""
    builder = getattr(app_or_builder, "builder", app_or_builder)
    config = builder.config
    if is_notfound_page(config, pagename):
        return getattr(config, "notfound_urls_prefix", None) or "/"
    return "../" * builder.get_target_uri(pagename).count("/")


def link_folder(app, pagename: str) -> str:
    """The folder a page's relative links start from: that of its address (``posts`` for
    ``posts/x.html``; ``posts/x`` for dirhtml's ``posts/x/``). Pages of one folder link every
    other page and file with the same relative address, so what is made of links can be made
    once per folder (the navigation tree, the stylesheet tags)."""
    return app.builder.get_target_uri(pagename).rpartition("/")[0]


def site_path(app, docname: str) -> str:
    """The file a page is written to, relative to the output folder (``x.html``, or
    ``x/index.html`` for dirhtml)."""
    uri = app.builder.get_target_uri(docname)
    return uri + "index.html" if uri.endswith("/") or not uri else uri


def output_path(app, docname: str) -> Path:
    """The file a page is written to."""
    return Path(output_file(app, docname))


def output_file(app, docname: str) -> str:
    """:func:`output_path` as a string, for what asks it of every page on every build: making
    a Path of each cost about a second at 10,000 posts (cProfile)."""
    return os.path.join(app.outdir, site_path(app, docname))


# -- Rebasing links ------------------------------------------------------------------------------

_SCHEME = r"[a-zA-Z][a-zA-Z0-9+.-]*:"
_RELATIVE_LINK = re.compile(rf'(\s(?:href|src)=")(?!{_SCHEME}|/|#)')
_PAGE_LINK = re.compile(rf'(\s(?:href|src)=")((?!{_SCHEME}|/)[^"]*)"')
_ANY_LINK = re.compile(r'(\s(?:href|src)=")([^"]*)(")')
_ROOT = "https://root.invalid/"


def rebase_links(html: str, page: str) -> str:
    """Make links relative to ``page`` (a target URI) relative to the site root."""

    def rebase(match: re.Match) -> str:
        url = urljoin(_ROOT + page, unescape(match.group(2)))
        url = url[len(_ROOT) :] if url.startswith(_ROOT) else url
        return f'{match.group(1)}{escape(url, quote=True)}"'

    return _PAGE_LINK.sub(rebase, html)


def relocate_links(html: str, prefix: str) -> str:
    """Prefix root-relative ``href``/``src`` values: ``../`` per level, or the site URL."""
    if not prefix:
        return html
    return _RELATIVE_LINK.sub(lambda m: m.group(1) + prefix, html)


def absolute_links(html: str, base: str) -> str:
    """Resolve every ``href``/``src`` against ``base`` (the page the HTML was written for)."""

    def resolve(match: re.Match) -> str:
        url = as_uri(urljoin(base, unescape(match.group(2))))
        return match.group(1) + escape(url, quote=True) + match.group(3)

    return _ANY_LINK.sub(resolve, html)
