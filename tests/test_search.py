"""Search: what the build marks as searchable, and what Pagefind's bundle then holds.

Builds tests/roots/test-search (five published posts, a draft, a real page, the home page
with its list of posts) and reads the HTML and the bundle's fragments, which are gzipped
JSON: one per indexed page, with its URL, text, metadata and filters.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Comment
from helpers import soup
from sphinx.errors import ExtensionError

from kb.search import marking
from kb.search import pagefind as search_pagefind
from kb.search import records as search_records

SEARCHABLE = {
    "index",
    "about",
    "posts/warp-shuffles",
    "posts/sync-basics",
    "posts/hopper-gemm",
    "posts/blackwell-formats",
    "posts/gpu-sharing",
}


def html_pages(outdir: Path) -> dict[str, Path]:
    """Every page of the site by docname, bundle and static files aside."""
    return {
        str(path.relative_to(outdir).with_suffix("")): path
        for path in outdir.rglob("*.html")
        if path.relative_to(outdir).parts[0] not in ("_static", "pagefind")
    }


def fragments(outdir: Path) -> dict[str, dict]:
    """The bundle's pages by URL."""
    pages = {}
    for path in (outdir / "pagefind" / "fragment").glob("*.pf_fragment"):
        data = gzip.decompress(path.read_bytes())
        assert data.startswith(b"pagefind_dcd")
        fragment = json.loads(data[len(b"pagefind_dcd") :])
        pages[fragment["url"]] = fragment
    return pages


@pytest.mark.sphinx("html", testroot="search")
def test_only_posts_and_real_pages_carry_the_search_body(app, warning):
    app.build()
    assert warning.getvalue() == ""
    pages = html_pages(Path(app.outdir))
    assert "blog/category/article" in pages
    assert "posts/unpublished" not in pages  # a draft is not even read
    marked = {name for name, path in pages.items() if soup(path).select("[data-pagefind-body]")}
    assert marked == SEARCHABLE
    for name in SEARCHABLE:
        page = soup(pages[name])
        (body,) = page.select("[data-pagefind-body]")
        # The article's content only: never furo's sidebar, header or footer.
        assert body.find_parent("article", id="furo-main-content") is not None
        assert not page.select(".sidebar-drawer [data-pagefind-body]")
        assert body.find("h1") is not None


@pytest.mark.sphinx("html", testroot="search")
def test_metadata_and_category_filters_sit_outside_the_indexed_text(app):
    app.build()
    page = soup(Path(app.outdir) / "posts" / "gpu-sharing.html")
    (meta,) = page.select(".kb-search-meta")
    assert meta.has_attr("hidden")
    assert meta.find_parent(attrs={"data-pagefind-body": True}) is None
    assert meta.select_one('[data-pagefind-meta="title"]').get_text() == "Sharing one GPU"
    assert meta.select_one('[data-pagefind-meta="date"]').get_text() == "2025-05-01"
    categories = [s.get_text() for s in meta.select('[data-pagefind-filter="category"]')]
    assert categories == ["Article", "Benchmarks"]

    about = soup(Path(app.outdir) / "about.html").select_one(".kb-search-meta")
    assert about.select_one('[data-pagefind-meta="title"]').get_text() == "About this site"
    assert about.select('[data-pagefind-meta="date"], [data-pagefind-filter]') == []


@pytest.mark.sphinx("html", testroot="search")
def test_bundle_holds_posts_and_pages_but_no_listings(app):
    app.build()
    outdir = Path(app.outdir)
    for name in ("pagefind.js", "pagefind-entry.json", "wasm.en.pagefind"):
        assert (outdir / "pagefind" / name).is_file(), name
    entry = json.loads((outdir / "pagefind" / "pagefind-entry.json").read_text())
    assert entry["languages"]["en"]["page_count"] == len(SEARCHABLE)

    pages = fragments(outdir)
    assert set(pages) == {f"/{name}.html" for name in SEARCHABLE}
    post = pages["/posts/gpu-sharing.html"]
    assert post["meta"] == {"title": "Sharing one GPU", "date": "2025-05-01"}
    assert post["filters"] == {"category": ["Article", "Benchmarks"]}
    assert "MIG partitions a GPU" in post["content"]
    # Tags are words to find; the date, author and reading-time line is not (results show
    # date and categories from the metadata).
    assert "Tags: virtualization" in post["content"]
    assert "min read" not in post["content"] and "Lovelace" not in post["content"]
    # The home page keeps its own words but not the excerpts of its list of posts, and no
    # heading permalinks ("¶") anywhere.
    home = pages["/index.html"]["content"]
    assert "Notes on kernels" in home
    assert "butterfly" not in home and "MIG" not in home
    assert not any("¶" in page["content"] for page in pages.values())


@pytest.mark.sphinx("html", testroot="search")
def test_search_page_replaces_sphinx_search(app):
    app.build()
    outdir = Path(app.outdir)
    assert not (outdir / "searchindex.js").exists()
    page = soup(outdir / "search.html")
    assert page.select_one("article section#kb-search input#kb-search-input[name=q]")
    # The page's script and Pagefind load from the head, while the page is parsed.
    assert page.select_one('head meta[name="kb-search-bundle"]')["content"] == "pagefind/"
    script = page.select_one('head script[type="module"]')
    assert script["src"] == "_static/kb-search.js" and script.has_attr("async")
    assert page.select_one('head link[rel="modulepreload"]')["href"] == "pagefind/pagefind.js"
    # Pagefind's entry file is in the page (no request for it), what it fetches next is
    # preloaded: both of this very bundle.
    entry = json.loads(page.select_one("head script#kb-search-entry").string)
    assert entry == json.loads((outdir / "pagefind" / "pagefind-entry.json").read_text())
    preloads = [link["href"] for link in page.select('head link[rel="preload"][as="fetch"]')]
    assert len(preloads) == 2 and all((outdir / href).is_file() for href in preloads)
    assert page.select_one('meta[name="robots"]')["content"] == "noindex"
    assert not page.select('script[src*="searchindex"], script[src*="searchtools"]')
    # No code, math, charts or scrolling tables on the search page, so none of their
    # styles and scripts; other pages keep them.
    post = soup(outdir / "posts" / "hopper-gemm.html")
    copy_buttons = {"_static/clipboard.min.js", "_static/copybutton.js"}  # not in this root
    # The math stylesheet (and its font) only on pages that show math: this post has none.
    absent = copy_buttons | {"_static/kb-math.css"}
    for name in marking.NOT_ON_SEARCH_PAGE:
        selector = f'link[href*="{name}"], script[src*="{name}"]'
        assert not page.select(selector)
        assert bool(post.select(selector)) is (name not in absent), name
    # The settings other scripts read stay.
    assert page.select('script[src*="documentation_options.js"]')
    assert (outdir / "_static" / "kb-search.js").is_file()
    assert (outdir / "_static" / "kb-search.css").is_file()
    # furo's sidebar box, on every page, asks our search page and nothing else.
    post = soup(outdir / "posts" / "hopper-gemm.html")
    (form,) = post.select("form.sidebar-search-container")
    assert form["action"] == "../search.html"
    assert [i["name"] for i in form.select("input")] == ["q"]
    assert not post.select('script[src*="kb-search-readthedocs"]')


@pytest.mark.sphinx(
    "html", testroot="search", srcdir="search-rtd", confoverrides={"kb_search_readthedocs": True}
)
def test_read_the_docs_script_on_every_page_when_asked(app):
    app.build()
    for name in ("index.html", "posts/hopper-gemm.html", "search.html"):
        page = soup(Path(app.outdir) / name)
        (script,) = page.select('script[src*="kb-search-readthedocs.js"]')
        assert script.has_attr("defer")
    assert (Path(app.outdir) / "_static" / "kb-search-readthedocs.js").is_file()


@pytest.mark.sphinx(
    "html", testroot="search", srcdir="search-off", confoverrides={"kb_search": False}
)
def test_sphinx_search_stays_when_kb_search_is_off(app, warning):
    app.build()
    assert warning.getvalue() == ""
    outdir = Path(app.outdir)
    assert (outdir / "searchindex.js").is_file()
    assert not (outdir / "pagefind").exists()
    page = soup(outdir / "search.html")
    assert page.select('script[src*="searchindex.js"]')
    assert not page.select("#kb-search, [data-pagefind-body]")


def test_deleted_post_leaves_the_index_on_the_next_build(make_app, rootdir, tmp_path):
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-search", srcdir)
    make_app("html", srcdir=srcdir).build()
    outdir = srcdir / "_build" / "html"
    assert "/posts/sync-basics.html" in fragments(outdir)

    (srcdir / "posts" / "sync-basics.md").unlink()
    make_app("html", srcdir=srcdir).build()
    # Its page goes (kb.incremental.freshness), and the index must not list it.
    assert not (outdir / "posts" / "sync-basics.html").exists()
    assert set(fragments(outdir)) == {
        f"/{name}.html" for name in SEARCHABLE if name != "posts/sync-basics"
    }


@pytest.mark.sphinx("dirhtml", testroot="search", srcdir="search-dirhtml")
def test_folder_urls_with_the_dirhtml_builder(app, warning):
    app.build()
    assert warning.getvalue() == ""
    outdir = Path(app.outdir)
    assert set(fragments(outdir)) == {
        "/" if name == "index" else f"/{name}/" for name in SEARCHABLE
    }
    page = soup(outdir / "search" / "index.html")
    assert page.select_one('meta[name="kb-search-bundle"]')["content"] == "../pagefind/"
    for link in page.select('head link[rel="preload"]'):
        assert (outdir / "search" / link["href"]).resolve().is_file()


@pytest.mark.sphinx("html", testroot="search", srcdir="search-no-binary")
def test_missing_pagefind_binary_says_what_to_do(app, monkeypatch):
    import pagefind.service

    monkeypatch.setattr(pagefind.service, "get_executable", lambda: None)
    search_pagefind.find_pagefind.cache_clear()  # found by an earlier build of this process
    with pytest.raises(ExtensionError, match=r"pip install 'pagefind\[extended\]'"):
        app.build()


@pytest.mark.slow
def test_kb_serves_rebuild_says_what_to_do_when_pagefinds_binary_is_missing(
    make_app, rootdir, tmp_path, monkeypatch
):
    """The indexer runs in a copy of the rebuild (kb serve's ``kb_search_defer``); the binary
    is found before the copy is made, so a missing one stops the rebuild with the message, not
    the copy in the background."""
    import pagefind.service

    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-search", srcdir)
    make_app("html", srcdir=srcdir).build()  # a bundle: the next rebuild indexes in a copy
    (srcdir / "posts" / "sync-basics.md").unlink()
    monkeypatch.setattr(pagefind.service, "get_executable", lambda: None)
    search_pagefind.find_pagefind.cache_clear()
    app = make_app("html", srcdir=srcdir, confoverrides={"kb_search_defer": True})
    with pytest.raises(ExtensionError, match=r"pip install 'pagefind\[extended\]'"):
        app.build()


@pytest.mark.sphinx("html", testroot="search", srcdir="search-records")
def test_pagefind_reads_small_records_not_whole_pages(app):
    app.build()
    assert app.warning.getvalue() == ""
    records = Path(app.doctreedir) / search_records.RECORDS_DIR
    indexed = {str(p.relative_to(records).with_suffix("")) for p in records.rglob("*.html")}
    assert indexed == SEARCHABLE
    record = soup(records / "posts" / "hopper-gemm.html")
    page = soup(Path(app.outdir) / "posts" / "hopper-gemm.html")
    # The record is the page's marked body and metadata, without furo's chrome.
    assert record.html["lang"] == "en"
    body = page.select_one("[data-pagefind-body]")
    # Left out of the record: what Pagefind skips whole that other posts make (related
    # posts' titles, the series box, "Linked from", the date and authors, the cite block).
    unsearched = body.select('.kb-post-part[data-pagefind-ignore="all"], .kb-related')
    assert unsearched
    for part in unsearched:
        part.decompose()
    markers = ("kb-related", "kb-unsearched")
    for comment in body.find_all(
        string=lambda s: isinstance(s, Comment) and s.strip("/") in markers
    ):
        comment.extract()  # with kb's markers around them
    assert record.select_one("[data-pagefind-body]") == body
    assert record.select_one(".kb-search-meta") == page.select_one(".kb-search-meta")
    assert record.select(".sidebar-drawer, nav, svg symbol, header") == []
    size = (records / "posts" / "hopper-gemm.html").stat().st_size
    assert size < (Path(app.outdir) / "posts" / "hopper-gemm.html").stat().st_size / 2


@pytest.mark.sphinx("html", testroot="search", srcdir="search-lost-marker")
def test_warns_when_a_searchable_page_lost_its_marker(app):
    app.build()
    assert app.warning.getvalue() == ""
    # As if the record were gone (it is then read from the page) and a template override
    # had dropped the marker from that page.
    (Path(app.doctreedir) / search_records.RECORDS_DIR / "about.html").unlink()
    about = Path(app.outdir) / "about.html"
    about.write_text(about.read_text().replace("data-pagefind-body", ""), encoding="utf-8")
    app.events.emit("build-finished", None)  # index again, as the end of the next build would
    assert "7 pages should be searchable but the index holds 6" in app.warning.getvalue()
    assert "/about.html" not in fragments(Path(app.outdir))


@pytest.mark.sphinx("html", testroot="search", srcdir="search-rules")
def test_which_documents_are_searchable(app):
    app.build()
    assert marking.is_searchable_doc(app, "about")  # a real page
    assert marking.is_searchable_doc(app, "posts/gpu-sharing")  # a published post
    assert not marking.is_searchable_doc(app, "posts/unpublished")  # a draft
    assert not marking.is_searchable_doc(app, "search")  # generated, not a document
    # A file ablog takes for a post but the catalog left out (undated, or rejected by the
    # checks) is neither a post nor a real page.
    app.env.ablog_posts["about"] = app.env.ablog_posts["posts/gpu-sharing"]
    assert not marking.is_searchable_doc(app, "about")


def test_unchanged_pages_keep_the_bundle_as_it_is(make_app, rootdir, tmp_path):
    # Pagefind writes its filter index in an arbitrary order: only changed pages may touch it.
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-search", srcdir)
    make_app("html", srcdir=srcdir).build()
    outdir = srcdir / "_build" / "html"

    def bundle():
        files = sorted((outdir / "pagefind").rglob("*"))
        return {p: p.read_bytes() for p in files if p.is_file()}

    before, page = bundle(), (outdir / "search.html").read_bytes()
    written = (outdir / "pagefind" / "pagefind-entry.json").stat().st_mtime_ns
    make_app("html", srcdir=srcdir).build()
    assert (outdir / "pagefind" / "pagefind-entry.json").stat().st_mtime_ns == written
    assert bundle() == before
    assert (outdir / "search.html").read_bytes() == page


@pytest.mark.slow
@pytest.mark.parametrize("indexer", ["copy", "new process"])
def test_deferred_indexing_catches_up_after_the_build_returns(
    make_app, rootdir, tmp_path, monkeypatch, indexer
):
    """``kb serve``'s setting: the build returns before Pagefind runs; the index follows. The
    indexer is a copy of the build's process, or, where no copy can be made (no memory for
    one), ``python -m kb.search.worker``."""
    import time

    from kb.search import index as search_index

    if indexer == "new process":
        monkeypatch.setattr(search_index, "run_detached", lambda *args: False)
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-search", srcdir)
    make_app("html", srcdir=srcdir).build()
    outdir = srcdir / "_build" / "html"
    (srcdir / "posts" / "sync-basics.md").unlink()
    make_app("html", srcdir=srcdir, confoverrides={"kb_search_defer": True}).build()
    expected = {f"/{name}.html" for name in SEARCHABLE if name != "posts/sync-basics"}

    def indexed() -> set[str] | None:
        try:
            return set(fragments(outdir))
        except (AssertionError, OSError, EOFError, ValueError):  # a file Pagefind is writing
            return None

    deadline = time.monotonic() + 60
    while indexed() != expected and time.monotonic() < deadline:
        time.sleep(0.2)
    assert set(fragments(outdir)) == expected

    # The search page names the new bundle once the background run has filled it in.
    def entries():
        entry = soup(outdir / "search.html").select_one("#kb-search-entry")
        bundle = json.loads((outdir / "pagefind" / "pagefind-entry.json").read_text())
        return json.loads(entry.get_text()), bundle

    while len(set(map(json.dumps, entries()))) != 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    in_page, in_bundle = entries()
    assert in_page == in_bundle
    assert in_page["languages"]["en"]["page_count"] == len(expected)


@pytest.mark.slow
def test_search_page_follows_the_bundle_without_being_rendered_again(make_app, rootdir, tmp_path):
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-search", srcdir)
    make_app("html", srcdir=srcdir).build()
    outdir = srcdir / "_build" / "html"
    page = outdir / "search.html"

    def entry_in_page():
        return json.loads(soup(page).select_one("head #kb-search-entry").get_text())

    first_entry, first_mtime = entry_in_page(), page.stat().st_mtime_ns
    # Nothing changed: the page is neither rendered nor rewritten.
    make_app("html", srcdir=srcdir).build()
    assert page.stat().st_mtime_ns == first_mtime
    # A post's text changed: a new bundle, and the page's head names it.
    post = srcdir / "posts" / "gpu-sharing.md"
    post.write_text(post.read_text() + "\nA new sentence about quokkas.\n", encoding="utf-8")
    app = make_app("html", srcdir=srcdir)
    app.build()
    # (A second app in one process re-registers every extension's roles: Sphinx says so.)
    warnings = [w for w in app.warning.getvalue().splitlines() if "already registered" not in w]
    assert warnings == []
    bundle_entry = json.loads((outdir / "pagefind" / "pagefind-entry.json").read_text())
    assert entry_in_page() == bundle_entry != first_entry
    assert len(soup(page).select("head #kb-search-entry")) == 1
    quokka = [f for f in fragments(outdir).values() if "quokkas" in f["content"]]
    assert [f["url"] for f in quokka] == ["/posts/gpu-sharing.html"]


def test_records_of_deleted_posts_are_removed(make_app, rootdir, tmp_path):
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-search", srcdir)
    make_app("html", srcdir=srcdir).build()
    records = srcdir / "_build" / "doctrees" / search_records.RECORDS_DIR
    assert (records / "posts" / "sync-basics.html").is_file()
    (srcdir / "posts" / "sync-basics.md").unlink()
    make_app("html", srcdir=srcdir).build()
    left = {str(p.relative_to(records).with_suffix("")) for p in records.rglob("*") if p.is_file()}
    assert left == SEARCHABLE - {"posts/sync-basics"}
    assert "/posts/sync-basics.html" not in fragments(srcdir / "_build" / "html")


def _records(srcdir: Path) -> dict[str, bytes]:
    root = srcdir / "_build" / "doctrees" / search_records.RECORDS_DIR
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_new_post_changes_no_search_record_but_its_own(make_app, rootdir, tmp_path):
    """The home page lists the new post (its latest posts): Pagefind skips that list, and
    its record leaves it out, so the shard holding the home page is not indexed again."""
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-search", srcdir)
    make_app("html", srcdir=srcdir).build()
    before = _records(srcdir)
    assert b"MIG partitions" not in before["index.html"]  # no excerpt of the list
    text = (srcdir / "posts" / "gpu-sharing.md").read_text(encoding="utf-8")
    new = text.replace("2025-05-01", "2025-06-30").replace("# Sharing one GPU", "# Pangolins")
    (srcdir / "posts" / "pangolins.md").write_text(new, encoding="utf-8")
    make_app("html", srcdir=srcdir).build()
    home = (srcdir / "_build" / "html" / "index.html").read_text(encoding="utf-8")
    assert "Pangolins" in home  # the list shows it
    after = _records(srcdir)
    assert set(after) - set(before) == {"posts/pangolins.html"}
    assert [name for name in before if after[name] != before[name]] == []
    pages = fragments(srcdir / "_build" / "html")
    assert [url for url, page in pages.items() if "Pangolins" in page["content"]] == [
        "/posts/pangolins.html"
    ]


def test_a_new_part_of_a_series_changes_no_search_record_but_its_own(make_app, rootdir, tmp_path):
    """The part before it gains a "next" link in its series box, and its "Linked from" the
    new post: Pagefind skips both, and the record leaves them out."""
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-series", srcdir)
    make_app("html", srcdir=srcdir).build()
    before = _records(srcdir)
    text = (srcdir / "posts" / "fp4-3.md").read_text(encoding="utf-8")
    assert "part: 3" in text
    new = text.replace("part: 3", "part: 4").replace("# FP4 part three", "# FP4 part four")
    new = new.replace("date: 2024-06-01", "date: 2024-07-01")
    new += "\nBack to [part three](fp4-3.md).\n"
    (srcdir / "posts" / "fp4-4.md").write_text(new, encoding="utf-8")
    make_app("html", srcdir=srcdir).build()
    page = (srcdir / "_build" / "html" / "posts" / "fp4-3.html").read_text(encoding="utf-8")
    assert "fp4-4.html" in page  # its series box and "Linked from" lead to the new part
    after = _records(srcdir)
    assert set(after) - set(before) == {"posts/fp4-4.html"}
    assert [name for name in before if after[name] != before[name]] == []


@pytest.mark.sphinx("html", testroot="postlist")
def test_a_postlist_is_left_out_of_its_pages_search_record(app):
    app.build()
    records = _records(Path(app.srcdir))
    listed = [
        name
        for name in html_pages(Path(app.outdir))
        if soup(Path(app.outdir) / f"{name}.html").select("ul.postlist")
    ]
    assert listed
    recorded = [name for name in listed if f"{name}.html" in records]
    assert recorded
    for name in recorded:
        record = BeautifulSoup(records[f"{name}.html"], "html.parser")
        assert record.select("[data-pagefind-body]"), name  # the page's text is there
        assert record.select("ul.postlist, li.ablog-post") == [], name
        comments = record.find_all(string=lambda s: isinstance(s, Comment))
        assert not [c for c in comments if "kb-postlist" in c], name


def test_the_bundle_is_the_same_bytes_whatever_order_pagefind_wrote_its_filters(
    make_app, rootdir, tmp_path
):
    """Pagefind writes its category filter in hash-map order (Pagefind/pagefind#638): kb puts
    it in a stable order, so the same pages always give the same bundle."""
    from kb.search import canonical

    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-search", srcdir)
    make_app("html", srcdir=srcdir).build()
    bundle = srcdir / "_build" / "html" / "pagefind"
    before = {p.relative_to(bundle): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}

    # The order Pagefind may write on another run: the filter's values reversed.
    entry = json.loads((bundle / "pagefind-entry.json").read_text())
    meta_hash = entry["languages"]["en"]["hash"]
    meta = canonical.read_file(bundle / f"pagefind.{meta_hash}.pf_meta")
    ((name, filter_hash),) = meta[canonical.META_FILTERS]
    values = canonical.read_file(bundle / "filter" / f"{filter_hash}.pf_filter")
    assert [v[0] for v in values[1]] == ["Article", "Benchmarks"]
    (bundle / "filter" / f"{filter_hash}.pf_filter").unlink()
    shuffled = canonical.write_file(
        bundle / "filter", "en", ".pf_filter", [name, values[1][::-1]], 7
    )
    meta[canonical.META_FILTERS][0][1] = shuffled
    (bundle / f"pagefind.{meta_hash}.pf_meta").unlink()
    entry["languages"]["en"]["hash"] = canonical.write_file(
        bundle, "pagefind.en", ".pf_meta", meta, 10
    ).removeprefix("pagefind.")
    (bundle / "pagefind-entry.json").write_text(json.dumps(entry))
    assert {p.relative_to(bundle) for p in bundle.rglob("*") if p.is_file()} != set(before)

    canonical.canonicalize(bundle)
    after = {p.relative_to(bundle): p.read_bytes() for p in bundle.rglob("*") if p.is_file()}
    assert after == before


@pytest.mark.sphinx("html", testroot="search", srcdir="search-math")
def test_math_is_indexed_as_its_tex_source(app):
    app.build()
    assert app.warning.getvalue() == ""
    outdir = Path(app.outdir)
    # The page draws MathML, as before.
    page = soup(outdir / "posts" / "blackwell-formats.html")
    assert len(page.select("[data-pagefind-body] math")) == 2
    assert page.select(".kb-math-tex") == []
    # Its record, which Pagefind reads, holds the TeX instead: a snippet shows that.
    record = soup(
        Path(app.doctreedir) / search_records.RECORDS_DIR / "posts" / "blackwell-formats.html"
    )
    assert record.select("math") == []
    assert [span.get_text() for span in record.select(".kb-math-tex")] == [
        r"$$C_{ij} = \sum_{c} s_{c} \sum_{k \in \text{block } c} A_{ik} B_{kj}$$",
        "$s_c$",
    ]
    content = fragments(outdir)["/posts/blackwell-formats.html"]["content"]
    assert r"C_{ij} = \sum_{c} s_{c}" in content and "$s_c$ per block" in content
    assert "Cij" not in content and "∑" not in content


def test_math_that_does_not_pair_up_is_left_out_of_the_record():
    body = "<p>a <math><mi>x</mi></math> b <math><mi>y</mi></math></p>"
    assert search_records.math_as_tex(body, [("x", False), ("y^2", True)]) == (
        '<p>a  <span class="kb-math-tex">$x$</span>  b  '
        '<span class="kb-math-tex">$$y^2$$</span> </p>'
    )
    # One formula fewer than the page shows (a raw <math> in a post): none is guessed at.
    assert search_records.math_as_tex(body, [("x", False)]) == "<p>a   b  </p>"


@pytest.mark.sphinx("html", testroot="search", srcdir="search-wordless-post")
def test_a_post_with_no_word_to_index_is_left_out_without_a_warning(app):
    """Pagefind indexes no page without a letter or a digit in its body (a post titled ``/``
    with no text, found by tests/test_agreement.py): the count of searchable pages leaves it
    out too, instead of warning, with no location, that a template dropped a marker."""
    post = Path(app.srcdir) / "posts" / "wordless.md"
    post.write_text(
        "---\nblogpost: true\ndate: 2025-03-02\ncategory: Article\nauthor: ada\n"
        'description: "0"\n---\n\n# /\n',
        encoding="utf-8",
    )
    app.build()
    assert app.warning.getvalue() == ""
    assert search_records.holds_a_word(str(Path(app.outdir) / "posts/hopper-gemm.html"))
    assert not search_records.holds_a_word(str(Path(app.outdir) / "posts/wordless.html"))
    indexed = fragments(Path(app.outdir))
    assert "/posts/wordless.html" not in indexed and "/posts/hopper-gemm.html" in indexed
