"""One run of ``kb serve``'s background indexer over one changed shard, for ``farm-bench``.

Changes one search record of a built site (one word, back and forth, so each run has the same
work), then runs ``python -m kb.search.worker`` as a build starts it (without the pipe that
waits for the build's end), with ``kb`` imported from ``SRC``: a checkout's ``src`` folder.
The site is one that ``kb serve`` built, for example a copy kept by ``serve_speed.py --keep``
(``site-warm``). An optional third argument is the shard size (``kb_search_shard_size``,
64). Two checkouts paired:

    farm-bench -n 15 --vs "python benchmarks/indexer_once.py SITE /tmp/kb-before/src" \\
        -- python benchmarks/indexer_once.py SITE src
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

WORDS = ("zyzzyva", "zyzzyvb")


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


def main(site: Path, src: Path, shard_size: str = "64") -> int:
    html, doctrees = site / "_build" / "html", site / "_build" / "doctrees"
    change_one_record(doctrees)
    listing = doctrees / "kb-search-pages.json"
    search_page = html / "search.html"
    arguments = [str(html), str(doctrees), str(listing), str(search_page), "pagefind/"]
    arguments += ["folder-url", shard_size]
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    command = [sys.executable, "-m", "kb.search.worker", *arguments]
    return subprocess.run(command, env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]), Path(sys.argv[2]), *sys.argv[3:4]))
