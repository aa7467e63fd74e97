"""From saving a post to the reloaded page and the search, under ``kb serve``, in each mode.

Generates N posts (``corpus.py``), builds them once, then for each mode starts ``kb serve`` on
the site (``warm``: the default, rebuilds forked from a worker that imported everything once,
which makes the next build's application while the author reads the page; ``unprepared``:
``kb serve --unprepared``, forked from the worker with no application made ahead; ``cold``:
``kb serve --cold``, a new ``python -m sphinx`` per change, as sphinx-autobuild runs),
listens on the reload socket as the browser does, and times each change (an edit of one
post's body, a new post, the deletion of that post):

* **save → reload**: from writing the file until the server tells the browser to reload;
* **save → page**: until the page, fetched as the reloading browser fetches it, shows the
  change (the edit's new word; the new post; a 404 for the deleted one);
* **save → search**: until a search of the served Pagefind bundle finds the new word on that
  page alone (or, after the delete, nowhere). The search index follows the build in the
  background.

Before each change it waits for the search index of the previous one and for every server to
be idle (its next build's application made: the others' would otherwise take this change's
processors, and this one's is what the author's save is built with; how long it took after
the search is reported), then ``--pause`` seconds (the author reading). Medians of ``--edits``
rounds, the modes taking turns (warm, unprepared, cold, warm, ...) so that a change in the
machine's load hits all of them alike; each ratio is paired by round.

    python benchmarks/serve_speed.py --posts 1000 --edits 5

``--before DIR`` adds a server of another checkout's ``kb``, warm (mode ``before``), taking its
turn with the others: a before-and-after pair measured in one run. As with
``paired_speed.py``, a checkout is a plain copy of the tree, and each server imports ``kb``
from its checkout's ``src/`` (``build_speed.build_env``), ahead of the one installed in this
environment; ``--after`` (this checkout by default) is the ``kb`` the other modes run. The
site itself (``conf.py``, templates) is this checkout's, for both.

    git archive <commit> | tar -x -C /tmp/kb-before
    python benchmarks/serve_speed.py --posts 1000 --modes warm --before /tmp/kb-before

An author who saves often: ``--turn N`` makes N saves of each change in a row; with ``--pace S``
the second and later come S seconds after the last one's search found it, with
``--interval S`` S seconds after the save before it, whatever the server is doing (their
searches are not waited for: the next save comes first). Each turn also reports the
**processor time a save costs** the whole machine (every process's, kb serve's builds, the
environment's writer, the search indexer and Pagefind, this script's own reading): busy time
in ``/proc/stat`` (``busy_cpu.busy_seconds``) from the turn's first save until the server is
quiet again, less what the machine used in the same time before the turn (its idle rate),
divided by the turn's saves.
Saves that come sooner than that time over the processors (2 cores: half of it) queue.

    python benchmarks/serve_speed.py -n 10000 --turn 4 --interval 3.3 --modes warm --changes edit
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
from build_speed import (  # noqa: E402
    REPO,
    build_env,
    make_site,
    site_settings,
    spread,
    wait_for_background_search,
)
from bundlesearch import pages_with  # noqa: E402
from busy_cpu import busy_seconds  # noqa: E402

MODES = ("warm", "unprepared", "cold")


def initial_build(src: Path, checkout: Path) -> float:
    """The build kb serve would start with, done once for both modes (not timed against)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from kb.cli.serve import sphinx_arguments

    start = time.perf_counter()
    command = [sys.executable, "-m", "sphinx", "-q", *sphinx_arguments(src)]
    subprocess.run(command, check=True, env=build_env(checkout), stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


class Server:
    def __init__(self, src: Path, port: int, mode: str, log_path: Path, checkout: Path) -> None:
        self.src, self.port, self.mode = src, port, mode
        self.log_path = log_path
        command = [sys.executable, "-m", "kb.cli", "serve", "--root", str(src), "--port", str(port)]
        if mode in ("cold", "unprepared"):
            command.append(f"--{mode}")
        with log_path.open("w") as log:
            self.process = subprocess.Popen(
                command, env=build_env(checkout), stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def wait_ready(self, limit: float = 900.0) -> None:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if "Waiting for changes" in self.log_path.read_text(errors="replace"):
                return
            if self.process.poll() is not None:
                raise SystemExit(f"kb serve exited:\n{self.log_path.read_text()[-3000:]}")
            time.sleep(0.1)
        raise SystemExit("kb serve did not start in time")

    def _processes(self):
        """``(/proc/PID folder, fields of its stat after the name)`` of each process of the
        group kb serve leads (the server, its warm worker and the worker's standby)."""
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == self.process.pid:
                    yield stat.parent, fields
            except (OSError, IndexError, ValueError):
                continue  # a build child that has just exited

    def memory_mb(self) -> float:
        """Proportional set size of the server's processes: memory they share is counted
        once."""
        total = 0
        for folder, _ in self._processes():
            try:
                rollup = (folder / "smaps_rollup").read_text()
            except OSError:
                continue
            total += next(
                int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")
            )
        return total / 1024

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time each of the server's processes has used (user and system), by its
        /proc folder."""
        ticks = os.sysconf("SC_CLK_TCK")
        return {
            folder.name: (int(fields[11]) + int(fields[12])) / ticks
            for folder, fields in self._processes()
        }

    def wait_quiet(self, limit: float = 120.0) -> None:
        """Until the server's processes, the same ones throughout, have used under 5% of a
        processor for half a second: its worker has made the next build's application (the
        standby) and waits. A process that ended or began in that half second is not quiet:
        summed, the time of a build that ended vanished from the total, which read as quiet
        while the next standby was still being made."""
        deadline = time.monotonic() + limit
        before = self.cpu_seconds()
        while time.monotonic() < deadline:
            time.sleep(0.5)
            now = self.cpu_seconds()
            if now.keys() == before.keys() and sum(now.values()) - sum(before.values()) < 0.025:
                return
            before = now

    def stop(self) -> None:
        os.killpg(self.process.pid, 15)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()


CHANGES = ("edit", "rewrite", "reword", "add", "delete")


@dataclass
class Change:
    """One change an author makes, and how a reader would see that it is on the site."""

    write: Callable[[], None]
    url: str  # the page that shows it
    shown: Callable[[int, str], bool]  # (HTTP status, page text) -> does the page show it?
    bundle: Path  # the served site's Pagefind bundle
    word: str
    page: str  # the URL path a search for ``word`` finds, or "" when none must
    seconds: dict[str, float] = field(default_factory=dict)
    saved_at: float = 0.0  # time.monotonic() when it was written


def served_page(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, ""


@dataclass
class BusyClock:
    """The machine's busy time over a stretch, less its rate in the stretch just before."""

    rate: float  # busy seconds per second before the stretch began
    busy: float  # the machine's busy time when it began
    at: float  # time.monotonic() when it began

    @classmethod
    def after_idling(cls, seconds: float) -> BusyClock:
        """Measure the idle rate over ``seconds`` (the author reading), then start."""
        busy, at = busy_seconds(), time.monotonic()
        time.sleep(seconds)
        now, now_at = busy_seconds(), time.monotonic()
        return cls(rate=(now - busy) / max(now_at - at, 1e-3), busy=now, at=now_at)

    def spent(self) -> float:
        return busy_seconds() - self.busy - self.rate * (time.monotonic() - self.at)


def search_finds(change: Change, searched: set[bytes]) -> bool:
    """Does a search of the served bundle, now, find the word where it should, and only there?

    A bundle is searched once: ``searched`` holds the entry files (``pagefind-entry.json``,
    which names the bundle's content-addressed files) already searched without the answer.
    Decoding a 1000-post bundle costs 10-20 ms of CPU, so searching it again every 20 ms took
    a third of a core from the indexer it waits for, on 2 cores; a reader searches once."""
    try:
        entry = (change.bundle / "pagefind-entry.json").read_bytes()
    except OSError:
        return False
    if entry in searched:
        return False
    try:
        found = pages_with(change.bundle, change.word)
    except (OSError, ValueError, KeyError):  # between two files of a bundle being replaced
        return False
    searched.add(entry)
    return found == ({change.page} if change.page else set())


async def time_change(
    port: int,
    change: Change,
    limit: float = 600.0,
    search: bool = True,
    save_at: float | None = None,
) -> dict[str, float]:
    """Seconds from the save to the reload message, to the page showing the change, and (with
    ``search``) to a search that finds it (or, after a delete, no longer does). The save comes
    at ``save_at`` (``time.monotonic``), if given and not past, and its moment is kept in
    ``change.saved_at``."""
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/websocket-reload") as socket:
        await asyncio.sleep(0.2)  # the server has registered this listener
        # A reload the last change's build asked for after this script stopped listening (a
        # second one, kb.cli.reloads) is sent to the next listener at once: not this change's.
        with contextlib.suppress(TimeoutError):
            while True:
                await asyncio.wait_for(socket.recv(), timeout=0.05)
        if save_at is not None:
            await asyncio.sleep(max(0.0, save_at - time.monotonic()))
        start = time.perf_counter()
        change.saved_at = time.monotonic()
        change.write()
        message = await asyncio.wait_for(socket.recv(), timeout=limit)
        seconds = {"reload": time.perf_counter() - start}
    assert message == "refresh", message
    while not change.shown(*served_page(change.url)):
        if time.perf_counter() - start > limit:
            raise SystemExit(f"{change.url} never showed the change")
        await asyncio.sleep(0.01)
    seconds["page"] = time.perf_counter() - start
    if not search:
        return seconds
    searched: set[bytes] = set()
    while not search_finds(change, searched):
        if time.perf_counter() - start > limit:
            raise SystemExit(f"the search never found {change.word!r} where it should")
        await asyncio.sleep(0.02)
    seconds["search"] = time.perf_counter() - start
    return seconds


def make_change(kind: str, src: Path, port: int, round_number: int, site) -> Change:
    """The round's ``kind`` of change to the copy at ``src``: an edit of the middle post (a
    sentence, or a paragraph that changes its frequent words), a new post (the newest), or
    the deletion of the post that round added."""
    base = f"http://127.0.0.1:{port}/"
    bundle = src / "_build/html/pagefind"
    if kind in ("edit", "rewrite", "reword"):
        post = src / site.posts[len(site.posts) // 2].relative_to(site.src)
        # A sentence changed (its words the same from one edit to the next), a paragraph
        # added that counts frequent words again, or one that makes a new word frequent;
        # each with a word of its own.
        change, number = {
            "edit": (corpus.edit_post, round_number),
            "rewrite": (corpus.rewrite_post, 100_000 + round_number),
            "reword": (corpus.reword_post, 200_000 + round_number),
        }[kind]
        word = corpus.edit_word(number)
        page = post.relative_to(src).with_suffix(".html").as_posix()

        def edit() -> None:
            change(post, number)

        return Change(
            edit,
            base + page,
            lambda status, text: word in text,
            bundle,
            word,
            "/" + page,
        )
    scratch = src.parent / f"{src.name}-new"
    staged = corpus.add_post(scratch, round_number, site.authors, site.categories)
    word = corpus.edit_post(staged, 50_000 + round_number)  # a word of its own
    relpath = staged.relative_to(scratch)
    post = src / relpath
    page = relpath.with_suffix(".html").as_posix()
    if kind == "add":

        def write() -> None:
            post.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, post)  # one event for the watcher, whole

        return Change(
            write, base + page, lambda status, text: word in text, bundle, word, "/" + page
        )
    staged.unlink()
    return Change(post.unlink, base + page, lambda status, text: status == 404, bundle, word, "")


def first_and_last_ten(sizes: list[float]) -> tuple[float, float]:
    """The median of the first ten readings and of the last ten: whether memory stays flat,
    judged on readings taken at the same moment of each cycle."""
    return statistics.median(sizes[:10]), statistics.median(sizes[-10:])


def checkouts_by_mode(modes: list[str], after: Path, before: Path | None) -> dict[str, Path]:
    """The checkout whose ``kb`` each server runs: ``after`` for the modes asked for, and
    ``before``, when given, for a warm server of its own (mode ``before``)."""
    checkouts = {mode: after.resolve() for mode in modes}
    if before is not None:
        checkouts["before"] = before.resolve()
    return checkouts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", "-n", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=5, help="rounds of changes per mode (5)")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument(
        "--changes",
        nargs="+",
        choices=CHANGES,
        default=["edit", "add", "delete"],
        help="what each round does, in this order (edit add delete); rewrite: an edit that"
        " changes the post's frequent words (a paragraph added), so that the related lists"
        " are computed again; reword: a paragraph that makes a new word one of the post's"
        " frequent words (another leaves them: other posts' vectors change too)",
    )
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--pause",
        type=float,
        default=2.0,
        help="seconds between one change's indexed search and the next change: the author"
        " reading the page, while kb serve prepares the next build (2)",
    )
    parser.add_argument(
        "--turn",
        type=int,
        default=1,
        help="saves in a row each mode makes of each change before the next mode's turn (1)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        help="with --turn: the second and later saves of a turn come this many seconds after"
        " the last one's search found it, whether or not the server has made its next"
        " build's application (an author who saves often); reported apart",
    )
    parser.add_argument(
        "--interval",
        type=float,
        help="with --turn: the second and later saves of a turn come this many seconds after"
        " the save before it, without waiting for its search (an author who saves at a steady"
        " pace); their searches are not timed; reported apart",
    )
    parser.add_argument(
        "--before", type=Path, help="another checkout, whose kb is served warm as mode 'before'"
    )
    parser.add_argument(
        "--after", type=Path, default=REPO, help="the checkout whose kb the modes run (this one)"
    )
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", help="also write the raw figures to this file")
    args = parser.parse_args(argv)
    if (args.pace is not None or args.interval is not None) and args.turn < 2:
        parser.error("--pace and --interval time the later saves of a turn: give --turn 2 or more")
    if args.pace is not None and args.interval is not None:
        parser.error("--pace or --interval, not both")
    if args.turn > 1 and {"add", "delete"} & set(args.changes):
        parser.error("--turn: edits only (a delete removes the post its round added)")
    if "delete" in args.changes and "add" not in args.changes:
        parser.error("a delete removes the post the round added: add 'add' before it")
    for checkout in filter(None, (args.before, args.after)):
        if not (checkout / "src/kb/__init__.py").is_file():
            parser.error(f"{checkout} holds no kb (src/kb): give a checkout of this project")
    checkouts = checkouts_by_mode(args.modes, args.after, args.before)
    args.modes = list(checkouts)

    root = Path(tempfile.mkdtemp(prefix="kb-serve-bench-"))
    servers: dict[str, Server] = {}
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.0f} s] {message}", flush=True)

    try:
        authors, categories = site_settings()
        site = make_site("ours", root, args.posts, authors, categories, 0)
        log(f"{args.posts} posts under {site.src}; load {os.getloadavg()[0]:.2f}")
        # One copy of the site per mode: each server watches and rebuilds only its own.
        sources = {mode: root / f"site-{mode}" for mode in args.modes}
        for mode, src in sources.items():
            shutil.copytree(site.src, src)
            log(f"initial build of the {mode} copy: {initial_build(src, checkouts[mode]):.1f} s")
        times = {(mode, kind): [] for mode in args.modes for kind in args.changes}
        # The saves of a turn after its first, --pace seconds after the last one's search.
        soon = {(mode, kind): [] for mode in args.modes for kind in args.changes}
        # Processor time a save costs the machine, one figure a turn (kind by kind).
        cpu: dict[tuple[str, str], list[float]] = {
            (mode, kind): [] for mode in args.modes for kind in args.changes
        }
        memory: dict[str, list[float]] = {mode: [] for mode in args.modes}
        # Read once the standby is made, before a change: the same moment of each cycle (the
        # reading after a change catches the next standby part way through its load).
        memory_quiet: dict[str, list[float]] = {mode: [] for mode in args.modes}
        readiness: dict[str, list[float]] = {mode: [] for mode in args.modes}
        for offset, mode in enumerate(args.modes):
            port = args.port + offset
            log_path = root / f"serve-{mode}.log"
            servers[mode] = Server(sources[mode], port, mode, log_path, checkouts[mode])
            servers[mode].wait_ready()
            log(f"kb serve ({mode}) ready on port {port}")
        for round_number in range(1, args.edits + 1):
            for kind in args.changes:
                for offset, mode in enumerate(args.modes):
                    clock = None
                    change = None
                    for save in range(args.turn):
                        steady = bool(save) and args.interval is not None
                        if not steady:
                            wait_for_background_search(
                                *(src / "_build" / "html" for src in sources.values()),
                                limit=300.0,
                            )
                        if save and args.pace is not None:
                            # The author saves again soon, whether the standby is made or not.
                            time.sleep(args.pace)
                        elif not save:
                            # Every server's standby is made: the others' do not take this
                            # change's processors (the first round came while the last server
                            # started was still making its own), and this one's is what the
                            # author saves to. How long this one took after the search is
                            # kept: a save sooner is built with an application made after it
                            # (mode ``unprepared``).
                            waited_from = time.monotonic()
                            servers[mode].wait_quiet()
                            readiness[mode].append(time.monotonic() - waited_from)
                            memory_quiet[mode].append(servers[mode].memory_mb())
                            for other, server in servers.items():
                                if other != mode:
                                    server.wait_quiet()
                            # The author reads; the machine's idle rate, for the turn's cost.
                            clock = BusyClock.after_idling(args.pause)
                        port = args.port + offset
                        number = round_number if args.turn == 1 else 100 * round_number + save
                        save_at = None
                        if steady and change is not None:
                            save_at = change.saved_at + args.interval
                        change = make_change(kind, sources[mode], port, number, site)
                        seconds = asyncio.run(
                            time_change(port, change, search=not steady, save_at=save_at)
                        )
                        paced = bool(save) and (args.pace is not None or steady)
                        (soon if paced else times)[mode, kind].append(seconds)
                        memory[mode].append(servers[mode].memory_mb())
                        shown = ", ".join(f"{k} {v:.2f} s" for k, v in seconds.items())
                        log(f"{mode} {kind} {round_number}{'+' * save}: {shown}")
                    # What the turn's saves cost: until the search has the last and the
                    # server has made its next standby.
                    wait_for_background_search(sources[mode] / "_build" / "html", limit=300.0)
                    servers[mode].wait_quiet()
                    if clock is not None:
                        cpu[mode, kind].append(clock.spent() / args.turn)
        for server in servers.values():
            server.stop()
        print(f"\n`python benchmarks/serve_speed.py {' '.join(argv or sys.argv[1:])}`")
        print(f"N={args.posts}, {os.cpu_count()} CPUs, load at the end {os.getloadavg()[0]:.2f}\n")
        print(
            "| kb serve | change | save → reload | save → page shows it | save → search finds it |"
        )
        print("| --- | --- | --- | --- | --- |")
        for (mode, kind), runs in times.items():
            cells = [spread([run[key] for run in runs]) for key in ("reload", "page", "search")]
            print(f"| {mode} | {kind} | " + " | ".join(cells) + " |")
        for (mode, kind), runs in soon.items():
            if runs:
                cells = [
                    spread([run[k] for run in runs]) if all(k in run for run in runs) else "–"
                    for k in ("reload", "page", "search")
                ]
                label = (
                    f"{kind}, {args.pace:g} s after the last search"
                    if args.pace is not None
                    else f"{kind}, {args.interval:g} s after the last save"
                )
                print(f"| {mode} | {label} | " + " | ".join(cells) + " |")
        print("\n| kb serve | change | processor time a save costs the machine, a turn's mean |")
        print("| --- | --- | --- |")
        for (mode, kind), costs in cpu.items():
            if costs:
                print(f"| {mode} | {kind} | {spread(costs)} (of {os.cpu_count()} processors) |")
        print("\n| kb serve | memory (PSS) after the first change | after the last | most |")
        print("| --- | --- | --- | --- |")
        for mode, sizes in memory.items():
            print(f"| {mode} | {sizes[0]:.0f} MB | {sizes[-1]:.0f} MB | {max(sizes):.0f} MB |")
        print("\n| kb serve | memory (PSS) once quiet: first ten (median) | last ten | most |")
        print("| --- | --- | --- | --- |")
        for mode, sizes in memory_quiet.items():
            if sizes:
                first, last = first_and_last_ten(sizes)
                growth = f"{last:.0f} MB ({last / first - 1:+.1%})"
                print(f"| {mode} | {first:.0f} MB | {growth} | {max(sizes):.0f} MB |")
        print("\n| kb serve | its standby made, after the search found the last change |")
        print("| --- | --- |")
        for mode, seconds in readiness.items():
            print(f"| {mode} | {spread(seconds)} (quiet for half a second, counted) |")
        print("\nMedian (min–max) of each; ratios paired by round:\n")
        for kind in args.changes:
            for other in args.modes:
                if other == "warm" or "warm" not in args.modes:
                    continue
                for key in ("page", "search") if other == "before" else ("page",):
                    pairs = zip(times["warm", kind], times[other, kind], strict=True)
                    median = statistics.median(w[key] / o[key] for w, o in pairs)
                    print(f"- {kind}, save → {key}: warm/{other} {median:.2f}")
                    if soon["warm", kind] and all(key in run for run in soon["warm", kind]):
                        pairs = zip(soon["warm", kind], soon[other, kind], strict=True)
                        median = statistics.median(w[key] / o[key] for w, o in pairs)
                        print(f"- {kind} soon after, save → {key}: warm/{other} {median:.2f}")
                if other == "before" and cpu["warm", kind]:
                    pairs = zip(cpu["warm", kind], cpu[other, kind], strict=True)
                    median = statistics.median(w / o for w, o in pairs)
                    print(f"- {kind}, processor time a save costs: warm/{other} {median:.2f}")
        if args.json:
            figures = {
                "posts": args.posts,
                "times": {f"{mode} {kind}": runs for (mode, kind), runs in times.items()},
                "soon_after": {f"{mode} {kind}": runs for (mode, kind), runs in soon.items()},
                "memory_mb": memory,
                "memory_quiet_mb": memory_quiet,
                "quiet_after_search_s": readiness,
                "cpu_seconds_per_save": {f"{m} {k}": c for (m, k), c in cpu.items()},
            }
            Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    finally:
        for server in servers.values():
            if server.process.poll() is None:  # stopped by a failure: not left serving
                server.stop()
        if args.keep:
            log(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
