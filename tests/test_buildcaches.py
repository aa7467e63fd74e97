"""What one build keeps for the next: compiled templates; and the cycle collector, paused while
the environment loads, everything frozen at the build's end and given back when the next build in
the process starts."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from helpers import soup
from sitebuild import build, copy_root

from kb.incremental.templatecache import CACHE_FOLDER
from kb.upstream.sphinx import doctrees_waiting_to_be_written


class _Cycle:
    """Garbage that only the cycle collector can free: it points to itself."""

    def __init__(self):
        self.itself = self


def test_the_loaded_environment_is_frozen_and_everything_is_given_back(make_app, tmp_path):
    site = copy_root("listings", tmp_path / "site")
    build(make_app, site)  # leaves an environment for the next build to load

    app = make_app("html", srcdir=site)  # loads that environment
    try:
        assert len(app.env.all_docs) > 0
        assert gc.isenabled()
        # Moved out of the collector's way: the configuration, the modules, the environment.
        assert gc.get_freeze_count() > 10_000
        garbage = []

        def leave_garbage(app, exception):  # before kb's last handler freezes what is left
            garbage.append(weakref.ref(_Cycle()))

        app.connect("build-finished", leave_garbage, priority=900)
        app.build()
    finally:
        app.cleanup()
    assert gc.isenabled()
    assert Path(app.outdir, "index.html").is_file()

    # The build's end froze what was left: a process that ends now does not free it object by
    # object, and the collector no longer sees the garbage.
    (left,) = garbage
    gc.collect()
    assert left() is not None and gc.get_freeze_count() > 10_000

    # The next build in the process gives it back and frees it.
    build(make_app, site)
    assert left() is None


def test_a_process_that_had_the_collector_off_keeps_it_off(make_app, tmp_path):
    site = copy_root("listings", tmp_path / "site")
    gc.disable()
    try:
        build(make_app, site)
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- Compiled templates --------------------------------------------------------------------------


def _brand(site: Path, text: str) -> None:
    template = site / "_templates" / "sidebar" / "brand.html"
    template.parent.mkdir(parents=True, exist_ok=True)
    template.write_text(f'<p class="brand-test">{text}</p>\n', encoding="utf-8")


def _brand_on_home(app) -> str:
    return soup(Path(app.outdir, "index.html")).select_one("p.brand-test").get_text()


def test_compiled_templates_are_kept_and_an_edited_template_is_compiled_again(make_app, tmp_path):
    site = copy_root("listings", tmp_path / "site")
    (site / "conf.py").write_text(
        (site / "conf.py").read_text() + '\ntemplates_path = ["_templates"]\n'
    )
    _brand(site, "First brand")
    app = build(make_app, site)
    assert app.warning.getvalue() == ""
    assert _brand_on_home(app) == "First brand"
    caches = list(Path(app.doctreedir, CACHE_FOLDER).glob("*/__jinja2_*.cache"))
    assert len(caches) >= 10  # furo's, ablog's and kb's templates, the project's own

    _brand(site, "Second brand")
    app = build(make_app, site)
    assert app.warning.getvalue() == ""
    assert _brand_on_home(app) == "Second brand"


# -- Doctrees waiting to be written ----------------------------------------------------------


def _build_counting_waiting(make_app, site: Path, **overrides) -> tuple[object, int]:
    """Build ``site``; the most read doctrees that waited in memory for the writing phase at
    once (counted after each document is read, after kb's own handler)."""
    most = 0

    def count(app, doctree):
        nonlocal most
        most = max(most, len(doctrees_waiting_to_be_written(app.env)))

    app = make_app("html", srcdir=site, confoverrides=overrides)
    app.connect("doctree-read", count, priority=1000)
    try:
        app.build()
    finally:
        app.cleanup()
    return app, most


def test_read_doctrees_wait_in_memory_up_to_the_limit_and_the_pages_are_the_same(
    make_app, tmp_path
):
    unbounded, most_unbounded = _build_counting_waiting(
        make_app, copy_root("listings", tmp_path / "one")
    )
    bounded, most_bounded = _build_counting_waiting(
        make_app, copy_root("listings", tmp_path / "two"), kb_doctrees_in_memory=1
    )
    assert most_unbounded > 3  # Sphinx keeps what it reads: the limit is what bounds it
    assert most_bounded <= 1
    assert doctrees_waiting_to_be_written(bounded.env) == {}  # none left after reading
    # Pages written from the doctrees read back from disk are the same, byte for byte.
    pages = sorted(p.relative_to(unbounded.outdir) for p in Path(unbounded.outdir).rglob("*.html"))
    assert len(pages) > 10
    assert pages == sorted(
        p.relative_to(bounded.outdir) for p in Path(bounded.outdir).rglob("*.html")
    )
    different = [
        str(page)
        for page in pages
        if Path(unbounded.outdir, page).read_bytes() != Path(bounded.outdir, page).read_bytes()
    ]
    assert different == []
