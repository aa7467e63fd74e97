"""``python -m kb.search.worker``: the Pagefind run that ``kb_search_defer`` moves out of the
build (see :func:`kb.search.index_in_background`). Indexes the listed records, then fills the
search page's head with the new bundle's entry."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kb.search.pagefind import BUNDLE_DIR, IndexRun, fill_search_page


def main(argv: list[str]) -> int:
    outdir, workdir, listing, search_page, prefix, url_mode, shard_size = argv
    outdir_path = Path(outdir)
    # The build that started us handed over its locks on both folders (inherited
    # descriptors): the next build waits until this bundle is in place and we exit.
    listed = json.loads(Path(listing).read_text(encoding="utf-8"))
    # Each page's record as a path in text, as the build hands them to IndexRun.
    sources = {str(relpath): str(source) for relpath, source in listed.items()}
    run = IndexRun(outdir_path, sources, Path(workdir), url_mode == "keep-url", int(shard_size))
    run.wait()
    fill_search_page(Path(search_page), outdir_path / BUNDLE_DIR, prefix)
    run.finish()  # the old bundle's files go once the search page names the new ones
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
