"""kb serve's prepared builds: the next build's application is made while the author reads the
page, and used only when a new one would be the same (kb.incremental.standby).

The rules are tested in-process on an application prepared as the worker prepares it; the
worker is tested end to end: an edit is built by the prepared application, and after any
sequence of edits, additions, deletions, renames, drafts and configuration changes (drawn by
Hypothesis), the prepared application built exactly the edits of documents' text, and every
file a reader can fetch is the file a clean build writes.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import pickle
import signal
import threading
import time
from pathlib import Path

import pytest
from helpers import soup
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sitebuild import BuiltOnce, copy_root, warm_worker
from sphinx.application import ENV_PICKLE_FILENAME
from test_output import site_files, wait_for_background_index

from kb.checks.bounded import DEFAULT_LIMIT
from kb.cli import buildworker
from kb.cli.buildworker import ahead_steps, work_ahead
from kb.cli.serve import build_folders, sphinx_arguments
from kb.core import output as output_module
from kb.core import validation as validation_module
from kb.core.ablog import matched_posts
from kb.core.catalog import make_ahead as catalog_ahead
from kb.core.fileio import CRASH_VARIABLE
from kb.core.journal import JOURNAL_FILE
from kb.core.output import lock_folders, release
from kb.core.state import build_state, env_state
from kb.core.validation import check_across_posts_ahead
from kb.core.waiting import BUILDING, WAITING_NOTE, build_waiting
from kb.incremental.freshness import check_ahead
from kb.incremental.standby import Inputs, source_stamps, state_stamps, still_current
from kb.pages import related as related_module
from kb.pages.related import make_ahead as related_ahead
from kb.pages.related import make_lists_ahead
from kb.search.index import find_pagefind_ahead
from kb.search.pagefind import find_pagefind
from kb.upstream.sphinx_build import PreparedBuild
from kb.upstream.sphinx_read import AnsweredAhead


@pytest.fixture
def site(tmp_path) -> Path:
    return copy_root("listings", tmp_path / "site").resolve()


def _build_with_worker(site: Path) -> None:
    with warm_worker(site) as worker:
        assert worker.build(sphinx_arguments(site) + ["-q"], prepare=False) == 0
    wait_for_background_index(site)


class Prepared:
    """An application prepared as the worker's standby prepares it, in this process."""

    def __init__(self, site: Path, saved=lambda: None) -> None:
        self.site = site
        self.build = PreparedBuild(sphinx_arguments(site) + ["-q"])
        args = self.build.args
        sources = source_stamps(args.sourcedir, args.outputdir, args.doctreedir)
        saved()  # a save that comes between the stamps and the configuration read
        self.build.prepare()
        self.app = self.build.app
        assert self.app is not None
        self.made_from = Inputs(sources, state_stamps(self.app))
        release(build_state(self.app).locks)

    def still_current(self) -> bool:
        """As the standby asks, holding the output folders' locks; a build that follows keeps
        them (its search indexer takes them on, so the next application made waits for it)."""
        app = self.app
        state = build_state(app)
        state.locks = lock_folders(output_module.locked_folders(app))
        current = still_current(app, self.made_from)
        if not current:
            release(state.locks)
        return current

    def close(self) -> None:
        self.build.close()
        assert self.app is not None
        release(build_state(self.app).locks)
        # The indexer a build left in the background holds the folders until it is done: what
        # comes next (another application, the site restored for the next test) waits for it.
        wait_for_background_index(self.site)


@pytest.fixture(scope="module")
def built_by_the_worker(tmp_path_factory) -> BuiltOnce:
    return BuiltOnce("listings", tmp_path_factory.mktemp("standby"), _build_with_worker)


@pytest.fixture
def prepared(built_by_the_worker):
    """An application prepared on the listings root as the worker built it (``.site``)."""
    made = Prepared(built_by_the_worker.restore())
    yield made
    made.close()


def _later(path: Path) -> None:
    """Make sure a rewrite of ``path`` gets another stamp, whatever the clock's resolution."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    _later(path)


def test_the_standby_finds_pagefinds_binary_while_it_waits(prepared):
    """The build's search indexer starts once the pages are written: the search for
    Pagefind's binary (its package imported and looked through) is done ahead, once."""
    find_pagefind.cache_clear()
    find_pagefind_ahead(prepared.app)
    assert find_pagefind.cache_info().currsize == 1
    assert find_pagefind() == find_pagefind.__wrapped__()


def test_an_edited_post_keeps_the_prepared_application(prepared):
    site = prepared.site
    assert prepared.still_current()
    _edit(site / "posts/post-14.md", "# Post 14", "# Post 14, edited")
    assert prepared.still_current()


def test_an_edit_saved_by_renaming_a_new_file_over_the_post_keeps_it(prepared):
    post = prepared.site / "posts/post-14.md"
    new = post.with_name(".post-14.md.tmp")
    new.write_text(post.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    os.replace(new, post)  # as many editors save: a new inode, the folder changed
    assert prepared.still_current()


@pytest.mark.parametrize("change", ["added post", "deleted post", "renamed post"])
def test_a_post_added_or_removed_keeps_it_with_the_posts_matched_again(prepared, change):
    site = prepared.site
    post = site / "posts/post-14.md"
    if change == "added post":
        (site / "posts/post-28.md").write_text(post.read_text(encoding="utf-8"))
        came, went = {"posts/post-28"}, set()
    elif change == "deleted post":
        post.unlink()
        came, went = set(), {"posts/post-14"}
    else:
        post.rename(site / "posts/post-14-renamed.md")
        came, went = {"posts/post-14-renamed"}, {"posts/post-14"}
    before = set(matched_posts(prepared.app.config))
    assert prepared.still_current()
    assert set(matched_posts(prepared.app.config)) == (before | came) - went


@pytest.mark.parametrize("change", ["deleted post", "renamed post", "added post"])
def test_a_post_gone_or_come_before_the_posts_were_matched_keeps_it(built_by_the_worker, change):
    """The author's save may come while the standby makes its application: after it stamped
    the sources, before ablog matched the posts when the configuration was read. The
    application then already matched the posts as they are (a post of the last build that
    went is no post of it), and a new one would be the same."""
    site = built_by_the_worker.restore()
    post = site / "posts/post-14.md"

    def save() -> None:
        if change == "deleted post":
            post.unlink()
        elif change == "renamed post":
            post.rename(site / "posts/post-14-renamed.md")
        else:
            (site / "posts/post-28.md").write_text(post.read_text(encoding="utf-8"))

    made = Prepared(site, saved=save)
    try:
        matched = set(matched_posts(made.app.config))
        assert ("posts/post-14" in matched) == (change == "added post")
        assert made.still_current()
        assert set(matched_posts(made.app.config)) == matched
    finally:
        made.close()


@pytest.mark.parametrize(
    "change",
    [
        "added draft",
        "deleted draft",
        "added post and its image",
        "added page",
        "added post named in another normal form",
        "configuration",
        "image",
        "post made a draft",
        "draft published",
        "post grown past the size limit",
        "post replaced by a link out of the repository",
        "another build",
    ],
)
def test_any_other_change_discards_the_prepared_application(prepared, change, request):
    site = prepared.site
    post = site / "posts/post-14.md"
    text = post.read_text(encoding="utf-8")
    date_line = next(line for line in text.splitlines() if line.startswith("date:"))
    if change == "added draft":
        (site / "posts/post-28.md").write_text(text.replace(date_line, "date: 2999-01-01"))
    elif change in ("deleted draft", "draft published"):
        _edit(post, date_line, "date: 2999-01-01")
        prepared.close()
        prepared = Prepared(site)  # made with the draft
        request.addfinalizer(prepared.close)
        assert prepared.still_current()
        if change == "deleted draft":
            post.unlink()
        else:
            _edit(post, "date: 2999-01-01", date_line)
    elif change == "added post and its image":
        (site / "posts/post-28.md").write_text(text)
        (site / "posts/post-28.png").write_bytes(b"\x89PNG not really")
    elif change == "added page":
        (site / "about.md").write_text("# About\n", encoding="utf-8")
    elif change == "added post named in another normal form":
        (site / "posts/cre\u0300me.md").write_text(text)  # NFD: Sphinx looks for the NFC name
    elif change == "configuration":
        _edit(site / "conf.py", "kb_page_size = 10", "kb_page_size = 5")
    elif change == "image":
        (site / "posts/chart.png").write_bytes(b"\x89PNG not really")
    elif change == "post made a draft":
        # A document's text, but a step read it before the environment loaded: the drafts.
        _edit(post, date_line, "date: 2999-01-01")
    elif change == "post grown past the size limit":
        _edit(post, "# Post 14", "# Post 14\n\n" + "x" * DEFAULT_LIMIT)
    elif change == "post replaced by a link out of the repository":
        outside = site.parent / "outside.md"
        outside.write_text(text, encoding="utf-8")
        post.unlink()
        post.symlink_to(outside)
    elif change == "another build":
        # make html in another terminal while kb serve waits, after an edit that alone would
        # keep the application: the saved state changed under it.
        _edit(post, "# Post 14", "# Post 14, edited")
        _build_with_worker(site)
    assert not prepared.still_current()


class _Told:
    """Stands for the questions answered ahead: what the standby's check tells them."""

    def __init__(self) -> None:
        self.docnames: set[str] | None = None
        self.look_again_in: list[str] | None = None

    def changed_since(self, docnames, files_alike_but_in=None) -> None:
        self.docnames = set(docnames)
        self.look_again_in = files_alike_but_in


def test_the_answers_ahead_are_told_each_document_a_file_of_which_may_have_changed(
    prepared, tmp_path
):
    app, site = prepared.app, prepared.site
    told = build_state(app).questions_ahead = _Told()
    outside = tmp_path / "outside.csv"
    outside.write_text("1,2\n", encoding="utf-8")
    srcdir = Path(app.srcdir)
    # A dependency stamped alike before and now; one outside the source folder (its version
    # unknown); one in a folder the stamps skip.
    app.env.dependencies["posts/post-02"] = {srcdir / "conf.py"}
    app.env.dependencies["posts/post-03"] = {outside}
    app.env.dependencies["posts/post-04"] = {srcdir / "_build/html/data.csv"}
    app.env.dependencies["posts/post-05"] = {srcdir / "posts/../conf.py"}
    _edit(site / "posts/post-14.md", "# Post 14", "# Post 14, edited")
    assert prepared.still_current()
    assert told.docnames == {"posts/post-14", "posts/post-03", "posts/post-04"}
    # The folders the stamps skip, where the documents are looked for again: no other file
    # came or went, and the saved post is readable.
    assert told.look_again_in == ["_build"]


def test_a_document_added_where_the_stamps_do_not_look_is_found_by_the_build(
    built_by_the_worker,
):
    """Sphinx walks a folder the stamps skip (``node_modules`` here: the site does not
    exclude it): a document added there while the standby waits is found, as Sphinx finds
    it, by looking in that folder again."""
    site = built_by_the_worker.restore()
    (site / "node_modules").mkdir()
    made = Prepared(site)
    try:
        app = made.app
        questions = build_state(app).questions_ahead = AnsweredAhead(app.builder)
        (site / "node_modules/readme.md").write_text("# Read me\n", encoding="utf-8")
        _edit(site / "posts/post-14.md", "# Post 14", "# Post 14, edited")
        assert made.still_current()
        questions.find_files(app.env, app.builder)
        assert "node_modules/readme" in app.env.found_docs
        added, changed, _ = questions.outdated_files(app.env, False)
        assert (added, changed) == ({"node_modules/readme"}, {"posts/post-14"})
    finally:
        made.close()


@pytest.mark.parametrize("change", ["post added", "post saved unreadable"])
def test_the_documents_are_looked_for_everywhere_when_files_came_or_went(
    prepared, change, monkeypatch
):
    """A post added, or a saved one that can no longer be read (Sphinx leaves it out, and
    warns): the documents are found again as Sphinx finds them."""
    app, site = prepared.app, prepared.site
    told = build_state(app).questions_ahead = _Told()
    post = site / "posts/post-14.md"
    if change == "post added":
        (site / "posts/post-28.md").write_text(post.read_text(encoding="utf-8"))
    else:
        _edit(post, "# Post 14", "# Post 14, edited")
        # As after chmod 000, which this suite's user (root) could read through.
        readable = os.access
        monkeypatch.setattr(
            os, "access", lambda path, mode: Path(path) != post and readable(path, mode)
        )
    assert prepared.still_current()
    assert told.look_again_in is None


def test_files_found_damaged_while_the_standby_waits_are_made_again_by_its_build(
    built_by_the_worker,
):
    """A stopped build can leave a doctree or a page cut short; the standby checks both while
    it waits, and its build reads such a document again instead of loading its doctree, and
    writes such a page again instead of keeping it."""
    site = built_by_the_worker.restore()
    html, doctrees = build_folders(site)
    doctree = doctrees / "posts/post-03.doctree"
    doctree.write_bytes(doctree.read_bytes()[:100])
    (html / "posts/post-03.html").unlink()  # written from the doctree
    page = html / "posts/post-07.html"
    page.write_bytes(page.read_bytes()[:300])
    made = Prepared(site)
    check_ahead(made.app)
    checked = build_state(made.app).checked_ahead
    assert checked.damaged_doctrees == {"posts/post-03"}
    assert checked.documents - checked.whole_pages == {"posts/post-03", "posts/post-07"}
    assert made.still_current()
    assert made.build.run(save_environment_aside=True) == 0
    for number in ("03", "07"):
        page_file = html / f"posts/post-{number}.html"
        assert page_file.read_bytes().rstrip().endswith(b"</html>")
        body = soup(page_file).select_one("article")
        assert f"First paragraph of post {number}" in body.get_text(" ", strip=True)
    assert doctree.read_bytes().endswith(b".")  # a whole pickle again


@pytest.mark.slow
def test_related_lists_made_ahead_follow_a_post_whose_tags_changed(built_by_the_worker, tmp_path):
    """What the related lists take of each post is made ahead for the records made ahead; a
    post read again (its tags changed) is a new record, and every page shows what a clean
    build shows."""
    site = built_by_the_worker.restore()
    made = Prepared(site)
    try:
        catalog_ahead(made.app)
        related_ahead(made.app)
        make_lists_ahead(made.app)
        _edit(site / "posts/post-14.md", "tags: [attention]", "tags: [gemm, fp8]")
        assert made.still_current()
        assert made.build.run(save_environment_aside=True) == 0
    finally:
        made.close()
    wait_for_background_index(site)
    _assert_same_as_clean_build(site, tmp_path / "clean")


def _arrives(word) -> bool:
    deadline = time.monotonic() + 30
    while not word.arrived() and time.monotonic() < deadline:
        time.sleep(0.01)
    return word.arrived()


def test_the_word_to_build_is_seen_at_once_and_said_until_the_build_holds_its_folders(tmp_path):
    """How a standby working ahead knows the author saved: a thread reads the word as it
    comes; from then until the build holds its folders, a note tells the search indexer of
    the build before that a build waits (kb.core.waiting), so that it stops before it merges."""
    doctrees, outdir = tmp_path / "doctrees", tmp_path / "html"
    read, write = os.pipe()
    go = os.fdopen(read, "rb", buffering=0)
    word = buildworker._Word(go, doctrees, outdir)
    try:
        time.sleep(0.1)
        assert not word.arrived()
        assert not build_waiting(doctrees, outdir)
        os.write(write, b"go\n")
        assert _arrives(word)
        assert word.wait() == b"go\n"
        assert build_waiting(doctrees, outdir)
        assert not build_waiting(doctrees, tmp_path / "linkcheck")
        word.done()
        assert not build_waiting(doctrees, outdir)
        assert not (doctrees / BUILDING / WAITING_NOTE).exists()
        # A standby that stays for the next build reads the next word from the same pipe.
        os.write(write, b"go\n")
        word = buildworker._Word(go, doctrees, outdir)
        assert word.wait() == b"go\n"
    finally:
        word.done()
        os.close(write)
        go.close()


def test_the_end_of_the_input_is_seen_and_says_nothing(tmp_path):
    # The worker discarded the standby (kb serve stopped, or the next build differs).
    doctrees, outdir = tmp_path / "doctrees", tmp_path / "html"
    read, write = os.pipe()
    word = buildworker._Word(os.fdopen(read, "rb", buffering=0), doctrees, outdir)
    os.close(write)
    assert _arrives(word)
    assert word.wait() == b""
    assert not build_waiting(doctrees, outdir)
    word.done()


def _words_edit(app, post: Path, edit: str) -> None:
    """Append to ``post`` nine times a word: its most frequent (how often it uses its words
    changes) or one only other posts keep (it keeps another word)."""
    terms = env_state(app.env).related_terms
    docname = post.relative_to(app.srcdir).with_suffix("").as_posix()
    mine = {term for term, _ in terms[docname]}
    others = sorted({term for name in terms if name != docname for term, _ in terms[name]})
    word = terms[docname][0][0] if edit == "rewrite" else next(t for t in others if t not in mine)
    post.write_text(post.read_text() + f"\n{' '.join([word] * 9)}\n")
    _later(post)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("steps", "edit"),
    [(0, "rewrite"), (5, "reword"), (len(ahead_steps()) - 1, "rewrite"),
     (len(ahead_steps()) - 1, "reword"), (len(ahead_steps()), "reword")],
)  # fmt: skip
def test_a_standby_told_to_build_while_it_works_ahead_stops_and_builds_what_a_clean_build_does(
    built_by_the_worker, tmp_path, steps, edit
):
    """The author saves while the standby works ahead: it stops after the step it is in (none
    made; Sphinx's answers but not which files are whole, nor what the lists choose from; all
    but the related lists themselves; all), and its build, which makes what it needs of the
    rest (the check of the doctrees; the lists, from the posts and terms before its read),
    writes what a clean build writes, for an edit that changes how often a post uses its words
    and one that changes which words it keeps."""
    site = built_by_the_worker.restore()
    made = Prepared(site)
    try:
        asked = []
        work_ahead(made.app, told=lambda: asked.append(1) or len(asked) > steps)
        state = build_state(made.app)
        assert (state.catalog_ahead is not None) == (steps >= 2)
        # The fifth step answers Sphinx's questions, the sixth finds which files are whole.
        assert (state.questions_ahead is not None) == (steps >= 5)
        assert (state.checked_ahead is not None) == (steps >= 6)
        ahead = state.related_ahead
        assert (ahead is not None and ahead.ranked) == (steps == len(ahead_steps()))
        assert (ahead is not None) == (steps >= len(ahead_steps()) - 1)
        _words_edit(made.app, site / "posts/post-14.md", edit)
        assert made.still_current()
        assert made.build.run(save_environment_aside=True, questions=state.questions_ahead) == 0
        assert ahead is None or ahead.ranked  # made by the build, which needed them
    finally:
        made.close()
    _assert_same_as_clean_build(site, tmp_path / "clean")


@pytest.mark.slow
@pytest.mark.parametrize("edit", ["its most frequent word more", "another post's word, often"])
def test_related_lists_made_ahead_follow_a_post_whose_words_changed(
    built_by_the_worker, tmp_path, monkeypatch, edit
):
    """What the lists choose from is made ahead; an edit of a post's words (the same words
    kept, or a new one taken and another dropped) makes the vectors that changed again, from
    it, and every page shows what a clean build shows."""
    site = built_by_the_worker.restore()
    made = Prepared(site)
    chosen_from = []
    again = related_module.Chosen.again
    monkeypatch.setattr(
        related_module.Chosen,
        "again",
        classmethod(lambda cls, *a: chosen_from.append(a[5]) or again(*a)),
    )
    changed_vectors = []
    edited = related_module.Lists.edited
    monkeypatch.setattr(
        related_module.Lists,
        "edited",
        lambda *a: changed_vectors.append(edited(*a)) or changed_vectors[-1],
    )
    try:
        catalog_ahead(made.app)
        related_ahead(made.app)
        make_lists_ahead(made.app)
        ahead = build_state(made.app).related_ahead
        terms = env_state(made.app.env).related_terms
        kept = terms["posts/post-14"]
        mine = {term for term, _ in kept}
        others = sorted(
            {term for name in terms if name != "posts/post-14" for term, _ in terms[name]}
        )
        word = kept[0][0] if edit.startswith("its") else next(t for t in others if t not in mine)
        post = site / "posts/post-14.md"
        post.write_text(post.read_text() + f"\n{' '.join([word] * 9)}\n")
        _later(post)
        assert made.still_current()
        assert made.build.run(save_environment_aside=True) == 0
    finally:
        made.close()
    assert chosen_from == [ahead.lists]
    # Only the edited post's vector, or also those of the posts that keep a word it dropped.
    assert len(changed_vectors) == 1 and changed_vectors[0] is not None
    assert (len(changed_vectors[0]) == 1) == edit.startswith("its")
    words_now = {term for term, _ in env_state(made.app.env).related_terms["posts/post-14"]}
    assert (words_now == mine) == edit.startswith("its")
    wait_for_background_index(site)
    _assert_same_as_clean_build(site, tmp_path / "clean")


@pytest.mark.slow
def test_an_added_posts_page_is_written_before_the_other_posts_related_lists_are_made(
    built_by_the_worker, tmp_path, monkeypatch
):
    """A new post changes what every list chooses from: its page, with its own list, is
    written first (kb serve shows it then), and the other posts' lists are made after, their
    pages given the lists a clean build shows."""
    site = built_by_the_worker.restore()
    made = Prepared(site)
    asked: list[str] = []
    of = related_module.Lists.of
    monkeypatch.setattr(
        related_module.Lists,
        "of",
        lambda lists, me: asked.append(lists.posts[me].docname) or of(lists, me),
    )
    at_written: list[list[str]] = []
    try:
        post = (site / "posts/post-14.md").read_text(encoding="utf-8")
        new = post.replace("2024-06-11", "2024-12-30").replace("Post 14", "Post 99")
        (site / "posts/post-99.md").write_text(new, encoding="utf-8")
        assert made.still_current()
        status = made.build.run(
            save_environment_aside=True, pages_written=lambda app: at_written.append(list(asked))
        )
        assert status == 0
    finally:
        made.close()
    [before_the_page] = at_written
    assert "posts/post-99" in before_the_page
    posts = sorted(path.stem for path in (site / "posts").glob("post-*.md"))
    assert len(set(before_the_page)) < len(posts) // 2
    assert set(asked) == {f"posts/{name}" for name in posts}  # the rest once it was written
    assert (
        "Post 99"
        in soup(build_folders(site)[0] / "posts/post-14.html").select_one(".kb-related").text
    )
    _assert_same_as_clean_build(site, tmp_path / "clean")


@pytest.mark.slow
def test_the_checks_across_posts_made_ahead_are_reported_again_and_made_again_where_facts_changed(
    built_by_the_worker, tmp_path, monkeypatch, capfd
):
    """The standby checks the posts across the site while it waits; a build whose posts'
    facts are all the same (a sentence added) takes those problems, and still reports each one
    and shows its link as text; one whose edit changed a fact the checks read (a link added)
    checks again."""
    site = built_by_the_worker.restore()
    checked = []
    check_site = validation_module.check_site
    monkeypatch.setattr(
        validation_module,
        "check_site",
        lambda facts, **kw: checked.append(1) or check_site(facts, **kw),
    )
    broken = "See [the notes](missing-notes.md)."

    def standby_build(post: str, addition: str) -> str:
        made = Prepared(site)
        try:
            check_across_posts_ahead(made.app)
            path = site / "posts" / post
            path.write_text(path.read_text(encoding="utf-8") + f"\n{addition}\n", encoding="utf-8")
            _later(path)
            assert made.still_current()
            capfd.readouterr()
            assert made.build.run(save_environment_aside=True) == 0
        finally:
            made.close()
        return capfd.readouterr().err

    def at_the_link(post: str) -> str:
        lines = (site / "posts" / post).read_text(encoding="utf-8").splitlines()
        return f"{post}:{next(n for n, line in enumerate(lines, 1) if broken in line)}:"

    # A broken link in post 3, then a sentence in post 14: the problem is found ahead and
    # reported by the build, which does not check again.
    warnings = standby_build("post-03.md", broken)
    assert at_the_link("post-03.md") in warnings
    checked.clear()
    warnings = standby_build("post-14.md", "A sentence more.")
    assert checked == [1]  # ahead only
    assert at_the_link("post-03.md") in warnings
    # A broken link added to post 14 changes its facts: checked again, and reported.
    checked.clear()
    warnings = standby_build("post-14.md", broken)
    assert checked == [1, 1]
    assert at_the_link("post-14.md") in warnings and at_the_link("post-03.md") in warnings
    page = soup(build_folders(site)[0] / "posts/post-14.html")
    assert "the notes" in page.get_text() and not page.select('a[href*="missing-notes"]')
    wait_for_background_index(site)
    _assert_same_as_clean_build(site, tmp_path / "clean")


@pytest.mark.slow
def test_a_page_read_through_a_linked_folder_is_built_again_when_saved(site):
    """Sphinx finds documents through a link to a folder; the stamps never walk into one, so
    none vouches for a page read through it: saved under the folder's other name, its page is
    written again by the prepared application."""
    shared = site / "shared"
    shared.mkdir()
    page = shared / "notes.md"
    page.write_text("---\norphan: true\n---\n# Notes\n\nIn the shared folder.\n", encoding="utf-8")
    (site / "posts/linked").symlink_to(shared, target_is_directory=True)
    arguments = sphinx_arguments(site) + ["-q"]
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        assert worker.wait_prepared()  # its answers made: the save comes after them
        _edit(page, "# Notes", "# Notes, saved in the shared folder")
        assert worker.build(arguments, prepare=False) == 0
        assert worker.last_prepared
    pages = build_folders(site)[0]
    for name in ("shared/notes.html", "posts/linked/notes.html"):
        heading = soup(pages / name).select_one("article h1")
        assert heading.get_text(strip=True).startswith("Notes, saved in the shared folder")


@pytest.mark.slow
def test_the_worker_builds_an_edit_with_the_prepared_application(site):
    arguments = sphinx_arguments(site) + ["-q"]
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        assert not worker.last_prepared  # the first build has nothing prepared
        _edit(site / "posts/post-14.md", "# Post 14", "# Post 14, edited")
        assert worker.build(arguments, prepare=False) == 0
        assert worker.last_prepared
        page = (build_folders(site)[0] / "posts/post-14.html").read_text(encoding="utf-8")
        assert "Post 14, edited" in page
        # Asked not to prepare, the worker forks a fresh build, as before.
        assert not worker.wait_prepared()
        _edit(site / "posts/post-14.md", "Post 14, edited", "Post 14, edited again")
        assert worker.build(arguments) == 0
        assert not worker.last_prepared
        assert "edited again" in (build_folders(site)[0] / "posts/post-14.html").read_text()


def _assert_same_as_clean_build(site: Path, clean: Path) -> None:
    """Every file a reader can fetch from ``site``'s output is the file a clean build of the
    same sources (copied to ``clean``) writes."""
    clean.mkdir()
    # Not into _build: the search indexer's staging folders come and go there (a walk into
    # one that was removed under it failed this test once).
    tops = [top for top in site.iterdir() if top.name != "_build"]
    for path in [*tops, *(path for top in tops if top.is_dir() for path in top.rglob("*"))]:
        relative = path.relative_to(site)
        if path.is_file():
            (clean / relative).parent.mkdir(parents=True, exist_ok=True)
            (clean / relative).write_bytes(path.read_bytes())
    _build_with_worker(clean)
    got, expected = site_files(build_folders(site)[0]), site_files(build_folders(clean)[0])
    assert sorted(got) == sorted(expected)
    assert [name for name in expected if got[name] != expected[name]] == []


@pytest.mark.slow
def test_what_preparing_logs_is_shown_once_with_the_build_that_uses_it(site, tmp_path, capfd):
    """A warning of a step run while the application is prepared (a post that is a link out of
    the repository, refused at config-inited) is held until the build and shown once, whether
    the prepared application builds or gives way to a fresh one."""
    outside = tmp_path / "outside.md"
    outside.write_text("---\ndate: 2025-01-01\n---\n# Outside\n", encoding="utf-8")
    (site / "posts/linked.md").symlink_to(outside)
    arguments = sphinx_arguments(site) + ["-q"]
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        first = capfd.readouterr().err
        assert worker.wait_prepared()  # and logged the warning
        _edit(site / "posts/post-14.md", "# Post 14", "# Post 14, edited")
        assert capfd.readouterr().err == "", "the prepared application's log was not held"
        assert worker.build(arguments) == 0
        assert worker.last_prepared
        second = capfd.readouterr().err
        assert worker.wait_prepared()
        (site / "posts/chart-2.png").write_bytes((site / "posts/chart.png").read_bytes())
        assert worker.build(arguments) == 0
        assert not worker.last_prepared  # a new file, not a post: built afresh
        third = capfd.readouterr().err
    for err in (first, second, third):
        assert err.count("linked.md:1") == 1, err


@pytest.mark.slow
@pytest.mark.parametrize("stop", ["while it builds", "while it waits"])
def test_a_standby_killed_leaves_what_the_next_build_repairs(
    built_by_the_worker, tmp_path, monkeypatch, stop
):
    """Killed half-way through its pages (``KB_CRASH_AT``, as tests/hostile stops builds), or
    while it waits, the standby leaves output that the next build makes a clean build's."""
    site = built_by_the_worker.restore()
    if stop == "while it builds":
        monkeypatch.setenv(CRASH_VARIABLE, "page:3:KILL")  # every build the worker forks
    arguments = sphinx_arguments(site) + ["-q"]
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0  # nothing changed: no page written
        assert worker.wait_prepared()
        _edit(site / "posts/post-27.md", "# Post 27", "# Post 27, retitled")  # every sidebar
        if stop == "while it waits":
            for child in _children(worker.process.pid):
                os.kill(child, signal.SIGKILL)
            assert worker.build(arguments) == 0  # it said nothing: built afresh
        else:
            assert worker.build(arguments) != 0  # and the fresh build it gave way to, too
        assert not worker.last_prepared
    monkeypatch.delenv(CRASH_VARIABLE, raising=False)
    _build_with_worker(site)
    _assert_same_as_clean_build(site, tmp_path / "clean")


# -- The standby that stays -----------------------------------------------------------------------


def _file_stamp(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return info.st_ino, info.st_mtime_ns, info.st_size


#: Saves a standby that stays builds in turn: a post's text, a title every page's sidebar
#: shows, a post added, a post deleted.
STAYING_SAVES = [
    ("posts/post-03.md", "First paragraph of post 03", "The first paragraph of post 03, edited"),
    ("posts/post-27.md", "# Post 27", "# Post 27, retitled"),
    ("posts/post-28.md", None, "---\nblogpost: true\ndate: 2024-12-30\n---\n\n# Post 28\n\nNew.\n"),
    ("posts/post-14.md", None, None),
]


def _save(site: Path, name: str, old: str | None, new: str | None) -> None:
    path = site / name
    if old is not None:
        _edit(path, old, new or "")
    elif new is not None:
        path.write_text(new, encoding="utf-8")
    else:
        path.unlink()


def _doctree_stamps(site: Path) -> dict[str, tuple[int, int, int]]:
    """The documents' doctrees; not into kb's own folders (the search indexer's staging
    folders come and go there while it runs)."""
    doctrees = build_folders(site)[1]
    stamps = {}
    for folder, subfolders, files in os.walk(doctrees):
        subfolders[:] = [name for name in subfolders if not name.startswith("kb-")]
        for name in files:
            if name.endswith(".doctree"):
                path = Path(folder, name)
                stamps[path.relative_to(doctrees).as_posix()] = _file_stamp(path)
    return stamps


@pytest.mark.slow
def test_a_standby_that_stays_builds_each_save_with_the_environment_it_kept(
    built_by_the_worker, tmp_path
):
    """After a build it made, a standby goes on to the next save with the environment of
    that build, in memory: a copy its build forked where Sphinx would pickle it (or, where the
    build read nothing, the same process). No build after the first standby's loads the
    environment from disk, nor saves it: the file stays the one the first build left, and
    each save reads only the post saved (a build that loaded that file would read again every
    post saved since); the pages are a clean build's."""
    site = built_by_the_worker.restore()
    arguments = sphinx_arguments(site) + ["-q"]
    environment = build_folders(site)[1] / ENV_PICKLE_FILENAME
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        assert worker.wait_prepared()
        first, saved = worker.standby_pid, _file_stamp(environment)
        standbys = []
        for save in [*STAYING_SAVES, None]:
            wait_for_background_index(site)
            assert worker.wait_prepared()
            standbys.append(worker.standby_pid)
            before = _doctree_stamps(site)
            if save is not None:  # else nothing saved: the build reads nothing
                _save(site, *save)
            assert worker.build(arguments) == 0
            assert worker.last_prepared, save
            after = _doctree_stamps(site)
            read = {name for name in after if after[name] != before.get(name)}
            if save is None:
                assert read == set()
            elif save[2] is None:  # a post deleted: the documents that show it, at most
                assert len(read) < len(before) // 2
            else:
                assert read == {save[0].replace(".md", ".doctree")}
            assert _file_stamp(environment) == saved
        assert worker.wait_prepared()
        standbys.append(worker.standby_pid)
    assert standbys[0] == first
    assert standbys[1] != standbys[0]  # forked by the build that read post 03
    assert standbys[-1] == standbys[-2]  # the build that read nothing went on itself
    wait_for_background_index(site)
    _assert_same_as_clean_build(site, tmp_path / "clean")


@pytest.mark.slow
@pytest.mark.parametrize("then", ["make html", "standby killed", "kb serve stopped"])
def test_the_builds_after_a_standby_that_stayed_are_a_clean_builds(
    built_by_the_worker, tmp_path, then
):
    """Once a standby has stayed, the environment on disk is older than the pages. A build
    that loads it reads again what changed since, and leaves a clean build's files: ``make
    html`` while kb serve runs, kb serve's fresh build after the standby was killed, kb serve
    started again."""
    site = built_by_the_worker.restore()
    arguments = sphinx_arguments(site) + ["-q"]
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        for save in STAYING_SAVES:
            wait_for_background_index(site)
            assert worker.wait_prepared()
            _save(site, *save)
            assert worker.build(arguments) == 0
            assert worker.last_prepared, save
        wait_for_background_index(site)
        _edit(site / "posts/post-05.md", "# Post 05", "# Post 05, retitled")
        if then == "make html":
            _build_with_worker(site)  # a build of its own, which the standby sees
            assert worker.build(arguments) == 0
            assert not worker.last_prepared
        elif then == "standby killed":
            assert worker.wait_prepared()
            os.kill(worker.standby_pid, signal.SIGKILL)
            assert worker.build(arguments) == 0
            assert not worker.last_prepared
    if then == "kb serve stopped":
        _build_with_worker(site)
    wait_for_background_index(site)
    _assert_same_as_clean_build(site, tmp_path / "clean")


def _children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task")
    found = []
    for task in tasks.iterdir():
        found += [int(n) for n in (task / "children").read_text().split()]
    assert found, "the worker has no standby child"
    return found


# -- Any sequence ----------------------------------------------------------------------------------

#: One change an author makes: (kind, a number that picks the post or the value).
CHANGES = st.tuples(
    st.sampled_from(["title", "body", "add", "draft", "delete", "rename", "page size", "nothing"]),
    st.integers(0, 40),
)


def _apply(site: Path, kind: str, number: int, step: int) -> bool:
    """Make the change; whether the prepared application may build it: the text of a
    document (which a draft is not: it is left out unread), or a post added, deleted or
    renamed (but a draft: the drafts change); or nothing at all (a build that writes no
    document's page)."""
    posts = sorted((site / "posts").glob("*.md"))
    post = posts[number % len(posts)]
    text = post.read_text(encoding="utf-8")
    if kind == "title":
        heading = next(line for line in text.splitlines() if line.startswith("# "))
        _edit(post, heading, f"{heading}, change {step}")
    elif kind == "body":
        post.write_text(text + f"\nA sentence added by change {step}.\n", encoding="utf-8")
        _later(post)
    elif kind == "add":
        date = "2999-01-01" if number % 5 == 0 else f"2025-12-{number % 28 + 1:02}"
        new = text.replace(next(line for line in text.splitlines() if line.startswith("date:")),
                           f"date: {date}")  # fmt: skip
        (site / f"posts/added-{step}.md").write_text(new, encoding="utf-8")
    elif kind == "draft":
        date_line = next(line for line in text.splitlines() if line.startswith("date:"))
        _edit(post, date_line, "date: 2999-01-01")
    elif kind == "delete":
        post.unlink()
    elif kind == "rename":
        post.rename(post.with_name(f"{post.stem}-r{step}.md"))
    elif kind == "page size":
        conf = site / "conf.py"
        line = next(ln for ln in conf.read_text().splitlines() if ln.startswith("kb_page_size"))
        _edit(conf, line, f"kb_page_size = {number % 9 + 3}")
    if kind == "add":
        return number % 5 != 0
    if kind == "nothing":
        return True
    return kind in ("title", "body", "delete", "rename") and "date: 2999" not in text


@pytest.mark.slow
@settings(
    # KB_STANDBY_EXAMPLES=50 for a longer hunt; 2 (and the examples) keep `make test` quick.
    max_examples=int(os.environ.get("KB_STANDBY_EXAMPLES", "2")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(changes=st.lists(CHANGES, min_size=1, max_size=5))
# Edits of two documents' text (the newest post's title: every page's sidebar), a post
# deleted (its image's copy goes), one added.
@example(changes=[("title", 13), ("title", 26), ("delete", 4), ("body", 2), ("add", 1)])
# A draft's text edited (no document: built afresh), a draft added, a rename, a setting.
@example(changes=[("draft", 3), ("title", 3), ("add", 5), ("rename", 7), ("page size", 2)])
# Nothing saved after an edit: genindex, made after the early reload, as a clean build makes it.
@example(changes=[("body", 2), ("nothing", 0)])
def test_any_sequence_of_changes_leaves_a_clean_builds_files(
    built_by_the_worker, tmp_path_factory, changes
):
    scratch = tmp_path_factory.mktemp("sequence")
    site = built_by_the_worker.restore()
    arguments = sphinx_arguments(site) + ["-q"]
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        for step, (kind, number) in enumerate(changes):
            wait_for_background_index(site)
            assert worker.wait_prepared()
            may_use = _apply(site, kind, number, step)
            assert worker.build(arguments) == 0
            assert worker.last_prepared == may_use, (kind, number)
    wait_for_background_index(site)
    _assert_same_as_clean_build(site, scratch / "clean")


@pytest.mark.slow
def test_saves_that_come_before_the_search_leave_a_clean_builds_files(
    built_by_the_worker, tmp_path_factory
):
    """The author saves again while the search indexer of the last save still works, and
    before the standby is made: that indexer may stop before it merges (kb.core.waiting, as
    the standby reads the word), and the one the last save leaves makes a clean build's
    bundle and pages."""
    scratch = tmp_path_factory.mktemp("soon")
    site = built_by_the_worker.restore()
    arguments = sphinx_arguments(site) + ["-q"]
    changes = [("title", 13), ("body", 2), ("title", 26), ("add", 1), ("delete", 4), ("body", 7)]
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        for step, (kind, number) in enumerate(changes):
            _apply(site, kind, number, step)
            assert worker.build(arguments) == 0
    wait_for_background_index(site)
    _assert_same_as_clean_build(site, scratch / "clean")


# -- The next standby, made while the last build finishes ----------------------------------------


class _LastBuild:
    """What a build still writing its other pages holds: the folders' lock and the lock it
    does not hand on to its search indexer (its own descriptors, as another process's would
    be), and the environment it saves on the way."""

    def __init__(self, build: PreparedBuild) -> None:
        args = build.args
        self.environment = Path(args.doctreedir) / ENV_PICKLE_FILENAME
        building = Path(args.doctreedir) / output_module.BUILDING
        building.mkdir(exist_ok=True)
        self.building = os.open(building, os.O_RDONLY)
        self.descriptors = [
            os.open(folder, os.O_RDONLY) for folder in (args.outputdir, args.doctreedir)
        ]
        for descriptor in [self.building, *self.descriptors]:
            fcntl.flock(descriptor, fcntl.LOCK_EX)

    def end_build(self) -> None:
        """The build ends; its indexer, which holds the folders, goes on."""
        if self.building >= 0:
            os.close(self.building)
            self.building = -1

    def save_environment(self, mark: str) -> None:
        """A new environment file renamed over the old one, as the build's saver writes it,
        marked so that a test can tell which one an application loaded."""
        with self.environment.open("rb") as handle:
            env = pickle.load(handle)
        env.kb_test_saved_by = mark
        partial = self.environment.with_name(self.environment.name + ".saving")
        with partial.open("wb") as handle:
            pickle.dump(env, handle, pickle.HIGHEST_PROTOCOL)
        os.replace(partial, self.environment)

    def finish(self) -> None:
        self.end_build()
        while self.descriptors:
            os.close(self.descriptors.pop())  # and the lock


def _prepare_while(build: PreparedBuild) -> threading.Thread:
    thread = threading.Thread(target=build.prepare, daemon=True)
    thread.start()
    return thread


def _until(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never came"
        time.sleep(0.005)


@pytest.fixture
def standby_build(built_by_the_worker, monkeypatch):
    """A standby's application, not yet made, for the listings root as the worker built it;
    its environment is loaded before the lock (as kb serve's standby does), and the last build
    still holds the folders."""
    monkeypatch.setattr(output_module, "_load_first", None)  # this process's setting, undone
    build = PreparedBuild(sphinx_arguments(built_by_the_worker.restore()) + ["-q"])
    last = _LastBuild(build)
    output_module.load_before_locking(last.environment)
    yield build, last
    last.finish()
    build.close()
    if build.app is not None:
        release(build_state(build.app).locks)


def test_a_standby_loads_the_environment_the_last_build_saves_then_takes_the_lock(standby_build):
    build, last = standby_build
    thread = _prepare_while(build)
    thread.join(0.5)
    assert thread.is_alive(), "made from the environment the last build started from"
    last.save_environment("the last build")
    # Looked at (and then loaded) while the last build still holds the folders.
    _until(lambda: output_module._load_first.when_loaded is not None)
    thread.join(0.5)
    assert thread.is_alive(), "the lock was taken while the last build held it"
    last.finish()
    thread.join()
    app = build.app
    assert app is not None
    assert app.env.kb_test_saved_by == "the last build"
    assert output_module.loaded_what_is_saved()
    assert build_state(app).locks  # held once loaded, until the standby lets it go


def test_a_standby_waits_for_the_last_build_not_for_its_search_indexer(standby_build):
    """The indexer a build leaves holds the folders until its bundle is in place: the standby
    makes its application once the build has ended, and holds every lock only to build, after
    the indexer (after a stopped build, see the next test)."""
    build, last = standby_build
    thread = _prepare_while(build)
    last.save_environment("the last build")
    _until(lambda: output_module._load_first.when_loaded is not None)
    thread.join(0.5)
    assert thread.is_alive(), "made before the last build ended"
    last.end_build()
    thread.join(30)
    assert not thread.is_alive(), "it waited for the search indexer"
    app = build.app
    assert app is not None and output_module.loaded_what_is_saved()
    doctrees = Path(app.doctreedir).resolve()
    assert build_state(app).locks == [doctrees / output_module.BUILDING]
    release(build_state(app).locks)
    # Its build takes every lock: it waits for the indexer.
    got: list[Path] = []
    locked = threading.Thread(
        target=lambda: got.extend(output_module.lock_folders(output_module.locked_folders(app))),
        daemon=True,
    )
    locked.start()
    locked.join(0.5)
    assert locked.is_alive(), "it built while the search indexer wrote"
    last.finish()
    locked.join(30)
    assert not locked.is_alive() and len(got) == 3
    release(got)


def test_a_standby_after_a_stopped_build_waits_for_every_lock(built_by_the_worker, monkeypatch):
    """Its application recovers the folders a stopped build left, so it is made only once no
    writer (the search indexer included) is at work in them."""
    monkeypatch.setattr(output_module, "_load_first", None)
    build = PreparedBuild(sphinx_arguments(built_by_the_worker.restore()) + ["-q"])
    last = _LastBuild(build)
    try:
        (Path(build.args.doctreedir) / JOURNAL_FILE).write_text("a build stopped here\n")
        output_module.load_before_locking(last.environment)
        last.end_build()  # the build is gone; what holds the folders may still be writing
        thread = _prepare_while(build)
        thread.join(1.0)
        assert thread.is_alive(), "made while a writer may be at work in the folders"
        last.finish()
        thread.join(60)
        assert not thread.is_alive() and build.app is not None
        assert len(build_state(build.app).locks) == 3
    finally:
        last.finish()
        build.close()
        if build.app is not None:
            release(build_state(build.app).locks)


@pytest.mark.slow
@pytest.mark.parametrize("told_after", [0, 2, len(buildworker.environment_steps())])
def test_a_standby_works_with_its_environment_while_the_last_build_finishes(
    standby_build, tmp_path, told_after
):
    """Loaded before the last build ends (at 10,000 posts about 0.4 s before), the standby makes
    the steps that read the environment alone (the post records, what the related lists take of
    them, the checks across posts) without the lock, until the author saves; not Sphinx's
    answers, which read the last build's pages. Once made, it goes on from the first step it
    did not make, and its build writes what a clean build writes."""
    build, last = standby_build
    asked: list[int] = []
    early = buildworker._WhileTheLastBuildFinishes(
        told=lambda: asked.append(1) or len(asked) > told_after
    )
    apps = []
    output_module.load_before_locking(
        last.environment, lambda app, building: apps.append(app) or early(app, building)
    )
    thread = _prepare_while(build)
    last.save_environment("the last build")
    steps = len(buildworker.environment_steps())
    _until(lambda: early.made == told_after and len(asked) == min(told_after + 1, steps))
    thread.join(0.5)
    assert thread.is_alive(), "the lock was taken while the last build held it"
    assert early.made == told_after
    state = build_state(apps[0])
    assert (state.catalog_ahead is not None) == (told_after >= 2)
    assert (state.site_checks_ahead is not None) == (told_after >= 4)
    assert state.questions_ahead is None
    last.finish()
    thread.join()
    app = build.app
    assert app is apps[0] and output_module.loaded_what_is_saved()
    release(state.locks)
    work_ahead(app, begun=early)
    assert state.catalog_ahead is not None and state.site_checks_ahead is not None
    assert state.questions_ahead is not None and state.related_ahead is not None
    site = Path(build.args.sourcedir)
    _edit(site / "posts/post-14.md", "tags: [attention]", "tags: [gemm, fp8]")
    state.locks = lock_folders(output_module.locked_folders(app))
    assert build.run(save_environment_aside=True, questions=state.questions_ahead) == 0
    release(state.locks)
    wait_for_background_index(site)
    _assert_same_as_clean_build(site, tmp_path / "clean")


def test_a_standby_loaded_once_the_last_build_ended_takes_the_lock_at_once(standby_build):
    """Nothing runs while the last build finishes where it has finished: the standby's
    application is made, holding the lock, and works ahead from the first step."""
    build, last = standby_build
    called = []
    output_module.load_before_locking(last.environment, lambda *_: called.append(1))
    last.save_environment("the last build")
    last.finish()
    build.prepare()
    assert build.app is not None and build_state(build.app).locks
    assert not called


def test_a_standby_whose_environment_was_saved_again_while_it_loaded_is_not_used(standby_build):
    build, last = standby_build
    thread = _prepare_while(build)
    last.save_environment("the last build")
    _until(lambda: output_module._load_first.when_loaded is not None)
    # Replaced (or deleted, by a build that failed) after the standby looked at it: which
    # file it loaded, it cannot tell.
    last.save_environment("again")
    last.finish()
    thread.join()
    assert build.app is not None
    assert not output_module.loaded_what_is_saved()


def test_a_standby_made_when_no_build_holds_the_folders_loads_what_is_there(standby_build):
    build, last = standby_build
    last.finish()
    build.prepare()
    assert build.app is not None
    assert output_module.loaded_what_is_saved()
    assert not hasattr(build.app.env, "kb_test_saved_by")


class _RecordedStandby:
    """A standby that builds at once, recording when each standby was made; it stays after
    its build when ``stays_after_build``."""

    made: list[_RecordedStandby] = []
    stays_after_build = False

    def __init__(self, arguments: list[str], keep_open: tuple[int, ...] = ()) -> None:
        self.arguments, self.keep_open = arguments, keep_open
        self.result_fd, self.go_fd = 1000 + len(self.made), 2000 + len(self.made)
        self.made_before_build_returned = -1
        self.stays = False
        self.discarded = False
        self.made.append(self)

    def build(self, written):
        written()
        self.made_before_build_returned = len(self.made)
        self.stays = self.stays_after_build
        return 0, ["json"], True

    def discard(self) -> None:
        self.discarded = True


@pytest.mark.parametrize("prepare", [True, False])
def test_a_standby_that_does_not_stay_has_the_next_made_once_the_documents_pages_are_written(
    monkeypatch, prepare
):
    monkeypatch.setenv(buildworker.STAY_VARIABLE, "0")
    monkeypatch.setattr(buildworker, "Standby", _RecordedStandby)
    monkeypatch.setattr(_RecordedStandby, "made", [])
    replies = io.StringIO()
    builds = buildworker.Builds(replies, keep_open=(7, 8))
    first = builds.standby = _RecordedStandby(["-b", "html"])
    assert builds.build(["-b", "html"], prepare) == ["json"]
    if prepare:
        # Made in the build's written(), before its result: it holds no copy of the pipes the
        # build's word and result come through.
        assert first.made_before_build_returned == 2
        assert builds.standby is _RecordedStandby.made[1]
        assert builds.standby.keep_open == (7, 8, first.result_fd, first.go_fd)
        builds.prepare(["-b", "html"])
        assert len(_RecordedStandby.made) == 2  # not made again after the result
    else:
        assert builds.standby is None and len(_RecordedStandby.made) == 1
    lines = [json.loads(line) for line in replies.getvalue().splitlines()]
    assert lines == [{"written": True}, {"status": 0, "prepared": True, "changed": True}]


@pytest.mark.parametrize("prepare", [True, False])
@pytest.mark.parametrize("stays", [True, False])
def test_a_standby_that_stays_is_the_next_one(monkeypatch, prepare, stays):
    """A standby whose build ended well stays (it says so) and makes the next application;
    one that does not has ended, and the next one is made after the result."""
    monkeypatch.setattr(buildworker, "Standby", _RecordedStandby)
    monkeypatch.setattr(_RecordedStandby, "made", [])
    monkeypatch.setattr(_RecordedStandby, "stays_after_build", stays)
    builds = buildworker.Builds(io.StringIO(), keep_open=(7, 8))
    first = builds.standby = _RecordedStandby(["-b", "html"])
    assert builds.build(["-b", "html"], prepare) == ["json"]
    assert first.made_before_build_returned == 1  # none made while it built
    if prepare:
        builds.prepare(["-b", "html"])
    if prepare and stays:
        assert builds.standby is first and not first.discarded
        assert len(_RecordedStandby.made) == 1
    elif prepare:
        assert builds.standby is _RecordedStandby.made[1]
    else:
        assert builds.standby is None and first.discarded == stays


@pytest.mark.parametrize("large", [True, False])
def test_only_a_large_environment_is_loaded_while_the_last_build_finishes(
    built_by_the_worker, monkeypatch, large
):
    """A small one loads quickly after the build; loaded during its search indexer's run, it
    slowed the search."""
    monkeypatch.setattr(output_module, "_load_first", None)
    build = PreparedBuild(sphinx_arguments(built_by_the_worker.restore()) + ["-q"])
    last = _LastBuild(build)
    size = last.environment.stat().st_size
    monkeypatch.setenv(buildworker.LOAD_EARLY_VARIABLE, str(size if large else size + 1))
    args = build.args
    meanwhile = buildworker._WhileTheLastBuildFinishes(told=lambda: False)
    follow = threading.Thread(
        target=buildworker._follow_the_last_build,
        args=(Path(args.outputdir), Path(args.doctreedir), meanwhile),
        daemon=True,
    )
    follow.start()
    follow.join(0.5)
    try:
        if large:  # at once: the standby loads before it locks, and works meanwhile
            assert not follow.is_alive()
            assert output_module._load_first is not None
            assert output_module._load_first.meanwhile is meanwhile
        else:  # once the last build lets the folders go
            assert follow.is_alive()
            last.finish()
            follow.join()
            assert output_module._load_first is None
    finally:
        last.finish()
        follow.join()


@pytest.mark.slow
def test_saves_in_a_row_leave_a_clean_builds_files_with_environments_loaded_early(
    built_by_the_worker, tmp_path, monkeypatch
):
    """Each save comes as soon as the last build has ended, while the next standby, made once
    that build's pages were written, may still be making its application, with the lock taken
    only once the environment is loaded (every environment here, however small). Each change
    is one a standby builds whenever its stamps were taken: the text of posts, posts added,
    deleted and renamed. (At this size the build has mostly saved the environment and ended
    before the standby looks at it: the orders in between are tested above, with the lock and
    the file in the test's hands.)"""
    monkeypatch.setenv(buildworker.LOAD_EARLY_VARIABLE, "0")
    site = built_by_the_worker.restore()
    arguments = sphinx_arguments(site) + ["-q"]
    changes = [("title", 13), ("body", 2), ("add", 1), ("title", 26), ("delete", 4)]
    changes += [("rename", 7), ("body", 9), ("title", 3)]
    with warm_worker(site) as worker:
        assert worker.build(arguments) == 0
        assert worker.wait_prepared()
        for step, (kind, number) in enumerate(changes):
            assert _apply(site, kind, number, step)
            assert worker.build(arguments) == 0
            assert worker.last_prepared, (step, kind)
    wait_for_background_index(site)
    _assert_same_as_clean_build(site, tmp_path / "clean")


def test_the_search_indexers_files_are_not_what_says_another_build_ran(built_by_the_worker):
    """The indexer a build leaves writes its files in the doctree folder while the next
    standby is made: they do not make that standby's application stale; any other file the
    folder gains does."""
    from kb.search.index import BACKGROUND_LOG
    from kb.search.shards import DIGESTS_FILE

    site = built_by_the_worker.restore()
    made = Prepared(site)
    try:
        doctrees = Path(made.app.doctreedir)
        for name in (DIGESTS_FILE, BACKGROUND_LOG, f"{DIGESTS_FILE}.1.2.partial"):
            (doctrees / name).write_text("written by the indexer, after the build")
        assert made.still_current()
        (doctrees / "kb-state.json").touch()
        assert not made.still_current()
    finally:
        made.close()
