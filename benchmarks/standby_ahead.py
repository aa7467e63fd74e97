"""What ``kb serve``'s standby makes ahead, step by step, and its drafts scan.

On a site that ``kb serve`` built (for example a copy kept by ``serve_speed.py --keep``,
``site-warm``), each round forks two standbys from one warm process, as ``kb serve``'s worker
does, and times, interleaved (medians, min-max):

* each step of the work ahead (:func:`kb.cli.buildworker.ahead_steps`), run with the cycle
  collector on, as before ``paused_while_working_ahead``, and as the standby runs them now,
  with it paused (and the number of full collections each made);
* the drafts scan (:func:`kb.core.drafts.draft_sources`) of a process that has read no post's
  day, and of one that has learnt the days a build read (:func:`kb.core.drafts.learn_days`,
  as the worker hands them on).

    python benchmarks/standby_ahead.py SITE --runs 5
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_speed import spread  # noqa: E402

SRC = Path(__file__).resolve().parent.parent / "src"


def _summary(label: str, times: list[float]) -> str:
    return f"{label}: {spread(times)}"


def _in_child(work) -> dict:
    """``work()`` in a forked copy of this process; what it returns (JSON)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        with os.fdopen(write, "w") as out:
            json.dump(work(), out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as got:
        result = json.load(got)
    os.waitpid(pid, 0)
    return result


def _step_names(steps) -> list[str]:
    """Each step's function (a guarded one's, inside it)."""
    names = []
    for step in steps:
        inner = [
            cell.cell_contents for cell in step.__closure__ or () if callable(cell.cell_contents)
        ]
        function = inner[0] if inner else step
        names.append(f"{function.__module__.rsplit('.', 1)[-1]}.{function.__name__}")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(SRC))
    from kb.cli import buildworker
    from kb.cli.serve import sphinx_arguments
    from kb.core import drafts
    from kb.core.output import release
    from kb.core.state import build_state
    from kb.upstream.sphinx_build import PreparedBuild

    site = args.site.resolve()
    arguments = ["-q", *sphinx_arguments(site)]
    buildworker.warm_up(site)
    gc.collect()
    gc.freeze()

    def steps(collector: str) -> dict:
        prepared = PreparedBuild(arguments)
        prepared.prepare()
        app = prepared.app
        assert app is not None, "the site's application could not be made"
        release(build_state(app).locks)
        config = app.config
        pattern, date_format = config.blog_post_pattern, config.post_date_format
        if collector == "paused":
            gc.disable()
        full = []
        gc.callbacks.append(
            lambda phase, info: (
                full.append(phase) if info["generation"] == 2 and phase == "start" else None
            )
        )
        times = []
        for step in buildworker.ahead_steps():
            start = time.perf_counter()
            step(app)
            times.append(time.perf_counter() - start)
        return {"steps": times, "full": len(full), "scan": [str(site), pattern, date_format]}

    def scan(learnt: str | None, where: list) -> dict:
        if learnt is not None:
            drafts.learn_days(learnt)
        start = time.perf_counter()
        found = drafts.draft_sources(*where)
        return {
            "seconds": time.perf_counter() - start,
            "drafts": len(found),
            "days": drafts.days_read() if learnt is None else "",
        }

    on: list[list[float]] = []
    paused: list[list[float]] = []
    collections = {"on": [], "paused": []}
    whole, learnt = [], []
    for _ in range(args.runs):
        for collector, into in (("on", on), ("paused", paused)):
            made = _in_child(lambda collector=collector: steps(collector))
            into.append(made["steps"])
            collections[collector].append(made["full"])
        where = made["scan"]
        first = _in_child(lambda where=where: scan(None, where))
        whole.append(first["seconds"])
        days = first["days"]
        again = _in_child(lambda days=days, where=where: scan(days, where))
        learnt.append(again["seconds"])
        assert again["drafts"] == first["drafts"]
    print(f"{args.runs} rounds at {site}")
    for index, name in enumerate(_step_names(buildworker.ahead_steps())):
        print(
            f"  {name}: "
            + _summary("collector on", [run[index] for run in on])
            + "; "
            + _summary("paused", [run[index] for run in paused])
        )
    print(
        "  "
        + _summary("all steps, collector on", [sum(run) for run in on])
        + f"; full collections {collections['on']}"
    )
    print(
        "  "
        + _summary("all steps, paused", [sum(run) for run in paused])
        + f"; full collections {collections['paused']}"
    )
    print(
        "  " + _summary("drafts scan, no day read", whole) + "; " + _summary("days learnt", learnt)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
