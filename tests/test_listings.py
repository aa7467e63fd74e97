"""Archives and listings on a 27-post root: entries, pagination, catalogs, markup."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from helpers import soup

pytestmark = pytest.mark.sphinx("html", testroot="listings")

POSTS = {f"posts/post-{i:02d}" for i in range(1, 28)}


def entries(page):
    return [a.get_text() for a in page.select(".kb-entry .kb-entry-title a")]


def listing_pages(outdir, base):
    """Every page of one listing, following its numbered page links."""
    first = soup(outdir / f"{base}.html")
    pages = [first]
    nav = first.select_one(".kb-pagination")
    count = len(nav.select(".kb-page-numbers li")) if nav else 1
    for number in range(2, count + 1):
        pages.append(soup(outdir / f"{base}/page/{number}.html"))
    return pages


@pytest.fixture
def built(app):
    app.build()
    assert app.warning.getvalue() == ""
    return app.outdir


def test_category_page_lists_its_posts_newest_first(built):
    page = soup(built / "blog/category/benchmarks.html")
    assert page.select_one("article h1").get_text() == "Category: Benchmarks"
    titles = [t for p in listing_pages(built, "blog/category/benchmarks") for t in entries(p)]
    # Every third post is a benchmark, plus post 07 which is in both categories.
    expected = sorted({f"Post {i:02d}" for i in range(3, 28, 3)} | {"Post 07"}, reverse=True)
    assert titles == expected


def test_entry_shows_title_date_author_categories_excerpt_and_more_link(built):
    page = listing_pages(built, "blog/category/article")[1]
    entry = next(e for e in page.select(".kb-entry") if "Post 11" in e.get_text())
    title = entry.select_one(".kb-entry-title a")
    assert title["href"] == "../../../../posts/post-11.html"
    assert entry.select_one("time")["datetime"] == "2024-02-21"
    assert [a.get_text() for a in entry.select(".kb-by a")] == ["Ada Lovelace", "Alan Turing"]
    assert [a.get_text() for a in entry.select(".kb-in a")] == ["Article"]
    assert entry.select_one(".kb-entry-excerpt").get_text(strip=True) == (
        "First paragraph of post 11, the excerpt."
    )
    more = entry.select_one(".kb-entry-more a")
    assert more.get_text() == "Go to article…"
    assert more["href"] == title["href"]


def test_front_matter_excerpt_wins_and_image_never_becomes_excerpt(built):
    pages = listing_pages(built, "blog")
    by_title = {
        e.select_one(".kb-entry-title a").get_text(): e
        for p in pages
        for e in p.select(".kb-entry")
    }
    assert by_title["Post 09"].select_one(".kb-entry-excerpt").get_text(strip=True) == (
        "A hand-written excerpt that wins over the first paragraph."
    )
    post_05 = by_title["Post 05"].select_one(".kb-entry-excerpt")
    assert post_05.select("img") == []
    assert post_05.get_text(strip=True) == "First paragraph of post 05, the excerpt."


def test_post_in_two_categories_is_listed_in_both(built):
    for category in ("article", "benchmarks"):
        titles = [t for p in listing_pages(built, f"blog/category/{category}") for t in entries(p)]
        assert "Post 07" in titles


def test_external_post_links_away_and_is_marked(built):
    pages = listing_pages(built, "blog")
    entry = next(e for p in pages for e in p.select(".kb-entry") if "Post 13" in e.get_text())
    assert entry.select_one(".kb-external").get_text() == "(External)"
    assert entry.select_one(".kb-entry-title a")["href"] == "https://elsewhere.example.com/post-13"
    assert entry.select_one(".kb-entry-more a")["href"] == "https://elsewhere.example.com/post-13"
    local = soup(built / "posts/post-13.html")
    note = local.select_one(".kb-external-note a")
    assert note["href"] == "https://elsewhere.example.com/post-13"


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("blog", POSTS),
        ("blog/tag/gemm", {f"posts/post-{i:02d}" for i in range(1, 28, 2)}),
        (
            "blog/author/ada-lovelace",
            {f"posts/post-{i:02d}" for i in range(1, 28) if i % 4 or i == 11},
        ),
        ("blog/2024", None),
    ],
)
def test_pagination_lists_every_post_exactly_once(built, base, expected):
    pages = listing_pages(built, base)
    hrefs = [a["href"] for page in pages for a in page.select(".kb-entry-title a")]
    assert max(Counter(hrefs).values()) == 1
    assert all(len(page.select(".kb-entry")) == 10 for page in pages[:-1])
    assert 1 <= len(pages[-1].select(".kb-entry")) <= 10
    listed = {
        "posts/post-13" if h.startswith("https://elsewhere") else re.sub(r"^(\.\./)+", "", h)[:-5]
        for h in hrefs
    }
    if expected is not None:
        assert listed == expected
    else:
        assert listed <= POSTS


def test_pagination_links_and_stable_urls(built):
    first, second, third = listing_pages(built, "blog")
    assert first.select_one("article h1").get_text() == "All posts"
    assert second.select_one("article h1").get_text() == "All posts (page 2 of 3)"
    nav = second.select_one("nav.kb-pagination")
    assert nav.select_one("a[rel=prev]")["href"] == "../../blog.html"
    assert nav.select_one("a[rel=next]")["href"] == "../../blog/page/3.html"
    assert nav.select_one("a[aria-current=page]").get_text() == "2"
    assert [a.get_text() for a in nav.select(".kb-page-numbers a")] == ["1", "2", "3"]
    assert first.select_one("nav.kb-pagination a[rel=prev]") is None
    assert third.select_one("nav.kb-pagination a[rel=next]") is None
    # Newest first across pages.
    titles = [t for p in (first, second, third) for t in entries(p)]
    assert titles == [f"Post {i:02d}" for i in range(27, 0, -1)]


def test_catalog_pages_show_counts(built):
    page = soup(built / "blog/category.html")
    assert page.select_one("article h1").get_text() == "All categories"
    counts = {
        li.select_one("a").get_text(): li.select_one(".kb-count").get_text()
        for li in page.select(".kb-catalog li")
    }
    assert counts == {"Article": "(18)", "Benchmarks": "(10)"}
    tags = soup(built / "blog/tag.html")
    tag_counts = {
        li.a.get_text(): li.select_one(".kb-count").get_text()
        for li in tags.select(".kb-catalog li")
    }
    assert tag_counts == {"attention": "(13)", "fp8": "(5)", "gemm": "(14)"}


def test_archive_lists_every_post_under_its_year_newest_first(built):
    page = soup(built / "blog/archive.html")
    article = page.select_one("article")
    assert article.find("h1").get_text() == "All years"
    sections = article.select("section.kb-archive-year")
    assert [s.find("h2").a.get_text() for s in sections] == ["2025", "2024", "2023"]
    listed, dates = [], []
    for section in sections:
        heading = section.find("h2")
        assert heading.a["href"] == f"../blog/{heading.a.get_text()}.html"  # the year's page
        items = section.select(".kb-archive-posts li")
        assert heading.select_one(".kb-count").get_text() == f"({len(items)})"
        for item in items:
            when = item.find("time")["datetime"]
            assert when.startswith(heading.a.get_text())
            assert item.find("time").get_text()  # "21 February 2024"
            dates.append(when)
            link = item.select_one(".kb-archive-title a")
            listed.append(
                "posts/post-13"
                if link["href"].startswith("https://elsewhere")
                else re.sub(r"^(\.\./)+", "", link["href"])[:-5]
            )
    # Every published post, once, newest first; the external one marked as on the listings.
    assert sorted(listed) == sorted(POSTS)
    assert dates == sorted(dates, reverse=True)
    external = article.find("a", href="https://elsewhere.example.com/post-13")
    assert external.find_next_sibling(class_="kb-external").get_text() == "(External)"


def test_home_page_lists_latest_posts(built):
    home = soup(built / "index.html")
    assert entries(home) == ["Post 27", "Post 26", "Post 25", "Post 24", "Post 23"]
    assert home.select_one(".kb-entry-more a").get_text() == "Go to article…"


def test_sidebar_is_bounded(built):
    post = soup(built / "posts/post-01.html")
    sidebar = post.select_one(".kb-sidebar")
    sections = {s.select_one("h2").get_text(): s for s in sidebar.select("section")}
    assert [a.get_text() for a in sections["Recent posts"].select("li a")] == [
        "Post 27",
        "Post 26",
        "Post 25",
        "Post 24",
        "Post 23",
    ]
    assert [a.get_text() for a in sections["Categories"].select("li a")] == [
        "Article",
        "Benchmarks",
    ]
    assert sections["Recent posts"].select_one("li a")["href"] == "../posts/post-27.html"


@pytest.mark.parametrize(
    "page",
    [
        "index",
        "blog",
        "blog/page/2",
        "blog/category/article",
        "blog/tag",
        "blog/archive",
        "posts/post-07",
    ],
)
def test_markup_is_valid(built, page):
    html = soup(built / f"{page}.html")
    assert not html.select("p p"), "no <p> inside <p>"
    assert not html.select("ul > div, ol > div"), "no <div> directly inside a list"
    ids = [tag["id"] for tag in html.select("[id]")]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    assert len(html.select("h1")) == 1


@pytest.mark.slow
def test_each_excerpt_is_rendered_once_per_change(make_app, tmp_path, monkeypatch):
    """Listings reuse each post's excerpt HTML: one rendering per post, and after an edit,
    one for the edited post only (ablog renders it again for every listing it is on)."""
    from sitebuild import build, copy_root

    from kb.core import catalog

    rendered = []
    original = catalog.render_excerpt

    def counting(app, docname, paragraph):
        rendered.append(docname)
        return original(app, docname, paragraph)

    monkeypatch.setattr(catalog, "render_excerpt", counting)
    site = copy_root("listings", tmp_path / "site")
    build(make_app, site)
    assert sorted(rendered) == sorted(POSTS)
    rendered.clear()
    build(make_app, site)
    assert rendered == []
    post = site / "posts/post-04.md"
    post.write_text(post.read_text().replace("First paragraph", "Edited first paragraph"))
    build(make_app, site)
    assert rendered == ["posts/post-04"]
