"""The real site's series, citations, link previews, sitemap and 404 page."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import soup
from lxml import etree
from pybtex.database import parse_string

REPO = Path(__file__).resolve().parent.parent
SITE = "https://kernel-notes.example.org/"

CUTLASS = [
    ("posts/2025/cutlass-wgmma-hopper", "Part 1 of CUTLASS GEMM tutorial"),
    ("posts/2025/cutlass-gemm-pipelining", "Part 2 of CUTLASS GEMM tutorial"),
    ("posts/2025/cutlass-persistent-kernels-stream-k", "Part 3 of CUTLASS GEMM tutorial"),
    ("posts/2025/cutlass-epilogue-visitor-trees", "Supplement to CUTLASS GEMM tutorial"),
]


@pytest.fixture
def site(built_site) -> Path:
    """The real site, built once per session with warnings as errors (tests/conftest.py)."""
    return built_site


def series_box(site: Path, docname: str):
    return soup(site / f"{docname}.html").select_one("aside.kb-series-box")


def test_cutlass_tutorial_parts_and_supplement(site):
    titles = [
        soup(site / f"{docname}.html").select_one("h1").get_text()[:-1] for docname, _ in CUTLASS
    ]
    for docname, position in CUTLASS:
        aside = series_box(site, docname)
        assert aside.select_one(".kb-series-position").get_text() == position
        assert [a.get_text() for a in aside.select(".kb-series-parts a")] == titles


def test_nvfp4_part_two_without_part_one(site):
    aside = series_box(site, "posts/2025/nvfp4-gemm-sm120")
    assert aside.select_one(".kb-series-position").get_text() == (
        "Part 2 of NVFP4 block scaling on SM12x"
    )
    assert [li.select_one(".kb-series-part").get_text() for li in aside.select("li")] == ["Part 2:"]
    assert aside.select_one(".kb-series-nav") is None


def test_optimization_diaries_link_to_each_other(site):
    first = series_box(site, "posts/2026/fa4-backward-head-dim-64")
    assert (
        first.select_one('a[rel="next"]')["href"] == "../../posts/2026/fa4-decode-sp-ping-pong.html"
    )
    second = series_box(site, "posts/2026/fa4-decode-sp-ping-pong")
    assert (
        second.select_one('a[rel="prev"]')["href"]
        == "../../posts/2026/fa4-backward-head-dim-64.html"
    )


def test_series_pages(site):
    catalog = soup(site / "blog/series.html")
    assert [li.get_text(" ", strip=True) for li in catalog.select(".kb-catalog-series li")] == [
        "CUTLASS GEMM tutorial (4)",
        "NVFP4 block scaling on SM12x (1)",
        "Optimization diaries (2)",
    ]
    page = soup(site / "blog/series/cutlass-gemm-tutorial.html")
    assert [p.get_text() for p in page.select("p.kb-series-part")] == [
        "Part 1",
        "Part 2",
        "Part 3",
        "Supplement",
    ]


def test_every_post_is_citable_and_previewable(site):
    for path in sorted((REPO / "posts").glob("*/*.md")):
        docname = str(path.relative_to(REPO).with_suffix(""))
        page = soup(site / f"{docname}.html")
        pre = page.select_one("section.kb-cite div.highlight pre")
        entry = next(iter(parse_string(pre.get_text(), "bibtex").entries.values()))
        assert entry.fields["title"].strip("{}") == page.select_one("h1").get_text()[:-1]
        names = {m["name"] for m in page.head.select("meta[name]")}
        assert {"citation_title", "citation_author", "citation_publication_date"} <= names
        assert {"twitter:card", "description"} <= names
        og = {m["property"]: m["content"] for m in page.head.select("meta[property]")}
        assert og["og:type"] == "article"
        assert og["og:url"] == f"{SITE}{docname}.html"
        assert og["og:image"] == f"{SITE}_static/og-default.png"
    assert (site / "_static/og-default.png").is_file()


def test_posts_cite_papers_from_references_bib(site):
    cited = {
        "posts/2025/cutlass-persistent-kernels-stream-k": "osama2023streamk",
        "posts/2026/flashattention-4": "shah2024flashattention3",
    }
    for docname, key in cited.items():
        page = soup(site / f"{docname}.html")
        note = page.select_one(f"aside.footnote#footcite-{key}")
        assert note.select_one("a.reference.external")["href"].startswith("https://arxiv.org/abs/")
        assert page.select_one(f'a.footnote-reference[href="#footcite-{key}"]')


def test_sitemap_lists_the_site_with_absolute_urls(site):
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in etree.parse(str(site / "sitemap.xml")).iterfind(".//s:loc", ns)]
    assert locs == sorted(locs)
    paths = {loc.removeprefix(SITE) for loc in locs}
    assert all(loc.startswith(SITE) for loc in locs)
    assert all((site / path).is_file() for path in paths)
    assert {
        "index.html",
        "blog.html",
        "blog/series.html",
        "blog/series/cutlass-gemm-tutorial.html",
    } <= paths
    assert not {"404.html", "search.html", "genindex.html", "blog/drafts.html"} & paths
    posts = {str(p.relative_to(REPO).with_suffix(".html")) for p in (REPO / "posts").glob("*/*.md")}
    assert posts <= paths


def test_404_page_uses_absolute_paths(site):
    page = soup(site / "404.html")
    urls = [t.get("href") or t.get("src") for t in page.select("[href], [src]")]
    local = [u for u in urls if not u.startswith(("#", "https://", "http://"))]
    assert local and all(u.startswith("/") for u in local)
    for url in local:
        assert (site / url.lstrip("/").split("?")[0]).is_file(), url
