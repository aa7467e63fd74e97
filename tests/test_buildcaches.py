"""What one build keeps for the next: compiled templates; and the cycle collector, paused while
the environment loads and given back after the build."""

from __future__ import annotations

import gc
from pathlib import Path

from helpers import soup
from sitebuild import build, copy_root

from kb.core.templatecache import CACHE_FOLDER


def test_the_loaded_environment_is_frozen_and_everything_is_given_back(make_app, tmp_path):
    site = copy_root("listings", tmp_path / "site")
    build(make_app, site)  # leaves an environment for the next build to load
    assert gc.isenabled() and gc.get_freeze_count() == 0

    app = make_app("html", srcdir=site)  # loads that environment
    try:
        assert len(app.env.all_docs) > 0
        assert gc.isenabled()
        # Moved out of the collector's way: the configuration, the modules, the environment.
        assert gc.get_freeze_count() > 10_000
        app.build()
    finally:
        app.cleanup()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0  # a later build in this process can free it all
    assert Path(app.outdir, "index.html").is_file()


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
