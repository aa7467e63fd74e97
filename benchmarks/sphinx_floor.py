"""The floor under any Sphinx site: the same corpus built by Sphinx and MyST alone, and with furo.

``build_speed.py`` compares our site with stock ablog + furo, which rewrites every page on every
build. This script asks another question: how fast can *any* Sphinx site of N posts rebuild,
whatever its extensions do? It writes the ``corpus.py`` posts into three sites and builds each
with ``python -m sphinx -b html``, as ``make html`` does:

* ``ours``: this checkout's site (MyST, ablog, furo, kb and the rest of ``conf.py``);
* ``furo``: Sphinx, MyST-Parser and furo, nothing else: the stack the product is built on;
* ``bare``: Sphinx and MyST-Parser with the ``basic`` theme, no sidebars, no general index and
  no search index (Sphinx rewrites its own on every build; kb replaces it with Pagefind's).

The floor sites have no blog: no listings, feeds, related posts, checks or search bundle. Posts
are orphans (no toctree lists them), so an edit or a new post makes Sphinx write one page.
Each round times a no-change rebuild, a one-sentence edit of one post and one post added in
every site, the sites taking turns, and the report gives medians and ours against each floor,
pair by pair. ``--sites ... stock`` adds stock ablog + furo's clean build (only that: it
rewrites every page on every build, which ``build_speed.py`` measures).

    python benchmarks/sphinx_floor.py --posts 1000 --rounds 5
    python benchmarks/sphinx_floor.py --posts 1000 --sites ours stock furo bare
    python benchmarks/sphinx_floor.py --posts 1000 --sites ours bare --warm

``--warm`` also times one-post edits as ``kb serve`` builds them: each in a child forked from
one process that imported everything once (``kb.cli.buildworker``), the sites taking turns.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import build_speed  # noqa: E402
import corpus  # noqa: E402

#: ``rewrite``: an edit that changes the post's frequent words (a paragraph added), which makes
#: kb compute the related lists again; ``edit`` changes one sentence whose words stay the same
#: from one round to the next.
MODES = ("no-change", "edit", "rewrite", "add")
#: A one-post edit as ``kb serve`` builds it (``--warm``): in a child of a warm worker.
WARM = "edit, warm worker"
# Sphinx has no setting for it; kb turns its search off the same way (kb.search.marking).
NO_SEARCH = """
def setup(app):
    app.connect("builder-inited", lambda app: setattr(app.builder, "search", False))
"""
FLOORS = {
    "furo": 'html_theme = "furo"\n',
    "bare": 'html_theme = "basic"\nhtml_sidebars = {"**": []}\n' + NO_SEARCH,
}
FLOOR_CONF = """\
project = "Floor"
extensions = ["myst_parser"]
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "deflist", "attrs_inline"]
html_use_index = False
# The posts are orphans, as blog posts are (no toctree lists them).
suppress_warnings = ["toc.not_included"]
"""


def make_floor_site(name: str, root: Path, n: int, seed: int) -> build_speed.Site:
    src = root / name / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(FLOOR_CONF + FLOORS[name], encoding="utf-8")
    (src / "index.md").write_text("# Floor\n\nThe posts are under `posts/`.\n", encoding="utf-8")
    authors, categories = ["ada"], ["Article", "Benchmarks"]
    posts = corpus.write_corpus(src, n, authors, categories, seed)
    return build_speed.Site(name, src, root / name / "out", posts, authors, categories)


def make_any_site(name: str, root: Path, n: int, seed: int) -> build_speed.Site:
    if name in FLOORS:
        return make_floor_site(name, root, n, seed)
    authors, categories = build_speed.site_settings()
    return build_speed.make_site(name, root, n, authors, categories, seed)


def measure(sites: list[build_speed.Site], rounds: int, log) -> dict:
    """{"wall"|"cpu": {mode: {site: [seconds, one per round]}}}: each incremental mode in every
    site that has one (not stock, which rewrites every page on every build)."""
    figures: dict = {kind: {mode: {} for mode in MODES} for kind in ("wall", "cpu")}
    for number in range(1, rounds + 1):
        for mode in MODES:
            for site in sites:
                if site.name == "stock":
                    continue
                build_speed.prepare(site, mode)
                run = build_speed.run_build(site)
                figures["wall"][mode].setdefault(site.name, []).append(run.seconds)
                figures["cpu"][mode].setdefault(site.name, []).append(run.cpu)
                log(f"round {number}, {mode}, {site.name}: {run.seconds:.2f} s")
    return figures


def measure_warm(sites: list[build_speed.Site], rounds: int, log) -> dict:
    """{site: [seconds]}: a one-post edit built as ``kb serve`` builds it, in a child forked
    from this process once it has imported what every site's build imports
    (:mod:`kb.cli.buildworker`, the worker kb serve runs). Only the build is timed, not the
    file watcher or the browser's reload. The first round imports what builds import lazily
    and is not counted."""
    sys.path.insert(0, str(build_speed.REPO / "src"))
    from kb.cli import buildworker

    os.environ.update(build_speed.build_env())  # the children's time stamps and time zone
    built = [site for site in sites if site.name != "stock"]
    for site in built:
        buildworker.warm_up(site.src)
    gc.collect()
    gc.freeze()
    times: dict = {site.name: [] for site in built}
    for number in range(rounds + 1):
        for site in built:
            build_speed.prepare(site, "edit")
            # kb serve's own option: the search index follows the build (a deferred run).
            deferred = ["-D", "kb_search_defer=1"] if site.name == "ours" else []
            arguments = ["-b", "html", "-q", str(site.src), str(site.html)]
            start = time.perf_counter()
            status, modules = buildworker.build_in_child(
                [*arguments, "-d", str(site.doctrees), *deferred]
            )
            seconds = time.perf_counter() - start
            if status != 0:
                raise SystemExit(f"{site.name}: the warm build failed ({status})")
            build_speed.wait_for_background_search(site.html)
            if buildworker.import_what_builds_import(modules):
                gc.collect()
                gc.freeze()
            if number:
                times[site.name].append(seconds)
            log(f"warm round {number}, edit, {site.name}: {seconds:.2f} s")
    return times


def paired_ratio(ours: list[float], other: list[float]) -> str:
    if not ours or len(ours) != len(other):
        return "–"
    ratios = [a / b for a, b in zip(ours, other, strict=True)]
    if len(ratios) == 1:
        return f"{ratios[0]:.2f}×"
    return f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f})"


def report(figures: dict, names: list[str], posts: int) -> str:
    others = [name for name in names if name != "ours"]
    lines = [
        f"N={posts}; medians of each site's rounds (min–max); ratios taken round by round;"
        " the clean build once per site",
        "",
        "| build | " + " | ".join(names) + " | " + " | ".join(f"ours / {o}" for o in others) + " |",
        "| --- " * (1 + len(names) + len(others)) + "|",
    ]
    for kind in ("wall", "cpu"):
        for mode in ("clean", *MODES, WARM):
            runs = figures[kind].get(mode, {})
            if mode == WARM and not runs:
                continue  # not asked for (--warm), or no CPU time: forked children go uncounted
            cells = [build_speed.spread(runs.get(name, [])) for name in names]
            ratios = [paired_ratio(runs.get("ours", []), runs.get(o, [])) for o in others]
            label = mode if kind == "wall" else f"{mode}, CPU"
            lines.append(f"| {label} | " + " | ".join(cells + ratios) + " |")
    stock = figures["wall"].get("clean", {}).get("stock")
    if stock:
        against = [
            f"{name} {runs[0] / stock[0]:.2f}×"
            for name, runs in figures["wall"]["clean"].items()
            if name != "stock"
        ]
        lines += ["", "Clean build against stock's: " + ", ".join(against) + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", "-n", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--sites",
        nargs="+",
        default=["ours", "furo", "bare"],
        choices=["ours", "stock", *FLOORS],
        help="ours, furo, bare (default); stock: ablog + furo, clean build only",
    )
    parser.add_argument(
        "--warm", action="store_true", help="also time edits as kb serve builds them (forked)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the raw figures to this file")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="kb-floor-") as tmp:
        root = Path(tmp)
        sites = [make_any_site(name, root, args.posts, args.seed) for name in args.sites]
        clean = {site.name: build_speed.run_build(site) for site in sites}
        for name, run in clean.items():
            log(f"{name}: clean build {run.seconds:.1f} s, {run.peak_mb:.0f} MB")
        figures = measure(sites, args.rounds, log)
        figures["wall"]["clean"] = {name: [run.seconds] for name, run in clean.items()}
        figures["cpu"]["clean"] = {name: [run.cpu] for name, run in clean.items()}
        if args.warm:
            figures["wall"][WARM] = measure_warm(sites, args.rounds, log)
    print(report(figures, args.sites, args.posts))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
