"""From the go to the edited page written, as ``kb serve``'s standby builds an edit, in-process.

On a site that ``kb serve`` built (``serve_speed.py --keep`` leaves one, ``site-warm``),
with ``kb`` imported from ``--src`` (a checkout's ``src``; this one's by default): for each
round, make the application a standby makes, edit the middle post, fork and build as the
standby does (with what it makes ahead while it waits, where the checkout's worker has
``work_ahead``), and print the seconds from the fork to the pages written (the moment the
browsers are told to reload). The worker's warm-up and what it learns after each build (the
modules the build imported, the lexers it compiled) are done here too, as ``kb serve``'s
worker does them. The first round is one build more, not counted: after another checkout's
build, every page is written again (kb's files are part of every page's signature).

Two checkouts, in turns, each on its own copy of the site:

    for i in 1 2 3 4 5; do
      python benchmarks/prepared_edit.py SITE_A --rounds 3
      python benchmarks/prepared_edit.py SITE_B --rounds 3 --src /tmp/kb-before/src
    done
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _build_and_tell(prepared, start: float, learnt_write: int):
    """In the forked child: build with ``prepared`` as the standby does, then write the
    seconds to the pages written and what the worker learns (modules, lexers), and exit."""
    from kb.cli.buildworker import LEXER
    from kb.upstream.pygments import compiled_lexers

    shown: list[float] = []
    prepared.run(True, lambda app: shown.append(time.perf_counter() - start))
    lexers = [LEXER + name for name in compiled_lexers()]
    learnt = "\n".join([f"{shown[0] if shown else -1}", *sorted(sys.modules), *lexers])
    with os.fdopen(learnt_write, "w", encoding="utf-8") as pipe:
        pipe.write(learnt)
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(args.src.resolve()), str(HERE)]
    import corpus

    from kb.cli import buildworker
    from kb.cli.serve import sphinx_arguments
    from kb.upstream.sphinx_build import PreparedBuild

    site = args.site.resolve()
    arguments = ["-q", *sphinx_arguments(site)]
    buildworker.warm_up(site)
    posts = sorted((site / "posts").rglob("*.md"))
    post = posts[len(posts) // 2]
    written = []
    for round_number in range(args.rounds + 1):
        prepared = PreparedBuild(arguments)
        prepared.prepare()
        # What the standby does while it waits, where the checkout's worker does it.
        work_ahead = getattr(buildworker, "work_ahead", None)
        if work_ahead is not None and prepared.app is not None:
            work_ahead(prepared.app)
        corpus.edit_post(post, 700 + round_number)
        learnt_read, learnt_write = os.pipe()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # the standby's build, then what the worker learns from it
            os.close(learnt_read)
            _build_and_tell(prepared, start, learnt_write)
        os.close(learnt_write)
        with os.fdopen(learnt_read, encoding="utf-8") as pipe:
            seconds, *names = pipe.read().split("\n")
        os.waitpid(pid, 0)
        prepared.close()
        buildworker.import_what_builds_import(names)
        if round_number:
            written.append(float(seconds))
            print(f"edit {round_number}: pages written {float(seconds):.3f} s", flush=True)
    print(f"median {statistics.median(written):.3f} s over {len(written)} edits ({args.src})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
