"""The search page and box in Chromium: kernel terms, results, filters, `/`, Read the Docs.

Most tests use the small site in tests/roots/test-search (posts that use kernel code names,
and a distractor post that uses only their parts), built the way `make html` builds.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, urlparse

import pytest
from playwright.sync_api import expect
from sitefacts import ALL_POSTS, has_text, published

ROOT = Path(__file__).resolve().parents[2] / "roots" / "test-search"

#: Each technical word of the issue, and the one post of the small site that uses it whole.
TERMS = [
    ("wgmma.mma_async", "posts/hopper-gemm"),
    ("cp.async.bulk", "posts/hopper-gemm"),
    ("__shfl_xor_sync", "posts/warp-shuffles"),
    ("FP8", "posts/blackwell-formats"),
    ("NVFP4", "posts/blackwell-formats"),
    ("SM120", "posts/blackwell-formats"),
    ("head dimension 64", "posts/blackwell-formats"),
    ("Stream-K", "posts/hopper-gemm"),
    ("TMEM", "posts/blackwell-formats"),
    ("MIG", "posts/gpu-sharing"),
]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _build_and_serve(out: Path, *overrides: str):
    """Build the small site like `make html` (warnings are errors); serve it on 127.0.0.1.

    The site lives under a sub-path (``/en/latest/``, as Read the Docs serves a version), so
    every test also checks that result links work away from the server's root.
    """
    cmd = [
        sys.executable,
        "-m",
        "sphinx",
        "-nW",
        "--keep-going",
        "-q",
        "-b",
        "html",
        *(f"-D{o}" for o in overrides),
        str(ROOT),
        str(out / "en" / "latest"),
        "-d",
        str(out / "dt"),
    ]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    handler = functools.partial(_QuietHandler, directory=str(out))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/en/latest/"


@pytest.fixture(scope="module")
def small_site(tmp_path_factory):
    server, url = _build_and_serve(tmp_path_factory.mktemp("search-site"))
    yield url
    server.shutdown()


@pytest.fixture(scope="module")
def sharded_site(tmp_path_factory):
    """The small site's index merged from shards of two pages (kb.search.merge), its files
    compressed by kb (kb.search.cbor), not by Pagefind."""
    out = tmp_path_factory.mktemp("search-sharded")
    server, url = _build_and_serve(out, "kb_search_shard_size=2")
    assert len(list((out / "dt" / "kb-search-shards").iterdir())) > 2  # shards and their merge
    yield url
    server.shutdown()


@pytest.fixture(scope="module")
def rtd_site(tmp_path_factory):
    server, url = _build_and_serve(tmp_path_factory.mktemp("search-rtd"), "kb_search_readthedocs=1")
    yield url
    server.shutdown()


def wait_for_results(page):
    expect(page.locator(".kb-search-status")).to_contain_text("result", timeout=10_000)


def result_docnames(page, site_url: str) -> list[str]:
    root = urlparse(site_url).path
    hrefs = page.locator(".kb-search-result-title a").evaluate_all("a => a.map(x => x.href)")
    paths = [urlparse(href).path for href in hrefs]
    assert all(p.startswith(root) and p.endswith(".html") for p in paths), paths
    return [p[len(root) : -len(".html")] for p in paths]


def search(page, site_url: str, query: str, categories=()) -> list[str]:
    params = f"q={quote(query)}" + "".join(f"&category={quote(c)}" for c in categories)
    page.goto(f"{site_url}search.html?{params}")
    wait_for_results(page)
    return result_docnames(page, site_url)


# -- Finding things --------------------------------------------------------------------------


@pytest.mark.parametrize(("query", "docname"), TERMS, ids=[q for q, _ in TERMS])
def test_technical_word_finds_the_post_that_uses_it(page, small_site, query, docname):
    names = search(page, small_site, query)
    assert names[0] == docname, names
    # The distractor uses the parts ("sync", "xor", "async", "bulk", "head", ...), never the word.
    assert "posts/sync-basics" not in names
    assert page.console_errors == []


def test_a_bundle_merged_from_shards_finds_what_one_run_finds(page, small_site, sharded_site):
    """Pagefind's own scripts in the browser read the merged bundle: each technical word, a
    category's filter and a page's metadata, as in the bundle Pagefind wrote in one run."""
    for query, _ in TERMS:
        expected = search(page, small_site, query)
        assert search(page, sharded_site, query) == expected, query
    expected = search(page, small_site, "MIG", ["Benchmarks"])
    assert search(page, sharded_site, "MIG", ["Benchmarks"]) == expected == ["posts/gpu-sharing"]
    first = page.locator(".kb-search-result").first
    expect(first.locator("time")).to_have_attribute("datetime", "2025-05-01")
    expect(first.locator(".kb-search-result-excerpt mark").first).to_have_text("MIG")
    assert page.console_errors == []


def test_only_posts_and_real_pages_are_found(page, small_site, offsite):
    # The home page and every archive repeat this excerpt; only the post itself is a result.
    assert search(page, small_site, "butterfly") == ["posts/warp-shuffles"]
    # A real page that is not a post.
    assert search(page, small_site, "colophon") == ["about"]
    # An unpublished draft is not in the index.
    assert search(page, small_site, "quuxplonk") == []
    expect(page.locator(".kb-search-status")).to_have_text("No results for “quuxplonk”.")
    assert offsite == []


# -- What a result shows -------------------------------------------------------------------------


def test_result_shows_title_date_categories_and_highlighted_snippet(page, small_site):
    requested = []
    page.on("request", lambda request: requested.append(urlparse(request.url).path))
    search(page, small_site, "MIG")
    # Pagefind's entry file came with the page; its metadata and WebAssembly once each.
    assert not [path for path in requested if path.endswith("pagefind-entry.json")]
    assert len([path for path in requested if path.endswith(".pagefind")]) == 1
    first = page.locator(".kb-search-result").first
    expect(first.locator(".kb-search-result-title a")).to_have_text("Sharing one GPU")
    expect(first.locator("time")).to_have_attribute("datetime", "2025-05-01")
    expect(first.locator("time")).to_have_text("1 May 2025")
    expect(first.locator(".kb-search-result-category")).to_have_text("Article, Benchmarks")
    expect(first.locator(".kb-search-result-excerpt mark").first).to_have_text("MIG")
    first.locator(".kb-search-result-title a").click()
    expect(page.locator("article h1").first).to_contain_text("Sharing one GPU")


BENCHMARKS_POSTS = {"posts/blackwell-formats", "posts/gpu-sharing"}


def test_category_filter_narrows_results_and_stays_in_the_url(page, small_site):
    everything = search(page, small_site, "memory")
    assert set(everything) == {
        "posts/blackwell-formats",
        "posts/gpu-sharing",
        "posts/sync-basics",
    }
    boxes = page.locator(".kb-search-categories input[type=checkbox]")
    expect(boxes).to_have_count(2)
    expect(page.locator(".kb-search-category", has_text="Benchmarks")).to_contain_text("(2)")
    page.get_by_role("checkbox", name="Benchmarks").check()
    expect(page.locator(".kb-search-status")).to_have_text("2 results for “memory”.")
    assert set(result_docnames(page, small_site)) == {
        "posts/blackwell-formats",
        "posts/gpu-sharing",
    }
    expect(page).to_have_url(f"{small_site}search.html?q=memory&category=Benchmarks")
    page.reload()
    wait_for_results(page)
    expect(page.get_by_role("checkbox", name="Benchmarks")).to_be_checked()
    assert set(result_docnames(page, small_site)) == {
        "posts/blackwell-formats",
        "posts/gpu-sharing",
    }


def test_typing_on_the_search_page_updates_results(page, small_site):
    page.goto(f"{small_site}search.html")
    expect(page.get_by_role("checkbox", name="Article")).to_be_visible()  # index loaded
    page.locator("#kb-search-input").fill("colophon")
    wait_for_results(page)
    assert result_docnames(page, small_site) == ["about"]
    expect(page).to_have_url(f"{small_site}search.html?q=colophon")


def test_a_hit_inside_an_equation_shows_its_tex(page, small_site, site_url):
    """A snippet of a formula reads as its TeX, not as MathML's letters run together."""
    search(page, small_site, "block")
    excerpt = page.locator(".kb-search-result-excerpt").first.inner_text()
    assert r"$$C_{ij} = \sum_{c} s_{c}" in excerpt and "Cij" not in excerpt
    assert page.console_errors == []
    if not has_text(r"\left\lceil \frac{M}{B_M}"):
        return  # a fork without the Stream-K post: the small site showed it already
    # On the real site, a word that only the Stream-K post's work equation uses.
    search(page, site_url, "lceil")
    first = page.locator(".kb-search-result").first
    expect(first.locator(".kb-search-result-title a")).to_contain_text("Stream-K")
    excerpt = first.locator(".kb-search-result-excerpt").inner_text()
    assert r"\left\lceil \frac{M}{B_M}" in excerpt and "⌈" not in excerpt
    assert page.console_errors == []


# -- The sidebar box -----------------------------------------------------------------------------


def test_slash_focuses_the_sidebar_box_which_opens_the_search_page(page, site_url, offsite):
    """On the real site: `/` focuses furo's sidebar box; Enter shows our results."""
    page.goto(site_url)
    page.keyboard.press("/")
    box = page.locator(".sidebar-search")
    expect(box).to_be_focused()
    box.fill("Stream-K")
    box.press("Enter")
    expect(page).to_have_url(f"{site_url}search.html?q=Stream-K")
    wait_for_results(page)
    expect(page.locator("#kb-search-input")).to_have_value("Stream-K")
    expect(box).to_have_value("Stream-K")
    assert page.locator(".kb-search-result").count() >= 1
    assert offsite == []
    assert page.console_errors == []


def test_without_read_the_docs_the_box_never_asks_for_its_search(page, small_site):
    page.goto(small_site)
    assert page.locator("script[src*='kb-search-readthedocs']").count() == 0


def test_read_the_docs_search_opens_from_the_box_once_its_addons_load(page, rtd_site):
    page.goto(rtd_site)
    page.evaluate(
        """() => { window.rtdShows = 0;
        document.addEventListener("readthedocs-search-show", () => window.rtdShows++); }"""
    )
    box = page.locator(".sidebar-search")
    # Offline (no add-ons): the box stays ours and leads to the in-site search.
    box.focus()
    assert page.evaluate("window.rtdShows") == 0
    box.blur()
    # Read the Docs' add-ons announce themselves; from then on the box opens their search.
    page.evaluate(
        """() => document.dispatchEvent(new CustomEvent("readthedocs-addons-data-ready",
        { detail: { data: () => ({ addons: { search: { enabled: true } } }) } }))"""
    )
    box.focus()
    assert page.evaluate("window.rtdShows") == 1
    # The in-site search page still works, whatever the box does.
    assert search(page, rtd_site, "MIG")[0] == "posts/gpu-sharing"


def test_more_results_shows_the_next_ten(page, site_url):
    """On the real site, a common word has more than one page of results."""
    posts = [p for p in filter(published, ALL_POSTS) if "memory" in p.read_text(encoding="utf-8")]
    if len(posts) <= 10:
        pytest.skip(f"only {len(posts)} posts say 'memory': not more than one page of results")
    page.goto(f"{site_url}search.html?q=memory")
    wait_for_results(page)
    total = int(page.locator(".kb-search-status").inner_text().split()[0])
    assert total > 10
    expect(page.locator(".kb-search-result")).to_have_count(10)
    more = page.get_by_role("button", name="More results")
    more.click()
    expect(page.locator(".kb-search-result")).to_have_count(min(total, 20))
    if total <= 20:
        expect(more).to_be_hidden()


def test_opened_from_files_the_page_says_why_search_is_off(browser, tmp_path_factory):
    outdir = tmp_path_factory.mktemp("search-files")
    server, _ = _build_and_serve(outdir)
    server.shutdown()
    context = browser.new_context()  # no network at all: a file:// page
    page = context.new_page()
    page.goto((outdir / "en" / "latest" / "search.html").as_uri() + "?q=MIG")
    expect(page.locator(".kb-search-status")).to_contain_text("served over HTTP")
    context.close()


def test_slash_focuses_the_search_box_on_the_search_page(page, site_url, offsite):
    """The search page loads none of Sphinx's doctools, and `/` still works there."""
    page.goto(f"{site_url}search.html?q=TMEM")
    wait_for_results(page)
    assert page.locator('script[src*="doctools"]').count() == 0
    page.locator("h1").click()
    page.keyboard.press("/")
    box = page.locator("#kb-search-input")
    expect(box).to_be_focused()
    expect(box).to_have_value("TMEM")
    page.keyboard.type("MIG")  # the old query was selected: typing replaces it
    expect(box).to_have_value("MIG")
    wait_for_results(page)
    expect(page).to_have_url(f"{site_url}search.html?q=MIG")


#: For each fragment Pagefind asks for: how many results the page showed at that moment.
FRAGMENT_RECORDER = """
window.__resultsShownAtEachFragment = [];
const fetchFromNetwork = window.fetch;
window.fetch = function (input, init) {
  const url = typeof input === "string" ? input : input.url;
  if (url.includes(".pf_fragment")) {
    const shown = document.querySelectorAll(".kb-search-result").length;
    window.__resultsShownAtEachFragment.push(shown);
  }
  return fetchFromNetwork.call(this, input, init);
};
"""


def test_top_results_are_fetched_before_the_rest(fresh_page, site_url, offsite):
    """The first three fragments go out first; the rest once the top result is shown."""
    page = fresh_page
    page.add_init_script(FRAGMENT_RECORDER)
    page.goto(f"{site_url}search.html?q=GPU")
    wait_for_results(page)
    shown = page.locator(".kb-search-result").count()
    assert shown > 3  # enough results for the order to matter
    at_each_fragment = page.evaluate("window.__resultsShownAtEachFragment")
    assert len(at_each_fragment) == shown  # one fragment per result shown, none twice
    assert at_each_fragment[:3] == [0, 0, 0]
    assert all(count >= 1 for count in at_each_fragment[3:])
