"""The built real site as files: valid HTML (the Nu checker) and no broken internal link.

Links are checked by parsing every page (lxml) and every feed, resolving each link the way a
browser would, and requiring the target file and, for ``#fragment`` links, the element with
that id. Links to the site's own URL (``html_baseurl``: canonical links, feed entries) are
mapped to the output files; links to other sites are not fetched (the tests run offline).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import lxml.etree
import lxml.html
import pytest
from sitefacts import ALL_POSTS, published

VNU_JAR = Path(
    os.environ.get("KB_VNU_JAR")
    or Path.home() / ".cache/kb-vnu/node_modules/vnu-jar/build/dist/vnu.jar"
)
LINK_ATTRIBUTES = ("href", "src", "poster", "data")
FEED_SUFFIXES = (".xml", ".atom", ".rss", ".json")
PAGE_ROOT = "http://site.invalid/"  # a stand-in origin, to resolve links with urljoin


def require(condition: bool, message: str) -> None:
    """Skip locally, fail in CI (``CI=true``), when a tool the test needs is missing."""
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


# -- Valid HTML ------------------------------------------------------------------------------


def nu_errors(folder: Path) -> list[str]:
    """The Nu checker's errors for every HTML file under a folder, as ``file:line: message``."""
    require(
        shutil.which("java") is not None, "Java is missing: apt-get install default-jre-headless"
    )
    require(VNU_JAR.is_file(), f"the Nu HTML checker is missing at {VNU_JAR} (run `make vnu`)")
    # The client compiler alone (a run this short never repays the optimising one's threads):
    # 2.6 CPU-s for the real site instead of 5.6; its larger frames need a larger stack.
    java = ["java", "-XX:TieredStopAtLevel=1", "-Xss16m"]
    command = [*java, "-jar", str(VNU_JAR), "--errors-only", "--format", "json", "--stdout"]
    result = subprocess.run(
        [*command, "--skip-non-html", str(folder)], capture_output=True, text=True, check=False
    )
    assert result.stdout, result.stderr
    return [
        f"{Path(urlsplit(m.get('url', '')).path).relative_to(folder)}:{m.get('lastLine')}: "
        f"{m['message']}"
        for m in json.loads(result.stdout)["messages"]
        if m["type"] in ("error", "non-document-error")
    ]


def test_every_page_is_valid_html(built_site):
    errors = nu_errors(built_site)
    assert errors == [], "\n".join(errors)


def test_nu_checker_reports_errors(tmp_path):
    (tmp_path / "index.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><title>x</title></head>'
        '<body><p id="a"></p><p id="a"></p></body></html>'
    )
    assert nu_errors(tmp_path) == ["index.html:1: Duplicate ID “a”."]


# -- Internal links --------------------------------------------------------------------------


@cache
def ids_in(path: Path) -> frozenset[str]:
    """The fragment targets of a page: element ids, and names of ``<a name>`` anchors."""
    tree = lxml.html.parse(str(path))
    ids = set(tree.xpath("//@id")) | set(tree.xpath("//a/@name"))
    return frozenset(ids)


def site_base_url(site: Path) -> str:
    """The site's public URL, read from the home page's canonical link."""
    canonical = lxml.html.parse(str(site / "index.html")).xpath("//link[@rel='canonical']/@href")
    assert canonical and canonical[0].endswith("index.html"), "the home page has no canonical link"
    return canonical[0][: -len("index.html")]


def resolve(site: Path, page_url: str, link: str, base_url: str) -> tuple[Path, str] | None:
    """The file and fragment a link on a page points to; None for links off the site."""
    if link.startswith(base_url):
        link = PAGE_ROOT + link[len(base_url) :]
    target = urlsplit(urljoin(page_url, link))
    if f"{target.scheme}://{target.netloc}/" != PAGE_ROOT:
        return None  # another site, mailto:, data:, javascript: …
    path = unquote(target.path)[1:]
    if path == "" or path.endswith("/"):
        path += "index.html"
    return site / path, unquote(target.fragment)


def broken(site: Path, source: Path, links: Iterator[str], base_url: str) -> Iterator[str]:
    page_url = PAGE_ROOT + source.relative_to(site).as_posix()
    for link in links:
        resolved = resolve(site, page_url, link.strip(), base_url)
        if resolved is None:
            continue
        target, fragment = resolved
        name = source.relative_to(site)
        if not target.is_file():
            yield f"{name}: {link} → no file {target.relative_to(site)}"
        elif fragment and target.suffix == ".html" and fragment not in ids_in(target):
            yield f"{name}: {link} → no id {fragment!r} in {target.relative_to(site)}"


def html_links(path: Path) -> Iterator[str]:
    tree = lxml.html.parse(str(path))
    for attribute in LINK_ATTRIBUTES:
        yield from tree.xpath(f"//*[@{attribute}]/@{attribute}")
    for srcset in tree.xpath("//@srcset"):
        yield from (candidate.split()[0] for candidate in srcset.split(",") if candidate.strip())
    # Absolute links to the site in metadata (Open Graph, Twitter cards).
    yield from tree.xpath("//meta[starts-with(@content, 'http')]/@content")


def test_every_internal_link_resolves(built_site):
    base_url = site_base_url(built_site)
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > len(list(filter(published, ALL_POSTS)))  # posts, listings, feeds
    problems = [
        problem
        for page in pages
        for problem in broken(built_site, page, html_links(page), base_url)
    ]
    assert problems == [], "\n".join(problems)


def feed_links(path: Path) -> Iterator[str]:
    """Every link in an Atom, RSS or JSON feed (or sitemap), entry content included."""
    if path.suffix == ".json":
        yield from json_feed_links(json.loads(path.read_text(encoding="utf-8")))
        return
    tree = lxml.etree.parse(str(path))
    yield from tree.xpath("//@href | //@url")
    for element in tree.iter("{*}link", "{*}guid", "{*}id", "{*}loc"):
        text = (element.text or "").strip()
        if text.startswith(("http:", "https:")):  # an Atom id may be a tag: URI
            yield text
    for element in tree.iter("{*}content", "{*}summary", "{*}description", "{*}encoded"):
        yield from content_links(element.text or "")


JSON_FEED_LINK_KEYS = {"url", "external_url", "feed_url", "home_page_url", "image", "avatar"}
#: data/benchmarks.json's links besides ``url``: the benchmarks page, the files, the schema.
JSON_DATA_LINK_KEYS = {"page", "csv", "metadata", "schema"}


def json_feed_links(value) -> Iterator[str]:
    """Links in a JSON Feed (its URL fields, ids that are URLs, and entries' HTML) or in the
    benchmarks catalog; a JSON Schema's same-named keys hold objects and are walked instead."""
    if isinstance(value, dict):
        for key, item in value.items():
            is_url_id = key == "id" and str(item).startswith(("http:", "https:"))
            if key in ("content_html", "summary") and isinstance(item, str):
                yield from content_links(item)
            elif isinstance(item, str) and (
                key in JSON_FEED_LINK_KEYS | JSON_DATA_LINK_KEYS or is_url_id
            ):
                yield item
            else:
                yield from json_feed_links(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_feed_links(item)


def content_links(html: str) -> Iterator[str]:
    """Links inside a feed entry's HTML (escaped in the feed)."""
    if "<" not in html:
        return
    fragment = lxml.html.fragment_fromstring(html, create_parent="div")
    yield from fragment.xpath(".//@href | .//@src")


def feed_problems(site: Path, feed: Path, base_url: str) -> Iterator[str]:
    """Relative links (a reader resolves them against the feed's URL, not the post's: ablog
    #19) and links to the site that lead nowhere."""
    name = feed.relative_to(site)
    links = list(feed_links(feed))
    for link in links:
        if not urlsplit(link).scheme and not link.startswith("#"):
            yield f"{name}: relative link {link!r} (feed readers cannot resolve it)"
    site_links = (link for link in links if link.startswith(base_url))
    yield from broken(site, feed, site_links, base_url)


def site_feeds(site: Path) -> list[Path]:
    """Feeds and other site-level XML/JSON documents (sitemap), not theme or search assets."""
    skip = {"_static", "_sources", "pagefind", "_images"}
    return sorted(
        path
        for path in site.rglob("*")
        if path.suffix in FEED_SUFFIXES
        and not skip & set(path.relative_to(site).parts)
        and path.name != "searchindex.json"
    )


def test_every_feed_link_resolves(built_site):
    feeds = site_feeds(built_site)
    if not feeds:
        pytest.skip("the build has no feeds yet (kb.feeds)")
    base_url = site_base_url(built_site)
    problems = [problem for feed in feeds for problem in feed_problems(built_site, feed, base_url)]
    assert problems == [], "\n".join(problems)


# -- The checker itself, on a tiny hand-made site ---------------------------------------------

BASE = "https://example.org/kb/"


def test_link_checker_reports_missing_pages_and_ids(tmp_path):
    (tmp_path / "posts").mkdir()
    (tmp_path / "index.html").write_text(
        '<html><body><h1 id="top">Home</h1><a href="posts/a.html#intro">ok</a>'
        '<a href="posts/a.html#nowhere">no id</a><a href="posts/gone.html">no page</a>'
        f'<a href="{BASE}posts/a.html">absolute, ok</a><a href="{BASE}missing.html">absolute</a>'
        '<a href="https://elsewhere.org/x.html">other site</a><a href="#top">ok</a>'
        '<img src="/img.png" alt=""></body></html>'
    )
    (tmp_path / "posts" / "a.html").write_text(
        '<html><body><section id="intro"><a href="../index.html#top">up</a></section></body></html>'
    )
    page = tmp_path / "index.html"
    assert list(broken(tmp_path, page, html_links(page), BASE)) == [
        "index.html: posts/a.html#nowhere → no id 'nowhere' in posts/a.html",
        "index.html: posts/gone.html → no file posts/gone.html",
        f"index.html: {BASE}missing.html → no file missing.html",
        "index.html: /img.png → no file img.png",
    ]
    post = tmp_path / "posts" / "a.html"
    assert list(broken(tmp_path, post, html_links(post), BASE)) == []


def test_feed_checker_reports_relative_and_dangling_links(tmp_path):
    (tmp_path / "index.html").write_text("<html><body><p id='x'>x</p></body></html>")
    feed = tmp_path / "atom.xml"
    feed.write_text(
        '<feed xmlns="http://www.w3.org/2005/Atom"><id>tag:example.org,2025:feed</id>'
        f'<link href="{BASE}index.html" rel="alternate"/>'
        f'<entry><id>{BASE}posts/b.html</id><link href="{BASE}index.html#x"/>'
        '<content type="html">&lt;p&gt;&lt;a href="../index.html"&gt;up&lt;/a&gt;'
        f'&lt;img src="{BASE}_images/c.png"&gt;&lt;/p&gt;</content></entry></feed>'
    )
    assert sorted(feed_problems(tmp_path, feed, BASE)) == [
        f"atom.xml: {BASE}_images/c.png → no file _images/c.png",
        f"atom.xml: {BASE}posts/b.html → no file posts/b.html",
        "atom.xml: relative link '../index.html' (feed readers cannot resolve it)",
    ]
