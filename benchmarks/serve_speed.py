"""From saving a post to the reloaded page, under ``kb serve``: warm worker against cold builds.

Generates N posts (``corpus.py``), builds them once, then for each mode starts ``kb serve`` on
the site (``warm``: the default, rebuilds forked from a worker that imported everything once,
which makes the next build's application while the author reads the page; ``unprepared``:
``kb serve --unprepared``, forked from the worker with no application made ahead; ``cold``:
``kb serve --cold``, a new ``python -m sphinx`` per change, as sphinx-autobuild runs),
listens on the reload socket as the browser does, and times each edit:

* **save → reload**: from writing the post until the server tells the browser to reload;
* **save → page**: until the page, fetched as the reloading browser fetches it, shows the
  edit's new word (what the author sees).

Before each edit it waits for the search index of the previous one (indexed in the background)
so that no edit waits for another's Pagefind run, then ``--pause`` seconds (the author reading).
Medians of ``--edits`` edits per mode, the modes taking turns (warm, unprepared, cold, warm,
...) so that a change in the machine's load hits all of them alike; each ratio is paired by
round.

    python benchmarks/serve_speed.py --posts 1000 --edits 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402
from build_speed import build_env, make_site, site_settings, spread  # noqa: E402

MODES = ("warm", "unprepared", "cold")


def initial_build(src: Path) -> float:
    """The build kb serve would start with, done once for both modes (not timed against)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    from kb.cli.serve import sphinx_arguments

    start = time.perf_counter()
    command = [sys.executable, "-m", "sphinx", "-q", *sphinx_arguments(src)]
    subprocess.run(command, check=True, env=build_env(), stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


class Server:
    def __init__(self, src: Path, port: int, mode: str, log_path: Path) -> None:
        self.src, self.port, self.mode = src, port, mode
        self.log_path = log_path
        command = [sys.executable, "-m", "kb.cli", "serve", "--root", str(src), "--port", str(port)]
        if mode in ("cold", "unprepared"):
            command.append(f"--{mode}")
        with log_path.open("w") as log:
            self.process = subprocess.Popen(
                command, env=build_env(), stdout=log, stderr=subprocess.STDOUT,
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

    def stop(self) -> None:
        os.killpg(self.process.pid, 15)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()


def wait_for_background_search(limit: float = 300.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if subprocess.run(["pgrep", "-f", "kb[.]search[.]worker"], capture_output=True).returncode:
            return
        time.sleep(0.05)


async def one_edit(port: int, post: Path, page_url: str, number: int) -> tuple[float, float]:
    import websockets

    async with websockets.connect(f"ws://127.0.0.1:{port}/websocket-reload") as socket:
        await asyncio.sleep(0.2)  # the server has registered this listener
        start = time.perf_counter()
        word = corpus.edit_post(post, number)
        message = await asyncio.wait_for(socket.recv(), timeout=600)
        reloaded = time.perf_counter() - start
    assert message == "refresh", message
    while True:
        with urllib.request.urlopen(page_url, timeout=30) as response:
            if word in response.read().decode("utf-8", "replace"):
                return reloaded, time.perf_counter() - start
        if time.perf_counter() - start > 600:
            raise SystemExit(f"{page_url} never showed {word!r}")
        await asyncio.sleep(0.01)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", "-n", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=5, help="edits timed per mode (5)")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--pause",
        type=float,
        default=2.0,
        help="seconds between one edit's indexed search and the next edit: the author reading"
        " the page, while kb serve prepares the next build (2)",
    )
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)

    root = Path(tempfile.mkdtemp(prefix="kb-serve-bench-"))
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.0f} s] {message}", flush=True)

    try:
        authors, categories = site_settings()
        site = make_site("ours", root, args.posts, authors, categories, 0)
        log(f"{args.posts} posts under {site.src}; load {os.getloadavg()[0]:.2f}")
        post = site.posts[len(site.posts) // 2].relative_to(site.src)
        relpath = post.with_suffix(".html").as_posix()
        # One copy of the site per mode: each server watches and rebuilds only its own.
        sources = {mode: root / f"site-{mode}" for mode in args.modes}
        for mode, src in sources.items():
            shutil.copytree(site.src, src)
            log(f"initial build of the {mode} copy: {initial_build(src):.1f} s")
        times: dict[str, list[tuple[float, float]]] = {mode: [] for mode in args.modes}
        servers = {}
        for offset, mode in enumerate(args.modes):
            port = args.port + offset
            servers[mode] = Server(sources[mode], port, mode, root / f"serve-{mode}.log")
            servers[mode].wait_ready()
            log(f"kb serve ({mode}) ready on port {port}")
        for round_number in range(1, args.edits + 1):
            for offset, mode in enumerate(args.modes):
                wait_for_background_search()
                time.sleep(args.pause)
                port = args.port + offset
                url = f"http://127.0.0.1:{port}/{relpath}"
                edit = one_edit(port, sources[mode] / post, url, round_number)
                reloaded, shown = asyncio.run(edit)
                times[mode].append((reloaded, shown))
                log(f"{mode} edit {round_number}: reload {reloaded:.2f} s, page {shown:.2f} s")
        for server in servers.values():
            server.stop()
        print(f"\n`python benchmarks/serve_speed.py {' '.join(argv or sys.argv[1:])}`")
        print(f"N={args.posts}, {os.cpu_count()} CPUs, load at the end {os.getloadavg()[0]:.2f}\n")
        print("| kb serve | save → reload (median, min–max) | save → page shows the edit |")
        print("| --- | --- | --- |")
        for mode in args.modes:
            reloads = [r for r, _ in times[mode]]
            shown = [s for _, s in times[mode]]
            print(f"| {mode} | {spread(reloads)} | {spread(shown)} |")
        for other in args.modes:
            if other == "warm" or "warm" not in args.modes:
                continue
            pairs = zip(times["warm"], times[other], strict=True)
            median = statistics.median(w[1] / o[1] for w, o in pairs)
            print(f"\nwarm/{other}, save → page, paired by round: median {median:.2f}")
    finally:
        if args.keep:
            log(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
