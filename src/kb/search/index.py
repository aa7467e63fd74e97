"""Full-text search with Pagefind, built by ``sphinx-build`` itself.

Why Pagefind and not Sphinx's own search: Sphinx's search page downloads the whole index and
then every hit's page to cut snippets (megabytes per query at a few hundred posts); Pagefind
downloads only the index chunks a query needs and the fragments of the results it shows.
``benchmarks/search_speed.py`` measures both.

What this module does:

* marks what is searchable while pages are written: the body of each post and real page gets
  ``data-pagefind-body``, with its title, date and categories as Pagefind metadata and
  filters; archive listings, the home page's list of posts and furo's chrome never do;
* writes our own search page (``search.html``, template ``kb/search.html``) in place of
  Sphinx's, and turns Sphinx's index off, since nothing reads it;
* keeps a small record of each searchable page as it is written, and runs Pagefind over the
  records (:mod:`kb.search.pagefind`) once the documents are written, alongside the archives;
  in a record each formula is its TeX source, which a snippet can show, instead of the
  MathML the page draws (whose text reads ``Cij=∑csi,cAsc,jB``);
  the build waits for it at ``build-finished``, so ``make html`` and Read the Docs both
  produce the bundle (``pagefind/`` in the output folder) with no extra step;
* on Read the Docs, adds a small script that opens Read the Docs' server-side search from
  furo's search box (``kb_search_readthedocs``).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

from ..core import events
from ..core.detached import run_detached
from ..core.fileio import crash_point
from ..core.journal import SEARCH_FILES
from ..core.output import held_descriptors
from ..core.state import build_state
from ..core.urls import output_path, root_prefix
from . import marking, records
from .marking import enabled
from .pagefind import BUNDLE_DIR, IndexRun, fill_search_page, find_pagefind
from .records import holds_a_word, prune_records, search_sources
from .worker import BUILD_SUCCEEDED, index_and_fill

logger = logging.getLogger(__name__)

# -- Indexing ----------------------------------------------------------------------------------


def complete_search_page(app: Sphinx, bundle: Path) -> None:
    page = output_path(app, "search")
    fill_search_page(page, bundle, root_prefix(app, "search") + BUNDLE_DIR + "/")


def _keep_index_url(app: Sphinx) -> bool:
    return app.builder.name == "html"


def _start_indexing(app: Sphinx):
    """Start Pagefind as soon as every searchable page is written.

    Sphinx writes the documents (every searchable page) before it collects the generated
    pages (archives, feeds' pages, the search page itself) and copies static files: Pagefind
    runs alongside that work, and :func:`_build_finished` waits for it.
    """
    if not enabled(app):
        return []
    state = build_state(app)
    if state.config.search_defer and _has_bundle(app):
        # kb serve: Pagefind starts now, beside the rest of the build, in a process that
        # outlives it and fills the search page in only once the build has succeeded.
        state.search_go = index_in_background(app, search_sources(app), wait_for_build=True)
        return []
    state.search_sources = search_sources(app)
    logger.info("kb search: indexing %d pages with Pagefind", len(state.search_sources))
    state.search_run = _index_run(app, state.search_sources)
    return []


def find_pagefind_ahead(app: Sphinx) -> None:
    """``kb serve``'s standby, while it waits: Pagefind's binary found (once a process: its
    package is searched), so that the build's indexer starts that much sooner after the
    pages are written. A missing binary is left for the build to report."""
    if enabled(app) and build_state(app).config.search_defer:
        with contextlib.suppress(Exception):
            find_pagefind()


def _index_run(app: Sphinx, sources: dict[str, str]) -> IndexRun:
    return IndexRun(
        Path(app.outdir),
        sources,
        Path(app.doctreedir),
        _keep_index_url(app),
        build_state(app).config.search_shard_size,
        reuse=build_state(app).config.incremental,
    )


def _has_bundle(app: Sphinx) -> bool:
    return (Path(app.outdir) / BUNDLE_DIR / "pagefind-entry.json").is_file()


def _build_finished(app: Sphinx, exception) -> None:
    if not enabled(app):
        return
    state = build_state(app)
    run, state.search_run = state.search_run, None
    if state.search_go is not None:
        return  # indexing in the background since html-collect-pages: _tell_background_index
    if exception is not None:
        if run is not None:
            run.cancel()
        return
    if run is None:
        # Deferred (kb serve) with no pages collected, or a build that wrote no HTML at all.
        sources = search_sources(app)
        if build_state(app).config.search_defer and _has_bundle(app):
            index_in_background(app, sources)
            return
        state.search_sources = sources
        run = _index_run(app, sources)
    start = time.perf_counter()
    reindexed = run.reindexed
    count = run.wait()
    if reindexed:
        prune_records(app, state.search_sources)
    complete_search_page(app, Path(app.outdir) / BUNDLE_DIR)
    run.finish()  # the old bundle's files go once the search page names the new ones
    logger.info("kb search: %d pages indexed (%.1f s waited)", count, time.perf_counter() - start)
    expected = len(state.search_sources)
    if count != expected:  # is it the pages Pagefind finds no word in? They are not indexed.
        expected -= sum(not holds_a_word(source) for source in state.search_sources.values())
    if count != expected:
        logger.warning(
            "kb search: %d pages should be searchable but the index holds %d. A template "
            "that replaces the page body may have dropped data-pagefind-body; rebuild from "
            "scratch (make clean html) and check the templates.",
            expected,
            count,
            type="kb",
            subtype="search",
        )


# -- Indexing after the build returns (live preview) -------------------------------------------

BACKGROUND_LOG = f"{SEARCH_FILES}background.log"


def index_in_background(
    app: Sphinx, sources: dict[str, str], wait_for_build: bool = False
) -> int | None:
    """Index in a detached process, so a preview shows the edited page without waiting.

    Only with ``kb_search_defer`` (``kb serve`` sets it) and once a first bundle exists: the
    search page keeps working from the previous bundle until the new one is in place, a few
    seconds later. ``make html``, CI and Read the Docs index before the build returns.

    With ``wait_for_build``, started while the build still runs (once every searchable page
    is written): Pagefind runs beside the rest of the build, and the indexer puts the new
    bundle into the search page only when the build tells it, at its end, that it succeeded
    (:func:`_tell_background_index`, on the descriptor returned). A build that fails or is
    killed closes the pipe without a word, and the search page keeps its bundle.
    """
    outdir, workdir = Path(app.outdir), Path(app.doctreedir)
    # The pages listed in a file too: ``python -m kb.search.worker`` reads them there (where
    # no copy of this process can be made, and benchmarks/indexer_once.py).
    listing = workdir / f"{SEARCH_FILES}pages.json"
    listing.write_text(
        json.dumps({relpath: str(source) for relpath, source in sources.items()}),
        encoding="utf-8",
    )
    search_page = output_path(app, "search")
    prefix = root_prefix(app, "search") + BUNDLE_DIR + "/"
    keep_url, shard_size = _keep_index_url(app), build_state(app).config.search_shard_size
    # Not inherited by anything else the build starts (os.pipe's descriptors are not), so
    # that the end of the pipe means the end of the build.
    told, tell = os.pipe() if wait_for_build else (None, None)
    # The build's locks on its folders go with the indexer, with no moment between the two
    # when another build could start: the next build waits for the new bundle.
    keep = [*held_descriptors(app), *([told] if told is not None else [])]
    try:
        # In a copy of this process (kb.core.detached): no interpreter to start, nothing to
        # import. Pagefind's binary is found first, once per process, so that the copy does
        # not import its package to find it.
        find_pagefind()
        work = partial(
            index_and_fill,
            outdir,
            workdir,
            sources,
            search_page,
            prefix,
            keep_url,
            shard_size,
            told,
        )
        if not run_detached(work, keep, workdir / BACKGROUND_LOG):  # no memory for a copy
            arguments = [str(outdir), str(workdir), str(listing), str(search_page), prefix]
            arguments.append("keep-url" if keep_url else "folder-url")
            arguments.append(str(shard_size))
            if told is not None:
                arguments.append(str(told))
            with open(workdir / BACKGROUND_LOG, "w", encoding="utf-8") as log:
                subprocess.Popen(
                    [sys.executable, "-m", "kb.search.worker", *arguments],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # outlives sphinx-build and kb serve's rebuild
                    pass_fds=keep,
                )
    except BaseException:
        if tell is not None:
            os.close(tell)
        raise
    finally:
        if told is not None:
            os.close(told)
    logger.info("kb search: indexing %d pages in the background", len(sources))
    return tell


def _tell_background_index(app: Sphinx, exception) -> None:
    """Once every handler has written: whether the build succeeded, to an indexer started at
    html-collect-pages. Sphinx emits build-finished again, with the error, when a handler of
    it fails: a build that failed after its word was given is still one the next repairs."""
    state = build_state(app)
    tell, state.search_go = state.search_go, None
    if tell is None:
        return
    try:
        crash_point("tell")
        if exception is None:
            os.write(tell, BUILD_SUCCEEDED)
    except BrokenPipeError:
        pass  # the indexer was stopped: the bundle it left is one the next build repairs
    finally:
        os.close(tell)


def setup_search(app: Sphinx) -> None:
    app.connect("builder-inited", marking.builder_inited)
    app.connect("html-page-context", marking.html_page_context)
    # Last, when every other handler has finished the page's body.
    app.connect("html-page-context", records.write_search_record, priority=events.SEARCH_RECORD)
    # First, so that Pagefind runs while the generated pages are written.
    app.connect("html-collect-pages", _start_indexing, priority=events.START_INDEXING)
    app.connect("html-collect-pages", marking.html_collect_pages)
    app.connect("build-finished", _build_finished)
    app.connect("build-finished", _tell_background_index, priority=events.TELL_BACKGROUND_INDEXER)
