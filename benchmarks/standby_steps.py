"""What ``kb serve``'s standby spends before it reads the edited post, step by step.

On a site that ``kb serve`` built (for example a copy kept by ``serve_speed.py --keep``,
``site-warm``), makes the application a standby makes, then times, interleaved, over
``--runs`` rounds (medians, min-max, in ms):

* Sphinx's three questions before it reads (``BuildEnvironment.find_files``,
  ``get_outdated_files``, ``StandaloneHTMLBuilder.get_outdated_docs``) against
  :mod:`kb.upstream.sphinx_read`'s, each pair answering the same question of the same site
  (and the answers compared);
* the check that the application is still current (:func:`kb.incremental.standby.still_current`),
  and its scans of the source folder on their own.

    python benchmarks/standby_steps.py SITE --runs 15
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def timed(step: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    answer = step()
    return time.perf_counter() - start, answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(SRC))
    from kb.cli.serve import sphinx_arguments
    from kb.core.state import build_state
    from kb.incremental.standby import Inputs, source_stamps, state_stamps, still_current
    from kb.upstream import sphinx_read
    from kb.upstream.sphinx_build import PreparedBuild

    prepared = PreparedBuild(["-q", *sphinx_arguments(args.site.resolve())])
    sources = source_stamps(
        prepared.args.sourcedir, prepared.args.outputdir, prepared.args.doctreedir
    )
    prepared.prepare()
    app = prepared.app
    assert app is not None, "the site's application could not be made"
    env, builder = app.env, app.builder
    made_from = Inputs(sources, state_stamps(app))

    def documents() -> tuple:
        project = env.project
        return frozenset(project.docnames), dict(project._docname_to_path)

    steps: dict[str, Callable[[], object]] = {
        "documents found, Sphinx": lambda: (env.find_files(app.config, builder), documents())[1],
        "documents found, kb": lambda: (sphinx_read.find_files(env, builder), documents())[1],
        "documents changed, Sphinx": lambda: env.get_outdated_files(False),
        "documents changed, kb": lambda: sphinx_read.outdated_files(env, False),
        "pages out of date, Sphinx": lambda: set(builder.get_outdated_docs()),
        "pages out of date, kb": lambda: set(sphinx_read.outdated_pages(builder)),
        "standby still current": lambda: still_current(app, made_from),
        "  its scans of the sources, each whole": lambda: [
            scan() == found for scan, found in build_state(app).source_scans.values()
        ],
    }
    for scan_name, (scan, _) in build_state(app).source_scans.items():
        steps[f"    {scan_name}"] = scan
    seconds: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.runs):
        answers = {}
        for name, step in steps.items():
            took, answers[name] = timed(step)
            seconds[name].append(took)
        for question in ("documents found", "documents changed", "pages out of date"):
            assert answers[f"{question}, Sphinx"] == answers[f"{question}, kb"], question
        assert answers["standby still current"] is True
    print(f"`python benchmarks/standby_steps.py SITE --runs {args.runs}`")
    print(f"{len(env.found_docs)} documents; medians of {args.runs} interleaved runs (min-max)\n")
    print("| step | ms |\n| --- | --- |")
    for name, values in seconds.items():
        ms = [value * 1000 for value in values]
        print(f"| {name} | {statistics.median(ms):.1f} ({min(ms):.1f}-{max(ms):.1f}) |")
    prepared.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
