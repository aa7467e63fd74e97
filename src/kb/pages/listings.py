"""Archive listings: all posts, each category, tag, author and year, paginated.

Every page of every archive comes from the catalog: the newest posts at the archive's own URL
(``blog/category/article``, where ablog put it), the older ones on numbered pages counted from
the oldest, ``<archive>/page/<n>`` (:func:`paginate`), each written only when what it shows
changed. Catalog pages (all categories, all tags, …) list their collections with counts; the
archive (all years) lists every post under its year. Entries come from
:mod:`kb.pages.entries`, so every listing shows the same layout; the home page's
``{latest-posts}`` list too.
"""

from __future__ import annotations

from collections.abc import Sequence

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from ..core.catalog import get_catalog, has_catalog
from ..core.collectors import DocumentTables
from ..core.parts import marked, render_part
from ..core.posts import Catalog, Collection, Post, Series, digest
from ..core.records import ListingPage
from ..core.state import build_state, env_state
from ..core.urls import root_prefix
from ..incremental.freshness import (
    Content,
    add_signer,
    group_kept,
    page_signature,
    record_group,
    should_write,
)
from .benchmarks import archive_line
from .entries import EXTERNAL_MARK, entries_html, format_date, post_href


def paginate(base: str, title: str, posts: list[Post], size: int) -> list[ListingPage]:
    """Split a listing (``posts``, newest first) into pages numbered from the oldest.

    Numbered page 1 holds the listing's ``size`` oldest posts, page 2 the next ``size``, and
    so on; the listing's own page (``base``) holds the rest, the newest: from ``size`` to
    ``2 * size - 1`` posts, or all of them in a listing of fewer than ``2 * size``. So a new
    post changes the listing's own page only, and once in ``size`` posts adds a numbered page
    (and changes the "newer" link of the one before it): a numbered page keeps its posts and
    its address as the listing grows, and a build after a new post rewrites two or three
    pages of each listing instead of every page.
    """
    numbered = max(len(posts) // size - 1, 0)
    oldest_first = posts[::-1]
    volumes = [oldest_first[i * size : (i + 1) * size][::-1] for i in range(numbered)]
    newest = oldest_first[numbered * size :][::-1]
    pages = [ListingPage(base, base, title, 0, numbered, tuple(newest))]
    for number, volume in enumerate(volumes, start=1):
        shown = f"{title} (page {number}: {_date_span(volume)})"
        pages.append(
            ListingPage(f"{base}/page/{number}", base, shown, number, numbered, tuple(volume))
        )
    return pages


def _date_span(posts: list[Post]) -> str:
    """When a numbered page's posts were published, oldest to newest: "3 March 2025 to 9 June
    2025" (one date if they share it)."""
    oldest, newest = format_date(posts[-1].date), format_date(posts[0].date)
    return oldest if oldest == newest else f"{oldest} to {newest}"


def listing_signature(app: Sphinx, page: ListingPage, extra: str = "") -> str:
    """What a listing page shows: its title, its posts, the pages it links to (and
    ``extra``, a line under its heading). Not how many pages the listing has: a numbered page
    is the same page however many come after it."""
    return page_signature(
        app,
        extra,
        page.title,
        str(page.number),
        str(page.newer),
        str(page.older),
        *(post.fingerprint() for post in page.posts),
    )


def _listings(catalog: Catalog) -> list[tuple[str, str, list[Post]]]:
    """Every listing: the docname of its own page, its title and its posts, newest first."""
    listings = [(catalog.blog_path, "All posts", catalog.posts)]
    if catalog.drafts:  # only read in a preview with kb_drafts
        listings.append((f"{catalog.blog_path}/drafts", "Drafts", catalog.drafts))
    for collections in catalog.collections.values():
        for collection in collections:
            listings.append((collection.docname, collection.title, collection.posts))
    return listings


def all_listing_pages(catalog: Catalog, size: int) -> dict[str, ListingPage]:
    """Every page of every listing, keyed by docname."""
    pages = {}
    for base, title, posts in _listings(catalog):
        for page in paginate(base, title, posts, size):
            pages[page.docname] = page
    return pages


def _listings_signature(app: Sphinx, catalog: Catalog, size: int) -> str:
    """All that every listing page and its signatures are made of: the page size and, for
    each listing, its docname, title, line (the benchmarks category's, but for the prefix to
    the root, which follows from a page's docname) and its posts' fingerprints. A page's
    docname, number, links, title and posts follow from those (:func:`paginate`)."""
    parts = [str(size)]
    for base, title, posts in _listings(catalog):
        parts += [base, title, archive_line(app, base, ""), str(len(posts))]
        parts += [post.fingerprint() for post in posts]
    return page_signature(app, LISTINGS_GROUP, *parts)


def pagination_html(app: Sphinx, page: ListingPage, prefix: str) -> str:
    """The links from a listing page to the next newer and older ones, and to the listing's
    newest and oldest (the template ``kb/parts/pagination.html``); nothing for a listing of one
    page. No list of every page: a numbered page must not change when pages are added."""
    if page.last == 0:
        return ""

    def href(number: int | None) -> str | None:
        return None if number is None else f"{prefix}{page.page_docname(number)}.html"

    return render_part(
        app,
        "pagination",
        page=page,
        newer=href(page.newer),
        older=href(page.older),
        newest=href(0) if page.number not in (0, page.last) else None,
        oldest=href(1) if page.number not in (1, 2) and page.last > 1 else None,
    )


def catalog_list_html(
    app: Sphinx, kind: str, collections: Sequence[Collection | Series], prefix: str
) -> str:
    """A catalog page's list of ``collections`` (or series) with their counts (the template
    ``kb/parts/catalog-list.html``)."""
    items = [(f"{prefix}{c.docname}.html", c.name, len(c.posts)) for c in collections]
    return render_part(app, "catalog-list", kind=kind, items=items)


def archive_html(app: Sphinx, catalog: Catalog, prefix: str) -> str:
    """The archive: every published post under its year, newest first, with its date (the
    template ``kb/parts/archive-years.html``)."""
    years = [
        (
            year.name,
            f"{prefix}{year.docname}.html",
            [
                (
                    post_href(post, prefix),
                    post.title,
                    bool(post.external_link),
                    post.date.date().isoformat(),
                    format_date(post.date),
                )
                for post in year.posts
            ],
        )
        for year in catalog.collections["year"]
    ]
    return render_part(
        app,
        "archive-years",
        count=len(catalog.posts),
        years=years,
        external_mark=EXTERNAL_MARK,
    )


# -- Sphinx events ---------------------------------------------------------------------------

ARCHIVE_TEMPLATE = "kb/archive.html"
#: Around the body in ARCHIVE_TEMPLATE: an incremental build replaces what is between them.
LISTING_MARKERS = ("<!--kb-listing-->", "<!--/kb-listing-->")
#: The listing pages, as one group of generated pages (kb.incremental.freshness.group_kept).
LISTINGS_GROUP = "listings"
CATALOG_TEMPLATE = "kb/catalog.html"
CATALOG_TITLES = {
    "category": "All categories",
    "tag": "All tags",
    "author": "All authors",
    "location": "All locations",
    "language": "All languages",
}


def _page(title: str, body: str) -> dict:
    return {"title": title, "kb_title": title, "kb_body": body}


def _html_collect_pages(app: Sphinx):
    """Every page of every listing and the catalog pages, when they changed.

    ablog wrote page 1 of each archive and its catalog pages on every build, changed or not:
    rendering them through furo's templates was a third of a no-change rebuild at 1000 posts
    (kb.core.ablog disconnects it)."""
    if app.builder.format != "html" or not has_catalog(app):
        return
    catalog = get_catalog(app)
    signature = _listings_signature(app, catalog, build_state(app).config.page_size)
    if not group_kept(app, LISTINGS_GROUP, signature):
        yield from _listing_pages_to_write(app)
        record_group(app, LISTINGS_GROUP, signature, listing_pages(app))
    for kind, collections in catalog.collections.items():
        if not collections:
            continue
        docname = catalog.catalog_docname(kind)
        title = CATALOG_TITLES.get(kind, "All years")
        prefix = root_prefix(app, docname)
        if kind == "year":
            html = archive_html(app, catalog, prefix)
        else:
            html = catalog_list_html(app, kind, collections, prefix)
        if should_write(app, docname, page_signature(app, title, html)):
            yield docname, _page(title, html), CATALOG_TEMPLATE


def _listing_pages_to_write(app: Sphinx):
    """Each listing page whose signatures or file differ from the last build's, to write."""
    made: dict = {}  # each entry once per prefix (entries_html)
    for docname, page in sorted(listing_pages(app).items()):
        prefix = root_prefix(app, docname)
        line = archive_line(app, page.base, prefix)  # the benchmarks category's

        def body(page=page, prefix=prefix, line=line) -> str:
            entries = entries_html(app, list(page.posts), prefix, made=made)
            return line + entries + pagination_html(app, page, prefix)

        content = Content(listing_signature(app, page, line), *LISTING_MARKERS, body)
        if should_write(app, docname, page_signature(app, page.title), content=content):
            yield docname, _page(page.title, body()), ARCHIVE_TEMPLATE


def listing_pages(app: Sphinx) -> dict[str, ListingPage]:
    """Every page of every listing, keyed by docname (none before the catalog is built). Made
    from the catalog when a build first asks, which is after the pages of the documents it
    read are written unless a reference or an old address asks sooner: 0.08 s less between
    an edit and its page at 10,000 posts."""
    state = build_state(app)
    if state.listing_pages is None:
        if not has_catalog(app):
            return {}
        state.listing_pages = all_listing_pages(get_catalog(app), state.config.page_size)
    return state.listing_pages


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    build_state(app).listing_pages = None  # this catalog's, when first asked for


# -- The home page's list of latest posts ----------------------------------------------------


class latest_posts(nodes.General, nodes.Element):
    """Placeholder for the newest posts, filled from the catalog when the page is resolved."""


class LatestPostsDirective(SphinxDirective):
    """``{latest-posts}``: the newest posts with their excerpts and "Go to article…"."""

    option_spec = {"count": directives.positive_int}

    def run(self):
        node = latest_posts()
        node["count"] = self.options.get("count", 0)
        env_state(self.env).latest_docs.setdefault(self.env.docname, []).append(node["count"])
        return [node]


def latest_posts_html(app: Sphinx, catalog: Catalog, count: int, prefix: str) -> str:
    return entries_html(app, catalog.posts[:count], prefix, heading=3) + render_part(
        app, "all-posts", href=f"{prefix}{catalog.blog_path}.html"
    )


def _fill_latest_posts(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if not has_catalog(app):
        return
    for node in doctree.findall(latest_posts):
        count = _shown_count(app, node["count"])
        node["html"] = latest_posts_html(app, get_catalog(app), count, root_prefix(app, docname))


def _shown_count(app: Sphinx, count: int) -> int:
    """How many posts a ``latest-posts`` list shows: its ``:count:``, or the site's
    ``kb_home_posts`` (0: none written)."""
    return count or build_state(app).config.home_posts


def visit_latest_posts(translator, node: latest_posts) -> None:
    # Between kb's markers: the search record leaves the list out (kb.search.records).
    translator.body.append(marked("latest-posts", node.get("html", "")))
    raise nodes.SkipNode


def _latest_posts_signer(app: Sphinx, docname: str) -> str:
    """A page with ``latest-posts`` lists shows the entries of the newest posts, as many as
    its longest list: those, not every post's (10,000 fingerprints at 10,000 posts)."""
    counts = env_state(app.env).latest_docs.get(docname)
    if not counts:
        return ""
    shown = max(_shown_count(app, count) for count in counts)
    return digest([str(shown), *(p.fingerprint() for p in get_catalog(app).posts[:shown])])


class LatestPostsCollector(DocumentTables):
    """The documents with a ``latest-posts`` list (noted by the directive)."""

    purged = ("latest_docs",)


def setup_listings(app: Sphinx) -> None:
    add_signer(app, _latest_posts_signer)
    app.add_env_collector(LatestPostsCollector)
    app.add_node(latest_posts, html=(visit_latest_posts, None))
    app.add_directive("latest-posts", LatestPostsDirective)
    app.connect("doctree-resolved", _fill_latest_posts)
    app.connect("kb-catalog-built", _catalog_built)
    app.connect("html-collect-pages", _html_collect_pages)
