"""Series: the box on each member's page, the series pages, the catalog, incremental builds."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import filled_sidebar, soup, write_post
from helpers import resolve_link as resolve
from sitebuild import build, copy_root

from kb.core.state import build_state

GEMM_ORDER = [
    "GEMM part one",
    "GEMM part two: TMA & pipelines",
    "GEMM part three",
    "An early supplement",
    "An unnumbered member",
    "A late supplement",
]


@pytest.fixture
def built(make_app, tmp_path):
    """The series root, copied to a fresh folder and built once without warnings."""
    app = build(make_app, copy_root("series", tmp_path / "site"))
    assert app.warning.getvalue() == ""
    return app


def box(outdir: Path, docname: str):
    return soup(outdir / f"{docname}.html").select_one("aside.kb-series-box")


def test_box_sits_after_the_post_header_and_names_the_part(built):
    page = soup(built.outdir / "posts/gemm-2.html")
    section = page.select_one("article section")
    children = [c for c in section.children if getattr(c, "name", None)]
    names = [(c.name, c.get("class", [])) for c in children[:4]]
    assert names[0][0] == "h1"
    # kb's wrapper keeps the date line and other posts' titles out of the search index.
    assert names[1] == ("div", ["kb-post-part"])
    assert children[1].find("p")["class"] == ["kb-post-meta"]
    assert names[2] == ("p", ["kb-post-tags"])
    assert names[3] == ("div", ["kb-post-part"])
    assert children[3].find("aside")["class"] == ["kb-series-box"]
    assert children[3]["data-pagefind-ignore"] == "all"
    position = children[3].select_one(".kb-series-position")
    assert position.get_text() == "Part 2 of GEMM tutorial"
    link = position.select_one("a")
    assert resolve("posts/gemm-2", link["href"]) == "blog/series/gemm-tutorial.html"


def test_box_lists_every_published_part_in_reading_order(built):
    aside = box(built.outdir, "posts/gemm-2")
    items = aside.select(".kb-series-parts li")
    assert [li.select_one("a").get_text() for li in items] == GEMM_ORDER
    labels = [li.select_one(".kb-series-part") for li in items]
    assert [label.get_text() if label else None for label in labels] == [
        "Part 1:",
        "Part 2:",
        "Part 3:",
        "Supplement:",
        None,
        "Supplement:",
    ]
    current = aside.select('a[aria-current="page"]')
    assert [a.get_text() for a in current] == ["GEMM part two: TMA & pipelines"]
    for a in aside.select("a"):
        assert (built.outdir / resolve("posts/gemm-2", a["href"])).is_file()


def test_draft_is_not_listed_and_has_no_box(built):
    titles = [a.get_text() for a in box(built.outdir, "posts/gemm-1").select(".kb-series-parts a")]
    assert "A draft part seven" not in titles
    assert not (built.outdir / "posts/gemm-draft.html").exists()  # a draft has no page
    assert box(built.outdir, "posts/standalone") is None


def test_previous_and_next_follow_the_reading_order(built):
    def nav(docname):
        aside = box(built.outdir, docname)
        prev = aside.select_one('a[rel="prev"]')
        following = aside.select_one('a[rel="next"]')
        return (
            resolve(docname, prev["href"]) if prev else None,
            resolve(docname, following["href"]) if following else None,
        )

    assert nav("posts/gemm-1") == (None, "posts/gemm-2.html")
    assert nav("posts/gemm-3") == ("posts/gemm-2.html", "posts/gemm-extra-early.html")
    assert nav("posts/gemm-unnumbered") == (
        "posts/gemm-extra-early.html",
        "posts/gemm-extra-late.html",
    )
    assert nav("posts/gemm-extra-late") == ("posts/gemm-unnumbered.html", None)
    next_link = box(built.outdir, "posts/gemm-1").select_one('a[rel="next"]')
    assert next_link.get_text() == "Next: GEMM part two: TMA & pipelines →"


def test_supplement_unnumbered_and_missing_part_wording(built):
    def position(docname):
        return box(built.outdir, docname).select_one(".kb-series-position").get_text()

    assert position("posts/gemm-extra-early") == "Supplement to GEMM tutorial"
    assert position("posts/gemm-unnumbered") == "Part of GEMM tutorial"
    # Part 1 of "FP4 notes" is not on the site: it is simply not listed.
    assert position("posts/fp4-2") == "Part 2 of FP4 notes"
    items = box(built.outdir, "posts/fp4-2").select(".kb-series-parts li")
    assert [li.get_text() for li in items] == ["Part 2: FP4 part two", "Part 3: FP4 part three"]


def test_external_member_links_to_its_article(built):
    aside = box(built.outdir, "posts/fp4-2")
    external = aside.select_one('a[rel="next"]')
    assert external["href"] == "https://elsewhere.example.com/fp4-3"
    listed = [a for a in aside.select(".kb-series-parts a") if a.get_text() == "FP4 part three"]
    assert listed[0]["href"] == "https://elsewhere.example.com/fp4-3"
    assert listed[0]["rel"] == ["external"]


def test_series_page_lists_members_in_order_with_entries(built):
    page = soup(built.outdir / "blog/series/gemm-tutorial.html")
    assert page.select_one("article h1").get_text() == "GEMM tutorial"
    assert page.select_one(".kb-series-summary").get_text() == (
        "6 posts, 5 January 2024 to 10 March 2024."
    )
    members = page.select(".kb-series-member")
    assert [m.select_one(".kb-entry-title a").get_text() for m in members] == GEMM_ORDER
    first = members[0]
    assert first.select_one("p.kb-series-part").get_text() == "Part 1"
    assert first.select_one(".kb-entry-excerpt").get_text(strip=True) == (
        "First paragraph of gemm-1, the excerpt."
    )
    href = first.select_one(".kb-entry-more a")["href"]
    assert resolve("blog/series/gemm-tutorial", href) == "posts/gemm-1.html"


def test_series_catalog_lists_each_series_with_its_count(built):
    page = soup(built.outdir / "blog/series.html")
    assert page.select_one("article h1").get_text() == "All series"
    items = page.select(".kb-catalog-series li")
    assert [li.get_text(" ", strip=True) for li in items] == [
        "FP4 notes (2)",
        "GEMM tutorial (6)",
    ]
    hrefs = [resolve("blog/series", li.select_one("a")["href"]) for li in items]
    assert hrefs == ["blog/series/fp4-notes.html", "blog/series/gemm-tutorial.html"]
    assert all((built.outdir / h).is_file() for h in hrefs)


def test_the_catalog_groups_each_series_once_with_name_slug_docname_and_parts(built):
    series = build_state(built).catalog.series
    assert [(one.name, one.slug, one.docname) for one in series] == [
        ("FP4 notes", "fp4-notes", "blog/series/fp4-notes"),
        ("GEMM tutorial", "gemm-tutorial", "blog/series/gemm-tutorial"),
    ]
    assert [p.title for p in series[1].posts] == GEMM_ORDER


def test_a_part_that_is_not_a_number_counts_as_unnumbered(make_app, tmp_path):
    # Reporting it is the front-matter checks' job; the series still renders.
    srcdir = copy_root("series", tmp_path / "site")
    write_post(
        srcdir, "posts/odd.md", "Odd part", "2024-01-17", extra="series: GEMM tutorial\npart: two\n"
    )
    app = build(make_app, srcdir)
    aside = box(app.outdir, "posts/odd")
    assert aside.select_one(".kb-series-position").get_text() == "Part of GEMM tutorial"
    titles = [a.get_text() for a in aside.select(".kb-series-parts a")]
    assert titles == [*GEMM_ORDER[:5], "Odd part", GEMM_ORDER[5]]


def _boxes(outdir: Path) -> dict[str, str]:
    return {
        str(path.relative_to(outdir)): str(soup(path).select_one("aside.kb-series-box"))
        for path in sorted((outdir / "posts").glob("*.html"))
    }


def _series_pages(outdir: Path) -> dict[str, str]:
    return {
        str(path.relative_to(outdir)): str(soup(path).select_one("#kb-archive"))
        for path in [outdir / "blog/series.html", *sorted((outdir / "blog/series").glob("*.html"))]
    }


def _apply(change: str, srcdir: Path) -> None:
    if change == "add":
        write_post(
            srcdir,
            "posts/gemm-4.md",
            "GEMM part four",
            "2024-03-20",
            extra="series: GEMM tutorial\npart: 4\n",
        )
    elif change == "retitle":
        # An old post: not among the sidebar's recent posts, which would rewrite every page.
        path = srcdir / "posts/gemm-1.md"
        path.write_text(path.read_text().replace("# GEMM part one", "# GEMM part 1, retitled"))
    else:
        path = srcdir / "posts/gemm-extra-late.md"
        path.write_text(path.read_text().replace("part: supplement", "part: 5"))


@pytest.mark.slow
@pytest.mark.parametrize("change", ["add", "retitle", "renumber"])
def test_incremental_build_matches_a_clean_one(make_app, tmp_path, change):
    srcdir = copy_root("series", tmp_path / "site")
    build(make_app, srcdir)
    _apply(change, srcdir)
    again = build(make_app, srcdir)
    assert again.warning.getvalue() == ""
    clean_src = copy_root("series", tmp_path / "clean")
    _apply(change, clean_src)
    clean = build(make_app, clean_src)

    assert _boxes(again.outdir) == _boxes(clean.outdir)
    assert _series_pages(again.outdir) == _series_pages(clean.outdir)
    # The change shows on a member whose own source did not change.
    titles = [a.get_text() for a in box(again.outdir, "posts/gemm-2").select(".kb-series-parts a")]
    if change == "add":
        assert titles[3] == "GEMM part four"
    elif change == "retitle":
        assert titles[0] == "GEMM part 1, retitled"
    else:
        assert titles[3] == "A late supplement"


def test_unchanged_series_pages_are_not_rewritten(make_app, tmp_path, monkeypatch):
    """Nor rendered: the signature decides before the page's body is made."""
    from kb.pages import series

    srcdir = copy_root("series", tmp_path / "site")
    build(make_app, srcdir)
    rendered: list[str] = []
    render = series.series_page_html
    monkeypatch.setattr(
        series,
        "series_page_html",
        lambda app, one, *args: rendered.append(one.name) or render(app, one, *args),
    )
    changed = srcdir / "_build/html/blog/series/gemm-tutorial.html"
    unchanged = srcdir / "_build/html/blog/series/fp4-notes.html"
    stamps = changed.stat().st_mtime_ns, unchanged.stat().st_mtime_ns
    # An old post, outside the sidebar's recent posts (which every page shows).
    path = srcdir / "posts/gemm-1.md"
    path.write_text(path.read_text().replace("# GEMM part one", "# GEMM part 1"))
    build(make_app, srcdir)
    assert unchanged.stat().st_mtime_ns == stamps[1]
    assert changed.stat().st_mtime_ns != stamps[0]
    assert soup(changed).select_one(".kb-entry-title a").get_text() == "GEMM part 1"
    assert rendered == ["GEMM tutorial"]  # not "FP4 notes", whose page stays as it was


def test_each_series_has_feeds_linked_from_its_page(built):
    import feedparser

    feed_dir = built.outdir / "feeds/series/gemm-tutorial"
    atom = feedparser.parse((feed_dir / "atom.xml").read_bytes())
    rss = feedparser.parse((feed_dir / "rss.xml").read_bytes())
    assert (atom.bozo, atom.version, rss.bozo, rss.version) == (False, "atom10", False, "rss20")
    assert atom.feed.title.endswith("Series: GEMM tutorial")
    # Every published member, newest first, and nothing from outside the series.
    assert [e.title for e in atom.entries] == [
        "GEMM part three",
        "GEMM part two: TMA & pipelines",
        "A late supplement",
        "An unnumbered member",
        "GEMM part one",
        "An early supplement",
    ]
    assert [e.title for e in rss.entries] == [e.title for e in atom.entries]
    page = soup(built.outdir / "blog/series/gemm-tutorial.html")
    alternates = {
        link["href"]
        for link in page.select('head link[rel="alternate"]')
        if "/feeds/series/" in link["href"]
    }
    assert alternates == {
        f"https://series.example.org/feeds/series/gemm-tutorial/{name}"
        for name in ("rss.xml", "atom.xml", "feed.json")
    }


def test_sidebar_lists_the_series(built):
    page = filled_sidebar(built.outdir / "posts/standalone.html")
    sections = {s.select_one("h2").get_text(): s for s in page.select(".kb-sidebar section")}
    links = {a.get_text(): a["href"] for a in sections["Series"].select("li a")}
    assert links["GEMM tutorial"] == "../blog/series/gemm-tutorial.html"
    assert sections["Series"].select_one(".kb-sidebar-more")["href"] == "../blog/series.html"


def test_a_date_shows_its_own_day_whatever_instant_it_shares():
    """format_date remembers each day's text; two dates of one instant in other time zones
    are equal datetimes, and still show their own day."""
    from datetime import UTC, datetime, timedelta, timezone

    from kb.pages.entries import format_date

    evening = datetime(2025, 1, 1, 23, 0, tzinfo=timezone(timedelta(hours=-5)))
    assert format_date(evening) == "1 January 2025"
    assert format_date(evening.astimezone(UTC)) == "2 January 2025"
    assert format_date(datetime(2024, 2, 29)) == "29 February 2024"
