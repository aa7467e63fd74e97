"""Where a reader finds the feeds: subscribe links and the feeds page.

* every page's sidebar: "Subscribe" with the site feed in each format and "All feeds";
* an archive page with a feed of its own (a category, a series; tags and authors when their
  feeds are on): "Subscribe to this category: RSS · Atom · JSON Feed" under its heading;
* ``feeds.html``: every feed, with its URL in each format, and what a feed reader does.

Links are root-relative, prefixed with each page's way back to the root (the 404 page makes
them absolute, see kb.meta.notfound); the page shows each feed's absolute URL, the one to
paste into a reader. The templates place the HTML (``kb/sidebar-blog.html``, the archive
templates, ``kb/feeds.html``); nothing here rewrites a page's body.
"""

from __future__ import annotations

from sphinx.application import Sphinx

from ..core.parts import render_part
from .scopes import FEEDS_DIR, FORMATS, Scope, feed_url

#: The feeds page's docname: ``feeds.html``, next to the ``feeds/`` folder of feed files.
FEEDS_PAGE = "feeds"
FEEDS_TEMPLATE = "kb/feeds.html"
FEEDS_TITLE = "Feeds"

#: How the feeds page names each format.
VERSIONS = {"rss": "RSS 2.0", "atom": "Atom 1.0", "json": "JSON Feed 1.1"}

#: The feed icon (the usual "broadcast" mark), drawn in the text's colour, hidden from
#: screen readers: the link text says what it is.
ICON = (
    '<svg class="kb-feed-icon" aria-hidden="true" viewBox="0 0 16 16" '
    'width="12" height="12"><circle cx="3" cy="13" r="2" fill="currentColor"/>'
    '<path d="M1 6.5a8.5 8.5 0 0 1 8.5 8.5h-2.5a6 6 0 0 0-6-6z" fill="currentColor"/>'
    '<path d="M1 1a14 14 0 0 1 14 14h-2.5a11.5 11.5 0 0 0-11.5-11.5z" fill="currentColor"/>'
    "</svg>"
)

#: What an archive page's line calls the archive ("Subscribe to this category").
KIND_NOUNS = {
    **{kind: kind for kind in ("category", "tag", "author", "series", "location", "language")}
}

#: The feeds page's sections, in order: heading and one line on what the feeds hold.
SECTIONS = {
    "site": ("The whole site", "Every new post, whatever its category."),
    "category": ("Categories", "Only the posts of one category."),
    "series": ("Series", "The parts of one series as they appear."),
    "tag": ("Tags", "Only the posts with one tag."),
    "author": ("Authors", "Only the posts of one author."),
    "location": ("Locations", "Only the posts from one place."),
    "language": ("Languages", "Only the posts in one language."),
}


def format_links(app: Sphinx, path: str, formats, prefix: str) -> str:
    """``RSS · Atom · JSON Feed``: one link per format of one feed (the template
    ``kb/parts/feed-links.html``)."""
    links = [(f"{prefix}{path}/{FORMATS[fmt][0]}", *FORMATS[fmt][1:]) for fmt in formats]
    return render_part(app, "feed-links", links=links)


def sidebar_subscribe_html(app: Sphinx, formats, prefix: str) -> str:
    """The sidebar's section (the template ``kb/parts/subscribe.html``): the site feed in
    each format, then the feeds page."""
    return render_part(
        app,
        "subscribe",
        icon_html=ICON,
        links_html=format_links(app, FEEDS_DIR, formats, prefix),
        feeds_href=f"{prefix}{FEEDS_PAGE}.html",
    )


def archive_subscribe_html(app: Sphinx, path: str, kind: str, formats, prefix: str) -> str:
    """An archive page's line (the template ``kb/parts/subscribe-line.html``): its own feed
    (at ``path``) in each format."""
    return render_part(
        app,
        "subscribe-line",
        icon_html=ICON,
        noun=KIND_NOUNS.get(kind, "page"),
        links_html=format_links(app, path, formats, prefix),
        feeds_href=f"{prefix}{FEEDS_PAGE}.html",
    )


def _feed(scope: Scope, formats, base: str, prefix: str) -> tuple:
    """One feed on the feeds page: its archive page, its name, its address in each format."""
    urls = [
        (
            VERSIONS[fmt],
            f"{prefix}{scope.path}/{FORMATS[fmt][0]}",
            FORMATS[fmt][1],
            feed_url(base, scope.path, fmt),
        )
        for fmt in formats
    ]
    return f"{prefix}{scope.home_docname}.html", scope.name, urls


def feeds_page_html(app: Sphinx, scopes: list[Scope], formats, base: str, prefix: str) -> str:
    """The feeds page's body (the template ``kb/parts/feeds-page.html``): what a feed reader
    does, then every feed and its URLs."""
    names = [VERSIONS[fmt] for fmt in formats]
    # "Each feed comes in RSS 2.0, Atom 1.0 and JSON Feed 1.1", when there is a choice.
    listed = (
        f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 and "rss" in formats else None
    )
    sections = []
    for kind, (heading, line) in SECTIONS.items():
        feeds = [_feed(scope, formats, base, prefix) for scope in scopes if scope.kind == kind]
        if feeds:
            sections.append((kind, heading, line, feeds))
    return render_part(
        app,
        "feeds-page",
        listed=listed,
        sections=sections,
    )
