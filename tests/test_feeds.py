"""Feeds: build tests/roots/test-feeds/ and parse what comes out.

RSS and Atom are parsed with feedparser (bozo must be false) and lxml (the elements RFC 4287
and the RSS 2.0 specification require); JSON Feed, which feedparser does not read, is checked
against the JSON Feed 1.1 specification's required fields and types.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import feedparser
import pytest
from bs4 import BeautifulSoup
from helpers import soup, warning_lines, write_post
from lxml import etree
from sphinx.errors import ConfigError

from kb.config import KbConfig, read_config
from kb.feeds import formats as feedformats
from kb.feeds.scopes import FORMATS

ROOT = Path(__file__).parent / "roots" / "test-feeds"
BASE = "https://feeds.example.org/kb/"
SITE_NAME = "Feeds & <Friends>"
ATOM = "{http://www.w3.org/2005/Atom}"

HOSTILE_TITLE = "R&D <script>alert(1)</script> \"double\" 'single' ]]> 🚀 שלום עולם مرحبا"
HOSTILE_TAGS = [
    "R&D",
    "<script>alert(1)</script>",
    'say "hi" & it\'s',
    "end]]>",
    "rocket 🚀",
    "שלום",
    "مرحبا",
]


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# What the test root's posts say in their front matter, newest first.
POSTS = {
    "hostile": {
        "title": HOSTILE_TITLE,
        "published": day("2024-04-01"),
        "updated": day("2024-04-01"),
        "authors": ["Alan Turing"],
        "categories": ["Article", "Benchmarks"],
        "tags": HOSTILE_TAGS,
    },
    "elsewhere": {
        "title": "Attention, published elsewhere",
        "published": day("2024-03-05"),
        "updated": day("2024-03-05"),
        "authors": ["Alan Turing"],
        "categories": ["Article"],
        "tags": ["links"],
        "link": "https://elsewhere.example.com/articles/attention?id=7&lang=en",
    },
    "tensor-bench": {
        "title": "Tensor core benchmark",
        "published": day("2024-02-20"),
        "updated": day("2024-03-01"),
        "authors": ["Ada Lovelace", "Alan Turing"],
        "categories": ["Benchmarks"],
        "tags": ["gemm", "tensor-cores"],
    },
    "gemm-basics": {
        "title": "GEMM basics",
        "published": day("2024-01-10"),
        "updated": day("2024-05-02"),
        "authors": ["Ada Lovelace"],
        "categories": ["Article"],
        "tags": ["gemm"],
    },
}
SCOPES = {
    "feeds": list(POSTS),
    "feeds/category/article": [n for n, p in POSTS.items() if "Article" in p["categories"]],
    "feeds/category/benchmarks": [n for n, p in POSTS.items() if "Benchmarks" in p["categories"]],
}


def page_url(name: str) -> str:
    return f"{BASE}posts/{name}.html"


def item_link(name: str) -> str:
    return POSTS[name].get("link", page_url(name))


def build(app) -> Path:
    app.build()
    assert app.warning.getvalue() == ""
    return Path(app.outdir)


def parse(outdir: Path, scope: str, fmt: str):
    path = outdir / scope / FORMATS[fmt][0]
    if fmt == "json":
        return json.loads(path.read_text(encoding="utf-8"))
    parsed = feedparser.parse(path.read_bytes())
    assert parsed.bozo is False, parsed.get("bozo_exception")
    assert parsed.version == {"rss": "rss20", "atom": "atom10"}[fmt]
    return parsed


def entries(feed) -> list[dict]:
    return feed["items"] if isinstance(feed, dict) else feed.entries


def local_file(outdir: Path, url: str) -> Path:
    """The built file an absolute link into the site points at."""
    assert url.startswith(BASE), url
    return outdir / unquote(urldefrag(url)[0][len(BASE) :] or "index.html")


RFC3339_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


# -- Files and URLs ----------------------------------------------------------------------------


@pytest.mark.sphinx("html", testroot="feeds")
def test_feed_files_at_documented_urls(app):
    outdir = build(app)
    found = sorted(p.relative_to(outdir).as_posix() for p in (outdir / "feeds").rglob("*"))
    expected = sorted(f"{scope}/{name}" for scope in SCOPES for name, _, _ in FORMATS.values()) + [
        "feeds/category",
        "feeds/category/article",
        "feeds/category/benchmarks",
    ]
    assert found == sorted(expected)
    # ablog's own Atom feeds stay off: one set of feeds, not two that differ.
    assert [p for p in outdir.rglob("*.xml") if "feeds" not in p.parts] == []


# -- Validity ----------------------------------------------------------------------------------


@pytest.mark.sphinx("html", testroot="feeds")
def test_atom_has_what_rfc_4287_requires(app):
    outdir = build(app)
    feed_ids = set()
    for scope in SCOPES:
        parse(outdir, scope, "atom")  # feedparser: well-formed, Atom 1.0
        root = etree.parse(str(outdir / scope / "atom.xml")).getroot()
        assert root.tag == f"{ATOM}feed"
        assert root.get("{http://www.w3.org/XML/1998/namespace}lang") == "en"
        for name in ("id", "title", "updated"):
            assert len(root.findall(f"{ATOM}{name}")) == 1, name
        assert RFC3339_UTC.match(root.findtext(f"{ATOM}updated"))
        self_links = [link for link in root.findall(f"{ATOM}link") if link.get("rel") == "self"]
        assert [link.get("href") for link in self_links] == [f"{BASE}{scope}/atom.xml"]
        feed_ids.add(root.findtext(f"{ATOM}id"))
        feed_has_author = root.find(f"{ATOM}author/{ATOM}name") is not None
        entry_ids = []
        for entry in root.findall(f"{ATOM}entry"):
            for name in ("id", "title", "updated", "published"):
                assert len(entry.findall(f"{ATOM}{name}")) == 1, name
            assert RFC3339_UTC.match(entry.findtext(f"{ATOM}updated"))
            assert feed_has_author or entry.find(f"{ATOM}author/{ATOM}name") is not None
            alternate = [x for x in entry.findall(f"{ATOM}link") if x.get("rel") == "alternate"]
            assert len(alternate) == 1
            content = entry.find(f"{ATOM}content")
            assert content is not None and content.get("type") == "html" and len(content) == 0
            entry_ids.append(entry.findtext(f"{ATOM}id"))
        assert len(entry_ids) == len(set(entry_ids))
    assert len(feed_ids) == len(SCOPES)  # an id unique to each feed


@pytest.mark.sphinx("html", testroot="feeds")
def test_rss_has_what_rss_2_requires(app):
    outdir = build(app)
    for scope in SCOPES:
        parse(outdir, scope, "rss")  # feedparser: well-formed, RSS 2.0
        root = etree.parse(str(outdir / scope / "rss.xml")).getroot()
        assert root.tag == "rss" and root.get("version") == "2.0"
        channels = root.findall("channel")
        assert len(channels) == 1
        channel = channels[0]
        for name in ("title", "link", "description"):
            assert channel.findtext(name).strip(), name
        assert channel.findtext("language") == "en"
        self_link = channel.find(f"{ATOM}link")
        assert (self_link.get("rel"), self_link.get("href")) == ("self", f"{BASE}{scope}/rss.xml")
        guids = []
        for item in channel.findall("item"):
            assert item.findtext("title") or item.findtext("description")
            guid = item.find("guid")
            assert guid.get("isPermaLink") == "true" and guid.text.startswith(BASE)
            guids.append(guid.text)
            assert parsedate_to_datetime(item.findtext("pubDate")).utcoffset().total_seconds() == 0
        assert len(guids) == len(set(guids))
        newest = max(POSTS[name]["updated"] for name in SCOPES[scope])
        assert parsedate_to_datetime(channel.findtext("lastBuildDate")) == newest


@pytest.mark.sphinx("html", testroot="feeds")
def test_json_feed_has_what_json_feed_1_1_requires(app):
    outdir = build(app)
    for scope in SCOPES:
        feed = parse(outdir, scope, "json")
        assert feed["version"] == "https://jsonfeed.org/version/1.1"
        assert isinstance(feed["title"], str) and feed["title"]
        assert feed["feed_url"] == f"{BASE}{scope}/feed.json"
        assert isinstance(feed["home_page_url"], str) and feed["home_page_url"].startswith(BASE)
        assert feed["language"] == "en"
        assert all(isinstance(a["name"], str) for a in feed["authors"])
        assert isinstance(feed["items"], list)
        ids = []
        for item in feed["items"]:
            assert isinstance(item["id"], str) and item["id"]
            ids.append(item["id"])
            assert isinstance(item.get("content_html") or item.get("content_text"), str)
            for key in ("date_published", "date_modified"):
                assert RFC3339_UTC.match(item[key])
            assert all(isinstance(tag, str) for tag in item["tags"])
            assert all(isinstance(a, dict) and a.get("name") for a in item["authors"])
            assert urlsplit(item["url"]).scheme == "https"
        assert len(ids) == len(set(ids))


# -- Items and metadata ------------------------------------------------------------------------


@pytest.mark.sphinx("html", testroot="feeds")
def test_items_carry_links_ids_dates_authors_and_labels(app):
    outdir = build(app)
    for scope, names in SCOPES.items():
        rss, atom, jsonfeed = (parse(outdir, scope, fmt) for fmt in ("rss", "atom", "json"))
        for fmt, feed in (("rss", rss), ("atom", atom), ("json", jsonfeed)):
            got = entries(feed)
            assert len(got) == len(names), (scope, fmt)
            for name, entry in zip(names, got, strict=True):
                post = POSTS[name]
                if fmt == "json":
                    assert entry["id"] == page_url(name)
                    assert entry["url"] == item_link(name)
                    assert entry["title"] == post["title"]
                    assert entry["date_published"] == f"{post['published']:%Y-%m-%dT%H:%M:%SZ}"
                    assert entry["date_modified"] == f"{post['updated']:%Y-%m-%dT%H:%M:%SZ}"
                    assert [a["name"] for a in entry["authors"]] == post["authors"]
                    assert entry["tags"] == post["categories"] + post["tags"]
                    continue
                assert entry.id == page_url(name)
                assert entry.link == item_link(name)
                assert entry.title == post["title"]
                assert datetime(*entry.published_parsed[:6], tzinfo=UTC) == post["published"]
                assert datetime(*entry.updated_parsed[:6], tzinfo=UTC) == post["updated"]
                assert [a["name"] for a in entry.authors] == post["authors"]
                assert [t.term for t in entry.tags] == post["categories"] + post["tags"]


@pytest.mark.sphinx("html", testroot="feeds")
def test_feed_metadata_and_newest_item_date(app):
    outdir = build(app)
    for scope, names in SCOPES.items():
        atom = parse(outdir, scope, "atom").feed
        rss = parse(outdir, scope, "rss").feed
        jsonfeed = parse(outdir, scope, "json")
        newest = max(POSTS[name]["updated"] for name in names)
        assert datetime(*atom.updated_parsed[:6], tzinfo=UTC) == newest
        assert datetime(*rss.updated_parsed[:6], tzinfo=UTC) == newest
        home = BASE if scope == "feeds" else f"{BASE}blog/{scope.removeprefix('feeds/')}.html"
        assert atom.link == rss.link == jsonfeed["home_page_url"] == home
        assert local_file(outdir, home).is_file()
        assert atom.title == rss.title == jsonfeed["title"]
        assert atom.title.startswith(SITE_NAME)
        assert atom.id == f"{BASE}{scope}/atom.xml"
    assert parse(outdir, "feeds/category/benchmarks", "atom").feed.title == (
        f"{SITE_NAME} — Category: Benchmarks"
    )


@pytest.mark.sphinx("html", testroot="feeds")
def test_content_is_excerpt_then_footer_with_absolute_links(app):
    outdir = build(app)
    for scope in SCOPES:
        for fmt in ("rss", "atom", "json"):
            for entry in entries(parse(outdir, scope, fmt)):
                html = entry["content_html"] if fmt == "json" else entry.summary
                fragment = BeautifulSoup(html, "html.parser")
                for element in fragment.find_all(href=True) + fragment.find_all(src=True):
                    url = element.get("href") or element.get("src")
                    assert urlsplit(url).scheme in ("http", "https"), (scope, fmt, url)
                    if url.startswith(BASE):
                        assert local_file(outdir, url).is_file(), url
                footer = fragment.find_all("p")[-1]
                links = footer.find_all("a")
                title = entry["title"] if fmt == "json" else entry.title
                name = next(n for n, p in POSTS.items() if p["title"] == title)
                verb = "was listed on" if "link" in POSTS[name] else "appeared first on"
                assert footer.get_text() == f"The post {title} {verb} {SITE_NAME}."
                assert [a["href"] for a in links] == [item_link(name), BASE]
                assert [a.get_text() for a in links] == [title, SITE_NAME]
    atom = parse(outdir, "feeds", "atom")
    excerpt = BeautifulSoup(atom.entries[-1].summary, "html.parser").find("p")
    # The excerpt's own links: another post, and an anchor on the post's page.
    assert [a["href"] for a in excerpt.find_all("a")] == [
        page_url("tensor-bench"),
        page_url("gemm-basics") + "#a-section",
    ]


@pytest.mark.sphinx("html", testroot="feeds")
def test_excerpt_links_resolve_on_listing_pages_too(app):
    # The catalog renders each excerpt once, from its post's page, with links rebased onto
    # the root: a MyST link to another post and an #anchor must work at every depth.
    outdir = build(app)
    from_tensor_bench = {page_url("gemm-basics")}
    from_gemm_basics = {page_url("tensor-bench"), page_url("gemm-basics") + "#a-section"}
    expected = {
        "index.html": from_tensor_bench,  # the home page shows the three newest posts
        "blog.html": from_tensor_bench | from_gemm_basics,
        "blog/category/article.html": from_gemm_basics,
    }
    for listing, links in expected.items():
        page = soup(outdir / listing)
        hrefs = [a["href"] for a in page.select(".kb-entry-excerpt a")]
        targets = {urljoin(f"{BASE}{listing}", href) for href in hrefs}
        assert targets == links, listing
        for url in targets:
            assert local_file(outdir, url).is_file(), (listing, url)
    section = soup(outdir / "posts" / "gemm-basics.html").find(id="a-section")
    assert section is not None


@pytest.mark.sphinx("html", testroot="feeds")
def test_hostile_title_and_tags_round_trip(app):
    outdir = build(app)
    for scope in SCOPES:
        for fmt in ("rss", "atom", "json"):
            entry = entries(parse(outdir, scope, fmt))[0]
            if fmt == "json":
                assert entry["title"] == HOSTILE_TITLE
                assert entry["tags"][-len(HOSTILE_TAGS) :] == HOSTILE_TAGS
                html = entry["content_html"]
            else:
                assert entry.title == HOSTILE_TITLE
                assert [t.term for t in entry.tags][-len(HOSTILE_TAGS) :] == HOSTILE_TAGS
                html = entry.summary
            excerpt = BeautifulSoup(html, "html.parser").find("p")
            assert excerpt.get_text() == "An excerpt with R&D, <b>not bold</b> and ]]> in it."
            assert excerpt.find("b") is None and excerpt.find("script") is None
    # The raw XML holds the title as escaped text, never as markup.
    atom = etree.parse(str(outdir / "feeds" / "atom.xml")).getroot()
    title = atom.find(f"{ATOM}entry/{ATOM}title")
    assert title.text == HOSTILE_TITLE and len(title) == 0
    assert b"<script>" not in (outdir / "feeds" / "rss.xml").read_bytes()


# -- Order, length, settings -------------------------------------------------------------------


@pytest.mark.sphinx(
    "html", testroot="feeds", srcdir="feeds-length", confoverrides={"kb_feed_length": 2}
)
def test_newest_n_items_newest_first(app):
    outdir = build(app)
    for scope, names in SCOPES.items():
        for fmt in ("rss", "atom", "json"):
            titles = [e["title"] for e in entries(parse(outdir, scope, fmt))]
            assert titles == [POSTS[name]["title"] for name in names[:2]], (scope, fmt)


@pytest.mark.sphinx(
    "html",
    testroot="feeds",
    srcdir="feeds-footer",
    confoverrides={
        "kb_feed_footer": "Read {post_link} at {site_link}",
        "kb_feed_footer_external": "",
        "kb_feed_formats": ["atom"],
    },
)
def test_footer_wording_and_formats_are_settings(app):
    outdir = build(app)
    assert sorted(p.name for p in (outdir / "feeds").iterdir()) == ["atom.xml", "category"]
    for entry in parse(outdir, "feeds", "atom").entries:
        paragraphs = BeautifulSoup(entry.summary, "html.parser").find_all("p")
        if entry.link.startswith(BASE):
            assert paragraphs[-1].get_text() == f"Read {entry.title} at {SITE_NAME}"
        else:  # the external post: its footer is switched off
            assert len(paragraphs) == 1
    links = soup(outdir / "index.html").select('head link[rel="alternate"]')
    assert [link["type"] for link in links] == ["application/atom+xml"]


@pytest.mark.sphinx(
    "html", testroot="feeds", srcdir="feeds-fulltext", confoverrides={"kb_feed_fulltext": True}
)
def test_full_text_mode(app):
    outdir = build(app)
    atom = parse(outdir, "feeds", "atom")
    entry = atom.entries[-1]
    assert entry.title == "GEMM basics"
    summary = BeautifulSoup(entry.summary, "html.parser")
    content = BeautifulSoup(entry.content[0].value, "html.parser")
    assert "Second paragraph" not in summary.get_text()
    assert "Second paragraph, only in the full text." in content.get_text()
    assert content.find("h1") is None and "¶" not in content.get_text()
    assert [h.get_text() for h in content.find_all("h2")] == ["A section"]
    image = content.find("img")
    assert image["src"].startswith(f"{BASE}_images/") and local_file(outdir, image["src"]).is_file()
    hrefs = [a["href"] for a in content.find_all("a")]
    assert hrefs[:2] == [page_url("tensor-bench"), page_url("gemm-basics") + "#a-section"]
    assert "https://example.com/x?a=1&b=2" in hrefs
    for url in hrefs:
        assert urlsplit(url).scheme == "https"
        if url.startswith(BASE):
            assert local_file(outdir, url).is_file(), url
    assert (
        content.find_all("p")[-1].get_text()
        == f"The post GEMM basics appeared first on {SITE_NAME}."
    )
    rss = etree.parse(str(outdir / "feeds" / "rss.xml")).getroot()
    encoded = rss.findall("channel/item/{http://purl.org/rss/1.0/modules/content/}encoded")
    assert encoded[-1].text == entry.content[0].value
    item = parse(outdir, "feeds", "json")["items"][-1]
    assert item["content_html"] == entry.content[0].value
    assert item["summary"].startswith("A first look at tiling")


@pytest.mark.sphinx(
    "html",
    testroot="feeds",
    srcdir="feeds-tags",
    confoverrides={"kb_feed_tags": True, "kb_feed_authors": True},
)
def test_tag_and_author_feeds_when_enabled(app):
    outdir = build(app)
    tags = {tag for post in POSTS.values() for tag in post["tags"]}
    tag_feeds = sorted((outdir / "feeds" / "tag").iterdir())
    assert len(tag_feeds) == len(tags)
    for folder in tag_feeds:
        feed = parse(outdir, f"feeds/tag/{folder.name}", "atom")
        term = feed.feed.title.split("Tag: ", 1)[1]
        assert term in tags
        assert [e.title for e in feed.entries] == [
            p["title"] for p in POSTS.values() if term in p["tags"]
        ]
    hebrew = parse(outdir, "feeds/tag/שלום", "rss")
    assert hebrew.feed.link == f"{BASE}blog/tag/%D7%A9%D7%9C%D7%95%D7%9D.html"
    assert local_file(outdir, hebrew.feed.link).is_file()
    ada = parse(outdir, "feeds/author/ada-lovelace", "json")
    assert [i["title"] for i in ada["items"]] == ["Tensor core benchmark", "GEMM basics"]
    page = soup(outdir / "blog" / "author" / "ada-lovelace.html")
    hrefs = [link["href"] for link in page.select('head link[rel="alternate"]')]
    assert f"{BASE}feeds/author/ada-lovelace/rss.xml" in hrefs


# -- Autodiscovery -----------------------------------------------------------------------------


def discovery(path: Path) -> list[tuple[str, str, str]]:
    links = soup(path).select('head link[rel="alternate"]')
    return [(link["type"], link["title"], link["href"]) for link in links]


def site_links():
    return [
        (media, f"{SITE_NAME} ({label})", f"{BASE}feeds/{name}")
        for name, media, label in FORMATS.values()
    ]


@pytest.mark.sphinx(
    "html", testroot="feeds", srcdir="feeds-pages", confoverrides={"kb_page_size": 1}
)
def test_autodiscovery_links(app):
    outdir = build(app)
    pages = [p for p in outdir.rglob("*.html") if "_static" not in p.parts]
    archive_pages = {"blog/category/article.html", "blog/category/article/page/2.html"}
    assert archive_pages <= {p.relative_to(outdir).as_posix() for p in pages}
    for page in pages:
        links = discovery(page)
        assert links[:3] == site_links(), page
        relative = page.relative_to(outdir).as_posix()
        if relative in archive_pages:
            title = f"{SITE_NAME} — Category: Article"
            assert links[3:] == [
                (media, f"{title} ({label})", f"{BASE}feeds/category/article/{name}")
                for name, media, label in FORMATS.values()
            ]
        elif not relative.startswith("blog/category/"):
            assert links[3:] == [], page
    for _, _, href in discovery(outdir / "blog/category/article/page/2.html"):
        assert local_file(outdir, href).is_file()


@pytest.mark.sphinx(
    "html",
    testroot="feeds",
    srcdir="feeds-nourl",
    confoverrides={"html_baseurl": "", "blog_baseurl": ""},
)
def test_no_site_url_warns_once_and_skips_feeds(app):
    app.build()
    warnings = app.warning.getvalue().strip().splitlines()
    assert len(warnings) == 1
    assert "no feeds written: set html_baseurl in conf.py" in warnings[0]
    assert "[kb.feeds]" in warnings[0]
    outdir = Path(app.outdir)
    assert not (outdir / "feeds").exists()
    assert discovery(outdir / "index.html") == []
    # Nothing to subscribe to, so no page offers it.
    assert not (outdir / "feeds.html").exists()
    assert soup(outdir / "index.html").select(".kb-subscribe") == []
    assert soup(outdir / "blog/category/article.html").select(".kb-subscribe-line") == []


# -- What a reader sees: subscribe links and the feeds page ------------------------------------


def linked_file(outdir: Path, page: str, href: str) -> Path:
    """The built file a relative link on a page points at."""
    return (outdir / page).parent.joinpath(unquote(href)).resolve()


@pytest.mark.sphinx(
    "html", testroot="feeds", srcdir="feeds-subscribe", confoverrides={"kb_page_size": 1}
)
def test_every_page_shows_subscribe_links(app):
    outdir = build(app)
    pages = ["index.html", "posts/gemm-basics.html", "blog/category/article/page/2.html"]
    for page in pages:
        (section,) = soup(outdir / page).select(".sidebar-drawer .kb-subscribe")
        assert section.find("h2").get_text(strip=True) == "Subscribe"
        links = {a.get_text(): a["href"] for a in section.select("a")}
        assert list(links) == ["RSS", "Atom", "JSON Feed", "All feeds"]
        for (name, media, _), label in zip(
            FORMATS.values(), ["RSS", "Atom", "JSON Feed"], strict=True
        ):
            assert linked_file(outdir, page, links[label]) == (outdir / "feeds" / name).resolve()
            assert section.find("a", string=label)["type"] == media
        assert linked_file(outdir, page, links["All feeds"]) == (outdir / "feeds.html").resolve()
    # An archive with a feed of its own offers it under its heading, on each of its pages.
    for page in ("blog/category/article.html", "blog/category/article/page/2.html"):
        (line,) = soup(outdir / page).select("article .kb-subscribe-line")
        assert line.get_text(" ", strip=True).startswith("Subscribe to this category: RSS")
        hrefs = [a["href"] for a in line.select("a")]
        assert [linked_file(outdir, page, href) for href in hrefs] == [
            *(
                (outdir / "feeds/category/article" / name).resolve()
                for name, _, _ in FORMATS.values()
            ),
            (outdir / "feeds.html").resolve(),
        ]
    # Tags have no feeds here (kb_feed_tags is off), so their archives offer none.
    assert soup(outdir / "blog/tag/gemm.html").select(".kb-subscribe-line") == []


@pytest.mark.sphinx("html", testroot="feeds", srcdir="feeds-page")
def test_feeds_page_lists_every_feed_with_its_urls(app):
    outdir = build(app)
    page = soup(outdir / "feeds.html")
    article = page.select_one("article")
    assert article.find("h1").get_text() == "Feeds"
    intro = article.select_one(".kb-feeds-intro").get_text()
    assert "feed reader" in intro and "copy a feed's address" in intro
    # Every feed file the build wrote is on the page: its absolute URL as the text, a link
    # that leads to it.
    written = {
        f"{BASE}{path.relative_to(outdir).as_posix()}"
        for path in (outdir / "feeds").rglob("*")
        if path.is_file()
    }
    shown = {}
    for link in article.select(".kb-feed-urls a"):
        shown[link.get_text()] = link["href"]
        assert linked_file(outdir, "feeds.html", link["href"]) == local_file(
            outdir, link.get_text()
        )
    assert set(shown) == written
    formats = [s.get_text() for s in article.select(".kb-feed-urls li .kb-feed-format")][:3]
    assert formats == ["RSS 2.0", "Atom 1.0", "JSON Feed 1.1"]
    headings = [h.get_text(strip=True) for h in article.select("h2, h3")]
    assert headings == ["The whole site", "Categories", "Article", "Benchmarks"]
    assert article.select_one("h3 a")["href"] == "blog/category/article.html"
    assert "feeds.html" in (outdir / "sitemap.xml").read_text()


# -- Reproducible and incremental --------------------------------------------------------------


def feed_bytes(outdir: Path) -> dict[str, bytes]:
    return {
        p.relative_to(outdir).as_posix(): p.read_bytes()
        for p in sorted((outdir / "feeds").rglob("*"))
        if p.is_file()
    }


def build_copy(make_app, srcdir: Path) -> Path:
    """Build a copy of the root in its own app; clean up so that the next app starts afresh."""
    app = make_app("html", srcdir=srcdir)
    try:
        return build(app)
    finally:
        app.cleanup()


def build_in_zone(make_app, srcdir: Path, zone: str) -> dict[str, bytes]:
    shutil.copytree(ROOT, srcdir)
    saved = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        return feed_bytes(build_copy(make_app, srcdir))
    finally:
        if saved is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved
        time.tzset()


def test_two_builds_give_byte_identical_feeds(make_app, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    # UTC+14 and UTC-10: the two builds disagree on today's date, not only on the hour.
    first = build_in_zone(make_app, tmp_path / "east", "Pacific/Kiritimati")
    time.sleep(1.1)  # and read a different clock, to the second
    second = build_in_zone(make_app, tmp_path / "west", "America/Adak")
    assert len(first) == 3 * len(SCOPES)
    assert first.keys() == second.keys()
    for path in first:
        assert first[path] == second[path], path


@pytest.mark.slow
def test_rebuild_rewrites_only_changed_feeds(make_app, tmp_path):
    srcdir = tmp_path / "site"
    shutil.copytree(ROOT, srcdir)
    outdir = build_copy(make_app, srcdir)
    before = {path: (outdir / path).stat().st_mtime_ns for path in feed_bytes(outdir)}
    assert build_copy(make_app, srcdir) == outdir  # nothing changed: nothing rewritten
    assert {path: (outdir / path).stat().st_mtime_ns for path in feed_bytes(outdir)} == before
    source = srcdir / "posts" / "tensor-bench.md"
    text = source.read_text(encoding="utf-8")
    source.write_text(text.replace("# Tensor core benchmark", "# Tensor cores"), encoding="utf-8")
    build_copy(make_app, srcdir)
    after = {path: (outdir / path).stat().st_mtime_ns for path in feed_bytes(outdir)}
    changed = sorted(path for path in before if after[path] != before[path])
    # The post is in the site feed and the Benchmarks feed, not in Article's.
    assert changed == sorted(
        f"{scope}/{name}"
        for scope in ("feeds", "feeds/category/benchmarks")
        for name, _, _ in FORMATS.values()
    )
    titles = [i["title"] for i in parse(outdir, "feeds/category/benchmarks", "json")["items"]]
    assert titles == [HOSTILE_TITLE, "Tensor cores"]


@pytest.mark.slow
def test_unchanged_feeds_are_not_even_serialized(make_app, tmp_path, monkeypatch):
    """A no-change rebuild skips the feeds by their signature; full-text feeds show whole
    posts, which the signature does not cover, so they are serialized every time."""
    srcdir = tmp_path / "site"
    shutil.copytree(ROOT, srcdir)
    outdir = build_copy(make_app, srcdir)
    before = feed_bytes(outdir)
    serialized = []

    def counting(writer):
        def write(feed):
            serialized.append(feed.title)
            return writer(feed)

        return write

    monkeypatch.setattr(
        feedformats, "WRITERS", {fmt: counting(w) for fmt, w in feedformats.WRITERS.items()}
    )
    build_copy(make_app, srcdir)
    assert serialized == []
    assert feed_bytes(outdir) == before
    app = make_app("html", srcdir=srcdir, confoverrides={"kb_feed_fulltext": True})
    try:
        build(app)
    finally:
        app.cleanup()
    assert len(serialized) == 3 * len(SCOPES)


@pytest.mark.slow
def test_an_added_post_serializes_only_the_feeds_that_hold_it(make_app, tmp_path, monkeypatch):
    """Each feed is signed on its own: a new Benchmarks post makes the site's feed and the
    Benchmarks feed again, not Article's; the files are those of a clean build."""
    srcdir = tmp_path / "site"
    shutil.copytree(ROOT, srcdir)
    build_copy(make_app, srcdir)
    (srcdir / "posts" / "new-bench.md").write_text(
        "---\nblogpost: true\ndate: 2024-04-02\ncategory: Benchmarks\nauthor: ada\n---\n\n"
        "# A new benchmark\n\nFresh figures.\n",
        encoding="utf-8",
    )
    serialized = []

    def counting(writer):
        def write(feed):
            serialized.append(feed.self_urls["atom"].removeprefix(BASE))
            return writer(feed)

        return write

    monkeypatch.setattr(
        feedformats, "WRITERS", {fmt: counting(w) for fmt, w in feedformats.WRITERS.items()}
    )
    outdir = build_copy(make_app, srcdir)
    assert sorted(set(serialized)) == ["feeds/atom.xml", "feeds/category/benchmarks/atom.xml"]
    monkeypatch.undo()
    clean = tmp_path / "clean"
    shutil.copytree(srcdir, clean, ignore=shutil.ignore_patterns("_build"))
    assert feed_bytes(outdir) == feed_bytes(build_copy(make_app, clean))


def test_tags_sharing_a_feed_url_are_reported(make_app, tmp_path):
    # Reported once, by the front-matter checks at the post's tags line (the feeds' own
    # warning, which had no location, leaves tags and series to them).
    srcdir = tmp_path / "site"
    shutil.copytree(ROOT, srcdir)
    write_post(srcdir, "posts/langs.md", "Languages", "2024-05-01", tags=["C++", "C#"])
    app = make_app("html", srcdir=srcdir, confoverrides={"kb_feed_tags": True})
    try:
        app.build()
    finally:
        app.cleanup()
    warnings = [w for w in warning_lines(app.warning) if "[kb." in w]
    assert warnings == [
        f'{srcdir / "posts/langs.md"}:5: WARNING: tag "C#" and tag "C++" (posts/langs.md:5) '
        'both get the page blog/tag/c, so one overwrites the other: write "C++" if they mean '
        "the same, or rename this one [kb.frontmatter]"
    ]


# -- Settings are validated --------------------------------------------------------------------


def config(**overrides) -> SimpleNamespace:
    values = {f"kb_{name}": value for name, value in KbConfig().__dict__.items()}
    values |= {f"kb_{name}": value for name, value in overrides.items()}
    return SimpleNamespace(project="P", **values)


def test_feed_settings_are_validated():
    assert read_config(config()).feed_formats == ("rss", "atom", "json")
    with pytest.raises(ConfigError, match=r"kb_feed_formats must list some of rss, atom, json"):
        read_config(config(feed_formats=["rss", "xml"]))
    with pytest.raises(ConfigError, match=r"kb_feed_footer may only use .*got \{title\}"):
        read_config(config(feed_footer="{title} appeared first on {site_link}"))
    with pytest.raises(ConfigError, match=r"kb_feed_length must be a positive integer, got 0"):
        read_config(config(feed_length=0))


@pytest.mark.parametrize("name", ["search_shard_size", "doctrees_in_memory"])
def test_whole_number_settings_are_validated(name):
    assert getattr(read_config(config(**{name: 0})), name) == 0
    assert getattr(read_config(config(**{name: "12"})), name) == 12  # as -D gives it
    for bad in (-1, "many", True, 1.5):
        with pytest.raises(ConfigError, match=rf"kb_{name} must be a whole number >= 0"):
            read_config(config(**{name: bad}))
