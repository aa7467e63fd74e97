"""Before and after a change: the same corpus built by two checkouts' ``kb``, in turn.

``build_speed.py`` times one checkout; on a shared machine two runs minutes apart see different
loads. This script builds the same ``--posts`` corpus (``corpus.py``) with the site and ``kb``
of two checkouts (``--before``, e.g. ``git archive main | tar -x -C /tmp/kb-main``, and
``--after``, by default this one), then times no-change rebuilds, one-post edits and one-post
edits as ``kb serve`` builds them, alternating the two sites round after round, and reports
medians and the median of the paired differences of CPU time.

    python benchmarks/paired_speed.py --before /tmp/kb-main --posts 300 --rounds 8
    python benchmarks/paired_speed.py --before /tmp/kb-main --posts 1000 --rounds 3 --clean
    python benchmarks/paired_speed.py --before /tmp/kb-main --posts 1000 --modes no-change add
    python benchmarks/paired_speed.py --before /tmp/kb-main --posts 1000 --rounds 6 --clean \
        --modes no-change --together

On a machine shared with others, the speed of the whole machine drifts by a tenth or more over
minutes, more than the difference a clean build is to show. ``--together`` starts each pair's
two builds at the same moment, one per core, so both see the same drift and their difference
cancels it (give it at least two cores; each build runs in one).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import build_speed  # noqa: E402

MODES = ("no-change", "edit", "edit-preview")
ALL_MODES = (*MODES, "add", "add-preview")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the other checkout")
    parser.add_argument("--after", type=Path, default=build_speed.REPO, help="(this checkout)")
    parser.add_argument("--posts", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument(
        "--clean", action="store_true", help="also time a clean build in each round (slow)"
    )
    parser.add_argument(
        "--modes", nargs="+", choices=ALL_MODES, default=list(MODES), help="builds timed"
    )
    parser.add_argument(
        "--together", action="store_true", help="build both sides at once (see above)"
    )
    args = parser.parse_args(argv)
    modes = ("clean", *args.modes) if args.clean else tuple(args.modes)
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    root = Path(tempfile.mkdtemp(prefix="kb-paired-"))
    authors, categories = build_speed.site_settings()
    sites, times = {}, {(side, mode): [] for side in sides for mode in modes}
    try:
        for side, repo in sides.items():
            build_speed.REPO = repo  # the site copied and the kb on PYTHONPATH
            sites[side] = build_speed.make_site("ours", root / side, args.posts, authors,
                                                categories, 0)  # fmt: skip
            print(f"[{side}] clean builds …", flush=True)
            build_speed.run_build(sites[side])
            build_speed.run_build(sites[side])
        rounds = together_rounds if args.together else alternating_rounds
        rounds(sides, sites, modes, args.rounds, times)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\nN={args.posts}, {args.rounds} rounds; median wall, median CPU (CPU min–max)\n")
    print("| build | before | after | after − before, CPU (median of pairs) |")
    print("| --- | --- | --- | --- |")
    for mode in modes:
        cells = []
        for side in sides:
            runs = times[side, mode]
            cpu = [run.cpu for run in runs]
            wall = statistics.median(run.seconds for run in runs)
            cells.append(
                f"{wall:.2f} s, {statistics.median(cpu):.2f} s ({min(cpu):.2f}–{max(cpu):.2f})"
            )
        pairs = zip(times["before", mode], times["after", mode], strict=True)
        diff = statistics.median(after.cpu - before.cpu for before, after in pairs)
        print(f"| {mode} | {cells[0]} | {cells[1]} | {diff:+.3f} s |")
    return 0


def run_mode(site, mode: str, env=None) -> build_speed.Run:
    """One timed build of ``mode``, after the change it times."""
    build_speed.prepare(site, mode)
    preview = mode.endswith("preview")
    run = build_speed.run_build(
        site, options=build_speed.PREVIEW_OPTIONS if preview else (), env=env
    )
    assert run.warnings == 0
    if preview:
        build_speed.wait_for_background_search(site.html)
    return run


def alternating_rounds(sides, sites, modes, count, times) -> None:
    """One side's builds, then the other's; which side goes first alternates."""
    for number in range(count):
        order = list(sides) if number % 2 == 0 else list(reversed(sides))
        for side in order:
            build_speed.REPO = sides[side]
            for mode in modes:
                times[side, mode].append(run_mode(sites[side], mode))
        print(f"round {number + 1}/{count} done", flush=True)


def together_rounds(sides, sites, modes, count, times) -> None:
    """Both sides' builds of each mode started at the same moment."""
    envs = {}
    for side, repo in sides.items():
        build_speed.REPO = repo
        envs[side] = build_speed.build_env()
    with ThreadPoolExecutor(len(sides)) as pool:
        for number in range(count):
            for mode in modes:
                started = {
                    side: pool.submit(run_mode, sites[side], mode, envs[side]) for side in sides
                }
                for side, future in started.items():
                    times[side, mode].append(future.result())
            print(f"round {number + 1}/{count} done", flush=True)


if __name__ == "__main__":
    sys.exit(main())
