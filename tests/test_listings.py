"""Archives and listings on a 27-post root: entries, pagination, catalogs, markup."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from helpers import filled_sidebar, soup

pytestmark = pytest.mark.sphinx("html", testroot="listings")

POSTS = {f"posts/post-{i:02d}" for i in range(1, 28)}


def entries(page):
    return [a.get_text() for a in page.select(".kb-entry .kb-entry-title a")]


def listing_pages(outdir, base):
    """Every page of one listing, newest first: its own page, then each "Older posts" link."""
    page = soup(outdir / f"{base}.html")
    pages, folder = [page], (outdir / f"{base}.html").parent
    while (older := page.select_one("nav.kb-pagination a[rel=next]")) is not None:
        path = (folder / older["href"]).resolve()
        page, folder = soup(path), path.parent
        pages.append(page)
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
    page = listing_pages(built, "blog/category/article")[0]
    entry = next(e for e in page.select(".kb-entry") if "Post 11" in e.get_text())
    title = entry.select_one(".kb-entry-title a")
    assert title["href"] == "../../posts/post-11.html"
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
    # Numbered pages hold 10 posts each; the listing's own page the newest 10 to 19 (or all).
    sizes = [len(page.select(".kb-entry")) for page in pages]
    assert all(size == 10 for size in sizes[1:])
    assert 10 <= sizes[0] <= 19 if len(pages) > 1 else 1 <= sizes[0] <= 19
    listed = {
        "posts/post-13" if h.startswith("https://elsewhere") else re.sub(r"^(\.\./)+", "", h)[:-5]
        for h in hrefs
    }
    if expected is not None:
        assert listed == expected
    else:
        assert listed <= POSTS


SMALL_PAGES = pytest.mark.sphinx(
    "html", testroot="listings", srcdir="listings-4-a-page", confoverrides={"kb_page_size": 4}
)


@SMALL_PAGES
def test_pages_are_numbered_from_the_oldest_and_the_newest_come_first(built):
    """27 posts, 4 a page: numbered pages 1 (the oldest four) to 5, and the listing's own page
    with the newest seven; a reader goes from the newest to the oldest by "Older posts"."""
    pages = listing_pages(built, "blog")
    titles = [t for p in pages for t in entries(p)]
    assert titles == [f"Post {i:02d}" for i in range(27, 0, -1)]  # newest first throughout
    assert [len(p.select(".kb-entry")) for p in pages] == [7, 4, 4, 4, 4, 4]
    assert [p.select_one("article h1").get_text() for p in pages] == [
        "All posts",
        "All posts (page 5: 30 September 2024 to 19 January 2025)",
        "All posts (page 4: 5 May 2024 to 24 August 2024)",
        "All posts (page 3: 9 December 2023 to 29 March 2024)",
        "All posts (page 2: 14 July 2023 to 2 November 2023)",
        "All posts (page 1: 16 February 2023 to 7 June 2023)",
    ]


@SMALL_PAGES
def test_pagination_links_lead_to_the_neighbours_and_both_ends(built):
    def links(page: str) -> dict[str, str]:
        nav = soup(built / f"{page}.html").select_one("nav.kb-pagination")
        return {a["class"][0]: a["href"] for a in nav.select("a")}

    assert links("blog") == {"kb-older": "blog/page/5.html", "kb-oldest": "blog/page/1.html"}
    assert links("blog/page/5") == {
        "kb-newer": "../../blog.html",
        "kb-older": "../../blog/page/4.html",
        "kb-oldest": "../../blog/page/1.html",
    }
    assert links("blog/page/3") == {
        "kb-newest": "../../blog.html",
        "kb-newer": "../../blog/page/4.html",
        "kb-older": "../../blog/page/2.html",
        "kb-oldest": "../../blog/page/1.html",
    }
    assert links("blog/page/1") == {
        "kb-newest": "../../blog.html",
        "kb-newer": "../../blog/page/2.html",
    }
    nav = soup(built / "blog/page/3.html").select_one("nav.kb-pagination")
    assert nav.select_one("a[rel=prev]").get_text() == "← Newer posts"
    assert nav.select_one("a[rel=next]").get_text() == "Older posts →"
    # Nothing on a numbered page says how many pages there are: it stays as the listing grows.
    assert " of " not in soup(built / "blog/page/4.html").h1.get_text()


def test_a_listing_of_fewer_than_two_pages_of_posts_is_one_page(built):
    # Benchmarks: 10 posts, 10 a page: one page, and no links between pages.
    page = soup(built / "blog/category/benchmarks.html")
    assert len(page.select(".kb-entry")) == 10
    assert page.select_one("nav.kb-pagination") is None
    assert not (built / "blog/category/benchmarks/page").exists()


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
    sidebar = filled_sidebar(built / "posts/post-01.html")
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


def test_every_page_holds_the_sidebars_outline_and_shares_its_lists(built):
    """A page holds each section's heading and "All …" link, never the lists: those are in one
    file for every page (kb.pages.sidebars), named from the page with the way back to the root."""
    for page, root in (
        ("index.html", ""),
        ("posts/post-01.html", "../"),
        ("blog/page/1.html", "../../"),
    ):
        holder = soup(built / page).select_one(".kb-sidebar-holder")
        assert holder["data-kb-sidebar"] == f"{root}_kb/sidebar.json"
        assert holder["data-kb-root"] == root
        assert holder.select("li") == []
        more = {a.get_text(): a["href"] for a in holder.select(".kb-sidebar-more")}
        assert more == {
            "All posts": f"{root}blog.html",
            "All categories": f"{root}blog/category.html",
            "All tags": f"{root}blog/tag.html",
            "All years": f"{root}blog/archive.html",
        }
        assert "Post 27" not in holder.get_text()


@pytest.mark.parametrize(
    "page",
    [
        "index",
        "blog",
        "blog/page/1",
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
