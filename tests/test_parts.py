"""Page parts are templates a fork overrides (kb.core.parts): the series box, related posts,
the cite block, listing entries, a listing's pages, the catalog and archive pages, a series'
page, the sidebar and the subscribe blocks, each from ``_templates/kb/parts/``. The override
shows on every page that has the part, and an incremental build, which replaces some parts in
pages it does not write again, keeps it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import filled_sidebar, resolve_link, soup, write_post
from sitebuild import build, copy_root

#: A fork's templates: each marks what it wrote, with values from its context.
OVERRIDES = {
    "series-box.html": (
        '<aside class="fork-series" data-name="{{ series.name|e }}">'
        "{% for label, href, title, current, external in members %}"
        '<a class="fork-member{% if current %} fork-current{% endif %}" href="{{ href|e }}">'
        "{{ title|e }}</a>{% endfor %}</aside>"
    ),
    "related.html": (
        '<ol class="fork-related">{% for href, title, external, iso, text in items %}'
        '<li><a href="{{ href|e }}">{{ title|e }}</a></li>{% endfor %}</ol>'
    ),
    "sidebar.html": (
        '<div class="fork-sidebar">{% for title, items, more_href, more_text in sections %}'
        '<h3>{{ title|e }}</h3>{% for href, text, count in items %}<a href="{{ href|e }}">'
        "{{ text|e }}</a>{% endfor %}{% endfor %}</div>"
    ),
    "entry.html": (
        '<div class="fork-entry"><a href="{{ href|e }}">{{ post.title|e }}</a>'
        "{{ excerpt_html }}</div>"
    ),
    "cite.html": '<p class="fork-cite">{{ reference|e }}</p>',
    "subscribe.html": '<p class="fork-subscribe"><a href="{{ feeds_href|e }}">Feeds</a></p>',
    "pagination.html": (
        '<nav class="fork-pages" data-page="{{ page.number }}" data-last="{{ page.last }}">'
        '{% if newest %}<a class="fork-newest" href="{{ newest|e }}">Newest</a>{% endif %}'
        '{% if newer %}<a class="fork-newer" href="{{ newer|e }}">Newer</a>{% endif %}'
        '{% if older %}<a class="fork-older" href="{{ older|e }}">Older</a>{% endif %}'
        '{% if oldest %}<a class="fork-oldest" href="{{ oldest|e }}">Oldest</a>{% endif %}'
        "</nav>"
    ),
    "catalog-list.html": (
        '<ol class="fork-catalog" data-kind="{{ kind|e }}">{% for href, name, count in items %}'
        '<li><a href="{{ href|e }}">{{ name|e }}</a> <b>{{ count }}</b></li>{% endfor %}</ol>'
    ),
    "archive-years.html": (
        '<div class="fork-years" data-count="{{ count }}">{% for name, href, items in years %}'
        '<h2><a href="{{ href|e }}">{{ name|e }}</a></h2>{% for href, title, external, iso, text'
        ' in items %}<a class="fork-year-post" href="{{ href|e }}">{{ title|e }}</a>{% endfor %}'
        "{% endfor %}</div>"
    ),
    "series-page.html": (
        '<div class="fork-series-page" data-count="{{ count }}">{% for label, entry_html in '
        'members %}<p class="fork-part">{{ label|e }}</p>{{ entry_html }}{% endfor %}'
        '<a class="fork-all-series" href="{{ all_series_href|e }}">Series</a></div>'
    ),
    "all-posts.html": '<p class="fork-all-posts"><a href="{{ href|e }}">Everything</a></p>',
    "feed-links.html": (
        '{% for href, media_type, label in links %}<a class="fork-feed" href="{{ href|e }}">'
        "{{ label|e }}</a>{% endfor %}"
    ),
    "feeds-page.html": (
        '<div class="fork-feeds">{% for kind, heading, line, feeds in sections %}'
        '{% for href, name, urls in feeds %}<p data-kind="{{ kind|e }}" data-name="{{ name|e }}">'
        '{% for format, href, type, url in urls %}<a href="{{ href|e }}">{{ url|e }}</a>'
        "{% endfor %}</p>{% endfor %}{% endfor %}</div>"
    ),
}


def forked(dest: Path) -> Path:
    """The series test site with the fork's templates in ``_templates/kb/parts/``."""
    root = copy_root("series", dest)
    parts = root / "_templates" / "kb" / "parts"
    parts.mkdir(parents=True)
    for name, text in OVERRIDES.items():
        (parts / name).write_text(text + "\n", encoding="utf-8")
    with (root / "conf.py").open("a", encoding="utf-8") as conf:
        # Three posts a page: the 9 posts' listings have pages, and one more post adds one.
        conf.write('\ntemplates_path = ["_templates"]\nkb_page_size = 3\n')
    return root


def pages(outdir: Path) -> dict[str, bytes]:
    """Every page a reader opens, by path: the bytes the server sends."""
    return {
        path.relative_to(outdir).as_posix(): path.read_bytes()
        for path in sorted(outdir.rglob("*.html"))
        if not path.relative_to(outdir).parts[0].startswith("_")
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    from sphinx.testing.util import SphinxTestApp

    root = forked(tmp_path_factory.mktemp("parts") / "site")
    app = SphinxTestApp("html", srcdir=root)
    try:
        app.build()
    finally:
        app.cleanup()
    assert app.warning.getvalue() == ""
    return Path(app.outdir)


def test_the_forks_series_box_is_on_every_member(site: Path) -> None:
    members = ["gemm-1", "gemm-2", "gemm-3", "gemm-extra-early", "gemm-unnumbered"]
    for name in members:
        page = soup(site / "posts" / f"{name}.html")
        box = page.select_one("aside.fork-series")
        assert box is not None, name
        assert box["data-name"] == "GEMM tutorial"
        assert page.select_one(".kb-series-box") is None
        current = box.select_one(".fork-current")["href"]
        assert resolve_link(f"posts/{name}", current) == f"posts/{name}.html"
    assert soup(site / "posts/standalone.html").select_one(".fork-series") is None


def test_the_forks_other_parts_replace_kbs(site: Path) -> None:
    post = soup(site / "posts/gemm-2.html")
    assert "“GEMM part two: TMA & pipelines”." in post.select_one(".fork-cite").get_text()
    assert post.select_one(".kb-cite") is None
    assert post.select(".fork-related li a") and post.select_one(".kb-related") is None
    # The fork's sidebar template makes both the outline each page holds and the shared lists.
    assert post.select_one(".fork-sidebar h3").get_text() == "Recent posts"
    assert (
        post.select(".fork-sidebar a") == []
    )  # the outline: no items (this fork shows no "All …")
    filled = filled_sidebar(site / "posts/gemm-2.html")
    assert filled.select_one(".fork-sidebar h3").get_text() == "Recent posts"
    assert "GEMM part two: TMA & pipelines" in filled.get_text()
    assert post.select_one(".kb-sidebar") is None and filled.select_one(".kb-sidebar") is None
    assert post.select_one(".fork-subscribe a")["href"] == "../feeds.html"
    hrefs = []
    for name in ["blog.html", "blog/page/2.html"]:
        archive = soup(site / name)
        entries = archive.select(".fork-entry")
        assert entries and archive.select_one(".kb-entry") is None
        links = [entry.select_one("a")["href"] for entry in entries]
        hrefs += [link if "://" in link else resolve_link(name, link) for link in links]
    assert "https://elsewhere.example.com/fp4-3" in hrefs  # the external member leads there
    assert "posts/gemm-2.html" in hrefs
    # kb's wrapper keeps other posts' titles out of the search index, whatever the template.
    box = post.select_one(".fork-series")
    assert box.parent["data-pagefind-ignore"] == "all"


def _pagination(outdir: Path, name: str) -> list[str]:
    """The pages of the listing whose own page is ``name``, newest first, by the fork's "Older"
    links, after checking that each numbered page's "Newer" link leads back, that the pages are
    numbered from the oldest (``page/<last>`` … ``page/1``), and that each exists."""
    chain = [name]
    while True:
        nav = soup(outdir / chain[-1]).select_one("nav.fork-pages")
        assert nav is not None, chain[-1]
        newer, older = nav.select_one(".fork-newer"), nav.select_one(".fork-older")
        if len(chain) == 1:
            assert newer is None and nav["data-page"] == "0"
        else:
            assert resolve_link(chain[-1], newer["href"]) == chain[-2]
        if older is None:
            break
        chain.append(resolve_link(chain[-1], older["href"]))
    last = int(soup(outdir / name).select_one("nav.fork-pages")["data-last"])
    assert chain[1:] == [f"{name[: -len('.html')]}/page/{n}.html" for n in range(last, 0, -1)]
    for target in chain:
        assert (outdir / target).is_file(), target
    return chain


def test_the_forks_pagination_is_on_every_page_of_every_listing(site: Path) -> None:
    shown = {name for name, html in pages(site).items() if b"fork-pages" in html}
    paged = {
        name[: -len(".html")] for name, html in pages(site).items() if b'data-page="0"' in html
    }
    assert {"blog", "blog/category/article", "blog/tag/gemm"} <= paged
    for base in paged:
        targets = _pagination(site, f"{base}.html")
        assert len(targets) > 1
    assert shown == {target for base in paged for target in _pagination(site, f"{base}.html")}
    assert not [name for name, html in pages(site).items() if b"kb-pagination" in html]
    assert _pagination(site, "blog.html") == ["blog.html", "blog/page/2.html", "blog/page/1.html"]


def _catalog(outdir: Path, kind: str) -> dict[str, int]:
    """The fork's list on the catalog page of ``kind``: each name and its count."""
    name = f"blog/{kind}.html"
    page = soup(outdir / name)
    assert page.select_one(".kb-catalog") is None
    items = page.select(f'ol.fork-catalog[data-kind="{kind}"] li')
    for item in items:
        assert (outdir / resolve_link(name, item.select_one("a")["href"])).is_file()
    return {item.select_one("a").get_text(): int(item.select_one("b").get_text()) for item in items}


def test_the_forks_catalog_list_is_on_every_catalog_page(site: Path) -> None:
    assert _catalog(site, "category") == {"Article": 9}
    assert _catalog(site, "tag") == {"gemm": 9}
    assert _catalog(site, "author")["Ada Lovelace"] >= 1
    # The series catalog is the same list: the series and their published members.
    assert _catalog(site, "series") == {"GEMM tutorial": 6, "FP4 notes": 2}
    everything = pages(site).values()
    assert sum(b"fork-catalog" in html for html in everything) == 4
    assert not any(b'class="kb-catalog ' in html for html in everything)


def test_the_forks_archive_series_page_and_feeds(site: Path) -> None:
    archive = soup(site / "blog/archive.html")
    years = archive.select_one(".fork-years")
    assert years["data-count"] == "9" and archive.select_one(".kb-archive-year") is None
    assert len(years.select(".fork-year-post")) == 9
    series = soup(site / "blog/series/gemm-tutorial.html")
    listing = series.select_one(".fork-series-page")
    assert listing["data-count"] == "6" and series.select_one(".kb-series-summary") is None
    labels = [p.get_text() for p in listing.select(".fork-part")]
    assert labels[:3] == ["Part 1", "Part 2", "Part 3"]
    assert len(listing.select(".kb-entry")) == 0 and len(listing.select(".fork-entry")) == 6
    all_series = listing.select_one(".fork-all-series")["href"]
    assert resolve_link("blog/series/gemm-tutorial", all_series) == "blog/series.html"
    home = soup(site / "index.html")
    assert home.select_one(".fork-all-posts a")["href"] == "blog.html"
    assert home.select_one(".kb-all-posts") is None
    line = soup(site / "blog/category/article.html").select_one(".kb-subscribe-line")
    assert [a.get_text() for a in line.select("a.fork-feed")] == ["RSS", "Atom", "JSON Feed"]
    assert len(line.select(".kb-feed-sep")) == 1  # the line's own, before "All feeds"
    feeds = soup(site / "feeds.html")
    assert feeds.select_one(".kb-feeds-intro") is None
    shown = {(p["data-kind"], p["data-name"]) for p in feeds.select(".fork-feeds p")}
    assert {("site", "Series Test Site"), ("category", "Article")} <= shown
    assert ("series", "GEMM tutorial") in shown
    site_feed = feeds.select_one('.fork-feeds p[data-kind="site"] a')
    assert site_feed["href"] == "feeds/rss.xml"
    assert site_feed.get_text() == "https://series.example.org/feeds/rss.xml"


def _change(root: Path, change: str) -> None:
    if change == "add":  # a new member: every member's box, the sidebar of every page
        write_post(
            root,
            "posts/gemm-4.md",
            "GEMM part four",
            "2026-03-20",
            extra="series: GEMM tutorial\npart: 4\n",
        )
    else:  # an old post retitled: pages that show it get their parts replaced in place
        path = root / "posts/standalone.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("\n# ", "\n# Retitled: ", 1), encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("change", ["add", "retitle"])
def test_an_incremental_build_keeps_the_override(make_app, tmp_path: Path, change: str) -> None:
    root = forked(tmp_path / "site")
    build(make_app, root)
    _change(root, change)
    again = build(make_app, root)
    assert again.warning.getvalue() == ""
    clean_root = tmp_path / "clean"
    shutil.copytree(root, clean_root, ignore=shutil.ignore_patterns("_build"))
    clean = build(make_app, clean_root)
    incremental, fresh = pages(Path(again.outdir)), pages(Path(clean.outdir))
    assert sorted(incremental) == sorted(fresh)
    stale = [page for page in fresh if incremental[page] != fresh[page]]
    assert stale == [], f"pages that differ from a clean build: {stale}"
    shared = "_kb/sidebar.json"
    assert (Path(again.outdir) / shared).read_bytes() == (Path(clean.outdir) / shared).read_bytes()
    page = soup(Path(again.outdir) / "posts/gemm-1.html")
    shown = [
        a.get_text()
        for a in filled_sidebar(Path(again.outdir) / "posts/gemm-1.html").select(".fork-sidebar a")
    ]
    if change == "add":
        titles = [a.get_text() for a in page.select(".fork-series a")]
        assert "GEMM part four" in titles and "GEMM part four" in shown
        # The tenth post joins the newest posts on the listing's own page: the numbered
        # pages, kept, still lead to it.
        outdir = Path(again.outdir)
        assert _pagination(outdir, "blog.html") == [
            "blog.html",
            "blog/page/2.html",
            "blog/page/1.html",
        ]
        assert len(soup(outdir / "blog.html").select(".fork-entry")) == 4
        assert _catalog(outdir, "category") == {"Article": 10}
    else:
        assert page.select_one(".kb-sidebar") is None and shown
