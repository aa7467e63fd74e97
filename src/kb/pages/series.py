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

from collections.abc import Callable
from functools import partial
from html import escape

from sphinx.application import Sphinx

from ..core.catalog import get_catalog, has_catalog
from ..core.parts import render_part
from ..core.posts import Catalog, Post, Series
from ..core.urls import root_prefix
from ..incremental.freshness import add_signer, page_signature, should_write
from .entries import entry_html, format_date, post_href
from .listings import catalog_list_html
from .postpage import add_post_part

TEMPLATE = "kb/series.html"


def part_label(post: Post) -> str:
    """How a listing names a member: "Part 2", "Supplement", or nothing for no part."""
    if post.part_number is not None:
        return f"Part {post.part_number}"
    return "Supplement" if post.is_supplement else ""


# -- HTML ------------------------------------------------------------------------------------


def position_text(one: Series, post: Post, series_link: str) -> str:
    if post.part_number is not None:
        return f"Part {post.part_number} of {series_link}"
    if post.is_supplement:
        return f"Supplement to {series_link}"
    return f"Part of {series_link}"


def _member(post: Post, prefix: str, current: bool) -> tuple[str, str, str, bool, bool]:
    # The reader's own page is a link too, marked current, so the list reads the same.
    href = f"{prefix}{post.docname}.html" if current else post_href(post, prefix)
    return part_label(post), href, post.title, current, bool(post.external_link)


def _neighbours(one: Series, post: Post) -> tuple[Post | None, Post | None]:
    """The members before and after ``post`` in reading order (None at either end)."""
    index = one.position(post)
    previous = one.posts[index - 1] if index > 0 else None
    return previous, one.posts[index + 1] if index < len(one.posts) - 1 else None


def series_box_html(app: Sphinx, one: Series, post: Post, prefix: str) -> str:
    """The box on a member's page: its position, every member, previous and next
    (the template ``kb/parts/series-box.html``)."""
    series_link = f'<a href="{prefix}{one.docname}.html">{escape(one.name)}</a>'
    previous, following = _neighbours(one, post)
    return render_part(
        app,
        "series-box",
        series=one,
        post=post,
        position_html=position_text(one, post, series_link),
        members=[_member(m, prefix, m.docname == post.docname) for m in one.posts],
        previous=(post_href(previous, prefix), previous.title) if previous else None,
        following=(post_href(following, prefix), following.title) if following else None,
    )


def series_end_html(app: Sphinx, one: Series, post: Post, prefix: str) -> str:
    """The line at the end of a member's page, where the reader finishes it: "Next in
    <series>: Part 2: <title> →", or that this was the last part, and the part before
    (the template ``kb/parts/series-end.html``)."""
    previous, following = _neighbours(one, post)
    return render_part(
        app,
        "series-end",
        series=one,
        series_href=f"{prefix}{one.docname}.html",
        count=len(one.posts),
        following=(
            (post_href(following, prefix), part_label(following), following.title)
            if following
            else None
        ),
        previous=(post_href(previous, prefix), previous.title) if previous else None,
    )


def series_page_html(app: Sphinx, one: Series, catalog: Catalog, prefix: str) -> str:
    """A series' own page: how many posts and over what time, then each member in order
    (the template ``kb/parts/series-page.html``)."""
    first, last = min(p.date for p in one.posts), max(p.date for p in one.posts)
    return render_part(
        app,
        "series-page",
        series=one,
        count=len(one.posts),
        first=format_date(first),
        last=None if first == last else format_date(last),
        members=[(part_label(post), entry_html(app, post, prefix)) for post in one.posts],
        all_series_href=f"{prefix}{catalog.series_catalog_docname}.html",
    )


# -- Sphinx events ---------------------------------------------------------------------------


def _series_signer(app: Sphinx, docname: str) -> str:
    one = get_catalog(app).series_of(docname)
    return one.signature() if one is not None else ""


def _series_box(app: Sphinx, post: Post, prefix: str) -> str:
    one = get_catalog(app).series_of(post.docname)
    return series_box_html(app, one, post, prefix) if one is not None else ""


def _series_end(app: Sphinx, post: Post, prefix: str) -> str:
    one = get_catalog(app).series_of(post.docname)
    return series_end_html(app, one, post, prefix) if one is not None and len(one.posts) > 1 else ""


def _page(app: Sphinx, docname: str, title: str, body: Callable[[], str], signature: str):
    """The page, its body rendered only when it is to be written: the signature says all it
    shows (a build after a one-post edit rendered every series page, 40 at 1000 posts)."""
    if should_write(app, docname, signature):
        yield docname, {"title": title, "kb_title": title, "kb_body": body()}, TEMPLATE


def _html_collect_pages(app: Sphinx):
    if app.builder.format != "html" or not has_catalog(app):
        return
    catalog = get_catalog(app)
    series = catalog.series
    for one in series:
        prefix = root_prefix(app, one.docname)
        body = partial(series_page_html, app, one, catalog, prefix)
        signature = page_signature(app, one.name, *(p.fingerprint() for p in one.posts))
        yield from _page(app, one.docname, one.name, body, signature)
    docname = catalog.series_catalog_docname
    signature = page_signature(app, "series", *(f"{s.name}:{len(s.posts)}" for s in series))
    body = partial(catalog_list_html, app, "series", series, root_prefix(app, docname))
    yield from _page(app, docname, "All series", body, signature)


def setup_series(app: Sphinx) -> None:
    add_post_part(app, "under-title", 20, _series_box)  # under the post's header
    add_post_part(app, "end", 1, _series_end)  # where the reader finishes, before related (5)
    app.connect("html-collect-pages", _html_collect_pages)
    add_signer(app, _series_signer)
