"""The built real site as a reader meets it: no stray values, ways to subscribe, the archive.

Pages are parsed with lxml; "visible text" is what a browser shows of the body, without
scripts, styles, templates and hidden elements.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import lxml.html
import pytest
from sitefacts import ALL_POSTS, categories_in_use, published, series

from kb.checks.slugs import slugify
from kb.feeds.scopes import FORMATS

#: What a template prints for a missing value (Python's, JSON's, JavaScript's).
STRAY = {"None", "null", "undefined"}
FEED_FILES_IN_ORDER = [name for name, _, _ in FORMATS.values()]
FEED_FILES = set(FEED_FILES_IN_ORDER)


def pages(site: Path) -> list[Path]:
    return sorted(
        path
        for path in site.rglob("*.html")
        if path.relative_to(site).parts[0] not in ("_static", "pagefind")
    )


def visible_tree(path: Path):
    """The page's body without what a browser does not show as text."""
    tree = lxml.html.parse(str(path))
    for element in tree.xpath(
        "//script | //style | //template | //noscript | //*[@hidden] | //head"
    ):
        element.drop_tree()
    return tree


def stray_values(path: Path) -> list[str]:
    """Text nodes that are only a missing value ("None"), outside code, where a post may
    legitimately show them (`return None`)."""
    found = []
    for element in visible_tree(path).iter():
        if not isinstance(element.tag, str) or element.xpath(
            "ancestor-or-self::pre|ancestor-or-self::code"
        ):
            continue
        for text in (element.text, element.tail):
            if text and text.strip() in STRAY:
                found.append(f"{element.tag}: {text.strip()!r}")
    return found


def empty_headings(path: Path) -> list[str]:
    tree = visible_tree(path)
    return [
        lxml.html.tostring(heading, encoding="unicode")[:120]
        for heading in tree.xpath("//h1 | //h2 | //h3 | //h4 | //h5 | //h6")
        if not heading.text_content().strip()
    ]


def test_no_page_shows_a_missing_value_or_an_empty_heading(built_site):
    problems = [
        f"{path.relative_to(built_site)}: {problem}"
        for path in pages(built_site)
        for problem in (*stray_values(path), *empty_headings(path))
    ]
    assert problems == [], "\n".join(problems)


def test_stray_value_check_finds_them(tmp_path):
    page = tmp_path / "x.html"
    page.write_text(
        "<html><body><div class='sidebar-tree'>\n  None\n</div><h2> </h2>"
        "<p>None of this is stray.</p><pre><code>return None</code></pre>"
        "<p hidden>undefined</p><script>var x = null;</script></body></html>"
    )
    assert stray_values(page) == ["div: 'None'"]
    assert empty_headings(page) == ["<h2> </h2>"]


def linked(site: Path, page: Path, href: str) -> Path:
    return page.parent.joinpath(unquote(href)).resolve()


def test_home_category_and_series_pages_offer_their_feeds(built_site):
    home = built_site / "index.html"
    category_slug = slugify(categories_in_use()[0])
    category = built_site / f"blog/category/{category_slug}.html"
    scopes = [(category, f"feeds/category/{category_slug}")]
    if named := sorted(series()):
        series_slug = slugify(named[0])
        page = built_site / f"blog/series/{series_slug}.html"
        scopes.append((page, f"feeds/series/{series_slug}"))
    for page in (home, *(page for page, _ in scopes)):
        tree = lxml.html.parse(str(page))
        (section,) = tree.xpath(
            "//*[contains(@class, 'sidebar-drawer')]//section[@class='kb-subscribe']"
        )
        assert section.xpath("string(h2)").strip() == "Subscribe"
        feeds = [linked(built_site, page, a.get("href")) for a in section.xpath(".//a[@type]")]
        assert [path.name for path in feeds] == ["rss.xml", "atom.xml", "feed.json"]
        assert all(path.is_file() and path.parent == built_site / "feeds" for path in feeds)
        (more,) = section.xpath(".//a[text()='All feeds']")
        assert linked(built_site, page, more.get("href")) == built_site / "feeds.html"
    # A category's and a series' page each offer their own feed under their heading.
    for page, folder in scopes:
        tree = lxml.html.parse(str(page))
        (line,) = tree.xpath("//article//p[@class='kb-subscribe-line']")
        kind = "category" if "category" in folder else "series"
        assert line.text_content().strip().startswith(f"Subscribe to this {kind}: RSS")
        feeds = [linked(built_site, page, a.get("href")) for a in line.xpath(".//a[@type]")]
        assert feeds == [built_site / folder / name for name in FEED_FILES_IN_ORDER]
        assert all(path.is_file() for path in feeds)


def test_feeds_page_lists_every_feed_file(built_site):
    page = built_site / "feeds.html"
    tree = lxml.html.parse(str(page))
    links = tree.xpath("//article//ul[@class='kb-feed-urls']//a")
    targets = {linked(built_site, page, a.get("href")) for a in links}
    written = {
        path.resolve()
        for path in (built_site / "feeds").rglob("*")
        if path.is_file() and path.name in FEED_FILES
    }
    assert targets == written
    # The text is the URL to paste into a reader: the site's absolute one.
    assert all(re.fullmatch(r"https://\S+/feeds/\S+", a.text_content()) for a in links)


def test_archive_lists_every_published_post(built_site):
    # Every post page the build wrote is a published post (drafts are never built).
    pages = {}
    for path in (built_site / "posts").rglob("*.html"):
        tree = lxml.html.parse(str(path))
        if tree.xpath("//section[contains(@class, 'kb-redirect')]"):
            continue  # a renamed post's old address
        title = tree.xpath("string(//article//h1)").strip().rstrip("¶").strip()
        pages[title] = tree.xpath("string((//article//time)[1]/@datetime)")
    assert len(pages) == len(list(filter(published, ALL_POSTS)))
    archive = lxml.html.parse(str(built_site / "blog/archive.html"))
    items = archive.xpath("//article//ul[@class='kb-archive-posts']/li")
    listed = [
        (
            item.xpath("string(.//span[@class='kb-archive-title']/a)"),
            item.xpath("string(time/@datetime)"),
        )
        for item in items
    ]
    assert sorted(title for title, _ in listed) == sorted(pages)
    assert [day for _, day in listed] == sorted((day for _, day in listed), reverse=True)
    for title, day in listed:
        assert pages[title] == day, title  # the date of the post's own header


# -- Benchmark figures -------------------------------------------------------------------------


def benchmark_figures(site: Path):
    """(page, figure, the header of its CSV) for every benchmark figure of the site."""
    for page in sorted((site / "posts").rglob("*.html")):
        tree = lxml.html.parse(str(page))
        for figure in tree.xpath("//figure[contains(@class, 'kb-benchmark')]"):
            (csv_link,) = figure.xpath(".//p[contains(@class, 'kb-benchmark-downloads')]//a")[:1]
            data = linked(site, page, csv_link.get("href"))
            header = data.read_text(encoding="utf-8").splitlines()[0].split(",")
            yield page.relative_to(site), figure, header


def significant_digits(cell: str) -> int:
    # Digits only: a size says its unit ("1.5 GiB").
    return len("".join(c for c in cell if c.isdigit()).lstrip("0"))


def test_benchmark_figures_read_like_a_papers(built_site):
    figures = list(benchmark_figures(built_site))
    written = sum(
        path.read_text(encoding="utf-8").count("```{benchmark}")
        for path in filter(published, ALL_POSTS)
    )
    if not written:
        pytest.skip("no published post has a {benchmark} figure")
    assert len(figures) >= written
    for page, figure, columns in figures:
        # Two drawings of one chart, wide and narrow (for phones): both in words.
        svgs = figure.xpath(".//*[local-name()='svg']")
        assert len(svgs) == 2, page
        svg = svgs[0]
        for drawing in svgs:
            texts = [t.text_content().strip() for t in drawing.xpath(".//*[local-name()='text']")]
            # Axis labels, legend title and legend entries in words: no raw column name.
            assert not set(texts) & set(columns), (page, set(texts) & set(columns))
            assert not any(f"{column} (" in text for text in texts for column in columns), page
        # Table numbers to the precision measured: three significant digits past the point.
        (table,) = figure.xpath(".//table")
        headers = [th.text_content().strip() for th in table.xpath(".//thead//th")]
        assert not set(headers) & set(columns), (page, set(headers) & set(columns))
        for cell in table.xpath(".//td[contains(@class, 'kb-num')]"):
            value = cell.text_content().strip()
            assert "." not in value or significant_digits(value) <= 3, (page, value)
            # At most four digits in any cell: a size of 16384 is "16K", the exact value in
            # its <abbr title>; a byte count says its unit.
            assert significant_digits(value) <= 4, (page, value)
            for abbr in cell.xpath(".//abbr"):
                assert int(abbr.get("title")) == int(abbr.text_content()[:-1]) * 1024, page
        # The caption once: under chart and table, not again over the table.
        assert table.xpath("./caption") == []
        title = svg.xpath("string(./*[local-name()='title'])")
        caption = figure.xpath("string(.//figcaption)").replace("\u2019", "'")  # smart quotes
        assert caption.count(title) == 1, (page, title)
