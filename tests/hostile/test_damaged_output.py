"""A damaged ``_build`` is made whole by the next build: never trusted, never a traceback.

Files of the output and doctree folders are deleted, emptied, cut short or filled with
garbage, the way a full disk, a stray ``rm`` or a stopped copy leaves them; the next build
must exit 0 without a traceback and leave every output file as a clean build of the same
sources writes it (the search bundle included: a bundle that loads but finds nothing is the
failure this guards against). ``kb serve`` sends each file whole while a rebuild replaces it.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from forkbuild import files, sphinx
from searchbundle import pages_with

from kb.core.fileio import write_atomically

ROOT = Path(__file__).parent.parent / "roots" / "test-listings"
SHARDED = ["-D", "kb_search_shard_size=4"]


class Site:
    def __init__(self, base: Path, extra=()) -> None:
        self.extra = list(extra)
        self.src = base / "src"
        shutil.copytree(ROOT, self.src)
        self.out = base / "build"
        self.html, self.doctrees = self.out / "html", self.out / "doctrees"
        sphinx(self.src, self.out, self.extra)
        shutil.copytree(self.src, base / "clean-src", ignore=shutil.ignore_patterns("_build"))
        sphinx(base / "clean-src", base / "clean", self.extra)
        self.clean = files(base / "clean" / "html")

    def assert_clean_after_a_build(self) -> None:
        sphinx(self.src, self.out, self.extra)  # exit 0, no traceback
        built = files(self.html)
        names = built.keys() | self.clean.keys()
        differ = sorted(name for name in names if built.get(name) != self.clean.get(name))
        assert differ == [], f"files that differ from a clean build: {differ}"
        # The bundle finds what it should: a post by a word of its body.
        assert "/posts/post-05.html" in pages_with(self.html / "pagefind", "paragraph")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Site:
    return Site(tmp_path_factory.mktemp("damaged"))


@pytest.fixture(scope="module")
def sharded(tmp_path_factory) -> Site:
    return Site(tmp_path_factory.mktemp("damaged-sharded"), SHARDED)


def test_a_cut_short_search_entry_is_written_again(site: Site):
    entry = site.html / "pagefind" / "pagefind-entry.json"
    entry.write_bytes(entry.read_bytes()[:20])
    site.assert_clean_after_a_build()
    site.assert_clean_after_a_build()  # and every later build too


def test_search_files_deleted_or_emptied_are_written_again(site: Site):
    bundle = site.html / "pagefind"
    sorted((bundle / "fragment").iterdir())[0].unlink()
    sorted((bundle / "index").iterdir())[0].write_bytes(b"")
    next(bundle.glob("*.pf_meta")).unlink()
    (bundle / "pagefind.js").write_bytes(b"")
    site.assert_clean_after_a_build()


def test_the_whole_bundle_deleted_is_written_again(site: Site):
    shutil.rmtree(site.html / "pagefind")
    site.assert_clean_after_a_build()


def test_kept_pages_and_feeds_deleted_or_cut_short_are_written_again(site: Site):
    listing = site.html / "blog" / "page" / "1.html"
    listing.write_bytes(listing.read_bytes()[:500])
    (site.html / "posts" / "post-14.html").unlink()
    # A page cut short with its search record deleted: the indexer would take the page. It is
    # written again before the indexer lists the pages.
    cut = site.html / "posts" / "post-13.html"
    cut.write_bytes(cut.read_bytes()[:500])
    (site.doctrees / "kb-search-records" / "posts" / "post-13.html").unlink()
    feeds = sorted(path for path in (site.html / "feeds").rglob("*") if path.is_file())
    feeds[0].unlink()
    feeds[1].write_bytes(b"")
    site.assert_clean_after_a_build()
    assert "/posts/post-13.html" in pages_with(site.html / "pagefind", "paragraph")


@pytest.mark.parametrize(
    "record",
    ["kb-state.json", "kb-search-state", "kb-search-digests.json"],
)
def test_records_filled_with_garbage_are_not_trusted(site: Site, record: str):
    (site.doctrees / record).write_bytes(b"\x00{not json")
    site.assert_clean_after_a_build()


def test_kept_sections_of_the_wrong_shape_are_made_again(site: Site):
    state_file = site.doctrees / "kb-state.json"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    lists = state["related"]["lists"]  # the key still matches: only the shape is wrong
    state["related"]["lists"] = dict.fromkeys(lists, [None, 3, {"a": "b"}])
    state_file.write_text(json.dumps(state), encoding="utf-8")
    (site.html / "posts" / "post-03.html").unlink()  # written with the related lists
    site.assert_clean_after_a_build()
    assert json.loads(state_file.read_text(encoding="utf-8"))["related"]["lists"] == lists


def test_a_stopped_builds_journal_cut_short_is_recovered(site: Site):
    (site.doctrees / "kb-state.journal").write_bytes(b"kb-jour")
    site.assert_clean_after_a_build()
    assert not (site.doctrees / "kb-state.journal").exists()


def test_a_cut_short_doctree_is_read_again(site: Site):
    doctree = site.doctrees / "posts" / "post-03.doctree"
    doctree.write_bytes(doctree.read_bytes()[:100])
    (site.html / "posts" / "post-03.html").unlink()  # its page is written from the doctree
    site.assert_clean_after_a_build()


def test_damaged_shards_are_indexed_again(sharded: Site):
    shards = sharded.doctrees / "kb-search-shards"
    first, second = sorted(path for path in shards.iterdir() if path.is_dir())[:2]
    sorted((first / "bundle" / "fragment").iterdir())[0].unlink()
    (second / "shard.pickle").write_bytes(b"")
    (shards / "state").write_bytes(b"garbage")  # the merged bundle must be written again
    sharded.assert_clean_after_a_build()


# -- kb serve ------------------------------------------------------------------------------------


def _get(app, path: str) -> list[dict]:
    """The ASGI messages ``app`` sends for a GET of ``path``."""
    scope = {
        "type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
        "query_string": b"", "headers": [], "root_path": "", "scheme": "http",
        "server": ("127.0.0.1", 80), "http_version": "1.1",
    }  # fmt: skip
    sent: list[dict] = []
    asked: list[int] = []

    async def receive():  # the request, then a client that stays until the answer is sent
        asked.append(1)
        if len(asked) == 1:
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent


def test_serve_sends_a_page_replaced_while_it_is_asked_for_whole(tmp_path, monkeypatch):
    """A rebuild renames a new page over the old one between the moment the server finds the
    file and the moment it sends it: the length it announces is the one it sends. (Starlette's
    own StaticFiles announced the old page's 5,626 bytes here and sent the new one's 31:
    ``IncompleteRead``.)"""
    from kb.cli.serve import _whole_files_class

    page = tmp_path / "index.html"
    page.write_text("<html><body>" + "the page before the rebuild " * 200 + "</body></html>")
    whole_files = _whole_files_class()
    found = whole_files.lookup_path

    def found_then_rebuilt(self, path):
        result = found(self, path)
        write_atomically(page, "<html><body>after</body></html>")
        return result

    monkeypatch.setattr(whole_files, "lookup_path", found_then_rebuilt)
    sent = _get(whole_files(directory=tmp_path, html=True), "/index.html")
    headers = dict(sent[0]["headers"])
    body = b"".join(message.get("body", b"") for message in sent[1:])
    assert sent[0]["status"] == 200
    assert body == b"<html><body>after</body></html>"
    assert int(headers[b"content-length"]) == len(body)
