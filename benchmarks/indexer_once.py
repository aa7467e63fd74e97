"""One run of ``kb serve``'s background indexer over one changed shard, for ``farm-bench``.

Changes one search record of a built site (one word, back and forth, so each run has the same
work), then runs ``python -m kb.search.worker`` as a build starts it (without the pipe that
waits for the build's end), with ``kb`` imported from ``SRC``: a checkout's ``src`` folder.
The site is one that ``kb serve`` built, for example a copy kept by ``serve_speed.py --keep``
(``site-warm``). An optional third argument is the shard size (``kb_search_shard_size``,
48). With a fourth, ``add``, each run adds a searchable page (a copy of a post's record with a
word of its own) or, on the next run, takes it away again: the pages after it are numbered
again, which changes every chunk of the merged index. Two checkouts paired, each on its own
copy of the site (another checkout's index is made again on its first run, the warm-up):

    farm-bench -n 15 --vs "python benchmarks/indexer_once.py SITE_B /tmp/kb-before/src" \\
        -- python benchmarks/indexer_once.py SITE_A src
    farm-bench -n 16 --vs "python benchmarks/indexer_once.py SITE_B /tmp/kb-before/src 48 add" \\
        -- python benchmarks/indexer_once.py SITE_A src 48 add
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

WORDS = ("zyzzyva", "zyzzyvb")
#: The page that ``add`` adds and takes away, in the site and among the records.
ADDED = "posts/aaa-indexer-once.html"


def change_one_record(doctrees: Path) -> None:
    record = min((doctrees / "kb-search-records" / "posts").rglob("*.html"))
    text = record.read_text(encoding="utf-8")
    if WORDS[0] in text:
        text = text.replace(WORDS[0], WORDS[1], 1)
    elif WORDS[1] in text:
        text = text.replace(WORDS[1], WORDS[0], 1)
    else:
        text = text.replace("</body>", f"<p>{WORDS[0]}</p></body>", 1)
    staged = record.with_name(record.name + ".tmp")
    staged.write_text(text, encoding="utf-8")
    os.replace(staged, record)  # as the build writes a record: a new file


def pages_of_this_copy(doctrees: Path, listing: Path) -> dict[str, str]:
    """The pages the last build listed for the indexer, each with its record in this copy of
    the site (the listing names the records by full path: a copy's would be the original's)."""
    records = doctrees / "kb-search-records"
    listed = json.loads(listing.read_text(encoding="utf-8"))
    return {page: str(records / page) for page in listed if (records / page).is_file()}


def add_or_remove_a_page(doctrees: Path, listing: Path) -> None:
    """Add :data:`ADDED` to the pages the indexer reads, or take it away if it is there."""
    listed = pages_of_this_copy(doctrees, listing)
    if ADDED in listed:
        del listed[ADDED]
    else:
        records = doctrees / "kb-search-records"
        text = min((records / "posts").rglob("*.html")).read_text(encoding="utf-8")
        record = records / ADDED
        record.write_text(text.replace("</body>", f"<p>{WORDS[0]}</p></body>", 1), "utf-8")
        listed[ADDED] = str(record)
    listing.write_text(json.dumps(dict(sorted(listed.items()))), encoding="utf-8")


def main(site: Path, src: Path, shard_size: str = "48", change: str = "edit") -> int:
    html, doctrees = site / "_build" / "html", site / "_build" / "doctrees"
    listing = doctrees / "kb-search-pages.json"
    if change == "add":
        add_or_remove_a_page(doctrees, listing)
    else:
        pages = pages_of_this_copy(doctrees, listing)
        listing.write_text(json.dumps(pages), encoding="utf-8")
        change_one_record(doctrees)
    search_page = html / "search.html"
    arguments = [str(html), str(doctrees), str(listing), str(search_page), "pagefind/"]
    arguments += ["folder-url", shard_size]
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    # Compiled once and kept, as in an installed environment (build_speed.BYTECODE_CACHE).
    env["PYTHONDONTWRITEBYTECODE"] = ""
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "kb-bench-pycache")
    command = [sys.executable, "-m", "kb.search.worker", *arguments]
    return subprocess.run(command, env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), Path(sys.argv[2]), *sys.argv[3:5]))
