"""``python -m kb.search.worker``: the Pagefind run that ``kb_search_defer`` moves out of the
build (see :func:`kb.search.index_in_background`). Indexes the listed records, then fills the
search page's head with the new bundle's entry."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kb.core.output import lock_folders, release
from kb.search.pagefind import BUNDLE_DIR, build_search_index, fill_search_page


def main(argv: list[str]) -> int:
    outdir, workdir, listing, search_page, prefix, url_mode = argv
    outdir_path = Path(outdir)
    # The build that started us still holds its output folder: index once it has let go,
    # and keep the next build out until the bundle is in place.
    held = lock_folders([outdir_path, Path(workdir)])
    listed = json.loads(Path(listing).read_text(encoding="utf-8"))
    sources = {relpath: Path(source) for relpath, source in listed.items()}
    build_search_index(outdir_path, sources, Path(workdir), keep_index_url=url_mode == "keep-url")
    fill_search_page(Path(search_page), outdir_path / BUNDLE_DIR, prefix)
    release(held)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
