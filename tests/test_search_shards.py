"""The search index in shards: merged, it holds what one Pagefind run over every page holds.

Builds tests/roots/test-search (seven searchable pages) with ``kb_search_shard_size = 2``, so
that the pages fall into four shards, and compares the merged bundle with the bundle Pagefind
writes in one run (``kb_search_shard_size = 0``), read as a search reads it: each word's pages
and locations, each page's fragment and word count, filters, sort orders and where each index
chunk starts and ends. Page numbers differ between the two (pages are numbered shard after
shard), so everything is compared by page URL.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from searchbundle import bundle_files, pages_with, read_bundle

from kb.config import KbConfig
from kb.core.waiting import Superseded
from kb.search import bundle as bundle_files_module
from kb.search import merge, shards
from kb.search.cbor import Unexpected
from kb.search.pagefind import UNSHARDED_FILE
from kb.upstream import pagefind as upstream_pagefind

SHARDED = {"kb_search_shard_size": 2}
ONE_RUN = {"kb_search_shard_size": 0}


def build(make_app, srcdir: Path, overrides: dict):
    app = make_app("html", srcdir=srcdir, confoverrides=overrides)
    app.build()
    # (A second app in one process re-registers every extension's roles: Sphinx says so.)
    warnings = [w for w in app.warning.getvalue().splitlines() if "already registered" not in w]
    assert warnings == []
    return Path(app.outdir)


@pytest.fixture
def site(tmp_path: Path, rootdir: Path) -> Path:
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-search", srcdir)
    return srcdir


def test_shards_are_chosen_by_path_and_sized(site):
    assert shards.shard_count(7, 0) == 1  # 0: never sharded
    assert shards.shard_count(64, 64) == 1
    assert shards.shard_count(65, 64) == 2
    assert shards.shard_count(1000, 64) == 16
    assert shards.shard_count(7, 2) == 4
    # The default (kb_search_shard_size): 1000 pages in shards of about 31, 10,000 still in
    # 256 (more shards make each merge longer), a site of up to 48 pages in one run.
    default = KbConfig.search_shard_size
    assert shards.shard_count(1007, default) == 32
    assert shards.shard_count(10007, default) == 256
    assert shards.shard_count(48, default) == 1
    # The same page is in the same shard whatever else the site holds.
    assert shards.shard_of("posts/a.html", 16) == shards.shard_of("posts/a.html", 16)
    spread = {shards.shard_of(f"posts/{n}.html", 16) for n in range(200)}
    assert spread == set(range(16))


@pytest.mark.parametrize("size", [1, 2])
def test_merged_shards_hold_what_one_run_holds(make_app, site, tmp_path, size):
    # One page a shard: pages without a date (the home page, about) have fewer meta fields
    # than posts, so their shards number the fields otherwise (kb.search.metafields).
    sharded = build(make_app, site, {"kb_search_shard_size": size}) / "pagefind"
    folders = sorted(p.name for p in (site / "_build" / "doctrees" / shards.SHARDS_DIR).iterdir())
    count = shards.shard_count(7, size)
    assert len([name for name in folders if name.startswith(f"{count}-")]) > count // 2
    other = tmp_path / "one-run"
    shutil.copytree(site, other, ignore=shutil.ignore_patterns("_build"))
    single = build(make_app, other, ONE_RUN) / "pagefind"
    assert not (other / "_build" / "doctrees" / shards.SHARDS_DIR).exists()
    assert read_bundle(sharded) == read_bundle(single)
    # Pagefind's scripts and WebAssembly are the same files.
    scripts = {name for name in bundle_files(single) if "/" not in name and "pf_meta" not in name}
    for name in scripts - {"pagefind-entry.json"}:
        assert (sharded / name).read_bytes() == (single / name).read_bytes(), name


@pytest.mark.slow
def test_an_edit_indexes_its_shard_again_and_equals_a_clean_build(make_app, site, tmp_path):
    outdir = build(make_app, site, SHARDED)
    root = site / "_build" / "doctrees" / shards.SHARDS_DIR
    parsed = {p.parent.name: p.stat().st_mtime_ns for p in root.glob("*/" + shards.PARSED)}

    post = site / "posts" / "gpu-sharing.md"
    post.write_text(post.read_text() + "\nA new sentence about quokkas.\n", encoding="utf-8")
    build(make_app, site, SHARDED)
    assert pages_with(outdir / "pagefind", "quokka") == {"/posts/gpu-sharing.html"}
    after = {p.parent.name: p.stat().st_mtime_ns for p in root.glob("*/" + shards.PARSED)}
    changed = [name for name in parsed if after[name] != parsed[name]]
    assert changed == [f"4-{shards.shard_of('posts/gpu-sharing.html', 4)}"]

    clean = tmp_path / "clean"
    shutil.copytree(site, clean, ignore=shutil.ignore_patterns("_build"))
    clean_bundle = build(make_app, clean, SHARDED) / "pagefind"
    assert bundle_files(outdir / "pagefind") == bundle_files(clean_bundle)

    # A deleted post leaves the index; the bundle is again what a clean build writes.
    (site / "posts" / "gpu-sharing.md").unlink()
    (clean / "posts" / "gpu-sharing.md").unlink()
    build(make_app, site, SHARDED)
    shutil.rmtree(clean / "_build")
    assert bundle_files(outdir / "pagefind") == bundle_files(
        build(make_app, clean, SHARDED) / "pagefind"
    )
    assert pages_with(outdir / "pagefind", "quokka") == set()


@pytest.mark.slow
def test_switching_shards_on_and_off_gives_the_bundle_of_a_clean_build(make_app, site, tmp_path):
    outdir = build(make_app, site, ONE_RUN)
    one_run = bundle_files(outdir / "pagefind")
    build(make_app, site, SHARDED)
    assert not (site / "_build" / "doctrees" / "kb-search-state").exists()
    build(make_app, site, ONE_RUN)
    assert bundle_files(outdir / "pagefind") == one_run


def test_a_bundle_the_merge_does_not_know_is_indexed_in_one_run(make_app, site, monkeypatch):
    """Another Pagefind may lay out its files otherwise: never a broken index, one run instead,
    and later builds with that Pagefind do not try the shards again."""

    def unknown(folder, records):
        raise Unexpected("a layout of another version")

    monkeypatch.setattr(shards, "read_shard", unknown)
    outdir = build(make_app, site, SHARDED)
    doctrees = site / "_build" / "doctrees"
    assert (doctrees / UNSHARDED_FILE).is_file()
    assert not (doctrees / shards.SHARDS_DIR).exists()
    pages = read_bundle(outdir / "pagefind")["languages"]["en"]["fragments"]
    assert len(pages) == 7

    post = site / "posts" / "gpu-sharing.md"
    post.write_text(post.read_text() + "\nA new sentence about quokkas.\n", encoding="utf-8")
    build(make_app, site, SHARDED)
    assert not (doctrees / shards.SHARDS_DIR).exists()
    assert pages_with(outdir / "pagefind", "quokka") == {"/posts/gpu-sharing.html"}


def test_a_pagefind_whose_layout_kb_does_not_know_indexes_every_page_in_one_run(
    make_app, site, monkeypatch
):
    """kb merges shards only for the Pagefind versions whose bundle layout it was checked
    against (kb.upstream.pagefind): any other runs once over the whole site."""
    monkeypatch.setattr(upstream_pagefind, "KNOWN_VERSIONS", frozenset())
    outdir = build(make_app, site, SHARDED)
    assert not (site / "_build" / "doctrees" / shards.SHARDS_DIR).exists()
    pages = read_bundle(outdir / "pagefind")["languages"]["en"]["fragments"]
    assert len(pages) == 7


def test_a_damaged_shard_is_indexed_again(make_app, site):
    outdir = build(make_app, site, SHARDED)
    before = bundle_files(outdir / "pagefind")
    root = site / "_build" / "doctrees" / shards.SHARDS_DIR
    damaged = sorted(root.glob("*/" + shards.PARSED))[0]
    damaged.write_bytes(b"not a pickle")
    (root / shards.STATE).unlink()  # as if the bundle had to be written again
    build(make_app, site, SHARDED)
    assert bundle_files(outdir / "pagefind") == before


def test_where_index_chunks_start_and_end_as_pagefind_writes_it():
    # Pagefind's own examples (pagefind/src/index/mod.rs, chunk_meta and get_prefixes).
    assert merge._prefixes("apple", "apricot") == ("app", "apr")
    assert merge._prefixes("cataraman", "yacht") == ("c", "y")
    assert merge._prefixes("cath", "cathartic") == ("cath", "catha")
    assert merge._chunk_ranges([["apple"], ["apricot", "banana"], ["peach"]]) == [
        ["apple", "apple"],  # not "app": an end never comes before its start
        ["apr", "b"],
        ["p", "peach"],
    ]


def test_a_short_name_taken_by_other_bytes_gets_longer(tmp_path):
    from kb.search import cbor

    first = cbor.pack(tmp_path, "en", ".pf_index", cbor.encode(["a"]), 7)
    path = tmp_path / f"{first}.pf_index"
    taken = {path}
    # The same short name for other bytes (as if two chunks' hashes began alike).
    again = cbor.pack(tmp_path, "en", ".pf_index", cbor.encode(["a"]), 7, taken)
    assert again != first and again.startswith(first) and len(again) == len(first) + 1
    assert cbor.read_file(tmp_path / f"{again}.pf_index") == ["a"]
    # A file of the right name but stale bytes is written again.
    path.write_bytes(b"stale")
    assert cbor.pack(tmp_path, "en", ".pf_index", cbor.encode(["a"]), 7) == first
    assert cbor.read_file(path) == ["a"]


def test_a_file_left_as_written_is_not_compressed_again(tmp_path, monkeypatch):
    from kb.search import cbor

    written: dict = {}
    name = cbor.pack(tmp_path, "en", ".pf_index", cbor.encode(["a"]), 7, set(), written)
    path = tmp_path / f"{name}.pf_index"
    assert list(written) == [str(path)]

    def no_compression(*args, **kwargs):
        raise AssertionError("compressed again")

    with monkeypatch.context() as patched:
        patched.setattr(cbor, "compress", no_compression)
        assert cbor.pack(tmp_path, "en", ".pf_index", cbor.encode(["a"]), 7, set(), written) == name
    assert cbor.read_file(path) == ["a"]
    # Changed since (another size, time stamp or file): written again, with the right bytes.
    for damage in (b"stale", b""):
        path.write_bytes(damage)
        assert cbor.pack(tmp_path, "en", ".pf_index", cbor.encode(["a"]), 7, set(), written) == name
        assert cbor.read_file(path) == ["a"]
    path.unlink()
    cbor.pack(tmp_path, "en", ".pf_index", cbor.encode(["a"]), 7, set(), written)
    assert cbor.read_file(path) == ["a"]


def test_many_files_packed_at_once_are_named_and_written_as_one_at_a_time(tmp_path):
    """``pack_many`` compresses in threads; the names, the bytes and what it records are
    those of :func:`pack` called for each file in turn, a taken short name included."""
    from kb.search import cbor

    files = [cbor.encode([word]) for word in ("a", "b", "a", "c")]
    one_at_a_time, at_once = tmp_path / "one", tmp_path / "many"
    for folder in (one_at_a_time, at_once):
        folder.mkdir()
    taken: set = set()
    written: dict = {}
    expected = [cbor.pack(one_at_a_time, "en", ".pf_index", f, 7, taken, written) for f in files]
    taken_too: set = set()
    written_too: dict = {}
    names = cbor.pack_many(at_once, "en", ".pf_index", files, 7, taken_too, written_too)
    assert names == expected and len(set(names)) == 4  # the second "a" got a longer name
    for name, word in zip(names, ("a", "b", "a", "c"), strict=True):
        assert cbor.read_file(at_once / f"{name}.pf_index") == [word]
        assert (at_once / f"{name}.pf_index").read_bytes() == (
            one_at_a_time / f"{name}.pf_index"
        ).read_bytes()
    assert sorted(Path(path).name for path in written_too) == sorted(
        Path(path).name for path in written
    )
    # Packed again, as they were left: nothing is written, the names are the same.
    stamps = {path: Path(path).stat().st_mtime_ns for path in written_too}
    again = cbor.pack_many(at_once, "en", ".pf_index", files, 7, set(), written_too)
    assert again == names
    assert {path: Path(path).stat().st_mtime_ns for path in written_too} == stamps


def packed_files(bundle: Path) -> set[str]:
    return {str(path) for path in bundle.rglob("*.pf_*") if path.parent.name != "fragment"}


def test_a_merge_forgets_the_files_it_no_longer_writes(make_app, site):
    build(make_app, site, SHARDED)
    root = site / "_build" / "doctrees" / shards.SHARDS_DIR
    written = json.loads((root / shards.WRITTEN).read_text(encoding="utf-8"))
    bundle = site / "_build" / "html" / "pagefind"
    # Fragments are links to the shards' files; the index, filters and metadata are written.
    assert set(written) == packed_files(bundle)
    chunks = {p.name: p.stat().st_ino for p in (bundle / "index").iterdir()}

    post = site / "posts" / "gpu-sharing.md"
    post.write_text(post.read_text() + "\nA new sentence about quokkas.\n", encoding="utf-8")
    build(make_app, site, SHARDED)
    written = json.loads((root / shards.WRITTEN).read_text(encoding="utf-8"))
    assert set(written) == packed_files(bundle)
    # Chunks with the same bytes kept their files: not written again.
    for path in (bundle / "index").iterdir():
        if path.name in chunks:
            assert path.stat().st_ino == chunks[path.name]


class AskedAfter:
    """A ``superseded`` that says no to the first ``times`` questions, then yes."""

    def __init__(self, times: int) -> None:
        self.times, self.asked = times, 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked > self.times


@pytest.mark.parametrize("times", [0, 1, 2, 3])
def test_a_merge_a_build_waits_for_stops_and_leaves_the_entry_as_it_was(
    make_app, site, tmp_path, times
):
    """Told at any of its questions (before it makes the index chunks, as it makes them,
    before it writes them, before it writes the entry: the site's few chunks are made
    between two questions), the merge stops; the bundle still reads as it did, and the next
    merge writes the bundle that a merge never stopped writes."""
    bundle = build(make_app, site, SHARDED) / "pagefind"
    entry = (bundle / merge.ENTRY).read_bytes()
    found = read_bundle(bundle)
    root = site / "_build" / "doctrees" / shards.SHARDS_DIR
    loaded = [shards._load(path) for path in sorted(root.glob("*/" + shards.PARSED))]
    for part in loaded:  # other words, so that the merge writes other chunks and entry
        for language in part.languages.values():
            language.words = {f"{word}x": entry for word, entry in language.words.items()}

    with pytest.raises(Superseded):
        merge.merge(loaded, bundle, {}, AskedAfter(times))
    assert (bundle / merge.ENTRY).read_bytes() == entry
    assert read_bundle(bundle) == found
    published = merge.merge(loaded, bundle, {})
    bundle_files_module.prune(bundle, published)
    assert set(bundle_files(bundle)) == published
    never_stopped = tmp_path / "never-stopped"
    merge.merge(loaded, never_stopped, {})
    assert bundle_files(bundle) == bundle_files(never_stopped)
    assert pages_with(bundle, "gpux") == {"/posts/gpu-sharing.html"}


def test_a_run_a_build_waits_for_starts_no_shard_and_does_not_merge(tmp_path):
    # Asked before each run starts: none starts, and the merge is the next indexer's. (With
    # Pagefind itself, the runs already going end first: tests/test_output.py.)
    run = shards.ShardedRun(
        tmp_path / "bundle",
        _records(tmp_path, 24),
        tmp_path / "work",
        lambda site, bundle: [sys.executable, "-c", _NOTE, str(site), str(bundle)],
        "settings",
        8,
        AskedAfter(0),
    )
    with pytest.raises(Superseded):
        run.wait(lambda output, status: pytest.fail(output))
    assert list((tmp_path / "work" / shards.SHARDS_DIR).glob("*/ran")) == []
    assert not (tmp_path / "bundle" / merge.ENTRY).exists()
    assert not (tmp_path / "work" / shards.SHARDS_DIR / shards.WRITTEN).exists()


@pytest.mark.sphinx("html", testroot="search", srcdir="search-related")
def test_related_posts_are_neither_indexed_nor_in_the_record(app):
    """Other posts' titles are not words of this post; and a post added elsewhere, which
    changes many related lists, must change no other record (nor re-index their shards)."""
    from helpers import soup

    from kb.search import records

    app.build()
    outdir, doctrees = Path(app.outdir), Path(app.doctreedir)
    listed = [
        path
        for path in sorted((outdir / "posts").glob("*.html"))
        if soup(path).select("[data-pagefind-body] .kb-related li")
    ]
    assert listed  # the root's posts share tags: they list each other
    for path in listed:
        record = soup(doctrees / records.RECORDS_DIR / "posts" / path.name)
        assert record.select(".kb-related") == []
        assert record.select("[data-pagefind-body]")
    content = read_bundle(outdir / "pagefind")["languages"]["en"]["fragments"]
    assert not any("Related posts" in fragment["content"] for _, fragment in content.values())


def test_the_background_indexer_starts_without_sphinx_logging_or_docutils():
    """``python -m kb.search.worker`` is on kb serve's way from a save to the search where no
    copy of the build can be made (kb.core.detached), and in benchmarks/indexer_once.py: it
    imports neither Sphinx's logging nor docutils (45 ms of its start) before Pagefind runs."""
    heavy = "{'sphinx.util.logging', 'docutils.nodes'}"
    code = f"import sys, kb.search.worker; print(sorted({heavy} & set(sys.modules)))"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"


# -- The runs, in a thread of their own ---------------------------------------------------------


def _records(folder: Path, count: int) -> dict[str, str]:
    """``count`` search records: each page's path in the site, and its file."""
    sources = {}
    for number in range(count):
        record = folder / "records" / f"page-{number}.html"
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(f"<html><body><p>Page {number}</p></body></html>", encoding="utf-8")
        sources[f"posts/page-{number}.html"] = str(record)
    return sources


def _run(tmp_path: Path, program: str, shard_count: int = 8) -> shards.ShardedRun:
    """A run over eight shards whose "Pagefind" is ``program`` (Python, given the shard's
    staged site and its bundle folder as arguments)."""
    return shards.ShardedRun(
        tmp_path / "bundle",
        _records(tmp_path, 24),
        tmp_path / "work",
        lambda site, bundle: [sys.executable, "-c", program, str(site), str(bundle)],
        "settings",
        shard_count,
    )


#: Notes that it ran, in the shard's folder, and ends.
_NOTE = "import sys, pathlib; pathlib.Path(sys.argv[2]).with_name('ran').touch()"


def test_every_shard_runs_while_the_build_goes_on(tmp_path):
    # The build never waits (it writes its other pages): each run still starts as one ends.
    run = _run(tmp_path, _NOTE)
    notes = tmp_path / "work" / shards.SHARDS_DIR
    deadline = time.monotonic() + 60
    while len(list(notes.glob("*/ran"))) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(list(notes.glob("*/ran"))) == 8
    assert run.pending == []
    run.cancel()


def test_a_failed_run_fails_the_build_with_its_output_and_starts_no_other(tmp_path):
    fails = "import sys; print('Pagefind says no'); sys.exit(3)"
    run = _run(tmp_path, fails)
    failures = []

    def failed(output, status):
        failures.append((output.strip(), status))
        raise RuntimeError("the build fails")

    with pytest.raises(RuntimeError):
        run.wait(failed)
    assert failures == [("Pagefind says no", 3)]
    # The first failure stopped the thread: at most one run a processor was started.
    started = list((tmp_path / "work" / shards.SHARDS_DIR).glob("*/site-*"))
    assert started == []  # each staged site removed
    assert len(list((tmp_path / "work" / shards.SHARDS_DIR).iterdir())) <= (os.cpu_count() or 1)


def test_a_cancelled_run_stops_at_once(tmp_path):
    sleeps = "import time; time.sleep(60)"
    run = _run(tmp_path, sleeps)
    start = time.monotonic()
    run.cancel()
    assert time.monotonic() - start < 10
    assert run.pending == []
    assert list((tmp_path / "work" / shards.SHARDS_DIR).glob("*/site-*")) == []


def test_a_run_that_cannot_start_fails_the_build_with_the_reason(tmp_path):
    # The thread's error reaches the build, which does not wait forever for it.
    run = shards.ShardedRun(
        tmp_path / "bundle",
        _records(tmp_path, 24),
        tmp_path / "work",
        lambda site, bundle: [str(tmp_path / "no-such-pagefind")],
        "settings",
        8,
    )
    with pytest.raises(FileNotFoundError):
        run.wait(lambda output, status: pytest.fail("no run ended"))
    assert run.pending == []
