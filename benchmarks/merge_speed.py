"""Index merge speed: time ``kb.search.merge`` over the shards a build left behind.

    python benchmarks/merge_speed.py DOCTREES            # e.g. a kept 10,000-post site's
    python benchmarks/merge_speed.py DOCTREES --repeats 5

DOCTREES is a built site's doctree folder: its ``kb-search-shards/`` holds each shard's parsed
bundle. The shards are merged into an empty temporary folder ("from nothing", as a clean build
merges), then merged again into the same folder ("again", as after a one-post edit, when
almost every file is already there), ``--repeats`` times each; prints the medians. Uses the
``kb`` of the checkout the script is in (its ``src/`` first on the path): to compare two
checkouts, copy the script into the other one's ``benchmarks/`` and run both copies.
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
from kb.search import merge, shards  # noqa: E402


def load_shards(doctrees: Path) -> list:
    """The parsed shards, in the order a build merges them (by shard number)."""
    root = doctrees / shards.SHARDS_DIR
    paths = sorted(root.glob(f"*/{shards.PARSED}"), key=lambda p: int(p.parent.name.split("-")[1]))
    if not paths:
        raise SystemExit(f"no shards under {root}: build a site of more than 64 pages first")
    loaded = []
    for path in paths:
        with open(path, "rb") as handle:
            loaded.append(pickle.load(handle))
    return loaded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("doctrees", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    loaded = load_shards(args.doctrees)
    fresh, again = [], []
    for _ in range(args.repeats):
        bundle = Path(tempfile.mkdtemp(prefix="kb-merge-"))
        try:
            written: dict = {}
            start = time.perf_counter()
            pages = merge.merge(loaded, bundle, written)
            fresh.append(time.perf_counter() - start)
            start = time.perf_counter()
            merge.merge(loaded, bundle, written)
            again.append(time.perf_counter() - start)
        finally:
            shutil.rmtree(bundle, ignore_errors=True)
    print(f"{merge.__file__}: {len(loaded)} shards, {pages} pages")
    for name, times in (("from nothing", fresh), ("again", again)):
        runs = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name}: {statistics.median(times):.2f} s (runs: {runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
