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

from html import escape

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

READER_SENTENCE = (
    "A feed reader (NetNewsWire, Thunderbird, Feedly, Inoreader and many more) checks the "
    "feeds you give it and shows each new post as it appears, so you need not come back to "
    "look: copy a feed's address below into your reader."
)
FORMATS_SENTENCE = (
    "Each feed comes in {formats}, with the same posts: pick whichever your reader takes "
    "(every reader takes RSS)."
)


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


def feeds_page_html(scopes: list[Scope], formats, base: str, prefix: str) -> str:
    """The feeds page's body: what a feed reader does, then every feed and its URLs."""
    names = [VERSIONS[fmt] for fmt in formats]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    parts = [f'<p class="kb-feeds-intro">{escape(READER_SENTENCE)}</p>']
    if len(names) > 1 and "rss" in formats:
        parts.append(f"<p>{escape(FORMATS_SENTENCE.format(formats=listed))}</p>")
    for kind, (heading, line) in SECTIONS.items():
        members = [scope for scope in scopes if scope.kind == kind]
        if not members:
            continue
        section_id = f"feeds-{kind}"
        blocks = []
        for scope in members:
            urls = "".join(
                f'<li><span class="kb-feed-format">{VERSIONS[fmt]}</span> '
                f'<a href="{escape(prefix + scope.path)}/{FORMATS[fmt][0]}" '
                f'type="{FORMATS[fmt][1]}">{escape(feed_url(base, scope.path, fmt))}</a></li>'
                for fmt in formats
            )
            # The site's one feed needs no heading of its own; the others link their archive.
            title = (
                ""
                if kind == "site"
                else f'<h3><a href="{prefix}{escape(scope.home_docname)}.html">'
                f"{escape(scope.name)}</a></h3>"
            )
            blocks.append(f'<div class="kb-feed">{title}<ul class="kb-feed-urls">{urls}</ul></div>')
        parts.append(
            f'<section class="kb-feeds-section" aria-labelledby="{section_id}">'
            f'<h2 id="{section_id}">{heading}</h2><p>{escape(line)}</p>{"".join(blocks)}'
            "</section>"
        )
    return "".join(parts)
