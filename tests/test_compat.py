"""What kb relies on in other packages' internals (kb.core.compat, kb.core.ablog, kb.checks.slugs,
kb.notebooks for MyST-NB): each test fails loudly when the upstream behaviour changes."""

from __future__ import annotations

import pickle

import pytest
from ablog import blog as ablog_blog
from docutils import nodes
from docutils.utils import new_document
from sitebuild import build, copy_root

from kb.checks.slugs import slugify
from kb.core.compat import detach, doctrees_waiting_to_be_written, writer_settings

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


# -- MyST-NB (kb.notebooks imports it lazily and declares its settings itself) ------------------


class _Recorder:
    """A stand-in Sphinx app that records the settings an extension declares."""

    def __init__(self) -> None:
        self.settings: dict[str, object] = {}

    def add_config_value(self, name, default, *args, **kwargs) -> None:
        self.settings[name] = default

    def __getattr__(self, name):
        return _Anything()


class _Anything:
    """Whatever the extension's setup() reaches for beyond settings (``app.connect``, or
    ``app.registry.transforms.remove`` in older MyST-Parsers): accepted, and ignored."""

    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        return self


def test_kb_declares_myst_nbs_settings():
    # kb.notebooks.settings declares MyST-NB's nb_* settings instead of running its setup():
    # a setting MyST-NB adds must be declared by kb too (or refused on purpose).
    from myst_nb.core.config import NbParserConfig
    from myst_nb.sphinx_ext import OUTPUT_FOLDER, sphinx_setup

    from kb.notebooks import settings

    theirs = _Recorder()
    sphinx_setup(theirs)
    # Deprecated names MyST-NB still accepts (and warns about): kb does not offer them.
    legacy = {"nb_render_priority"} | {
        field.metadata["legacy_name"]
        for _, _, field in NbParserConfig().as_triple()
        if "legacy_name" in field.metadata
    }
    ours = {f"nb_{name}" for name, _ in settings._names()}
    assert set(theirs.settings) - legacy == ours | {f"nb_{n}" for n in settings.NOT_OFFERED}
    assert OUTPUT_FOLDER == settings.OUTPUT_FOLDER


def test_myst_nb_parts_kb_uses_are_where_kb_looks():
    from myst_nb.core.config import NbParserConfig
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_nb.sphinx_ import (
        HideCodeCellNode,
        HideInputCells,
        Parser,
        SelectMimeType,
        depart_HideCellInput,
        visit_HideCellInput,
    )

    assert SelectMimeType.default_priority == 4  # kb's SelectOutputForm runs at the same time
    assert HideInputCells.default_priority == 199
    assert callable(visit_HideCellInput) and callable(depart_HideCellInput)
    assert issubclass(HideCodeCellNode, nodes.Element) and callable(Parser.parse)
    assert NbParserConfig().copy(execution_mode="cache").execution_mode == "cache"
    notebook = read_myst_markdown_notebook("---\nfile_format: mystnb\n---\n\n# T\n")
    assert notebook.metadata["file_format"] == "mystnb"


def test_sphinx_keeps_the_doctrees_it_reads_for_the_writing_phase(make_app, tmp_path):
    # kb.core.doctrees bounds this cache; test_buildcaches checks that the pages are the same.
    app = make_app("html", srcdir=copy_root("listings", tmp_path / "site"))
    app.cleanup()
    # The environment's dict, docname -> doctree: None would mean Sphinx moved it.
    assert doctrees_waiting_to_be_written(app.env) == {}
