"""The Pagefind run that ``kb_search_defer`` moves out of the build (see
:func:`kb.search.index.index_in_background`): :func:`index_and_fill` indexes the records, then
fills the search page's head with the new bundle's entry. It runs in a detached copy of the
build's process (:mod:`kb.core.detached`), or, where no copy can be made, as
``python -m kb.search.worker`` with the records listed in a file.

Started while the build still runs, it is handed the reading end of a pipe: Pagefind runs at
once, beside the rest of the build, and the search page is filled in only once the build has
written that it succeeded. The end of the pipe with nothing on it (the build failed, or was
killed) leaves the search page as it was, naming the bundle it named, whose files are still
there: the new files wait beside them, unrecorded, and the next build's indexer redoes the
work and removes them. So it is when a newer build waits for the folders before this indexer
has merged the shards (the author saved again): it stops, and leaves the work to that build's
indexer (:mod:`kb.core.waiting`).
"""

from __future__ import annotations

import json
import os
import sys
from functools import partial
from pathlib import Path

from kb.core.waiting import Superseded, build_waiting
from kb.search.pagefind import BUNDLE_DIR, IndexRun, fill_search_page

#: What the build writes to the pipe once it has succeeded; anything else (the end of the
#: pipe, when the build failed or was killed) leaves the search page naming its bundle.
BUILD_SUCCEEDED = b"ok"


def build_succeeded(told: int) -> bool:
    """Wait for the build's word on the pipe; the end of the pipe without it means failure."""
    heard = b""
    try:
        while chunk := os.read(told, len(BUILD_SUCCEEDED)):
            heard += chunk
    finally:
        os.close(told)
    return heard == BUILD_SUCCEEDED


def index_and_fill(
    outdir: Path,
    workdir: Path,
    sources: dict[str, str],
    search_page: Path,
    prefix: str,
    keep_index_url: bool,
    shard_size: int,
    told: int | None = None,
) -> int:
    """Index ``sources`` (each page's path in the site and its record), then, once the build
    has said on ``told`` that it succeeded (at once, without ``told``), put the new bundle
    into the search page. The exit status: 1 when the build did not succeed, or when a newer
    build said it waits for the folders before the merge (the search page then keeps naming
    the bundle it named)."""
    # The build that started us handed over its locks on both folders (inherited
    # descriptors): the next build waits until this bundle is in place and we exit, unless
    # it says that it waits before the merge (kb.core.waiting): its indexer then does the
    # work again for the newer pages, and this one gives up.
    superseded = partial(build_waiting, workdir, outdir)
    run = IndexRun(outdir, sources, workdir, keep_index_url, shard_size, superseded=superseded)
    try:
        run.wait()
    except Superseded:
        run.cancel()
        print("kb search: a newer build waits for the folders and indexes the pages itself")
        return 1
    if told is not None and not build_succeeded(told):
        return 1
    fill_search_page(search_page, outdir / BUNDLE_DIR, prefix)
    run.finish()  # the old bundle's files go once the search page names the new ones
    return 0


def main(argv: list[str]) -> int:
    outdir, workdir, listing, search_page, prefix, url_mode, shard_size, *told = argv
    listed = json.loads(Path(listing).read_text(encoding="utf-8"))
    # Each page's record as a path in text, as the build hands them to IndexRun.
    sources = {str(relpath): str(source) for relpath, source in listed.items()}
    return index_and_fill(
        Path(outdir),
        Path(workdir),
        sources,
        Path(search_page),
        prefix,
        url_mode == "keep-url",
        int(shard_size),
        int(told[0]) if told else None,
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
