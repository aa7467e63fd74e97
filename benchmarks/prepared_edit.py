"""From the go to the edited page written, as ``kb serve``'s standby builds an edit.

On a site that ``kb serve`` built (``serve_speed.py --keep`` leaves one, ``site-warm``),
with ``kb`` imported from ``--src`` (a checkout's ``src``; this one's by default): for each
round, start the worker's own standby (:class:`kb.cli.buildworker.Standby`: it makes the
application, does what it does ahead while it waits, then checks that it is still current
and builds), let it wait ``--pause`` seconds as the author reads, edit the middle post, tell
it to go, and print the seconds from the go to the pages written (the moment the browsers
are told to reload). The worker's warm-up and what it learns after each build (the modules
the build imported, the lexers it compiled) are done here too, as ``kb serve``'s worker does
them. The first round is one build more, not counted: after another checkout's build,
every page is written again (kb's files are part of every page's signature).

Two checkouts, in turns, each on its own copy of the site:

    for i in 1 2 3 4 5; do
      python benchmarks/prepared_edit.py SITE_A --rounds 3
      python benchmarks/prepared_edit.py SITE_B --rounds 3 --src /tmp/kb-before/src
    done
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _go_to_pages_written(standby) -> float | None:
    """Tell the standby to go; the seconds until it says the pages are written (None if it
    did not build), once the worker has learnt what its build imported."""
    from kb.cli import buildworker

    shown: list[float] = []
    start = time.perf_counter()
    built = standby.build(lambda: shown.append(time.perf_counter() - start))
    if built is None or not shown:
        return None
    buildworker.import_what_builds_import(built[1])
    return shown[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    parser.add_argument(
        "--pause", type=float, default=3.0, help="seconds the standby waits before the edit (3)"
    )
    args = parser.parse_args(argv)
    sys.path[:0] = [str(args.src.resolve()), str(HERE)]
    import corpus

    from kb.cli import buildworker
    from kb.cli.serve import sphinx_arguments

    site = args.site.resolve()
    arguments = ["-q", *sphinx_arguments(site)]
    buildworker.warm_up(site)
    posts = sorted((site / "posts").rglob("*.md"))
    post = posts[len(posts) // 2]
    written = []
    for round_number in range(args.rounds + 1):
        standby = buildworker.Standby(arguments)
        standby.wait_ready()
        time.sleep(args.pause)  # the author reads; the standby works ahead
        corpus.edit_post(post, 700 + round_number)
        seconds = _go_to_pages_written(standby)
        if seconds is None:
            print(f"edit {round_number}: not built by the standby", flush=True)
            return 1
        if round_number:
            written.append(seconds)
            print(f"edit {round_number}: pages written {seconds:.3f} s", flush=True)
    print(f"median {statistics.median(written):.3f} s over {len(written)} edits ({args.src})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
