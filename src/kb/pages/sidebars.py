"""Bounded sidebars: recent posts, categories, series, top tags, years, and the benchmarks page
when the site has benchmark data.

The lists are rendered once per build (the template ``kb/parts/sidebar.html``) with links from
the site's root, into one file every page shares, ``_kb/sidebar.json``; each page holds only
the sidebar's outline, the same template with its headings and "All …" links and no lists,
and ``kb-sidebar.js`` puts the lists in place (with each link made relative to the page).

Why a shared file: the lists change with every new post (the recent posts, the counts), and
the outline does not. With the lists in every page, a new post, or a new title for the newest
one, changed every page of the site: 1855 pages replaced in place at 1000 posts, the largest
part of such a build. Now it changes one file, and a page only when a section comes or goes.
Without scripts (or opened from files) a reader keeps the outline: every list is one click
away. Every list has a fixed bound, so the file does not grow with the site either.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from sphinx.application import Sphinx

from ..config import KbConfig
from ..core.fileio import write_if_changed
from ..core.parts import markers, render_part
from ..core.posts import Catalog, digest
from ..core.state import build_state
from ..core.urls import relocate_links, root_prefix
from ..incremental.freshness import Region, is_current, set_region
from .benchmarks import sidebar_link

#: The sidebar's lists, in the output folder: ``{"html": "<nav …>"}``, links from the root.
SIDEBAR_FILE = "_kb/sidebar.json"
SCRIPT = "kb-sidebar.js"

#: A section of the sidebar: (title, items, more_href, more_text); an item is
#: (href, text, count or None).
Item = tuple[str, str, int | None]
Section = tuple[str, list[Item], str, str]


def sidebar_sections(
    catalog: Catalog, config: KbConfig, data: tuple[str, int] | None = None
) -> list[Section]:
    """The sidebar's sections that have items; ``data``: the benchmarks page and its number of
    datasets."""
    newest = catalog.posts[: config.sidebar_recent]
    recent: list[Item] = [(f"{p.docname}.html{p.anchor}", p.title, None) for p in newest]
    categories: list[Item] = [
        (f"{c.docname}.html", c.name, len(c.posts)) for c in catalog.collections["category"]
    ]
    by_size = sorted(catalog.collections["tag"], key=lambda c: (-len(c.posts), c.name.casefold()))
    tags = sorted(by_size[: config.sidebar_tags], key=lambda c: c.name.casefold())
    tag_items: list[Item] = [(f"{c.docname}.html", c.name, len(c.posts)) for c in tags]
    years: list[Item] = [
        (f"{c.docname}.html", c.name, len(c.posts)) for c in catalog.collections["year"]
    ]
    series: list[Item] = [(f"{s.docname}.html", s.name, len(s.posts)) for s in catalog.series]
    sections: list[Section] = [
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
    return [section for section in sections if section[1]]


def outline_html(app: Sphinx, sections: list[Section]) -> str:
    """What every page holds: the same template, each section with its heading and its
    "All …" link but no items, so it changes only when a section comes or goes."""
    outline: list[Section] = [(title, [], more, text) for title, _, more, text in sections if more]
    return render_part(app, "sidebar", sections=outline) if outline else ""


#: The outline is a region of every page (see kb.incremental.freshness): when a section comes
#: or goes, pages that are otherwise current get it replaced in place, found by kb's markers.
SIDEBAR_START, SIDEBAR_END = markers("sidebar")


def _sidebar_on_page(app: Sphinx, pagename: str) -> str:
    """The outline on a page, in the element the script fills: ``data-kb-sidebar`` names the
    shared file, ``data-kb-root`` the way from the page back to the site's root. The same for
    every page at one depth: made once per depth."""
    prefix = root_prefix(app, pagename)
    state = build_state(app)
    by_prefix = state.sidebar_by_prefix
    if prefix not in by_prefix:
        holder = (
            f'<div class="kb-sidebar-holder" data-kb-sidebar="{escape(prefix + SIDEBAR_FILE)}" '
            f'data-kb-root="{escape(prefix)}">'
        )
        outline = relocate_links(state.sidebar_outline, prefix)
        by_prefix[prefix] = SIDEBAR_START + holder + outline + "</div>" + SIDEBAR_END
    return by_prefix[prefix]


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    state = build_state(app)
    sections = sidebar_sections(catalog, state.config, sidebar_link(app))
    # With its lists, for the shared file; "" for a site with nothing to list.
    state.sidebar_html = render_part(app, "sidebar", sections=sections) if sections else ""
    state.sidebar_outline = outline_html(app, sections)
    state.sidebar_by_prefix = {}
    if state.sidebar_outline:
        signature = digest([state.sidebar_outline])
        set_region(app, Region("sidebar", SIDEBAR_START, SIDEBAR_END, signature, _sidebar_on_page))


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    state = build_state(app)
    if app.builder.format != "html" or state.sidebar_html is None:
        return
    if state.sidebar_outline:
        context["kb_sidebar_html"] = _sidebar_on_page(app, pagename)
        context["kb_sidebar_script"] = SCRIPT


def _html_collect_pages(app: Sphinx):
    """Write the shared file (only when its lists changed); remove it from a site with none,
    as a clean build would not write it."""
    state = build_state(app)
    if app.builder.format != "html" or state.sidebar_html is None:
        return []
    path = Path(app.outdir, SIDEBAR_FILE)
    if not state.sidebar_html:
        path.unlink(missing_ok=True)
        return []
    data = json.dumps({"html": state.sidebar_html}, ensure_ascii=False, sort_keys=True)
    if not is_current(app, SIDEBAR_FILE, digest([data]), [path]):
        write_if_changed(path, data + "\n")
    return []


def setup_sidebars(app: Sphinx) -> None:
    app.connect("kb-catalog-built", _catalog_built)
    app.connect("html-page-context", _html_page_context)
    app.connect("html-collect-pages", _html_collect_pages)
