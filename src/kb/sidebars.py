"""Bounded sidebars: recent posts, categories, series, top tags, years.

Rendered once per build with root-relative links; each page only prefixes the links with
its depth. Every list has a fixed bound, so a post page does not grow with the site.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from sphinx.application import Sphinx

from .catalog import Catalog, get_catalog, relocate_links
from .config import KbConfig
from .listings import root_prefix
from .series import build_series, series_catalog_docname


def _links(items) -> str:
    return "".join(
        f'<li><a href="{href}">{escape(text)}</a>{extra}</li>' for href, text, extra in items
    )


def _count(n: int) -> str:
    return f' <span class="kb-count">({n})</span>'


def sidebar_html(catalog: Catalog, config: KbConfig) -> str:
    recent = [(f"{p.docname}.html", p.title, "") for p in catalog.posts[: config.sidebar_recent]]
    categories = [
        (f"{c.docname}.html", c.name, _count(len(c.posts))) for c in catalog.collections["category"]
    ]
    by_size = sorted(catalog.collections["tag"], key=lambda c: (-len(c.posts), c.name.casefold()))
    tags = sorted(by_size[: config.sidebar_tags], key=lambda c: c.name.casefold())
    tag_items = [(f"{c.docname}.html", c.name, _count(len(c.posts))) for c in tags]
    years = [
        (f"{c.docname}.html", c.name, _count(len(c.posts))) for c in catalog.collections["year"]
    ]
    series = [(f"{s.docname}.html", s.name, _count(len(s.posts))) for s in build_series(catalog)]
    sections = [
        ("Recent posts", recent, f"{catalog.blog_path}.html", "All posts"),
        ("Categories", categories, f"{catalog.catalog_docname('category')}.html", "All categories"),
        (
            "Series",
            series[: config.sidebar_series],
            f"{series_catalog_docname(catalog)}.html",
            "All series",
        ),
        ("Tags", tag_items, f"{catalog.catalog_docname('tag')}.html", "All tags"),
        ("Years", years, f"{catalog.catalog_docname('year')}.html", "All years"),
    ]
    html = []
    for number, (title, items, more_href, more_text) in enumerate(sections):
        if not items:
            continue
        heading_id = f"kb-sidebar-{number}"
        html.append(
            f'<section class="kb-sidebar-section" aria-labelledby="{heading_id}">'
            f'<h2 class="kb-sidebar-title" id="{heading_id}">{title}</h2>'
            f'<ul class="kb-sidebar-list">{_links(items)}</ul>'
            f'<a class="kb-sidebar-more" href="{more_href}">{more_text}</a></section>'
        )
    return f'<nav class="kb-sidebar" aria-label="Blog">{"".join(html)}</nav>' if html else ""


SIDEBAR_START = '<nav class="kb-sidebar"'
SIDEBAR_END = "</nav>"  # the sidebar holds no other nav


def replace_sidebar(page_html: str, sidebar_html: str) -> str | None:
    """``page_html`` with its blog sidebar replaced; None when it has none."""
    start = page_html.find(SIDEBAR_START)
    end = page_html.find(SIDEBAR_END, start)
    if start < 0 or end < 0:
        return None
    return page_html[:start] + sidebar_html + page_html[end + len(SIDEBAR_END) :]


def refresh_sidebar(app: Sphinx, pagename: str, path: Path) -> None:
    """Put this build's sidebar into a page an earlier build wrote (see kb.freshness)."""
    try:
        html = path.read_text(encoding="utf-8")
    except OSError:
        return
    sidebar = relocate_links(app.env.kb_sidebar_html, root_prefix(app, pagename))
    updated = replace_sidebar(html, sidebar)
    if updated is not None and updated != html:
        path.write_text(updated, encoding="utf-8")


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    app.env.kb_sidebar_html = sidebar_html(catalog, app.kb_config)


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if app.builder.format != "html" or not hasattr(app.env, "kb_sidebar_html"):
        return
    context["kb_sidebar_html"] = relocate_links(app.env.kb_sidebar_html, root_prefix(app, pagename))


def setup_sidebars(app: Sphinx) -> None:
    app.connect("kb-catalog-built", _catalog_built)
    app.connect("html-page-context", _html_page_context)


__all__ = ["setup_sidebars", "sidebar_html", "get_catalog"]
