"""One state per output folder: drafts stay off the site, builds take turns, and `kb serve`
and `make html` share their state, so any sequence of the two leaves a clean build's files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import feedparser
import pytest
from helpers import soup, warning_lines, write_post
from lxml import etree
from sitebuild import build, copy_root

from kb.checks.schedule import file_day
from kb.cli.serve import build_folders
from kb.core import drafts
from kb.core.output import lock_folders, release
from kb.core.waiting import BUILDING, WAITING_NOTE, build_waiting

SRC = Path(__file__).parent.parent / "src"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}


# -- Drafts ------------------------------------------------------------------------------------


def _search_site(tmp_path: Path) -> Path:
    """The search root: its `posts/unpublished.md` is dated 2999, tagged `drafts` alone."""
    return copy_root("search", tmp_path / "site")


def test_a_draft_is_not_on_the_site_at_all(make_app, tmp_path):
    app = build(make_app, _search_site(tmp_path))
    assert app.warning.getvalue() == ""
    out = Path(app.outdir)
    assert "unpublished" not in app.env.found_docs  # not even read
    assert not (out / "posts/unpublished.html").exists()
    assert not (out / "blog/drafts.html").exists()
    assert not (out / "blog/tag/drafts.html").exists()  # a tag only the draft uses
    assert "drafts" not in soup(out / "blog/tag.html").get_text()
    feed = feedparser.parse((out / "feeds/atom.xml").read_bytes())
    assert feed.entries and all("unpublished" not in e.link for e in feed.entries)
    sitemap = etree.parse(str(out / "sitemap.xml")).getroot()
    assert not [loc for loc in sitemap.itertext() if "unpublished" in loc or "drafts" in loc]
    records = Path(app.doctreedir) / "kb-search-records"
    assert not list(records.rglob("unpublished*"))
    assert "Unpublished" not in soup(out / "index.html").get_text()


def test_kb_drafts_previews_them(make_app, tmp_path):
    app = build(make_app, _search_site(tmp_path), confoverrides={"kb_drafts": True})
    out = Path(app.outdir)
    assert (out / "posts/unpublished.html").is_file()
    assert (out / "blog/drafts.html").is_file()
    assert "unpublished" in soup(out / "blog/drafts.html").select_one(".kb-entry a")["href"]


def test_a_link_from_a_published_post_to_a_draft_fails_the_build_at_the_link(make_app, tmp_path):
    site = _search_site(tmp_path)
    post = write_post(
        site, "posts/linker.md", "Linker", "2025-06-01", author="ada",
        body="See [the next part](unpublished.md) soon.",
    )  # fmt: skip
    app = build(make_app, site)
    warnings = [line for line in warning_lines(app.warning) if "WARNING" in line]
    assert warnings == [
        f"{post}:11: WARNING: links to unpublished.md, a draft dated 2999-01-01: it is not on "
        "the site until then, so the link would be broken; add the link once that post is out, "
        "or date this post later [kb.frontmatter]",
    ]  # and not MyST's "Unknown source document" for the same link: kb said it


def test_today_comes_from_source_date_epoch_when_it_is_set(monkeypatch, tmp_path):
    post = write_post(tmp_path, "posts/p.md", "P", "2026-01-02")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(time.mktime((2026, 1, 1, 12, 0, 0, 0, 0, 0)))))
    assert drafts.today().isoformat() == "2026-01-01"
    assert drafts.draft_sources(str(tmp_path), "posts/*.md") == ["posts/p.md"]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(time.mktime((2026, 1, 2, 12, 0, 0, 0, 0, 0)))))
    assert drafts.draft_sources(str(tmp_path), "posts/*.md") == []
    post.write_text(post.read_text().replace("date: 2026-01-02", "date: 2026-02-30"))
    assert file_day(post) is None  # not a real day: the checks report it


def test_a_second_scan_for_drafts_reads_only_the_posts_saved_since(monkeypatch, tmp_path):
    posts = [write_post(tmp_path, f"posts/p{n}.md", f"P{n}", "2025-01-02") for n in range(3)]
    assert drafts.draft_sources(str(tmp_path), "posts/*.md") == []
    read = []
    monkeypatch.setattr(
        drafts, "file_day", lambda path, *rest: read.append(path) or file_day(path, *rest)
    )
    # The same length, another version: the new day is read. (The file system stamps a save
    # with its clock's last tick, a few milliseconds wide, as Sphinx, too, compares it: a save
    # later than the first read is given a later time here rather than waited for.)
    posts[1].write_text(posts[1].read_text().replace("2025-01-02", "2999-01-02"))
    later = posts[1].stat().st_mtime_ns + 10**9
    os.utime(posts[1], ns=(later, later))
    assert drafts.draft_sources(str(tmp_path), "posts/*.md") == ["posts/p1.md"]
    assert read == [str(posts[1])]
    posts[1].unlink()
    assert drafts.draft_sources(str(tmp_path), "posts/*.md") == []


# -- Builds take turns ---------------------------------------------------------------------------


def _sphinx_command(site: Path, *options: str) -> list[str]:
    outdir, doctrees = build_folders(site)
    command = [sys.executable, "-m", "sphinx", "-b", "html", *options, "-d", str(doctrees)]
    return [*command, str(site), str(outdir)]


def sphinx_build(site: Path, *options: str, wait: bool = True):
    command = _sphinx_command(site, *options)
    process = subprocess.Popen(
        command, cwd=site, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if wait:
        output, _ = process.communicate(timeout=300)
        assert process.returncode == 0, output
        return output
    return process


def test_a_second_build_waits_for_the_first_and_says_so(tmp_path):
    site = copy_root("listings", tmp_path / "site")
    outdir, doctrees = build_folders(site)
    held = lock_folders([outdir, doctrees])  # a build in progress
    try:
        second = sphinx_build(site, wait=False)
        deadline = time.monotonic() + 60
        line = ""
        while "waiting" not in line and time.monotonic() < deadline:
            line = second.stdout.readline()
        assert "another build is writing" in line
        assert str(outdir.resolve()) in line or str(doctrees.resolve()) in line
        time.sleep(1)
        assert second.poll() is None  # still waiting
        # What a search indexer holding the folders for the build before reads: a build waits
        # to write this output folder (kb.core.waiting), not another.
        assert build_waiting(doctrees, outdir)
        assert not build_waiting(doctrees, tmp_path / "linkcheck")
    finally:
        release(held)
    output, _ = second.communicate(timeout=300)
    assert second.returncode == 0, output
    assert "the other build has finished" in output
    assert (outdir / "index.html").is_file()
    assert not build_waiting(doctrees, outdir)
    assert not (doctrees / BUILDING / WAITING_NOTE).exists()


def test_the_note_of_a_waiting_build_that_was_killed_says_nothing(tmp_path):
    site = copy_root("listings", tmp_path / "site")
    outdir, doctrees = build_folders(site)
    held = lock_folders([outdir, doctrees])
    try:
        waiting = sphinx_build(site, wait=False)
        deadline = time.monotonic() + 60
        while not build_waiting(doctrees, outdir) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert build_waiting(doctrees, outdir)
        waiting.kill()
        waiting.communicate(timeout=60)
        # Its note is left behind, but no lock holds it: no indexer gives up its work for it.
        assert (doctrees / BUILDING / WAITING_NOTE).exists()
        assert not build_waiting(doctrees, outdir)
    finally:
        release(held)


# -- kb serve and make html ----------------------------------------------------------------------


def site_files(outdir: Path) -> dict[str, bytes]:
    """Every file a reader can fetch (search bundle included), by path."""
    return {
        path.relative_to(outdir).as_posix(): path.read_bytes()
        for path in sorted(outdir.rglob("*"))
        if path.is_file() and not path.relative_to(outdir).parts[0].startswith(".")
    }


def wait_for_background_index(site: Path) -> None:
    outdir, doctrees = build_folders(site)
    release(lock_folders([outdir, doctrees]))  # the worker holds them while it indexes


@pytest.mark.slow
def test_any_sequence_of_kb_serve_and_make_html_gives_a_clean_builds_files(tmp_path):
    site = copy_root("listings", tmp_path / "site")
    post = site / "posts/post-27.md"
    original = post.read_text(encoding="utf-8")
    serve = ["-n", "-D", "kb_search_defer=1"]  # what kb serve's rebuilds run
    make = ["-nW", "--keep-going"]  # what make html runs
    sphinx_build(site, *make)
    post.write_text(original.replace("# Post 27", "# Post 27, retitled"), encoding="utf-8")
    sphinx_build(site, *serve)
    wait_for_background_index(site)
    post.write_text(original, encoding="utf-8")
    sphinx_build(site, *serve)
    wait_for_background_index(site)
    sphinx_build(site, *make)

    clean = copy_root("listings", tmp_path / "clean")
    sphinx_build(clean, *make)
    got, expected = site_files(build_folders(site)[0]), site_files(build_folders(clean)[0])
    assert sorted(got) == sorted(expected)
    differ = [name for name in expected if got[name] != expected[name]]
    assert differ == []
    assert "retitled" not in json.dumps([s.decode("utf-8", "replace") for s in got.values()])


#: A Pagefind that starts only once a build says it waits for the folders (the indexer of the
#: build before then holds them) or the test lets it (``go``): ``marker go pagefind args...``.
_HELD_BACK_PAGEFIND = """\
import os, sys, time
marker, go, real = sys.argv[1:4]
while not (os.path.exists(marker) or os.path.exists(go)):
    time.sleep(0.01)
os.execv(real, [real, *sys.argv[4:]])
"""


@pytest.mark.slow
def test_a_search_indexer_a_newer_build_waits_for_leaves_the_merge_to_it(tmp_path):
    """kb serve, saves that come quicker than the search index: the indexer of the first
    build, held back until the second build waits for the folders, gives up before it merges;
    the second build's indexer then makes the bundle a clean build makes."""
    from kb.search.pagefind import find_pagefind
    from kb.search.shards import SHARDS_DIR, WRITTEN

    site = copy_root("listings", tmp_path / "site")
    outdir, doctrees = build_folders(site)
    post = site / "posts/post-27.md"
    original = post.read_text(encoding="utf-8")
    sharded = ["-D", "kb_search_shard_size=4"]  # so that the indexer merges shards
    serve = ["-n", "-D", "kb_search_defer=1", *sharded]
    sphinx_build(site, "-n", *sharded)
    merged_before = (doctrees / SHARDS_DIR / WRITTEN).stat()
    entry_before = (outdir / "pagefind/pagefind-entry.json").read_bytes()

    go = tmp_path / "go"
    wrapper = tmp_path / "pagefind.py"
    wrapper.write_text(_HELD_BACK_PAGEFIND, encoding="utf-8")
    note = doctrees / BUILDING / WAITING_NOTE
    held_back = [sys.executable, str(wrapper), str(note), str(go), str(find_pagefind())]
    runner = tmp_path / "pagefind"
    runner.write_text("#!/bin/sh\nexec " + " ".join(held_back) + ' "$@"\n', encoding="utf-8")
    runner.chmod(0o755)
    # The package that names Pagefind's binary, shadowed (PAGEFIND_BINARY_PATH would make its
    # version unknown, and kb would then index in one run, not in shards).
    shadow = tmp_path / "shadow" / "pagefind_bin_extended"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        f"from pathlib import Path\n\ndef get_executable():\n    return Path({str(runner)!r})\n",
        encoding="utf-8",
    )
    env = {**ENV, "PYTHONPATH": os.pathsep.join([str(shadow.parent), ENV["PYTHONPATH"]])}

    post.write_text(original.replace("# Post 27", "# Post 27, retitled"), encoding="utf-8")
    first = subprocess.run(
        [*_sphinx_command(site, *serve)], cwd=site, env=env, capture_output=True, text=True
    )
    assert first.returncode == 0, first.stdout + first.stderr
    post.write_text(original.replace("# Post 27", "# Post 27, named again"), encoding="utf-8")
    second = subprocess.run(
        [*_sphinx_command(site, *serve)], cwd=site, env=env, capture_output=True, text=True
    )
    assert second.returncode == 0, second.stdout + second.stderr
    # The second build waited for the first's indexer, which stopped before its merge: the
    # merged bundle is the one before both (the second's indexer waits for ``go``).
    assert "waiting for it to finish" in second.stdout + second.stderr
    merged_after = (doctrees / SHARDS_DIR / WRITTEN).stat()
    assert (merged_after.st_ino, merged_after.st_mtime_ns) == (
        merged_before.st_ino,
        merged_before.st_mtime_ns,
    )
    assert (outdir / "pagefind/pagefind-entry.json").read_bytes() == entry_before
    go.touch()
    wait_for_background_index(site)

    clean = copy_root("listings", tmp_path / "clean")
    (clean / "posts/post-27.md").write_text(post.read_text(encoding="utf-8"), encoding="utf-8")
    sphinx_build(clean, "-n", *sharded)
    got, expected = site_files(outdir), site_files(build_folders(clean)[0])
    assert sorted(got) == sorted(expected)
    assert [name for name in expected if got[name] != expected[name]] == []
    assert "named again" in (outdir / "posts/post-27.html").read_text(encoding="utf-8")


def test_kb_serve_and_make_html_share_folders_and_drafts_get_their_own(tmp_path):
    from kb.cli.serve import sphinx_arguments

    site = copy_root("listings", tmp_path / "site").resolve()
    shutil.copy(Path(__file__).parent.parent / "Makefile", site / "Makefile")
    outdir, doctrees = build_folders(site)
    arguments = sphinx_arguments(site)
    assert arguments[arguments.index(str(site)) :][:4] == [
        str(site), str(outdir), "-d", str(doctrees),
    ]  # fmt: skip
    makefile = (site / "Makefile").read_text()
    assert "-d $(BUILDDIR)/doctrees . $(BUILDDIR)/html" in makefile
    preview = sphinx_arguments(site, drafts=True)
    assert "kb_drafts=1" in preview and str(site / "_build/drafts/html") in preview


@pytest.mark.parametrize("kind", ["outdir", "doctrees"])
def test_a_build_in_the_same_process_never_waits_for_itself(make_app, tmp_path, kind):
    # A build that failed before build-finished leaves its locks with the process.
    site = copy_root("listings", tmp_path / "site")
    outdir, doctrees = build_folders(site)
    lock_folders([outdir if kind == "outdir" else doctrees])
    app = build(make_app, site)
    assert app.warning.getvalue() == ""


# -- Whole pages, whatever the HTML builder --------------------------------------------------

_CUSTOM_BUILDER = '''

from sphinx.builders.html import StandaloneHTMLBuilder


class MarkingBuilder(StandaloneHTMLBuilder):
    """Another extension's HTML builder: it adds a meta tag to every document's page."""

    def handle_page(self, pagename, addctx, *args, **kwargs):
        if "metatags" in addctx:
            addctx = {**addctx, "metatags": addctx["metatags"] + '<meta name="x-marked">'}
        return super().handle_page(pagename, addctx, *args, **kwargs)


def setup(app):
    app.add_builder(MarkingBuilder, override=True)
'''


def test_another_extensions_html_builder_keeps_its_change_and_writes_whole_pages(
    make_app, tmp_path
):
    site = copy_root("search", tmp_path / "site")
    conf = site / "conf.py"
    conf.write_text(conf.read_text(encoding="utf-8") + _CUSTOM_BUILDER, encoding="utf-8")
    app = build(make_app, site)
    assert app.warning.getvalue() == ""
    assert type(app.builder).__mro__[1].__name__ == "_WholePages"
    assert type(app.builder).__mro__[2].__name__ == "MarkingBuilder"
    out = Path(app.outdir)
    pages = sorted(out.glob("posts/*.html"))
    assert pages and all(soup(page).select_one('meta[name="x-marked"]') for page in pages)
    assert not list(out.rglob("*.partial"))


@pytest.mark.parametrize("builder", ["singlehtml", "epub"])
def test_other_builders_of_html_pages_write_whole_pages_too(make_app, tmp_path, builder):
    site = copy_root("search", tmp_path / "site")
    app = build(make_app, site, buildername=builder)
    assert type(app.builder).__name__ == f"WholePage{type(app.builder).__mro__[2].__name__}"
    assert not list(Path(app.outdir).rglob("*.partial"))
    assert any(Path(app.outdir).rglob("*.html")) or any(Path(app.outdir).rglob("*.xhtml"))


def test_a_generated_page_with_the_same_bytes_is_left_as_it_was(make_app, tmp_path):
    """Sphinx writes the index on every build: with the bytes it has, the file keeps its
    stamp (kb serve reloads the browsers again only on files that changed, kb.cli.reloads). A
    document's page is always replaced: Sphinx rebuilds one whose page is older than it."""
    site = copy_root("listings", tmp_path / "site")
    out = Path(build(make_app, site).outdir)
    index, page = out / "genindex.html", out / "posts/post-14.html"
    before = {path: path.stat() for path in (index, page)}
    post = site / "posts/post-14.md"
    post.write_text(post.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    build(make_app, site)
    assert (index.stat().st_ino, index.stat().st_mtime_ns) == (
        before[index].st_ino,
        before[index].st_mtime_ns,
    )
    assert page.stat().st_ino != before[page].st_ino
    assert "One more line." in page.read_text(encoding="utf-8")
    assert not list(out.rglob("*.partial"))
