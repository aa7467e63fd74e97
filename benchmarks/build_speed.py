"""Build-speed benchmark: our site against stock ablog + furo on the same synthetic corpus.

Generates N realistic posts (see ``corpus.py``) into a temporary copy of the site and into a
stock ablog + furo site (``stock/``), then times, each as its own ``python -m sphinx``
process: clean builds, no-change rebuilds, a one-sentence edit of one post, and one post
added. Reports medians with min–max, peak memory of the build process, output size, the
HTML size of one post page, and our/stock ratios, and checks the targets of the issue.

    python benchmarks/build_speed.py                 # N=1000, both sites (about 15 min on 2 cores)
    python benchmarks/build_speed.py --quick         # N=200, for trying things
    python benchmarks/build_speed.py --scaling       # clean builds of both at 200, 1000, 2000 + SVG
    python benchmarks/build_speed.py --profile       # cProfile our no-change rebuild and edit

Our site is built with the ``kb`` package from this checkout (``src/`` first on PYTHONPATH).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import pstats
import runpy
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpus  # noqa: E402
from bundlesearch import pages_with  # noqa: E402
from speedchart import scaling_svg  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
STOCK = Path(__file__).resolve().parent / "stock"
#: What a copy of the site leaves out: tooling, the real posts (the corpus replaces them).
NOT_SITE = {
    ".git",
    ".venv",
    "_build",
    "src",
    "tests",
    "benchmarks",
    "posts",
    "node_modules",
    ".ci",
    ".github",
}
MODES = ("clean", "no-change", "edit", "add")
# The edit again with the search index in one Pagefind run (no shards): what shards save.
UNSHARDED_MODE = "edit-unsharded"
UNSHARDED_OPTIONS = ["-D", "kb_search_shard_size=0"]
# The same changes built as `kb serve` builds them: the search index is written by a
# background process after the build returns (kb_search_defer); we wait for it between runs.
PREVIEW_MODES = ("edit-preview", "add-preview")
PREVIEW_OPTIONS = ["-D", "kb_search_defer=1"]

#: The targets of issue 16 at 1000 posts on the 2-core reference machine, through a plain
#: sphinx-build that returns with the search index holding the change.
TARGETS = {
    "clean_ratio": 0.4,  # our clean build / stock clean build
    "no-change": 1.0,  # seconds
    "edit": 1.5,  # seconds
    "add": 2.0,  # seconds
    "page_kb": 40.0,  # one post page's HTML, any N
    "scaling_ratio": 1.3,  # ms/post at the largest N over ms/post at 1000 (or the smallest)
    "memory_mb": 2048.0,  # peak memory of any build, at the largest N
}


@dataclass
class Run:
    seconds: float  # wall clock
    cpu: float  # user + system time of the build process: steadier on a busy machine
    peak_mb: float
    warnings: int


@dataclass
class SiteResult:
    name: str
    posts: int
    runs: dict[str, list[Run]] = field(default_factory=dict)
    output_mb: float = 0.0
    doctrees_mb: float = 0.0
    post_page_kb: float = 0.0
    pagefind_mb: float | None = None
    #: Edits after which a search of the bundle found the edit's new word in the edited post,
    #: checked as the build returned; and edits checked.
    search_found: int = 0
    search_checked: int = 0

    def seconds(self, mode: str) -> list[float]:
        return [r.seconds for r in self.runs.get(mode, [])]

    def cpu(self, mode: str) -> list[float]:
        return [r.cpu for r in self.runs.get(mode, [])]

    def median(self, mode: str) -> float | None:
        values = self.seconds(mode)
        return statistics.median(values) if values else None

    def median_cpu(self, mode: str) -> float | None:
        values = self.cpu(mode)
        return statistics.median(values) if values else None

    def peak_mb(self) -> float:
        return max((r.peak_mb for runs in self.runs.values() for r in runs), default=0.0)


# -- Sites ------------------------------------------------------------------------------------


def site_settings() -> tuple[list[str], list[str]]:
    """Author keys and categories of the real site, so the corpus uses valid ones."""
    namespace = runpy.run_path(str(REPO / "conf.py"))
    authors = list(namespace.get("blog_authors") or {"ada": ("Ada", None)})
    categories = list(namespace.get("kb_categories") or ["Article", "Benchmarks"])
    return authors, categories


def copy_our_site(dest: Path) -> None:
    def ignore(folder: str, names: list[str]) -> set[str]:
        if Path(folder).resolve() != REPO:
            return {n for n in names if n in ("__pycache__", ".pytest_cache")}
        return {n for n in names if n in NOT_SITE or n.startswith(".") or n.endswith(".egg-info")}

    shutil.copytree(REPO, dest, ignore=ignore)


def copy_stock_site(dest: Path) -> None:
    shutil.copytree(STOCK, dest, ignore=shutil.ignore_patterns("__pycache__"))


@dataclass
class Site:
    name: str
    src: Path
    out: Path
    posts: list[Path]
    authors: list[str]
    categories: list[str]
    added: int = 0
    edits: int = 0

    @property
    def html(self) -> Path:
        return self.out / "html"

    @property
    def doctrees(self) -> Path:
        return self.out / "doctrees"


def make_site(name: str, root: Path, n: int, authors, categories, seed: int) -> Site:
    src = root / name / "src"
    (copy_our_site if name == "ours" else copy_stock_site)(src)
    posts = corpus.write_corpus(src, n, authors, categories, seed)
    return Site(name, src, root / name / "out", posts, authors, categories)


# -- Building ---------------------------------------------------------------------------------


#: Where the builds keep compiled bytecode (one folder for every checkout: it mirrors each
#: source file's full path), across runs of the benchmarks.
BYTECODE_CACHE = Path(tempfile.gettempdir()) / "kb-bench-pycache"


def build_env(repo: Path | None = None) -> dict[str, str]:
    """The builds' environment: ``kb`` imported from ``repo``'s ``src/`` (this checkout's, or
    ``REPO`` as a pairing script set it), ahead of any installed copy; each module compiled
    once and its bytecode kept (:data:`BYTECODE_CACHE`), as an installed environment has it.
    Where the machine says ``PYTHONDONTWRITEBYTECODE=1`` every build compiled every module
    it imports from source again: 1.4 s of a 3 s edit at 1000 posts, and more of ours than
    of bare Sphinx's, which imports fewer."""
    env = dict(os.environ)
    src = str((repo or REPO) / "src")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    env["TZ"] = "UTC"
    env.setdefault("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01: reproducible stamps
    env["PYTHONDONTWRITEBYTECODE"] = ""
    env["PYTHONPYCACHEPREFIX"] = str(BYTECODE_CACHE)
    return env


def sphinx_command(site: Site, profile: Path | None = None, options=()) -> list[str]:
    command = [sys.executable]
    if profile is not None:
        command += ["-m", "cProfile", "-o", str(profile)]
    return command + [
        "-m",
        "sphinx",
        "-b",
        "html",
        "-q",
        str(site.src),
        str(site.html),
        "-d",
        str(site.doctrees),
        *options,
    ]


def run_build(site: Site, profile: Path | None = None, options=(), env=None) -> Run:
    """One build as a child process: wall time, its peak resident memory, warning count.
    ``env``: the child's environment (by default :func:`build_env`, with ``REPO``'s kb)."""
    log = site.out.parent / "build.log"
    site.out.mkdir(parents=True, exist_ok=True)
    with log.open("w") as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(
            sphinx_command(site, profile, options),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=env or build_env(),
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text(errors="replace")
    if process.returncode != 0:
        raise SystemExit(
            f"{site.name}: sphinx-build failed ({process.returncode}):\n{text[-3000:]}"
        )
    warnings = sum(1 for line in text.splitlines() if "WARNING" in line or "ERROR" in line)
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    scale = 1 if platform.system() == "Darwin" else 1024
    cpu = usage.ru_utime + usage.ru_stime
    return Run(seconds, cpu, usage.ru_maxrss * scale / 2**20, warnings)


def prepare(site: Site, mode: str) -> str | None:
    """Make the change that ``mode`` times; an edit's new word."""
    if mode == "clean":
        shutil.rmtree(site.out, ignore_errors=True)
    elif mode in ("edit", "edit-preview", UNSHARDED_MODE):
        site.edits += 1
        return corpus.edit_post(site.posts[len(site.posts) // 2], site.edits)
    elif mode == "rewrite":  # an edit that changes the post's frequent words (corpus.py)
        site.edits += 1
        return corpus.rewrite_post(site.posts[len(site.posts) // 2], 100_000 + site.edits)
    elif mode in ("add", "add-preview"):
        site.added += 1
        site.posts.append(corpus.add_post(site.src, site.added, site.authors, site.categories))
    return None


def search_finds_edit(site: Site, word: str) -> bool:
    """Does a search of the built bundle, now, find ``word`` in the edited post (and only there)?"""
    url = "/" + post_page(site).relative_to(site.html).as_posix()
    return pages_with(site.html / "pagefind", word) == {url}


def tree_mb(path: Path) -> float:
    if not path.exists():
        return 0.0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def post_page(site: Site) -> Path:
    relpath = site.posts[len(site.posts) // 2].relative_to(site.src).with_suffix(".html")
    return site.html / relpath


def measure_site(site: Site, repeats: dict[str, int], log, extra: bool = True) -> SiteResult:
    """Each mode of MODES; for our site and with ``extra``, the edit with the index in one
    run and the kb serve modes too."""
    result = SiteResult(site.name, len(site.posts))
    extra = extra and site.name == "ours"
    modes = [*MODES, UNSHARDED_MODE] if extra else MODES
    for mode in modes:
        options = UNSHARDED_OPTIONS if mode == UNSHARDED_MODE else ()
        if mode == UNSHARDED_MODE:
            log(f"[{site.name}] the index in one run: a first build to switch, not timed")
            run_build(site, options=options)
        for number in range(1, repeats.get(mode, repeats["edit"]) + 1):
            word = prepare(site, mode)
            log(f"[{site.name}] {mode} {number} …")
            run = run_build(site, options=options)
            result.runs.setdefault(mode, []).append(run)
            found = ""
            if word and site.name == "ours":
                result.search_checked += 1
                if search_finds_edit(site, word):
                    result.search_found += 1
                    found = f"; search finds {word!r} in the post"
                else:
                    found = f"; search does NOT find {word!r} in the post"
            log(
                f"[{site.name}] {mode} {number}: {run.seconds:.2f} s"
                f" ({run.cpu:.2f} s CPU),"
                f" {run.peak_mb:.0f} MB peak, {run.warnings} warnings{found}"
            )
        if mode == "clean":
            result.output_mb = tree_mb(site.html)
            result.doctrees_mb = tree_mb(site.doctrees)
            result.post_page_kb = post_page(site).stat().st_size / 1024
            pagefind = site.html / "pagefind"
            result.pagefind_mb = tree_mb(pagefind) if pagefind.is_dir() else None
    if extra:
        log(f"[{site.name}] back to shards: a build to switch, not timed")
        run_build(site)
        for mode in PREVIEW_MODES:
            for number in range(1, repeats["edit"] + 1):
                prepare(site, mode)
                run = run_build(site, options=PREVIEW_OPTIONS)
                catch_up = wait_for_background_search(site.html)
                result.runs.setdefault(mode, []).append(run)
                log(
                    f"[{site.name}] {mode} {number}/{repeats['edit']}: {run.seconds:.2f} s"
                    f" ({run.cpu:.2f} s CPU); search index caught up {catch_up:.2f} s later"
                )
    return result


def wait_for_background_search(*outputs: Path, limit: float = 120.0) -> float:
    """Seconds until no build or deferred Pagefind run holds the ``outputs`` folders (HTML
    output folders): kb serve's indexer holds their lock until its bundle is in place (it
    runs in a copy of the build's process, which no process name tells apart)."""
    import fcntl

    start = time.perf_counter()
    for output in outputs:
        try:
            folder = os.open(output, os.O_RDONLY)
        except OSError:
            continue  # not built yet: nothing holds it
        try:
            while True:
                try:
                    fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.perf_counter() - start > limit:
                        break
                    time.sleep(0.02)
        finally:
            os.close(folder)  # and with it the lock, at once: the next build takes it
    return time.perf_counter() - start


# -- Reporting --------------------------------------------------------------------------------


def spread(values: list[float]) -> str:
    if not values:
        return "–"
    median = statistics.median(values)
    if len(values) == 1:
        return f"{median:.2f} s"
    return f"{median:.2f} s ({min(values):.2f}–{max(values):.2f})"


def ratio(ours: float | None, stock: float | None) -> str:
    return f"{ours / stock:.2f}×" if ours and stock else "–"


def table(results: list[SiteResult]) -> str:
    by_name = {r.name: r for r in results}
    ours, stock = by_name.get("ours"), by_name.get("stock")
    head = ["measure"] + [f"{r.name} (N={r.posts})" for r in results]
    if ours and stock:
        head.append("ours/stock")
    rows = [head, ["---"] * len(head)]
    labels = {
        "clean": "clean build",
        "no-change": "no-change rebuild",
        "edit": "one-post edit",
        "add": "one post added",
        UNSHARDED_MODE: "one-post edit, search index in one Pagefind run (shards off)",
        "edit-preview": "one-post edit, as `kb serve` builds (search indexed after)",
        "add-preview": "one post added, as `kb serve` builds (search indexed after)",
    }
    for mode in (*MODES, UNSHARDED_MODE, *PREVIEW_MODES):
        row = [labels[mode]] + [spread(r.seconds(mode)) for r in results]
        if ours and stock:
            row.append(ratio(ours.median(mode), stock.median(mode)))
        rows.append(row)
        row = [f"{labels[mode]}, CPU time"] + [spread(r.cpu(mode)) for r in results]
        if ours and stock:
            row.append(ratio(ours.median_cpu(mode), stock.median_cpu(mode)))
        rows.append(row)
    extra = [
        ("peak memory", lambda r: f"{r.peak_mb():.0f} MB", lambda a, b: a.peak_mb() / b.peak_mb()),
        ("output size", lambda r: f"{r.output_mb:.1f} MB", lambda a, b: a.output_mb / b.output_mb),
        (
            "doctrees + env",
            lambda r: f"{r.doctrees_mb:.1f} MB",
            lambda a, b: a.doctrees_mb / b.doctrees_mb,
        ),
        (
            "one post page",
            lambda r: f"{r.post_page_kb:.1f} KB",
            lambda a, b: a.post_page_kb / b.post_page_kb,
        ),
    ]
    for label, show, compare in extra:
        row = [label] + [show(r) for r in results]
        if ours and stock:
            row.append(f"{compare(ours, stock):.2f}×")
        rows.append(row)
    if any(r.pagefind_mb is not None for r in results):
        row = ["pagefind index (in build time)"]
        row += [f"{r.pagefind_mb:.1f} MB" if r.pagefind_mb is not None else "none" for r in results]
        rows.append(row + ([""] if ours and stock else []))
    warnings = ["warnings per build"] + [
        str(max((run.warnings for runs in r.runs.values() for run in runs), default=0))
        for r in results
    ]
    rows.append(warnings + ([""] if ours and stock else []))
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def check_targets(ours: SiteResult, stock: SiteResult | None) -> list[str]:
    lines = []

    def verdict(name: str, value: float | None, limit: float, unit: str = "") -> None:
        if value is None:
            return
        mark = "met" if value <= limit else "MISSED"
        lines.append(f"- {name}: {value:.2f}{unit} (target ≤ {limit}{unit}) — {mark}")

    for clock, median in (("wall", SiteResult.median), ("CPU", SiteResult.median_cpu)):
        if stock:
            ratio_ = _div(median(ours, "clean"), median(stock, "clean"))
            verdict(f"clean build / stock ({clock})", ratio_, TARGETS["clean_ratio"], "×")
        for mode, name in (
            ("no-change", "no-change rebuild"),
            ("edit", "one-post edit"),
            ("add", "one post added"),
        ):
            verdict(f"{name} ({clock})", median(ours, mode), TARGETS[mode], " s")
        verdict(
            f"one-post edit as kb serve builds it ({clock})",
            median(ours, "edit-preview"),
            TARGETS["edit"],
            " s",
        )
    verdict("post page HTML", ours.post_page_kb, TARGETS["page_kb"], " KB")
    if ours.search_checked:
        all_found = ours.search_found == ours.search_checked
        lines.append(
            f"- a search of the bundle, as each edit's build returned, found the edit's new word"
            f" in the edited post: {ours.search_found} of {ours.search_checked} edits"
            f" — {'met' if all_found else 'MISSED'}"
        )
    return lines


def _div(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


# -- Modes ------------------------------------------------------------------------------------


def compare(args, root: Path, log) -> tuple[str, dict]:
    sites = ["ours", "stock"] if args.sites == "both" else [args.sites]
    repeats = {"clean": args.clean_repeats, "no-change": args.repeats, "edit": args.repeats}
    repeats["add"] = args.repeats
    results = []
    for name in sites:
        log(f"[{name}] writing {args.posts} posts …")
        site = make_site(name, root, args.posts, *args.site_settings, args.seed)
        results.append(measure_site(site, repeats, log, extra=not args.core_modes))
    by_name = {r.name: r for r in results}
    report = [table(results), ""]
    if "ours" in by_name:
        report += ["Targets (at 1000 posts on the 2-core reference machine):"]
        report += check_targets(by_name["ours"], by_name.get("stock"))
    return "\n".join(report), {r.name: asdict(r) for r in results}


def scaling(args, root: Path, log) -> tuple[str, dict]:
    """Clean builds of both sites at each N: seconds, ms per post, peak memory, page size; and
    the chart of seconds against N (``--chart``)."""
    sites = ["ours", "stock"] if args.sites == "both" else [args.sites]
    rows = [
        "| site | posts | clean build | CPU time | ms per post | CPU ms per post | peak memory"
        " | one post page |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    per_post: dict[str, dict[int, float]] = {name: {} for name in sites}
    medians: dict[str, dict[int, float]] = {name: {} for name in sites}
    peaks: dict[str, dict[int, float]] = {name: {} for name in sites}
    data: dict[str, dict] = {name: {} for name in sites}
    for n in args.scaling_posts:
        for name in sites:
            log(f"[{name}] writing {n} posts …")
            site = make_site(name, root / f"n{n}", n, *args.site_settings, args.seed)
            result = SiteResult(name, n)
            for number in range(1, args.clean_repeats + 1):
                prepare(site, "clean")
                run = run_build(site)
                result.runs.setdefault("clean", []).append(run)
                log(
                    f"[{name}, N={n}] clean {number}/{args.clean_repeats}: {run.seconds:.2f} s"
                    f" ({run.cpu:.2f} s CPU), {run.peak_mb:.0f} MB peak"
                )
            result.post_page_kb = post_page(site).stat().st_size / 1024
            medians[name][n] = result.median("clean")
            per_post[name][n] = 1000 * result.median("clean") / n
            peaks[name][n] = result.peak_mb()
            rows.append(
                f"| {name} | {n} | {spread(result.seconds('clean'))} |"
                f" {spread(result.cpu('clean'))} | {per_post[name][n]:.1f} |"
                f" {1000 * result.median_cpu('clean') / n:.1f} |"
                f" {result.peak_mb():.0f} MB | {result.post_page_kb:.1f} KB |"
            )
            data[name][n] = asdict(result)
            shutil.rmtree(root / f"n{n}", ignore_errors=True)
    lines = ["\n".join(rows), ""]
    if "ours" in sites and "stock" in sites:
        for n in args.scaling_posts:
            lines.append(
                f"- N={n}: ours / stock clean build {medians['ours'][n] / medians['stock'][n]:.2f}×"
            )
    for name in sites:
        values = per_post[name]
        large = max(values)
        base = 1000 if 1000 in values and large != 1000 else min(values)
        if base != large:
            value = values[large] / values[base]
            mark = "met" if value <= TARGETS["scaling_ratio"] else "MISSED"
            extra = f" (target ≤ {TARGETS['scaling_ratio']}×) — {mark}" if name == "ours" else ""
            lines.append(f"- {name}: ms per post at {large} / at {base}: {value:.2f}×{extra}")
        peak = peaks[name][large]
        if name == "ours":
            mark = "met" if peak <= TARGETS["memory_mb"] else "MISSED"
            lines.append(
                f"- ours: peak memory of a clean build at {large} posts: {peak:.0f} MB"
                f" (target ≤ {TARGETS['memory_mb']:.0f} MB at 10,000) — {mark}"
            )
    if args.chart:
        title = f"Clean build time against posts ({os.cpu_count()} cores)"
        Path(args.chart).write_text(scaling_svg(medians, title), encoding="utf-8")
        lines.append(f"\nChart: {args.chart}")
    return "\n".join(lines), data


def profile(args, root: Path, log) -> tuple[str, dict]:
    site = make_site("ours", root, args.posts, *args.site_settings, args.seed)
    log(f"[ours] clean build of {args.posts} posts before profiling …")
    run_build(site)
    out = Path(args.profile_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for mode in args.profile_modes:
        prepare(site, mode)
        path = out / f"{mode}-{args.posts}.prof"
        log(f"[ours] profiling {mode} → {path}")
        run = run_build(site, profile=path)
        lines.append(f"## {mode} at {args.posts} posts: {run.seconds:.2f} s under cProfile\n")
        lines.append("```")
        lines.append(_top(path, "cumulative", args.top))
        lines.append(_top(path, "tottime", args.top))
        lines.append("```")
    return "\n".join(lines), {}


def _top(path: Path, key: str, count: int) -> str:
    import io

    stream = io.StringIO()
    stats = pstats.Stats(str(path), stream=stream)
    stats.strip_dirs().sort_stats(key).print_stats(count)
    text = stream.getvalue()
    return text[text.find("   ncalls") :].rstrip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--posts", "-n", type=int, default=1000, help="posts in the corpus (1000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each incremental mode (3)")
    parser.add_argument("--clean-repeats", type=int, default=2, help="clean builds per site (2)")
    parser.add_argument("--quick", action="store_true", help="N=200, 2 repeats, 1 clean build")
    parser.add_argument(
        "--core-modes",
        action="store_true",
        help="only clean, no-change, edit and add (no one-run index, no kb serve modes): large N",
    )
    parser.add_argument("--sites", choices=("both", "ours", "stock"), default="both")
    parser.add_argument(
        "--scaling", action="store_true", help="clean builds of both sites at several N, charted"
    )
    parser.add_argument("--scaling-posts", type=int, nargs="+", default=[200, 1000, 2000])
    parser.add_argument(
        "--chart",
        default=str(Path(__file__).parent / "build_speed_scaling.svg"),
        help="where --scaling draws its SVG chart ('' for none)",
    )
    parser.add_argument(
        "--profile", action="store_true", help="cProfile our no-change and edit builds"
    )
    parser.add_argument(
        "--profile-modes", nargs="+", choices=MODES, default=["no-change", "edit", "add"]
    )
    parser.add_argument("--profile-dir", default="_build/profiles", help="where .prof files go")
    parser.add_argument("--top", type=int, default=30, help="functions shown per profile")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the temporary sites")
    parser.add_argument("--json", help="also write the raw figures to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.posts, args.repeats, args.clean_repeats = 200, 2, 1

    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.0f} s] {message}", flush=True)

    args.site_settings = site_settings()
    root = Path(tempfile.mkdtemp(prefix="kb-bench-"))
    log(f"sites under {root}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    try:
        mode = scaling if args.scaling else profile if args.profile else compare
        report, data = mode(args, root, log)
    finally:
        if args.keep:
            log(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    command = "python benchmarks/build_speed.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    print(
        f"\n`{command.strip()}` — {os.cpu_count()} CPUs, Python {platform.python_version()},"
        f" {time.perf_counter() - started:.0f} s in all\n"
    )
    print(report)
    print(
        f"\nLoad average at the end: {os.getloadavg()[0]:.2f} (wall times grow with it; CPU times"
        " much less)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
