"""Copies of images and downloads go with the last document that used them.

Sphinx copies a document's images into ``_images/`` and its downloads into ``_downloads/``,
and never removes one: after a post is deleted, or edited to use another image, the old copy
stays in the output (and in the published site), where a clean build has none. Before the
environment is saved, the copies it listed when the build began and no longer lists are
removed. Only Sphinx's own names are touched: a file another extension writes there (a
graphviz diagram) is not one of them.

Done at ``env-updated``, before Sphinx saves the environment: a build stopped before that
loads the old environment again and removes them then; one stopped after has removed them.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from sphinx.application import Sphinx

from ..core.state import build_state
from ..upstream.sphinx import copied_files


def _files_found(app: Sphinx, env, added, changed, removed) -> list[str]:
    # Sphinx purges removed documents after this event: the copies as the last build left them.
    state = build_state(app)
    if state.copies_before is None:
        state.copies_before = copied_files(env)
    return []


def _env_updated(app: Sphinx, env) -> list[str]:
    state = build_state(app)
    gone = (state.copies_before or set()) - copied_files(env)
    state.copies_before = None
    outdir = Path(app.outdir).resolve()
    for relpath in sorted(gone):
        path = (outdir / relpath).resolve()
        if outdir not in path.parents or not path.is_file():
            continue
        path.unlink()
        if relpath.startswith("_downloads/"):
            with contextlib.suppress(OSError):  # the folder Sphinx made for it, if now empty
                os.rmdir(path.parent)
    return []


def setup_copies(app: Sphinx) -> None:
    app.connect("env-get-outdated", _files_found)
    app.connect("env-updated", _env_updated)
