"""The real site's series, citations, link previews, sitemap and 404 page."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import resolve_link as resolve
from helpers import soup
from lxml import etree
from pybtex.database import parse_string
from sitefacts import (
    EXPECT,
    POSTS,
    SITE_URL,
    docname,
    position_text,
    published,
    require_posts,
    series,
    title_of,
)

from kb.checks.slugs import slugify


@pytest.fixture
def site(built_site) -> Path:
    """The real site, built once per session with warnings as errors (tests/conftest.py)."""
    return built_site


def series_box(site: Path, name: str):
    return soup(site / f"{name}.html").select_one("aside.kb-series-box")


def heading(page) -> str:
    return page.select_one("h1").get_text()[:-1]  # without the ¶ sign


@pytest.mark.parametrize("name", list(series()))
def test_each_member_shows_its_series_in_reading_order(site, name):
    members = series()[name]
    titles = [title_of(path) for path in members]
    for index, path in enumerate(members):
        aside = series_box(site, docname(path))
        assert aside.select_one(".kb-series-position").get_text() == position_text(path, name)
        assert [a.get_text() for a in aside.select(".kb-series-parts a")] == titles
        previous = aside.select_one('a[rel="prev"]')
        following = aside.select_one('a[rel="next"]')
        page = docname(path)
        expected_prev = docname(members[index - 1]) if index > 0 else None
        expected_next = docname(members[index + 1]) if index + 1 < len(members) else None
        assert (resolve(page, previous["href"])[:-5] if previous else None) == expected_prev
        assert (resolve(page, following["href"])[:-5] if following else None) == expected_next


def test_series_pages(site):
    catalog = soup(site / "blog/series.html")
    listed = [li.get_text(" ", strip=True) for li in catalog.select(".kb-catalog-series li")]
    expected = sorted(series().items(), key=lambda item: item[0].casefold())
    assert listed == [f"{name} ({len(members)})" for name, members in expected]
    for name, members in series().items():
        page = soup(site / f"blog/series/{slugify(name)}.html")
        entries = [
            section.select_one(".kb-entry-title a").get_text()
            for section in page.select(".kb-series-member")
        ]
        assert entries == [title_of(path) for path in members]


def test_every_post_is_citable_and_previewable(site):
    for path in filter(published, POSTS):
        name = docname(path)
        page = soup(site / f"{name}.html")
        pre = page.select_one("section.kb-cite div.highlight pre")
        entry = next(iter(parse_string(pre.get_text(), "bibtex").entries.values()))
        assert entry.fields["title"].strip("{}") == page.select_one("h1").get_text()[:-1]
        names = {m["name"] for m in page.head.select("meta[name]")}
        assert {"citation_title", "citation_author", "citation_publication_date"} <= names
        assert {"twitter:card", "description"} <= names
        og = {m["property"]: m["content"] for m in page.head.select("meta[property]")}
        assert og["og:type"] == "article"
        assert og["og:url"] == f"{SITE_URL}{name}.html"
        assert og["og:image"] == f"{SITE_URL}_static/og-default.png"
    assert (site / "_static/og-default.png").is_file()


def test_posts_cite_papers_from_references_bib(site):
    require_posts(*EXPECT["citations"])
    for name, key in EXPECT["citations"].items():
        page = soup(site / f"{name}.html")
        note = page.select_one(f"aside.footnote#footcite-{key}")
        assert note.select_one("a.reference.external")["href"].startswith("https://arxiv.org/abs/")
        assert page.select_one(f'a.footnote-reference[href="#footcite-{key}"]')


def test_sitemap_lists_the_site_with_absolute_urls(site):
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in etree.parse(str(site / "sitemap.xml")).iterfind(".//s:loc", ns)]
    assert locs == sorted(locs)
    paths = {loc.removeprefix(SITE_URL) for loc in locs}
    assert all(loc.startswith(SITE_URL) for loc in locs)
    assert all((site / path).is_file() for path in paths)
    series_pages = {f"blog/series/{slugify(name)}.html" for name in series()}
    assert {"index.html", "blog.html", "blog/series.html", *series_pages} <= paths
    assert not {"404.html", "search.html", "genindex.html", "blog/drafts.html"} & paths
    assert {f"{docname(p)}.html" for p in filter(published, POSTS)} <= paths


def test_404_page_uses_absolute_paths(site):
    page = soup(site / "404.html")
    urls = [t.get("href") or t.get("src") for t in page.select("[href], [src]")]
    local = [u for u in urls if not u.startswith(("#", "https://", "http://"))]
    assert local and all(u.startswith("/") for u in local)
    for url in local:
        assert (site / url.lstrip("/").split("?")[0]).is_file(), url
