"""Bounded sidebars: recent posts, categories, series, top tags, years, and the benchmarks page
when the site has benchmark data.

Rendered once per build (the template ``kb/parts/sidebar.html``) with root-relative links;
each page only prefixes the links with its depth. Every list has a fixed bound, so a post
page does not grow with the site.
"""

from __future__ import annotations

from sphinx.application import Sphinx

from ..config import KbConfig
from ..core.parts import markers, render_part
from ..core.posts import Catalog, digest
from ..core.state import build_state
from ..core.urls import relocate_links, root_prefix
from ..incremental.freshness import Region, set_region
from .benchmarks import sidebar_link


def sidebar_html(
    app: Sphinx, catalog: Catalog, config: KbConfig, data: tuple[str, int] | None = None
) -> str:
    """The blog sidebar (the template ``kb/parts/sidebar.html``); ``data``: the benchmarks
    page and its number of datasets."""
    newest = catalog.posts[: config.sidebar_recent]
    recent = [(f"{p.docname}.html{p.anchor}", p.title, None) for p in newest]
    categories = [
        (f"{c.docname}.html", c.name, len(c.posts)) for c in catalog.collections["category"]
    ]
    by_size = sorted(catalog.collections["tag"], key=lambda c: (-len(c.posts), c.name.casefold()))
    tags = sorted(by_size[: config.sidebar_tags], key=lambda c: c.name.casefold())
    tag_items = [(f"{c.docname}.html", c.name, len(c.posts)) for c in tags]
    years = [(f"{c.docname}.html", c.name, len(c.posts)) for c in catalog.collections["year"]]
    series = [(f"{s.docname}.html", s.name, len(s.posts)) for s in catalog.series]
    sections = [
        ("Recent posts", recent, f"{catalog.blog_path}.html", "All posts"),
        ("Categories", categories, f"{catalog.catalog_docname('category')}.html", "All categories"),
        (
            "Series",
            series[: config.sidebar_series],
            f"{catalog.series_catalog_docname}.html",
            "All series",
        ),
        ("Tags", tag_items, f"{catalog.catalog_docname('tag')}.html", "All tags"),
        ("Years", years, f"{catalog.catalog_docname('year')}.html", "All years"),
    ]
    if data is not None:
        # Under the recent posts, where a reader sees it, not last below tags and years.
        href, count = data
        sections.insert(1, ("Benchmark data", [(href, "Every dataset", count)], "", ""))
    shown = [section for section in sections if section[1]]
    return render_part(app, "sidebar", sections=shown) if shown else ""


def _sidebar_on_page(app: Sphinx, pagename: str) -> str:
    # The same for every page at one depth: made once per depth (an added post puts a new
    # sidebar into every page of the site).
    prefix = root_prefix(app, pagename)
    state = build_state(app)
    by_prefix = state.sidebar_by_prefix
    if prefix not in by_prefix:
        by_prefix[prefix] = relocate_links(state.sidebar_html or "", prefix)
    return by_prefix[prefix]


#: The blog sidebar is a region of every page (see kb.incremental.freshness): when only it changed
#: (a post added or retitled), pages that are otherwise current get it replaced in place,
#: found by kb's markers around it, whatever its template writes.
SIDEBAR_START, SIDEBAR_END = markers("sidebar")


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    state = build_state(app)
    html = sidebar_html(app, catalog, state.config, sidebar_link(app))
    state.sidebar_html = html = SIDEBAR_START + html + SIDEBAR_END if html else ""
    state.sidebar_by_prefix = {}
    if html:
        set_region(
            app, Region("sidebar", SIDEBAR_START, SIDEBAR_END, digest([html]), _sidebar_on_page)
        )


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if app.builder.format != "html" or build_state(app).sidebar_html is None:
        return
    context["kb_sidebar_html"] = _sidebar_on_page(app, pagename)


def setup_sidebars(app: Sphinx) -> None:
    app.connect("kb-catalog-built", _catalog_built)
    app.connect("html-page-context", _html_page_context)
