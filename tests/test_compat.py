"""What kb relies on in other packages' internals (kb.core.compat, kb.core.ablog, kb.checks.slugs):
each test fails loudly when the upstream behaviour changes."""

from __future__ import annotations

import pickle

import pytest
from ablog import blog as ablog_blog
from docutils import nodes
from docutils.utils import new_document
from sitebuild import build, copy_root

from kb.checks.slugs import slugify
from kb.core.compat import detach, writer_settings

SAMPLES = [
    "C++", "C#", "CUDA", "Stream-K", "  two  words ", "FP8 / BF16", "wgmma.mma_async",
    "naïve café", "Ünïcödé", "tab\there", "a--b", "-lead", "trail-", "日本語", "x_y", "%$#",
    "Optimization diaries", "NVFP4 block scaling on SM12x", "100%", "H200 (SXM)",
]  # fmt: skip


@pytest.mark.parametrize("text", SAMPLES)
def test_our_slugs_are_ablogs_slugs(text):
    # The checks name tag and series pages without importing ablog: they must agree.
    assert slugify(text) == ablog_blog.slugify(text)


def test_ablog_keeps_its_state_in_a_class_level_dict():
    # kb.core.ablog clears Blog._dict at config-inited so builds in one process don't leak.
    assert isinstance(ablog_blog.Blog._dict, dict)
    assert "_dict" in vars(ablog_blog.Blog)


def test_a_second_build_in_one_process_does_not_see_the_first_builds_posts(make_app, tmp_path):
    first = build(make_app, copy_root("listings", tmp_path / "one"))
    assert first.kb_catalog.posts
    empty = copy_root("listings", tmp_path / "two")
    for post in (empty / "posts").glob("*.md"):
        post.unlink()
    second = build(make_app, empty)
    assert second.kb_catalog.posts == []
    assert not (second.outdir / "posts").exists()


def test_writer_settings_are_docutils_defaults_with_the_environments_overrides(make_app, tmp_path):
    app = build(make_app, copy_root("listings", tmp_path / "site"))
    settings = writer_settings(app.env)
    for key, value in app.env.settings.items():
        assert getattr(settings, key) == value
    assert settings.output_encoding  # a default of docutils' HTML writer


def test_a_detached_copy_pickles_without_its_document():
    document = new_document("post.md", writer_settings_for_tests())
    document.append(nodes.paragraph(text="x" * 100_000))
    copy = document[0].deepcopy()
    copy.append(nodes.emphasis(text="kept"))
    assert copy.document is document or copy.document is None
    detach(copy)
    assert copy.document is None
    assert len(pickle.dumps(copy)) < 110_000  # the document (and its 100 KB) is not dragged


def writer_settings_for_tests():
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    return get_default_settings(Parser)


def test_ablogs_page_and_feed_writers_are_found_and_unplugged(make_app, tmp_path):
    from ablog import post

    app = build(make_app, copy_root("listings", tmp_path / "site"))
    handlers = {listener.handler for listener in app.events.listeners["html-collect-pages"]}
    assert post.generate_archive_pages not in handlers
    assert post.generate_atom_feeds not in handlers
    assert not (app.outdir / "blog" / "drafts.html").exists()  # ablog always wrote one
