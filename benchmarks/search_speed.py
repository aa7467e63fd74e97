"""Search speed: bytes fetched and time to first results for one query, Pagefind vs Sphinx.

Generates a synthetic blog (default 1000 posts of about 1200 words, each with a code block
and a table, a few kernel terms per post), builds it twice with the `kb` extension, once with
our Pagefind search and once with Sphinx's built-in search (``-D kb_search=0``), serves each
on 127.0.0.1 and opens ``search.html?q=<query>`` in Debian's Chromium (Playwright), with a
cold cache each run. It counts the bytes the server sends (headers and bodies, the page and
any web worker alike, over keep-alive HTTP/1.1; uncompressed as Python's server sends files,
or with ``--gzip`` compressed as static hosts compress text), and the time from the start
of navigation to the first result on screen and to the last byte the query fetched (Sphinx
keeps fetching each hit's page for its snippet). Other work on the machine slows the
timings: the table prints the load average.

    python benchmarks/search_speed.py                      # 1000 posts, query wgmma.mma_async
    python benchmarks/search_speed.py --posts 300 --runs 3 --query "head dimension 64"
    python benchmarks/search_speed.py --gzip --workdir /tmp/bench --skip-build  # reuse
    python benchmarks/search_speed.py --posts 10000 --pagefind-only --runs 3   # large N

Self-contained: it shares no code with the tests or the other benchmarks.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import date, timedelta
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, urlparse

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"

# -- The synthetic site -------------------------------------------------------------------------

CONF = '''\
"""A synthetic blog for benchmarks/search_speed.py."""
extensions = ["myst_parser", "ablog", "kb"]
project = "Synthetic Kernel Notes"
language = "en"
html_theme = "furo"
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
blog_path = "blog"
blog_baseurl = "https://bench.example.org/"
blog_post_pattern = "posts/*/*.md"
blog_authors = {"ada": ("Ada Lovelace", None), "alan": ("Alan Turing", None),
                "grace": ("Grace Hopper", None)}
blog_feed_templates = {}
post_auto_orphan = True
skip_injecting_base_ablog_templates = True
post_date_format = "%Y-%m-%d"
html_sidebars = {"**": ["sidebar/brand.html", "sidebar/search.html",
                        "sidebar/scroll-start.html", "kb/sidebar-blog.html",
                        "sidebar/scroll-end.html"]}
kb_categories = ["Article", "Benchmarks"]
'''

TERMS = [
    "wgmma.mma_async",
    "cp.async.bulk.tensor",
    "__shfl_xor_sync",
    "FP8",
    "NVFP4",
    "SM90",
    "SM100",
    "SM120",
    "TMEM",
    "TMA",
    "mbarrier",
    "Stream-K",
    "warpgroup",
    "MIG",
    "ldmatrix",
    "tcgen05.mma",
    "CuTe",
    "CUTLASS",
    "split-K",
    "swizzle",
    "epilogue",
    "softmax",
    "KV cache",
    "GQA",
    "INT8",
    "BF16",
    "L2 cache",
    "occupancy",
    "register spills",
    "bank conflicts",
    "persistent kernel",
    "cluster launch",
    "NVLink",
    "HBM3e",
    "tensor core",
    "warp specialization",
    "ping-pong schedule",
    "head dimension 64",
    "block scaling",
    "Nsight Compute",
]

WORDS_TEXT = """
the a of to in and for with on at by from this that each when while after before then
kernel tile block thread warp lane grid stage buffer pipeline load store copy compute
matrix operand accumulator register shared global memory bandwidth latency throughput
scheduler producer consumer barrier wait arrive issue overlap hide cost time cycle
measure profile result speedup baseline version variant problem size shape batch
sequence length head query key value score output input layout stride row column fast
slow small large wide narrow full empty first last next previous other same we our it
its they their runs keeps moves splits reads writes waits loads stores uses shows gives
needs takes makes leaves starts ends finishes repeats improves reduces
"""
WORDS = tuple(WORDS_TEXT.split())

TAGS = [
    "gemm",
    "attention",
    "hopper",
    "blackwell",
    "ptx",
    "cute",
    "quantization",
    "inference",
    "training",
    "scheduling",
    "virtualization",
    "profiling",
]


def sentence(rng: random.Random, topics: list[str]) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(9, 16))]
    if rng.random() < 0.35:
        words.insert(rng.randrange(len(words)), rng.choice(topics))
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def paragraph(rng: random.Random, topics: list[str]) -> str:
    return " ".join(sentence(rng, topics) for _ in range(rng.randint(4, 6)))


PUBLISHED_DAYS = 1400


def post_markdown(number: int, rng: random.Random) -> tuple[str, str]:
    """One post of about 1200 words: front matter, paragraphs, a code block and a table."""
    topics = rng.sample(TERMS, 3)
    # Several posts a day past 1400 posts: every post is dated before 2025-11-01, so none is a
    # draft (a post dated after today is one, and leaves the site and its index).
    day = date(2022, 1, 1) + timedelta(days=number % PUBLISHED_DAYS)
    title = f"Note {number}: {topics[0]} and {topics[1]} in practice"
    body = [paragraph(rng, topics) for _ in range(14)]
    code = "\n".join(
        f"    {rng.choice(['ld.shared', 'st.global', 'add.f32', topics[0]])} %r{i}, [%rd{i}];"
        for i in range(12)
    )
    table = "| variant | time (us) | TFLOP/s |\n| --- | --- | --- |\n" + "\n".join(
        f"| {rng.choice(WORDS)} | {rng.randint(10, 999)} | {rng.randint(100, 1500)} |"
        for _ in range(6)
    )
    text = (
        f"---\nblogpost: true\ndate: {day.isoformat()}\n"
        f"category: {rng.choice(['Article', 'Benchmarks'])}\n"
        f"tags: [{', '.join(rng.sample(TAGS, 3))}]\n"
        f"author: {rng.choice(['ada', 'alan', 'grace'])}\n---\n\n# {title}\n\n"
        + "\n\n".join(body[:7])
        + f"\n\n## The kernel\n\n```text\n{code}\n```\n\n"
        + "\n\n".join(body[7:11])
        + f"\n\n## Measurements\n\n{table}\n\nThe cost is $t = n / b + c$ per tile.\n\n"
        + "\n\n".join(body[11:])
        + "\n"
    )
    return f"posts/{day.year}/note-{number:04d}.md", text


def write_site(root: Path, posts: int, seed: int) -> None:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    (root / "index.md").write_text(
        "# Synthetic Kernel Notes\n\nA synthetic blog.\n\n```{latest-posts}\n:count: 10\n```\n",
        encoding="utf-8",
    )
    for number in range(posts):
        relpath, text = post_markdown(number, rng)
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def build(root: Path, outdir: Path, doctrees: Path, *overrides: str) -> float:
    cmd = [
        sys.executable,
        "-m",
        "sphinx",
        "-q",
        "-b",
        "html",
        *(f"-D{o}" for o in overrides),
        str(root),
        str(outdir),
        "-d",
        str(doctrees),
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env)
    return time.perf_counter() - start


# -- Measuring in Chromium ----------------------------------------------------------------------

#: Records when the first result appears (ms since navigation started) for either page.
FIRST_RESULT_SCRIPT = """
window.__firstResult = new Promise((resolve) => {
  const selector = ".kb-search-result, #search-results ul.search li";
  const observer = new MutationObserver(() => {
    if (document.querySelector(selector)) {
      resolve(performance.now());
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
});
"""

#: Asking the server for this path returns what it sent since the last ask (not counted).
SENT_PATH = "/__bytes_sent__"


class _CountingWriter:
    """The handler's output stream, counting every byte sent (headers and bodies)."""

    def __init__(self, raw, handler):
        self.raw, self.handler = raw, handler

    def write(self, data) -> int:
        self.handler.server.sent.append((self.handler.path, len(data)))
        return self.raw.write(data)

    def __getattr__(self, name):
        return getattr(self.raw, name)


class _CountingHandler(SimpleHTTPRequestHandler):
    """Serves the site and counts what it sends: what Chromium fetched, worker included."""

    # Keep connections open, as any real static host does (Python's default closes each).
    protocol_version = "HTTP/1.1"
    # Send each response at once, as static hosts do (nginx's tcp_nodelay is on by default;
    # Go and Node servers set TCP_NODELAY). Python's server leaves Nagle's algorithm on: on a
    # kept-alive connection the body then waits for the client's delayed ACK of the headers,
    # about 40 ms per response, which measures the server rather than the search.
    disable_nagle_algorithm = True

    def setup(self):
        super().setup()
        self.wfile = _CountingWriter(self.wfile, self)

    def do_GET(self):
        if self.path != SENT_PATH:
            if not (self.server.gzip and self._send_gzipped()):
                super().do_GET()
            return
        body = json.dumps(self.server.sent).encode()
        self.server.sent = []
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.raw.write(body)
        self.server.sent = []

    def _send_gzipped(self) -> bool:
        """Compress text files on the way, as static hosts do (Pagefind's are compressed)."""
        path = Path(self.translate_path(self.path))
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in GZIP_SUFFIXES):
            return False
        body = gzip.compress(path.read_bytes(), mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return True

    def log_message(self, *args):
        pass


GZIP_SUFFIXES = (".html", ".css", ".js", ".json", ".svg")


class _NagleHandler(_CountingHandler):
    """Python's own default, for comparison (``--nagle``)."""

    disable_nagle_algorithm = False


def _serve_forever(directory: str, port, compress: bool, nagle: bool) -> None:
    handler_class = _NagleHandler if nagle else _CountingHandler
    handler = functools.partial(handler_class, directory=directory)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.sent = []
    server.gzip = compress
    port.put(server.server_address[1])
    server.serve_forever()


def serve(directory: Path, compress: bool, nagle: bool) -> tuple[multiprocessing.Process, str]:
    """Serve ``directory`` from another process, so the browser's driver never slows it."""
    port = multiprocessing.Queue()
    args = (str(directory), port, compress, nagle)
    process = multiprocessing.Process(target=_serve_forever, args=args)
    process.start()
    return process, f"http://127.0.0.1:{port.get(timeout=30)}"


def bytes_sent(base: str) -> list[tuple[str, int]]:
    with urllib.request.urlopen(base + SENT_PATH) as response:
        return [(urlparse(path or "").path, size) for path, size in json.load(response)]


def is_search_traffic(path: str) -> bool:
    """Bytes that belong to searching, not to showing the search page's own layout."""
    search_files = ("searchindex.js", "searchtools.js", "language_data.js", "kb-search.js")
    if path.startswith("/pagefind/") or path.endswith(search_files):
        return True
    return path.endswith(".html") and path != "/search.html"  # Sphinx fetches each hit's page


def measure(browser, base: str, query: str) -> dict:
    context = browser.new_context()  # a cold cache every run
    context.add_init_script(FIRST_RESULT_SCRIPT)
    page = context.new_page()
    bytes_sent(base)  # start counting from here
    page.goto(f"{base}/search.html?q={quote(query)}")
    first = page.evaluate("window.__firstResult")  # waits for it, without polling the page
    page.wait_for_load_state("networkidle")
    last_byte = page.evaluate(
        "Math.max(...performance.getEntriesByType('resource').map(e => e.responseEnd))"
    )
    results = page.locator(".kb-search-result, #search-results ul.search li").count()
    context.close()
    sent = bytes_sent(base)
    return {
        "ms": first,
        "last_byte_ms": last_byte,
        "bytes": sum(size for _, size in sent),
        "search_bytes": sum(size for path, size in sent if is_search_traffic(path)),
        "requests": len({path for path, _ in sent}),
        "results": results,
        "files": sent,
    }


def run_engine(browser, outdir: Path, query: str, runs: int, compress: bool, nagle: bool) -> dict:
    server, base = serve(outdir, compress, nagle)
    try:
        measure(browser, base, query)  # warm Chromium's own start-up, not the page
        samples = [measure(browser, base, query) for _ in range(runs)]
    finally:
        server.terminate()
        server.join()
    summary = dict(samples[-1])
    summary["ms"] = statistics.median(s["ms"] for s in samples)
    summary["ms_min"] = min(s["ms"] for s in samples)
    summary["ms_max"] = max(s["ms"] for s in samples)
    summary["last_byte_ms"] = statistics.median(s["last_byte_ms"] for s in samples)
    return summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--query", default="wgmma.mma_async")
    parser.add_argument("--runs", type=int, default=5, help="measured runs per engine")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workdir", type=Path, help="keep the site and builds here")
    parser.add_argument("--files", action="store_true", help="list what each engine fetched")
    parser.add_argument(
        "--gzip", action="store_true", help="compress HTML, CSS, JS and JSON as hosts do"
    )
    parser.add_argument(
        "--nagle",
        action="store_true",
        help="serve as Python's http.server does by default, Nagle's algorithm on",
    )
    parser.add_argument(
        "--skip-build", action="store_true", help="measure the builds already in --workdir"
    )
    parser.add_argument(
        "--pagefind-only", action="store_true", help="build and measure our search alone"
    )
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        site = work / "site"
        if not (site / "conf.py").exists():
            write_site(site, args.posts, args.seed)
        print(f"site: {args.posts} posts in {site}", flush=True)
        builds = {
            "Pagefind (kb)": (work / "out-pagefind", ()),
            "Sphinx built-in": (work / "out-sphinx", ("kb_search=0",)),
        }
        if args.pagefind_only:
            del builds["Sphinx built-in"]
        for name, (outdir, overrides) in builds.items():
            if args.skip_build and (outdir / "search.html").exists():
                continue
            seconds = build(site, outdir, work / "doctrees", *overrides)
            print(f"built {name} in {seconds:.1f} s", flush=True)
        pages = {
            name: len(list((outdir / "posts").rglob("*.html")))
            for name, (outdir, _) in builds.items()
        }
        print(f"post pages built: {pages}", flush=True)
        if min(pages.values()) < args.posts:
            raise SystemExit(f"fewer post pages than the {args.posts} posts: drafts? (see above)")

        rows = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
            )
            for name, (outdir, _) in builds.items():
                rows[name] = run_engine(
                    browser, outdir, args.query, args.runs, args.gzip, args.nagle
                )
            browser.close()

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\nOne query ({args.query!r}) on {args.posts} posts, "
        f"{'gzip' if args.gzip else 'uncompressed'}{', Nagle on' if args.nagle else ''};"
        f" median of {args.runs} cold runs;"
        f" {os.cpu_count()} CPUs, load average {load}"
    )
    header = (
        "engine",
        "first results",
        "range",
        "last byte",
        "bytes fetched",
        "of which search",
        "requests",
        "results shown",
    )
    print("| " + " | ".join(header) + " |\n|" + " --- |" * len(header))
    for name, r in rows.items():
        print(
            f"| {name} | {r['ms']:.0f} ms | {r['ms_min']:.0f}–{r['ms_max']:.0f} ms | "
            f"{r['last_byte_ms']:.0f} ms | {r['bytes'] / 1024:.0f} KB | "
            f"{r['search_bytes'] / 1024:.0f} KB | {r['requests']} | {r['results']} |"
        )
    if args.files:
        for name, r in rows.items():
            print(f"\n{name}: bytes per file (last run)")
            per_file: dict[str, int] = {}
            for path, size in r["files"]:
                per_file[path] = per_file.get(path, 0) + size
            for path, size in sorted(per_file.items(), key=lambda item: -item[1]):
                print(f"  {size:>9,}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
