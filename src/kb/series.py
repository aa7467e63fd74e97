"""Series: posts that belong together, like the parts of a tutorial.

A post joins a series through its front matter: ``series: <name>`` and ``part: <n>`` (or
``part: supplement``, or no part when its number is not on this site). From the catalog we
build each series once per build, in reading order: numbered parts ascending, then
supplements and unnumbered posts by date. Each member's page shows a box right after its
header ("Part 2 of <series>", every part with a link, previous and next); each series has a
page (``blog/series/<slug>``) and all of them a catalog page (``blog/series``).

The box shows other posts, so Sphinx cannot know when it changes: a freshness signer makes
every member's page rewritten when a member is added, removed, retitled or renumbered.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from ablog.blog import os_path_join, slugify
from sphinx.application import Sphinx

from .catalog import Catalog, Post, _digest, get_catalog
from .entries import entry_html, format_date, post_href
from .freshness import add_signer, page_signature
from .listings import root_prefix
from .postpage import insert_after_title

SUPPLEMENT = "supplement"
TEMPLATE = "kb/series.html"


@dataclass(frozen=True)
class Series:
    """One series: its name, where its page lives and its posts in reading order."""

    name: str
    slug: str
    docname: str
    posts: tuple[Post, ...]

    def position(self, post: Post) -> int:
        return next(i for i, member in enumerate(self.posts) if member.docname == post.docname)


def part_number(post: Post) -> int | None:
    """The post's part as a number, or None for a supplement, a missing or an invalid part."""
    part = post.part.strip()
    return int(part) if part.isdigit() and int(part) > 0 else None


def part_label(post: Post) -> str:
    """How a listing names a member: "Part 2", "Supplement", or nothing for no part."""
    number = part_number(post)
    if number is not None:
        return f"Part {number}"
    return "Supplement" if post.part.strip().casefold() == SUPPLEMENT else ""


def reading_order(post: Post):
    # Numbered parts first, by number; then supplements and unnumbered posts, oldest first.
    # The docname breaks ties so the order never depends on the file system.
    number = part_number(post)
    if number is not None:
        return (0, number, post.date.timestamp(), post.docname)
    return (1, 0, post.date.timestamp(), post.docname)


def series_docname(catalog: Catalog, slug: str) -> str:
    return os_path_join(catalog.blog_path, "series", slug)


def series_catalog_docname(catalog: Catalog) -> str:
    return os_path_join(catalog.blog_path, "series")


def build_series(catalog: Catalog) -> list[Series]:
    """Every series with at least one published post, sorted by name."""
    members: dict[str, list[Post]] = {}
    for post in catalog.posts:
        if post.series:
            members.setdefault(post.series, []).append(post)
    return [
        Series(
            name,
            slugify(name),
            series_docname(catalog, slugify(name)),
            tuple(sorted(posts, key=reading_order)),
        )
        for name, posts in sorted(members.items(), key=lambda item: item[0].casefold())
    ]


def series_collections(catalog: Catalog) -> list[tuple[str, str, str, list[Post]]]:
    """``(name, slug, docname, posts in reading order)`` for each series: what feeds need."""
    return [(s.name, s.slug, s.docname, list(s.posts)) for s in build_series(catalog)]


# -- HTML ------------------------------------------------------------------------------------


def position_text(one: Series, post: Post, series_link: str) -> str:
    number = part_number(post)
    if number is not None:
        return f"Part {number} of {series_link}"
    if post.part.casefold() == SUPPLEMENT:
        return f"Supplement to {series_link}"
    return f"Part of {series_link}"


def _member_link(post: Post, prefix: str, current: bool) -> str:
    label = part_label(post)
    label_html = f'<span class="kb-series-part">{label}:</span> ' if label else ""
    if current:
        # The reader is here: a link to this page, marked, so the list reads the same.
        attrs = f'aria-current="page" href="{prefix}{post.docname}.html"'
    else:
        external = ' rel="external"' if post.external_link else ""
        attrs = f'href="{escape(post_href(post, prefix), quote=True)}"{external}'
    return f"<li>{label_html}<a {attrs}>{escape(post.title)}</a></li>"


def _nav_link(kind: str, post: Post, prefix: str, text: str) -> str:
    href = escape(post_href(post, prefix), quote=True)
    return f'<a class="kb-series-{kind}" rel="{kind}" href="{href}">{text}</a>'


def series_box_html(one: Series, post: Post, prefix: str) -> str:
    """The box on a member's page: its position, every member, previous and next."""
    index = one.position(post)
    series_link = f'<a href="{prefix}{one.docname}.html">{escape(one.name)}</a>'
    items = "".join(
        _member_link(member, prefix, member.docname == post.docname) for member in one.posts
    )
    nav = []
    if index > 0:
        previous = one.posts[index - 1]
        nav.append(_nav_link("prev", previous, prefix, f"← Previous: {escape(previous.title)}"))
    if index < len(one.posts) - 1:
        following = one.posts[index + 1]
        nav.append(_nav_link("next", following, prefix, f"Next: {escape(following.title)} →"))
    nav_html = f'<nav class="kb-series-nav" aria-label="Series">{"".join(nav)}</nav>' if nav else ""
    return (
        f'<aside class="kb-series-box" aria-label="Series: {escape(one.name, quote=True)}">'
        f'<p class="kb-series-position">{position_text(one, post, series_link)}</p>'
        f'<ul class="kb-series-parts">{items}</ul>{nav_html}</aside>'
    )


def series_page_html(one: Series, catalog: Catalog, prefix: str) -> str:
    """A series' own page: how many posts and over what time, then each member in order."""
    first, last = min(p.date for p in one.posts), max(p.date for p in one.posts)
    span = format_date(first) if first == last else f"{format_date(first)} to {format_date(last)}"
    count = f"{len(one.posts)} post{'s' if len(one.posts) != 1 else ''}"
    members = "".join(
        '<section class="kb-series-member">'
        + (f'<p class="kb-series-part">{part_label(post)}</p>' if part_label(post) else "")
        + entry_html(post, prefix)
        + "</section>"
        for post in one.posts
    )
    all_series = f"{prefix}{series_catalog_docname(catalog)}.html"
    return (
        f'<p class="kb-series-summary">{count}, {span}.</p>'
        f'<div class="kb-listing kb-series-listing">{members}</div>'
        f'<p class="kb-all-series"><a href="{all_series}">All series</a></p>'
    )


def series_catalog_html(series: list[Series], prefix: str) -> str:
    items = "".join(
        f'<li><a href="{prefix}{one.docname}.html">{escape(one.name)}</a> '
        f'<span class="kb-count">({len(one.posts)})</span></li>'
        for one in series
    )
    return f'<ul class="kb-catalog kb-catalog-series">{items}</ul>'


# -- Sphinx events ---------------------------------------------------------------------------


def _member_signature(one: Series) -> str:
    """What a member's box shows of the series: changes here rewrite every member's page."""
    return _digest(
        [
            one.name,
            *(f"{p.docname}\x1e{p.title}\x1e{p.part}\x1e{p.external_link}" for p in one.posts),
        ]
    )


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    # Bad or repeated part numbers are reported by the front-matter checks (kb.validation);
    # here a part that is not a positive number simply counts as unnumbered.
    series = build_series(catalog)
    app.env.kb_series = series
    app.env.kb_series_of = {post.docname: one for one in series for post in one.posts}
    app.env.kb_series_signatures = {
        post.docname: _member_signature(one) for one in series for post in one.posts
    }


def _series_signer(app: Sphinx, docname: str) -> str:
    return getattr(app.env, "kb_series_signatures", {}).get(docname, "")


# Before kb.postpage (500): both insert right after the <h1>, so the header inserted later
# lands between the title and this box.
HTML_PAGE_CONTEXT_PRIORITY = 450


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if doctree is None or "body" not in context:
        return
    one = getattr(app.env, "kb_series_of", {}).get(pagename)
    if one is None:
        return
    post = get_catalog(app).by_docname(pagename)
    box = series_box_html(one, post, root_prefix(app, pagename))
    context["body"] = insert_after_title(context["body"], box)


def _page(app: Sphinx, docname: str, title: str, body: str, signature: str):
    if app.kb_should_write(docname, signature):
        yield docname, {"title": title, "kb_title": title, "kb_body": body}, TEMPLATE


def _html_collect_pages(app: Sphinx):
    if app.builder.format != "html" or not hasattr(app.env, "kb_series"):
        return
    catalog = get_catalog(app)
    series = app.env.kb_series
    for one in series:
        prefix = root_prefix(app, one.docname)
        body = series_page_html(one, catalog, prefix)
        signature = page_signature(app, one.name, *(p.fingerprint() for p in one.posts))
        yield from _page(app, one.docname, one.name, body, signature)
    docname = series_catalog_docname(catalog)
    signature = page_signature(app, "series", *(f"{s.name}:{len(s.posts)}" for s in series))
    body = series_catalog_html(series, root_prefix(app, docname))
    yield from _page(app, docname, "All series", body, signature)


def setup_series(app: Sphinx) -> None:
    app.connect("kb-catalog-built", _catalog_built)
    app.connect("html-page-context", _html_page_context, priority=HTML_PAGE_CONTEXT_PRIORITY)
    app.connect("html-collect-pages", _html_collect_pages)
    add_signer(app, _series_signer)
