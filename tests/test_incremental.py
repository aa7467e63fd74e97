"""Incremental builds give what clean builds give.

A site is built, changed the way authors change it (retitle an old post, retitle the newest,
add a post with a new tag), and rebuilt incrementally with a fresh Sphinx application in the
same folders, as ``sphinx-build`` or ``sphinx-autobuild`` would. After each step the same
sources are built clean into another folder, and every page's content, sidebars and title,
and every feed, must match.
"""

from __future__ import annotations

import json
import pickle
import shutil
from io import StringIO
from pathlib import Path

import feedparser
import pytest
from helpers import filled_sidebar, soup, warning_lines, write_post
from searchbundle import bundle_files, pages_with
from sphinx.testing.util import SphinxTestApp

from kb.core.fileio import BackgroundWrites

#: What a reader sees of a page: its title, the article, the blog sidebar, furo's navigation
#: and the previous/next links. The rest is theme chrome that no post can change.
FRAGMENTS = {
    "title": "title",
    "article": "article[role=main]",
    "blog sidebar": ".kb-sidebar",
    "navigation": ".sidebar-tree",
    "related pages": ".related-pages",
}
FEED_SUFFIXES = (".xml", ".atom", ".rss")


def build(
    srcdir: Path,
    builddir: Path,
    log: list[str] | None = None,
    read: list[str] | None = None,
    overrides: dict | None = None,
    warnings: list[str] | None = None,
) -> Path:
    """Build with a fresh application (as a new ``sphinx-build`` would); return the output.

    ``log`` receives the documents Sphinx rendered, ``read`` those it read; ``overrides``
    are settings given as ``-D`` gives them. The build must not warn, unless ``warnings`` is
    given: it then receives what Sphinx warned, the source folder written ``SRC``."""
    app = SphinxTestApp(
        "html",
        srcdir=srcdir,
        builddir=builddir,
        status=StringIO(),
        warning=StringIO(),
        confoverrides=overrides or {},
    )
    written, docnames_read = [], []
    app.connect("html-page-context", lambda app, pagename, *args: written.append(pagename))
    app.connect("env-before-read-docs", lambda app, env, names: docnames_read.extend(names))
    try:
        app.build()
    finally:
        app.cleanup()
    if warnings is None:
        assert app.warning.getvalue() == ""
    else:
        warnings[:] = [line.replace(str(srcdir), "SRC") for line in warning_lines(app.warning)]
    if log is not None:
        log[:] = written
    if read is not None:
        read[:] = docnames_read
    return Path(app.outdir)


def clean_build(srcdir: Path, scratch: Path, warnings: list[str] | None = None) -> Path:
    """The same sources built from nothing, in a folder of their own."""
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(srcdir, scratch / "src", ignore=shutil.ignore_patterns("_build"))
    return build(scratch / "src", scratch / "build", warnings=warnings)


def html_pages(outdir: Path) -> set[str]:
    return {
        p.relative_to(outdir).as_posix()
        for p in outdir.rglob("*.html")
        if not p.relative_to(outdir).parts[0].startswith("_")
    }


def fragments(path: Path) -> dict[str, str | None]:
    page = soup(path)
    return {name: _text(page.select_one(selector)) for name, selector in FRAGMENTS.items()}


def _text(node) -> str | None:
    return None if node is None else str(node)


def feed_files(outdir: Path) -> set[str]:
    found = set()
    for path in outdir.rglob("*"):
        relative = path.relative_to(outdir)
        if relative.parts[0].startswith("_") or not path.is_file():
            continue
        if path.suffix in FEED_SUFFIXES or (path.suffix == ".json" and "feed" in path.name):
            found.add(relative.as_posix())
    return found


def feed_content(path: Path):
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    parsed = feedparser.parse(path.read_bytes())
    entries = [
        (e.get("id"), e.get("title"), e.get("link"), e.get("summary"), e.get("updated"))
        for e in parsed.entries
    ]
    return parsed.feed.get("title"), parsed.feed.get("updated"), entries


def assert_matches_clean(incremental: Path, clean: Path) -> None:
    pages = html_pages(clean)
    assert html_pages(incremental) == pages
    assert "index.html" in pages and "blog.html" in pages
    stale = [
        page for page in sorted(pages) if fragments(incremental / page) != fragments(clean / page)
    ]
    assert stale == [], f"pages that differ from a clean build: {stale}"
    feeds = feed_files(clean)
    assert feed_files(incremental) == feeds
    for feed in sorted(feeds):
        assert feed_content(incremental / feed) == feed_content(clean / feed), feed
    # The sidebar's shared lists and the search bundle, byte for byte: what the browser fetches.
    shared = "_kb/sidebar.json"
    assert (incremental / shared).is_file() == (clean / shared).is_file()
    if (clean / shared).is_file():
        assert (incremental / shared).read_bytes() == (clean / shared).read_bytes()
    assert bundle_files(incremental / "pagefind") == bundle_files(clean / "pagefind")


def retitle(path: Path, title: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    heading = next(i for i, line in enumerate(lines) if line.startswith("# "))
    lines[heading] = f"# {title}\n"
    path.write_text("".join(lines), encoding="utf-8")


def listing_region(page: Path) -> bytes:
    """The list of a listing page, between kb's markers (kb.pages.listings.LISTING_MARKERS)."""
    html = page.read_bytes()
    return html[html.index(b"<!--kb-listing-->") : html.index(b"<!--/kb-listing-->")]


@pytest.fixture
def site(tmp_path: Path, rootdir: Path) -> Path:
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-listings", srcdir)
    return srcdir


def test_edits_and_additions_match_a_clean_build(site: Path, tmp_path: Path) -> None:
    builddir = site / "_build"
    outdir = build(site, builddir)
    untouched = outdir / "posts" / "post-14.html"

    # 1. Retitle an old post: its archives change; pages that do not show it are not rewritten
    # (the home page lists the five newest posts).
    before = untouched.stat().st_mtime_ns
    retitle(site / "posts" / "post-03.md", "Post 03, retitled")
    rendered: list[str] = []
    assert_matches_clean(build(site, builddir, rendered), clean_build(site, tmp_path / "clean-1"))
    assert "Post 03, retitled" in soup(outdir / "blog" / "page" / "1.html").get_text()
    assert "posts/post-03" in rendered and "index" not in rendered
    assert untouched.stat().st_mtime_ns == before, (
        "a page that shows nothing of the edit was rewritten"
    )

    # 2. Retitle the newest post: the home page and the sidebar's recent posts change. Those
    # are in the file every page shares: pages that show nothing else of it are untouched.
    retitle(site / "posts" / "post-27.md", "Post 27, retitled")
    rendered.clear()
    assert_matches_clean(build(site, builddir, rendered), clean_build(site, tmp_path / "clean-2"))
    assert "Post 27, retitled" in filled_sidebar(untouched).select_one(".kb-sidebar").get_text()
    assert "posts/post-14" not in rendered and "posts/post-27" in rendered
    assert "index" in rendered  # the home page's list shows it
    assert untouched.stat().st_mtime_ns == before, "a page that shows nothing of it was rewritten"

    # 3. Add a post with a new tag: a new archive, new counts everywhere. Numbered listing
    # pages count from the oldest post, so they keep their posts: only each listing's own page
    # shows the new one. A numbered page is not written again (the sidebar's lists and counts
    # are in the file every page shares), and it is byte for byte what a clean build writes.
    kept = outdir / "blog" / "page" / "1.html"
    listed_before, written_before = listing_region(kept), kept.stat().st_mtime_ns
    write_post(site, "posts/post-28.md", "Post 28", "2025-11-20", tags=["fp8"], author="alan")
    clean = clean_build(site, tmp_path / "clean-3")
    assert_matches_clean(build(site, builddir, rendered), clean)
    assert "blog/page/1" not in rendered
    assert b"Post 28" in listing_region(outdir / "blog.html")
    assert listing_region(kept) == listed_before
    assert kept.stat().st_mtime_ns == written_before, "a numbered page was written again"
    assert kept.read_bytes() == (clean / "blog" / "page" / "1.html").read_bytes()
    assert (outdir / "blog" / "tag" / "fp8.html").is_file()
    home = soup(outdir / "index.html")
    assert home.select(".kb-entry-title")[0].get_text(strip=True) == "Post 28"

    # 4. A tag used once, then taken away with its post, and an old post deleted: their pages
    # go too, as a clean build never writes them.
    write_post(site, "posts/post-29.md", "Post 29", "2025-11-21", tags=["tma"], author="alan")
    build(site, builddir)
    assert (outdir / "blog" / "tag" / "tma.html").is_file()
    (site / "posts" / "post-29.md").unlink()
    (site / "posts" / "post-05.md").unlink()
    assert_matches_clean(build(site, builddir), clean_build(site, tmp_path / "clean-4"))
    assert not (outdir / "blog" / "tag" / "tma.html").exists()
    assert not (outdir / "posts" / "post-29.html").exists()
    assert not (outdir / "posts" / "post-05.html").exists()


def test_pages_linking_to_a_retitled_moved_or_renamed_post_are_written_again(
    site: Path, tmp_path: Path
) -> None:
    """Sphinx resolves a page's cross-references only when it writes the page, and writes it
    only when its own source changed: a page linking to a post that was retitled kept the old
    title; one linking to a label that moved kept the old address; one linking to a post that
    was renamed or deleted kept a link to a page that is gone, where a clean build shows the
    text unlinked and warns; so did its excerpt in the listings. Such pages are written again
    (not read), excerpts with them, and warn as a clean build does."""
    target = write_post(
        site,
        "posts/target.md",
        "Target post",
        "2025-10-01",
        body="First paragraph of the target.\n\n(target-section)=\n## A section to link to",
    )
    write_post(
        site,
        "posts/linker.md",
        "Linker post",
        "2025-10-02",
        body="First paragraph of the linker, which the listings show: [the target](target.md).\n\n"
        "See {doc}`target` and {ref}`target-section`.",
    )
    write_post(
        site,
        "posts/second-linker.md",
        "Second linker",
        "2025-10-02",
        body="First paragraph, with no link.\n\nSee {doc}`target` and {ref}`target-section`.",
    )
    builddir = site / "_build"
    outdir = build(site, builddir)
    linker = outdir / "posts" / "linker.html"

    def links() -> list[tuple[str, str]]:
        article = soup(linker).select_one("article[role=main]")
        return [(a["href"], a.get_text()) for a in article.select("p a.reference.internal")]

    assert links() == [
        ("target.html", "the target"),
        ("target.html", "Target post"),
        ("target.html#target-section", "A section to link to"),
    ]

    # 1. The target retitled: the {doc} link's text is its new title.
    retitle(target, "Target, retitled")
    rendered: list[str] = []
    read: list[str] = []
    assert_matches_clean(
        build(site, builddir, rendered, read), clean_build(site, tmp_path / "clean-1")
    )
    assert ("target.html", "Target, retitled") in links()
    # Written again, not read (the excerpt that shows a link rendered again: the listings'
    # pages match a clean build's); a page that shows nothing of the target is not written.
    assert {"posts/linker", "posts/second-linker"} <= set(rendered) - set(read)
    assert "posts/post-14" not in rendered

    # 2. The label moved to a new post (read after the target: Sphinx, which purges a post
    # only as it reads it again, would otherwise see the label twice): the {ref} follows it.
    target.write_text(target.read_text().replace("(target-section)=\n", ""))
    write_post(
        site,
        "posts/where.md",
        "Where the section went",
        "2025-10-03",
        body="First paragraph.\n\n(target-section)=\n## The section, moved",
    )
    assert_matches_clean(build(site, builddir), clean_build(site, tmp_path / "clean-2"))
    assert ("where.html#target-section", "The section, moved") in links()

    # 3. The target renamed: the links to it lead nowhere, with the clean build's warnings.
    target.rename(site / "posts" / "target-renamed.md")
    warned: list[str] = []
    clean_warned: list[str] = []
    clean = clean_build(site, tmp_path / "clean-3", clean_warned)
    assert_matches_clean(build(site, builddir, warnings=warned), clean)
    assert [href for href, _ in links()] == ["where.html#target-section"]
    assert clean_warned and sorted(warned) == sorted(clean_warned)
    assert all("linker.md" in line for line in warned)
    assert not (outdir / "posts" / "target.html").exists()

    # 4. Its old name given back: they lead to it again.
    (site / "posts" / "target-renamed.md").rename(target)
    assert_matches_clean(build(site, builddir), clean_build(site, tmp_path / "clean-4"))
    assert [href for href, _ in links()] == [
        "target.html",
        "target.html",
        "where.html#target-section",
    ]


def test_a_tag_gone_with_its_posts_leaves_no_folder(site: Path, tmp_path: Path) -> None:
    """A tag's numbered listing pages live in a folder of their own: gone with the tag's last
    post, they take the folder with them, as a clean build never makes it."""
    with (site / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write("\nkb_page_size = 2\n")
    added = [
        write_post(site, f"posts/bulk-{n}.md", f"Bulk {n}", f"2025-11-0{n}", tags=["bulk"])
        for n in range(1, 8)
    ]
    outdir = build(site, site / "_build")
    folder = outdir / "blog" / "tag" / "bulk"
    assert any(folder.rglob("*.html"))
    for post in added:
        post.unlink()
    assert_matches_clean(build(site, site / "_build"), clean_build(site, tmp_path / "clean"))
    assert not folder.exists()


def test_the_pages_written_again_for_where_their_links_lead() -> None:
    """Which pages an incremental build writes again for their links alone: those linking to
    a document that is gone, new, or read again with another title or other anchors, or to a
    label or glossary term now defined elsewhere (or nowhere). An edit that keeps a document's
    title and anchors writes none of the pages that link to it."""
    from types import SimpleNamespace

    from docutils import nodes

    from kb.core.links import linking_again, links_before
    from kb.core.records import Outgoing
    from kb.core.state import env_state

    def site(label_in: str, term: str | None, a_title: str):
        std = {
            "labels": {"sec": (label_in, "sec", "A section")},
            "anonlabels": {"sec": (label_in, "sec")},
            "terms": {term: ("glossary", "term-x")} if term else {},
        }
        env = SimpleNamespace(
            domaindata={"std": std},
            titles={d: nodes.title(text=d.title()) for d in ("b", "c", "glossary")},
            metadata={},
            found_docs={"d1", "d2", "d3", "d4", "d5", "a", "b", "c", "glossary"},
        )
        env.titles["a"] = nodes.title(text=a_title)
        state = env_state(env)
        state.links = {
            "d1": Outgoing(docs=frozenset({"a"})),
            "d2": Outgoing(labels=frozenset({"sec"})),
            "d3": Outgoing(labels=frozenset({"nowhere"})),
            "d4": Outgoing(terms=frozenset({"tensor core"})),
            "d5": Outgoing(docs=frozenset({"a"})),
        }
        return env

    changed = {"a", "b", "c", "glossary"}
    before = links_before(site("b", "Tensor Core", "A"), changed)
    assert before.candidates == {"d1", "d2", "d3", "d4", "d5"}
    # Each read again as it was: no page shows anything else.
    assert linking_again(site("b", "Tensor Core", "A"), before, changed) == set()
    # A's new title, the label moved to c, the term gone from the glossary.
    again = linking_again(site("c", None, "A, retitled"), before, changed)
    assert again == {"d1", "d2", "d4", "d5"}
    assert links_before(site("b", None, "A"), set()) == type(before)()


def test_an_edit_no_listing_shows_keeps_every_listing_page_without_signing_each(
    site: Path, tmp_path: Path, monkeypatch
) -> None:
    """The listing pages are kept as a group when nothing they are made of changed (a
    sentence deep in a post): no page's signature is made, no page written. A change a listing
    shows (a title), a listing page damaged on disk, or the record of the group damaged in the
    state file: each page is signed and checked again, and the site is what a clean build
    writes."""
    from kb.pages import listings

    builddir = site / "_build"
    outdir = build(site, builddir)
    signed: list[str] = []
    sign = listings.listing_signature
    monkeypatch.setattr(
        listings,
        "listing_signature",
        lambda app, page, *a: signed.append(page.docname) or sign(app, page, *a),
    )
    archives = sorted(p for p in (outdir / "blog").rglob("*.html"))
    stamps = {p: p.stat().st_mtime_ns for p in archives}
    rendered: list[str] = []

    def build_again(step: int) -> list[str]:
        """The documents and pages signed by an incremental build (checked against a clean
        build of the same sources, which signs its own)."""
        signed.clear()
        build(site, builddir, rendered)
        signed_here = list(signed)
        assert_matches_clean(outdir, clean_build(site, tmp_path / f"clean-{step}"))
        return signed_here

    def listing_pages_in(names: list[str]) -> list[str]:
        return [name for name in names if name == "blog" or name.startswith("blog/")]

    post = site / "posts" / "post-14.md"
    post.write_text(post.read_text(encoding="utf-8") + "\nA closing sentence.\n", encoding="utf-8")
    assert build_again(1) == [] and "posts/post-14" in rendered
    assert listing_pages_in(rendered) == []
    assert {p: p.stat().st_mtime_ns for p in archives} == stamps

    retitle(site / "posts" / "post-03.md", "Post 03, retitled")
    assert "blog/page/1" in build_again(2)  # its list refreshed in place: not rendered
    assert b"Post 03, retitled" in listing_region(outdir / "blog" / "page" / "1.html")

    (outdir / "blog" / "tag" / "gemm.html").write_bytes(b"<html><body>cut")
    assert "blog/tag/gemm" in build_again(3) and listing_pages_in(rendered) == ["blog/tag/gemm"]

    state_file = builddir / "doctrees" / "kb-state.json"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    names = state["groups"][listings.LISTINGS_GROUP][1]
    assert {"blog", "blog/page/1", "blog/tag/gemm", "blog/author/ada-lovelace"} <= set(names)
    assert not {"blog/archive", "blog/tag"} & set(names)  # catalog pages: not listings
    state["groups"] = {listings.LISTINGS_GROUP: ["a signature", [3, None]]}
    state_file.write_text(json.dumps(state), encoding="utf-8")
    assert "blog/page/1" in build_again(4) and listing_pages_in(rendered) == []


def test_a_site_left_without_posts_loses_the_shared_sidebar(site: Path, tmp_path: Path) -> None:
    """Every post deleted: nothing is left to list, so the shared lists' file goes and no page
    keeps the sidebar's outline or its script, as a clean build of the same sources."""
    outdir = build(site, site / "_build")
    assert (outdir / "_kb" / "sidebar.json").is_file()
    for post in (site / "posts").glob("*.md"):
        post.unlink()
    assert_matches_clean(build(site, site / "_build"), clean_build(site, tmp_path / "clean"))
    assert not (outdir / "_kb" / "sidebar.json").exists()
    page = soup(outdir / "index.html")
    assert page.select(".kb-sidebar-holder, .kb-sidebar") == []
    assert not page.select("script[src*='kb-sidebar.js']")


def test_without_reuse_every_page_is_written_and_matches_a_clean_build(
    site: Path, tmp_path: Path
) -> None:
    """kb_incremental = False: nothing an earlier build wrote is kept but Sphinx's
    environment (no skipped page, no part replaced in place, no search shard reused), and the
    result is a clean build's, after the same edits as above."""
    builddir, plain = site / "_build", {"kb_incremental": False}
    outdir = build(site, builddir, overrides={"kb_incremental": "0"})  # as -D gives it
    documents = {p.relative_to(site).with_suffix("").as_posix() for p in site.rglob("*.md")}
    documents = {d for d in documents if not d.startswith("_build")}
    rendered: list[str] = []
    read: list[str] = []
    retitle(site / "posts" / "post-27.md", "Post 27, retitled")
    incremental = build(site, builddir, rendered, read, overrides=plain)
    assert_matches_clean(incremental, clean_build(site, tmp_path / "clean-1"))
    assert read == ["posts/post-27"]  # Sphinx's environment is reused: one post read
    assert documents <= set(rendered)  # and every page written again
    write_post(site, "posts/post-28.md", "Post 28", "2025-11-20", tags=["fp8"], author="alan")
    (site / "posts" / "post-05.md").unlink()
    assert_matches_clean(
        build(site, builddir, overrides=plain), clean_build(site, tmp_path / "clean-2")
    )
    assert not (outdir / "posts" / "post-05.html").exists()
    # Back to reuse: what the plain build recorded vouches for the pages it wrote.
    retitle(site / "posts" / "post-03.md", "Post 03, retitled")
    assert_matches_clean(build(site, builddir), clean_build(site, tmp_path / "clean-3"))


def test_a_page_sphinx_writes_is_not_also_refreshed_in_place(site: Path, monkeypatch) -> None:
    """The newest post retitled and made the first of a series: every page's sidebar gains a
    section (its outline, which every page holds, changes). Sphinx writes the post itself; a
    refresh of its old page in the background could land after that write."""
    builddir = site / "_build"
    outdir = build(site, builddir)
    refreshed: list[str] = []
    write = BackgroundWrites.write

    def spy(self, path, data) -> None:
        refreshed.append(Path(path).relative_to(outdir).as_posix())
        write(self, path, data)

    monkeypatch.setattr(BackgroundWrites, "write", spy)
    newest = site / "posts" / "post-27.md"
    retitle(newest, "Post 27, retitled")
    newest.write_text(
        newest.read_text(encoding="utf-8").replace("author: ada\n", "author: ada\nseries: Solo\n"),
        encoding="utf-8",
    )
    rendered: list[str] = []
    build(site, builddir, rendered)
    assert "posts/post-27" in rendered
    assert "posts/post-27.html" not in refreshed
    assert "posts/post-14.html" in refreshed  # the others get the new outline in place
    assert (
        "All series" in soup(outdir / "posts" / "post-14.html").select_one(".kb-sidebar").get_text()
    )
    assert (
        "Post 27, retitled" in soup(outdir / "posts" / "post-27.html").select_one("h1").get_text()
    )


def test_a_draft_added_then_published_is_the_only_post_read(
    site: Path, tmp_path: Path, monkeypatch
) -> None:
    """Drafts stay out of what Sphinx finds without changing the setting it compares with the
    last build's, which would make it read every post again."""
    builddir = site / "_build"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01
    build(site, builddir)
    write_post(site, "posts/soon.md", "Soon", "2026-03-01", tags=["fp8"], author="alan")
    read: list[str] = []
    assert_matches_clean(build(site, builddir, read=read), clean_build(site, tmp_path / "c1"))
    assert read == []
    assert not (builddir / "html" / "posts" / "soon.html").exists()

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1772409600")  # 2026-03-02: its day has come
    outdir = build(site, builddir, read=read)
    assert read == ["posts/soon"]
    assert_matches_clean(outdir, clean_build(site, tmp_path / "c2"))
    assert soup(outdir / "index.html").select(".kb-entry-title")[0].get_text(strip=True) == "Soon"


def test_the_home_page_is_written_again_only_for_a_post_its_list_shows(
    site: Path, tmp_path: Path
) -> None:
    """The home page's latest-posts list shows the five newest posts (``:count: 5``): a new
    title for the sixth newest leaves it as it was, the fifth newest's is written again."""
    builddir = site / "_build"
    outdir = build(site, builddir)
    home = outdir / "index.html"
    titles = [t.get_text(strip=True) for t in soup(home).select(".kb-entry-title")]
    assert titles == [f"Post {n}" for n in (27, 26, 25, 24, 23)]
    before = home.read_bytes()
    written: list[str] = []
    retitle(site / "posts" / "post-22.md", "Post 22, retitled")
    assert_matches_clean(build(site, builddir, written), clean_build(site, tmp_path / "c1"))
    assert "posts/post-22" in written and "index" not in written
    assert home.read_bytes() == before
    retitle(site / "posts" / "post-23.md", "Post 23, retitled")
    assert_matches_clean(build(site, builddir, written), clean_build(site, tmp_path / "c2"))
    assert "index" in written
    titles = [t.get_text(strip=True) for t in soup(home).select(".kb-entry-title")]
    assert titles[-1] == "Post 23, retitled"


@pytest.mark.parametrize("removal", ["deleted", "made a draft"])
def test_a_build_that_only_removes_a_post_saves_the_environment(
    site: Path, tmp_path: Path, removal: str
) -> None:
    """Sphinx saves its environment only when a document was read or is to be written: an old
    post removed, shown by no page, stayed in the saved environment and every later build
    removed it again (kb serve's standby then took the draft's file for a document)."""
    builddir = site / "_build"
    build(site, builddir)
    post = site / "posts" / "post-04.md"
    if removal == "deleted":
        post.unlink()
    else:
        text = post.read_text(encoding="utf-8")
        day = next(line for line in text.splitlines() if line.startswith("date:"))
        post.write_text(text.replace(day, "date: 2999-01-01"), encoding="utf-8")
    written: list[str] = []
    assert_matches_clean(build(site, builddir, written), clean_build(site, tmp_path / "clean"))
    assert written[:1] == ["index"]  # the root document: written again, the same page
    environment = pickle.loads((builddir / "doctrees" / "environment.pickle").read_bytes())
    assert "posts/post-04" not in environment.all_docs
    assert "posts/post-04" not in environment.found_docs
    purged: list[str] = []
    app = SphinxTestApp("html", srcdir=site, builddir=builddir, status=StringIO())
    app.connect("env-purge-doc", lambda app, env, docname: purged.append(docname))
    try:
        app.build()
    finally:
        app.cleanup()
    assert purged == []  # nothing left to remove


def test_the_search_index_in_shards_matches_a_clean_build(site: Path, tmp_path: Path) -> None:
    """With shards of at most four pages (28 pages: eight shards), each change re-indexes some
    shards and merges: the bundle must be what a clean build writes, and find the change."""
    from kb.search.shards import SHARDS_DIR

    with (site / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write("\nkb_search_shard_size = 4\n")
    builddir = site / "_build"
    outdir = build(site, builddir)
    assert len(list((builddir / "doctrees" / SHARDS_DIR).glob("8-*"))) > 4

    # 1. A word added to one post is found in that post, when the build returns.
    post = site / "posts" / "post-14.md"
    post.write_text(post.read_text() + "\nA paragraph about wombats.\n", encoding="utf-8")
    assert_matches_clean(build(site, builddir), clean_build(site, tmp_path / "clean-1"))
    assert pages_with(outdir / "pagefind", "wombat") == {"/posts/post-14.html"}

    # 2. A post added (the home page's list changes too), then 3. one deleted.
    write_post(site, "posts/post-28.md", "Post 28", "2025-11-20", body="Quokkas, in the excerpt.")
    assert_matches_clean(build(site, builddir), clean_build(site, tmp_path / "clean-2"))
    assert "/posts/post-28.html" in pages_with(outdir / "pagefind", "quokka")
    (site / "posts" / "post-14.md").unlink()
    assert_matches_clean(build(site, builddir), clean_build(site, tmp_path / "clean-3"))
    assert pages_with(outdir / "pagefind", "wombat") == set()


def test_a_page_cut_short_or_emptied_is_written_again(site: Path, tmp_path: Path) -> None:
    """A build stopped half-way (or a disk that filled up) must not leave a broken page that
    later builds keep because its source did not change."""
    builddir = site / "_build"
    outdir = build(site, builddir)
    post, archive = outdir / "posts" / "post-14.html", outdir / "blog" / "tag" / "gemm.html"
    post.write_bytes(post.read_bytes()[:2000])
    archive.write_bytes(b"")
    assert_matches_clean(build(site, builddir), clean_build(site, tmp_path / "clean"))
    assert post.read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert soup(archive).select(".kb-entry")


def test_pages_are_written_whole_under_another_name_then_renamed(site: Path) -> None:
    outdir = build(site, site / "_build")
    inode = (outdir / "posts" / "post-14.html").stat().st_ino
    retitle(site / "posts" / "post-14.md", "Post 14, renamed")
    build(site, site / "_build")
    assert (outdir / "posts" / "post-14.html").stat().st_ino != inode  # a new file, renamed
    assert not list(outdir.rglob("*.partial"))


def _catalog_files(outdir: Path) -> dict[str, bytes]:
    folder = outdir / "data"
    return (
        {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))} if folder.is_dir() else {}
    )


def test_benchmark_data_matches_a_clean_build(tmp_path: Path, rootdir: Path) -> None:
    """The benchmarks page, data/benchmarks.json and a comparison that shows another post's
    dataset follow every change as a clean build does."""
    site = tmp_path / "site"
    shutil.copytree(rootdir / "test-benchdata", site)
    builddir = site / "_build"
    outdir = build(site, builddir)
    unrelated = outdir / "posts" / "draft.html"  # never written: a draft
    assert not unrelated.exists()

    def check(step: str) -> None:
        clean = clean_build(site, tmp_path / f"clean-{step}")
        assert_matches_clean(outdir, clean)
        assert _catalog_files(outdir) == _catalog_files(clean)

    # 1. A value of the H200's CSV changes: its own post, the B200 post's comparison, the
    # benchmarks page and the JSON follow; the comparison's page is rewritten without a read.
    csv = site / "posts" / "data" / "h200-gemm.csv"
    csv.write_text(csv.read_text().replace("686.392", "700.5"), encoding="utf-8")
    rendered: list[str] = []
    build(site, builddir, rendered)
    check("value")
    assert "posts/b200" in rendered and "benchmarks" in rendered
    assert "700500" in soup(outdir / "posts" / "b200.html").select_one("figure").get_text()
    assert "701 TFLOP/s" in soup(outdir / "benchmarks.html").get_text()

    # 2. The H200 post is retitled: the comparison's "Also shown" and the page's rows say so.
    retitle(site / "posts" / "h200.md", "GEMM on an H200, retitled")
    build(site, builddir)
    check("retitle")
    assert (
        "retitled"
        in soup(outdir / "posts" / "b200.html").select_one(".kb-benchmark-compared").get_text()
    )

    # 3. No figure left: no benchmarks page, no JSON, no sidebar link, as a clean build.
    for name in ("h200", "b200"):
        path = site / "posts" / f"{name}.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(text[: text.index("```{benchmark}")], encoding="utf-8")
    build(site, builddir)
    check("none")
    assert not (outdir / "benchmarks.html").exists()
    assert not (outdir / "data" / "benchmarks.json").exists()
