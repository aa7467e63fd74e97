"""The cycle collector pauses while the environment loads and is given back after the build."""

from __future__ import annotations

import gc
from pathlib import Path

from sitebuild import build, copy_root


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
