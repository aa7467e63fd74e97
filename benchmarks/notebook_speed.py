"""Does a notebook post build about as fast as a Markdown post of the same size?

Two copies of the site with the same ``--posts`` corpus posts (``corpus.py``) and one post more,
written once as Markdown and once as a Jupyter notebook with the same content: the corpus
post's prose, math and table as markdown cells, and ``--cells`` Python code cells, each with a
stored text output (in the Markdown post: a ``python`` block followed by a ``text`` block).
After a clean build, that post is edited (one sentence) and the site rebuilt, ``--repeats``
times, the two sites in turn, each build its own ``python -m sphinx`` process as in
``build_speed.py``. The notebook's
rebuild includes importing MyST-NB, which a build pays once, and only when it reads a notebook;
the last line times an edit of a Markdown post on the site that has the notebook.

    python benchmarks/notebook_speed.py                # 100 corpus posts, 5 repeats
    python benchmarks/notebook_speed.py --posts 300 --repeats 7
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import build_speed  # noqa: E402
import corpus  # noqa: E402

MARKER = "The last word on study "


def extra_post(index: int, authors, categories) -> tuple[str, list[str]]:
    """The post's front matter lines and its body's Markdown blocks."""
    # Dated with the newest corpus post: corpus.ADDED_DAY is after build_speed's
    # SOURCE_DATE_EPOCH, which would make it a draft that no build reads.
    post = corpus.make_post(index, corpus.LAST_DAY, authors, categories)
    head, body = post.text.split("\n---\n", 1)
    front = [line for line in head.splitlines()[1:] if line]
    blocks = [block for block in body.strip().split("\n\n") if block]
    return front, blocks


def code(number: int) -> tuple[str, str]:
    source = (
        f"tiles = [(m, n) for m in range(0, 4096, 128) for n in range(0, 4096, {64 + number})]\n"
        f"work = sum(2 * 128 * {64 + number} * 4096 for _ in tiles)\n"
        f'print(f"cell {number}: {{len(tiles)}} tiles, {{work / 1e12:.3f}} TFLOP")'
    )
    return source, f"cell {number}: {1024 * 32 // (64 + number)} tiles, 0.034 TFLOP\n"


def markdown_post(front: list[str], blocks: list[str], cells: int) -> str:
    parts = list(blocks)
    for number in range(cells):
        source, output = code(number)
        parts.insert(2 + 2 * number, f"```python\n{source}\n```\n\n```text\n{output}```")
    return "---\n" + "\n".join(front) + "\n---\n\n" + "\n\n".join(parts) + "\n"


def notebook_post(front: list[str], blocks: list[str], cells: int) -> str:
    import yaml

    metadata = yaml.safe_load("\n".join(front))
    metadata = {key: str(v) if key == "date" else v for key, v in metadata.items()}
    metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    markdown = [{"cell_type": "markdown", "metadata": {}, "source": block} for block in blocks]
    for number in range(cells):
        source, output = code(number)
        stream = {"output_type": "stream", "name": "stdout", "text": output}
        markdown.insert(
            2 + 2 * number,
            {"cell_type": "code", "metadata": {}, "execution_count": number + 1,
             "source": source, "outputs": [stream]},
        )  # fmt: skip
    for number, cell in enumerate(markdown):
        cell["id"] = f"cell-{number}"
    notebook = {"cells": markdown, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(notebook, indent=1, sort_keys=True) + "\n"


def edit(path: Path, number: int) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.rindex(MARKER)
    end = start + len(MARKER) + text[start + len(MARKER) :].index(":")
    path.write_text(
        text[:start] + f"{MARKER}{number}-{text[start + len(MARKER) : end]}" + text[end:]
    )


def import_seconds() -> float:
    """The CPU time of importing MyST-NB's parser, as a notebook's first read pays it."""
    script = (
        "import time, sphinx.application, myst_parser.sphinx_ext.main; t = time.process_time();"
        " import myst_nb.sphinx_; print(time.process_time() - t)"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    return float(result.stdout)


def median(runs, key: str) -> float:
    return statistics.median(getattr(run, key) for run in runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", type=int, default=100, help="corpus posts beside it (100)")
    parser.add_argument("--cells", type=int, default=6, help="code cells with outputs (6)")
    parser.add_argument("--repeats", type=int, default=5, help="edit rebuilds per site (5)")
    parser.add_argument("--copies", type=int, default=1, help="posts of each kind, all edited (1)")
    args = parser.parse_args(argv)
    authors, categories = build_speed.site_settings()
    front, blocks = extra_post(99_999, authors, categories)
    root = Path(tempfile.mkdtemp(prefix="kb-nb-bench-"))
    sites, paths, results = {}, {}, {}
    try:
        for kind, suffix in (("markdown", ".md"), ("notebook", ".ipynb")):
            site = build_speed.make_site("ours", root / kind, args.posts, authors, categories, 0)
            write = markdown_post if kind == "markdown" else notebook_post
            paths[kind] = [
                site.src / "posts" / "2026" / f"the-same-post-{copy}{suffix}"
                for copy in range(args.copies)
            ]
            for copy, path in enumerate(paths[kind]):
                path.parent.mkdir(parents=True, exist_ok=True)
                text = write(front, blocks, args.cells).replace(
                    "study 99999", f"study 99999-{copy}"
                )
                path.write_text(text, encoding="utf-8")
            print(f"[{kind}] clean build of {args.posts + 1} posts …", flush=True)
            clean = build_speed.run_build(site)
            assert clean.warnings == 0, (site.out.parent / "build.log").read_text()
            assert (site.html / "posts/2026/the-same-post-0.html").is_file(), "not built"
            sites[kind], results[kind] = site, (clean, [], [], 0)
        # Interleaved, so that a busy machine slows both alike.
        for number in range(args.repeats):
            print(f"edit rebuilds {number + 1}/{args.repeats} …", flush=True)
            for kind in ("markdown", "notebook") if number % 2 == 0 else ("notebook", "markdown"):
                for path in paths[kind]:
                    edit(path, number)
                results[kind][1].append(build_speed.run_build(sites[kind]))
            site = sites["notebook"]
            corpus.edit_post(site.posts[len(site.posts) // 2], number + 1)
            results["notebook"][2].append(build_speed.run_build(site))
        for kind, site in sites.items():
            page = site.html / "posts" / "2026" / "the-same-post-0.html"
            results[kind] = (*results[kind][:3], page.stat().st_size)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"\n{args.posts} corpus posts and {args.copies} post(s) of {len(blocks)} Markdown blocks "
        f"and {args.cells} code cells with outputs; medians of {args.repeats} rebuilds; "
        f"importing MyST-NB takes {import_seconds():.2f} s of CPU\n"
    )
    print(f"| the {args.copies} post(s) are | clean build | edit them: wall | CPU | a page |")
    print("| --- | --- | --- | --- | --- |")
    for kind, (clean, runs, _, size) in results.items():
        print(
            f"| {kind} | {clean.seconds:.2f} s | {median(runs, 'seconds'):.2f} s "
            f"| {median(runs, 'cpu'):.2f} s | {size / 1024:.1f} KB |"
        )
    other = results["notebook"][2]
    print(
        f"| (notebook site) edit of a Markdown post | | {median(other, 'seconds'):.2f} s "
        f"| {median(other, 'cpu'):.2f} s | |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
