"""The real site's evergreen pages, glossary and backlinks, checked against the sources.

What is expected comes from ``pages/glossary.md`` and the posts themselves, so a fork that
replaces them stays green: every post that uses a glossary term in its prose links it at least
once; each glossary entry lists exactly the published posts that link it; each post's and
page's "Linked from" lists exactly the published posts whose text links to it (the CUTLASS
pipelining post among them); and the pages are in the navigation, the sitemap and the search
index.
"""

from __future__ import annotations

import json
from pathlib import Path

import feedparser
import pytest
from helpers import resolve_link, soup
from searchbundle import read_bundle
from sitefacts import ALL_POSTS, REPO, docname, published, require_posts, title_of

from kb.checks.glossary import glossary_entries, term_references, unlinked_uses
from kb.checks.notebook import check_source
from kb.checks.sitechecks import link_docname

GLOSSARY = REPO / "pages" / "glossary.md"
ENTRIES = glossary_entries(GLOSSARY.read_text(encoding="utf-8"))
PAGES = sorted((REPO / "pages").rglob("*.md"))
PUBLISHED = [path for path in ALL_POSTS if published(path)]


def prose_source(path: Path) -> str:
    """A post's Markdown: the file, or a notebook's markdown cells one after another."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        return text
    cells = json.loads(text)["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def linked_entries(path: Path) -> set[tuple[str, ...]]:
    targets = {target.casefold() for target, _ in term_references(prose_source(path))}
    return {entry.terms for entry in ENTRIES if entry.keys & targets}


def links_of(path: Path) -> set[str]:
    """The documents a post's text links to, as kb check reads its links."""
    relpath = path.relative_to(REPO).as_posix()
    facts, _ = check_source(relpath, path.read_text(encoding="utf-8"), _rules())
    found = {link_docname(target, relpath) for target, _ in facts.links}
    return {name for name in found if name and name != docname(path)}


def _rules():
    from sitefacts import SITE

    return SITE.rules(None)


def test_the_glossary_covers_the_terms_the_posts_use():
    terms = {key for entry in ENTRIES for key in entry.keys}
    for wanted in ("wgmma", "tma", "tmem", "tcgen05", "warp specialization", "stream-k", "mig"):
        assert wanted in terms, wanted
    assert len(ENTRIES) >= 20


@pytest.mark.parametrize("path", ALL_POSTS, ids=lambda p: p.name)
def test_every_post_links_each_glossary_term_it_uses(path: Path):
    unlinked = [
        (entry.terms[0], line) for entry, line in unlinked_uses(prose_source(path), ENTRIES)
    ]
    assert unlinked == [], f"{path.name} uses these terms without a {{term}} link: {unlinked}"


def test_each_entry_lists_the_posts_that_link_it(built_site: Path):
    page = soup(built_site / "pages" / "glossary.html")
    by_id = {dt["id"]: dt for dt in page.select("dl.glossary dt[id]")}
    assert len(by_id) >= sum(len(entry.terms) for entry in ENTRIES)
    for entry in ENTRIES:
        expected = {docname(p) for p in PUBLISHED if entry.terms in linked_entries(p)}
        term = next(dt for dt in by_id.values() if dt.get_text().rstrip("¶") == entry.terms[-1])
        listed = term.find_next_sibling("dd").select(".kb-term-uses a")
        shown = {resolve_link("pages/glossary", a["href"]).removesuffix(".html") for a in listed}
        assert shown == expected, entry.terms
        titles = {title_of(REPO / f"{name}.md") for name in shown if (REPO / f"{name}.md").exists()}
        assert titles <= {a.get_text() for a in listed}


def _backlinks(built_site: Path, name: str) -> list[str]:
    page = soup(built_site / f"{name}.html")
    return [
        resolve_link(name, a["href"]).removesuffix(".html") for a in page.select(".kb-backlinks a")
    ]


def test_linked_from_lists_every_post_whose_text_links_there(built_site: Path):
    linking: dict[str, set[str]] = {}
    for path in PUBLISHED:
        for target in links_of(path):
            linking.setdefault(target, set()).add(docname(path))
    for path in [*PUBLISHED, *PAGES]:
        name = docname(path)
        shown = _backlinks(built_site, name)
        assert len(shown) == len(set(shown)), name
        assert set(shown) == linking.get(name, set()), name


def test_the_pipelining_post_lists_every_post_that_links_it(built_site: Path):
    pipelining = "posts/2025/cutlass-gemm-pipelining"
    require_posts(pipelining)
    expected = {docname(p) for p in PUBLISHED if pipelining in links_of(p)}
    assert len(expected) >= 3
    assert set(_backlinks(built_site, pipelining)) == expected


@pytest.mark.parametrize("name", ["pages/about", "pages/glossary", "pages/hardware"])
def test_the_pages_are_in_the_navigation_the_sitemap_and_search(built_site: Path, name: str):
    home = soup(built_site / "index.html")
    navigation = {a["href"].removesuffix(".html") for a in home.select(".sidebar-tree a")}
    assert name in navigation
    assert f"/{name}.html</loc>" in (built_site / "sitemap.xml").read_text(encoding="utf-8")
    page = soup(built_site / f"{name}.html")
    assert page.select_one("[data-pagefind-body]") is not None
    assert page.select_one('meta[property="og:title"]') is not None
    assert page.select_one('meta[property="og:type"]')["content"] == "website"
    words = read_bundle(built_site / "pagefind")["languages"]["en"]["words"]
    assert any(f"{name}.html" in url for where, _ in words.values() for url in where)


def test_pages_are_never_listed_or_in_feeds(built_site: Path):
    listed = set()
    for listing in [built_site / "blog.html", *(built_site / "blog").rglob("*.html")]:
        listed |= {a["href"] for a in soup(listing).select(".kb-entry-title a")}
    assert listed and not any("pages/" in href for href in listed)
    for feed in (built_site / "feeds").rglob("*.xml"):
        links = {entry.link for entry in feedparser.parse(feed.read_bytes()).entries}
        assert links and not any("/pages/" in link for link in links), feed
    assert len(PAGES) >= 3
