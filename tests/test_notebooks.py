"""Notebook posts: ``.ipynb`` and MyST text notebooks, shown with their stored outputs.

Builds tests/roots/test-notebooks: an ``.ipynb`` whose cells failed when they ran (``1/0``, an
import of a module that does not exist) with their stored outputs, a text notebook with the
same kind of code and no outputs, and a Markdown post of the same series. Their kernel does
not exist, so a build that tried to run anything would warn. Checks that nothing runs, that
the notebooks are posts like any other (listings, feeds, search, series, citation, previews,
reading time), their downloads, the dropped script and widget outputs, the errors for broken
notebooks in ``kb check`` and in the build, ``kb new --notebook``, and that Markdown builds
never import MyST-NB.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import feedparser
import pytest
from authoring import build, run_check, snapshot
from helpers import resolve_link, soup

from kb.checks.frontmatter import Rules
from kb.checks.notebook import check_source, find_lines
from kb.checks.outputs import unsafe
from kb.cli import main

ROOT = Path(__file__).parent / "roots" / "test-notebooks"
SRC = Path(__file__).parent.parent / "src"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
IPYNB = "posts/2025/roofline-stored-outputs"
TEXT = "posts/2025/roofline-text-notebook"
MARKDOWN = "posts/2025/gemm-roofline"
RULES = Rules(categories=("Article", "Benchmarks"), authors=("mira", "tomas"))


def copy_site(destination: Path) -> Path:
    shutil.copytree(ROOT, destination, ignore=shutil.ignore_patterns("_build"))
    return destination


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, Path, list]:
    srcdir = copy_site(tmp_path_factory.mktemp("notebooks") / "site")
    before = snapshot(srcdir)
    app, warnings = build(srcdir)
    assert snapshot(srcdir) == before  # a build changes no source
    return srcdir, Path(app.outdir), warnings


def page(outdir: Path, docname: str):
    return soup(outdir / f"{docname}.html")


def write_notebook(path: Path, cells: list, metadata: dict | None = None) -> Path:
    notebook = {
        "cells": cells,
        "metadata": metadata
        or {
            "blogpost": True,
            "date": "2025-06-01",
            "category": "Article",
            "author": "mira",
            "kernelspec": {"name": "kb-test-no-such-kernel", "display_name": "x", "language": "py"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def markdown_cell(cell_id: str, text: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text}


def code_cell(cell_id: str, source: str, outputs: list) -> dict:
    return {
        "cell_type": "code",
        "id": cell_id,
        "metadata": {},
        "execution_count": 1,
        "source": source,
        "outputs": outputs,
    }


def display(data: dict) -> dict:
    return {"output_type": "display_data", "metadata": {}, "data": data}


# -- Nothing runs; stored outputs are shown as saved ------------------------------------------


def test_notebooks_build_cleanly_and_nothing_runs(site):
    srcdir, outdir, warnings = site
    assert warnings == []
    assert not (srcdir / "_build" / ".jupyter_cache").exists()  # no execution, no cache
    html = page(outdir, IPYNB)
    tracebacks = [node.get_text().strip() for node in html.select(".cell_output .traceback")]
    assert tracebacks == [
        "ZeroDivisionError: division by zero",
        "ModuleNotFoundError: No module named 'nonexistent_module_kb_test'",
    ]
    text = page(outdir, TEXT)
    sources = [node.get_text() for node in text.select(".cell_input")]
    assert "import nonexistent_module_kb_test" in sources[0] and "1 / 0" in sources[0]
    assert text.select(".cell_output") == []  # no outputs stored, none made


def test_stored_outputs_text_html_and_images_as_files(site):
    _, outdir, _ = site
    html = page(outdir, IPYNB)
    stream = html.select_one(".cell_output .stream").get_text().strip()
    assert stream == "roofline-stream-token: 412 TFLOP/s"
    table = html.select_one(".cell_output .text_html table")
    assert [th.get_text() for th in table.select("th")] == ["size", "TFLOP/s"]
    images = html.select(".cell_output img")
    assert [image["alt"] for image in images] == [
        "Roofline of the measured kernel",  # the cell's metadata
        "Figure drawn by cell 8 of the notebook",  # none given
    ]
    for image in images:
        assert image["src"].startswith("../../_images/") and image["src"].endswith(".png")
        assert (outdir / resolve_link(IPYNB, image["src"])).is_file()
    assert "data:image" not in (outdir / f"{IPYNB}.html").read_text(encoding="utf-8")


def test_notebook_pages_carry_their_styles_and_markdown_pages_do_not(site):
    _, outdir, _ = site

    def stylesheets(docname):
        return [link["href"] for link in page(outdir, docname).select("link[rel=stylesheet]")]

    assert any("kb-notebook.css" in href for href in stylesheets(IPYNB))
    assert any("kb-notebook.css" in href for href in stylesheets(TEXT))
    assert not any("kb-notebook.css" in href for href in stylesheets(MARKDOWN))
    assert not any("mystnb" in href for href in stylesheets(IPYNB))


# -- A post like any other --------------------------------------------------------------------


def test_listings_show_notebooks_with_their_excerpts(site):
    _, outdir, _ = site
    entries = {
        entry.select_one(".kb-entry-title").get_text(strip=True): entry
        for entry in soup(outdir / "index.html").select(".kb-entry")
    }
    assert set(entries) == {
        "Roofline notes: a text notebook",
        "Roofline notes: stored outputs",
        "Roofline notes: the model",
    }
    excerpt = entries["Roofline notes: stored outputs"].select_one(".kb-entry-excerpt")
    assert excerpt.get_text(" ", strip=True).startswith("The notebook’s first paragraph, with")
    assert excerpt.select_one("em").get_text() == "emphasis"
    described = entries["Roofline notes: a text notebook"].select_one(".kb-entry-excerpt")
    assert described.get_text(strip=True) == "A MyST text notebook: its code is shown, never run."
    benchmarks = soup(outdir / "blog/category/benchmarks.html").get_text()
    assert "Roofline notes: stored outputs" in benchmarks
    tagged = soup(outdir / "blog/tag/notebooks.html").get_text()
    assert "stored outputs" in tagged and "a text notebook" in tagged


def test_feeds_carry_notebook_posts(site):
    _, outdir, _ = site
    feed = feedparser.parse((outdir / "feeds/atom.xml").read_bytes())
    assert not feed.bozo
    items = {entry.title: entry for entry in feed.entries}
    assert "Roofline notes: stored outputs" in items and "Roofline notes: a text notebook" in items
    summary = items["Roofline notes: stored outputs"].summary
    assert "first paragraph, with <em>emphasis</em>" in summary
    assert items["Roofline notes: stored outputs"].link == (
        "https://notebooks.example.org/posts/2025/roofline-stored-outputs.html"
    )
    category = feedparser.parse((outdir / "feeds/category/benchmarks/rss.xml").read_bytes())
    assert [entry.title for entry in category.entries] == ["Roofline notes: stored outputs"]


def fragments(outdir: Path) -> dict[str, str]:
    """Pagefind's indexed text of each page, by URL."""
    found = {}
    for path in (outdir / "pagefind" / "fragment").glob("*.pf_fragment"):
        data = json.loads(gzip.decompress(path.read_bytes())[len(b"pagefind_dcd") :])
        found[data["url"]] = data["content"]
    return found


def test_search_indexes_markdown_cells_and_text_outputs(site):
    _, outdir, _ = site
    indexed = fragments(outdir)
    notebook = next(text for url, text in indexed.items() if "roofline-stored-outputs" in url)
    assert "below the ridge point" in notebook  # a markdown cell
    assert "roofline-stream-token: 412 TFLOP/s" in notebook  # a stored text output
    assert "ZeroDivisionError" in notebook
    assert "Download the notebook" not in notebook
    text = next(text for url, text in indexed.items() if "roofline-text-notebook" in url)
    assert "Arithmetic intensity is FLOPs per byte moved" in text


def test_series_citation_reading_time_and_previews(site):
    _, outdir, _ = site
    html = page(outdir, IPYNB)
    box = html.select_one("aside.kb-series-box")
    assert "Part 2 of" in box.get_text(" ", strip=True)
    assert [item.get_text(" ", strip=True) for item in box.select("li")] == [
        "Part 1: Roofline notes: the model",
        "Part 2: Roofline notes: stored outputs",
        "Part 3: Roofline notes: a text notebook",
    ]
    assert html.select_one(".kb-reading-time").get_text() == "1 min read"
    assert "Mira Okafor and Tomas Lindqvist" in html.select_one(".kb-cite-reference").get_text()
    assert html.select_one('meta[name="citation_title"]')["content"] == (
        "Roofline notes: stored outputs"
    )
    description = html.select_one('meta[property="og:description"]')["content"]
    assert description.startswith("The notebook’s first paragraph, with emphasis")
    text = page(outdir, TEXT)
    assert text.select_one('meta[property="og:description"]')["content"] == (
        "A MyST text notebook: its code is shown, never run."
    )
    # The download line sits under the header, never in the excerpt or the reading time.
    assert html.select_one(".kb-post-meta").find_next("p", class_="kb-notebook-download")


# -- Download the notebook ---------------------------------------------------------------------


def download_of(outdir: Path, docname: str) -> Path:
    link = page(outdir, docname).select_one(".kb-notebook-download a")
    assert link.get_text() == "Download the notebook"
    assert link["download"] == f"{Path(docname).name}.ipynb"
    path = outdir / resolve_link(docname, link["href"])
    assert path.is_file()
    return path


def test_an_ipynb_post_offers_its_own_file(site):
    srcdir, outdir, _ = site
    assert download_of(outdir, IPYNB).read_bytes() == (srcdir / f"{IPYNB}.ipynb").read_bytes()
    assert page(outdir, MARKDOWN).select(".kb-notebook-download") == []


def test_a_text_notebook_offers_an_ipynb_with_its_cells(site):
    _, outdir, _ = site
    notebook = json.loads(download_of(outdir, TEXT).read_text(encoding="utf-8"))
    assert (notebook["nbformat"], notebook["nbformat_minor"]) == (4, 5)
    cells = notebook["cells"]
    assert [cell["cell_type"] for cell in cells] == [
        "markdown",
        "code",
        "markdown",
        "code",
    ]
    assert [cell["id"] for cell in cells] == ["cell-1", "cell-2", "cell-3", "cell-4"]
    assert "".join(cells[1]["source"]) == "import nonexistent_module_kb_test\n\n1 / 0"
    assert notebook["metadata"]["kernelspec"]["name"] == "kb-test-no-such-kernel"
    assert notebook["metadata"]["date"] == "2025-05-20"


@pytest.mark.slow
def test_downloads_are_reproducible_and_follow_their_posts(make_app, tmp_path):
    one = copy_site(tmp_path / "one")
    two = copy_site(tmp_path / "two")
    outputs = [Path(build(srcdir)[0].outdir) for srcdir in (one, two)]
    for docname in (IPYNB, TEXT):
        first, second = (download_of(outdir, docname).read_bytes() for outdir in outputs)
        assert first == second
    # Delete the text notebook and rename the .ipynb: their files go as their pages do.
    (one / f"{TEXT}.md").unlink()
    (one / f"{IPYNB}.ipynb").rename(one / "posts/2025/roofline-renamed.ipynb")
    app, warnings = build(one)
    assert warnings == []
    outdir = Path(app.outdir)
    assert not (outdir / f"{TEXT}.ipynb").exists() and not (outdir / f"{TEXT}.html").exists()
    assert not (outdir / f"{IPYNB}.ipynb").exists()
    assert download_of(outdir, "posts/2025/roofline-renamed").is_file()
    clean = copy_site(tmp_path / "clean")
    (clean / f"{TEXT}.md").unlink()
    (clean / f"{IPYNB}.ipynb").rename(clean / "posts/2025/roofline-renamed.ipynb")
    clean_out = Path(build(clean)[0].outdir)

    def files(folder: Path) -> set[str]:
        return {
            p.relative_to(folder).as_posix()
            for p in folder.rglob("*")
            if p.suffix in (".html", ".ipynb") and p.relative_to(folder).parts[0][0] not in "_."
        }

    assert files(outdir) == files(clean_out)


# -- Outputs that would run code or load from another host -------------------------------------


WIDGET = "application/vnd.jupyter.widget-view+json"
CELLS = ("slider", "alert", "remote")
REMOTE = "HTML that loads from another host"


def test_script_widget_and_remote_html_outputs_are_dropped_with_a_warning(tmp_path):
    srcdir = copy_site(tmp_path / "site")
    widget = {"model_id": "f00", "version_major": 2, "version_minor": 0}
    path = write_notebook(
        srcdir / "posts/2025/widgets.ipynb",
        [
            markdown_cell("title", "# Widgets\n\nA notebook with outputs that need scripts."),
            code_cell(
                "slider",
                "slider",
                [display({WIDGET: widget, "text/plain": "IntSlider(value=3)"})],
            ),
            code_cell("alert", "alert", [display({"application/javascript": "alert(1)"})]),
            code_cell(
                "remote",
                "remote",
                [
                    display(
                        {
                            "text/html": '<script src="https://cdn.example.org/x.js"></script><p>x</p>',
                            "text/plain": "<remote object>",
                        }
                    ),
                    display({"text/html": "<b>inline</b><script>document.title = 1</script>"}),
                    display({"text/html": "<p>plain HTML stays</p>"}),
                ],
            ),
        ],
    )  # fmt: skip
    lines = find_lines(path.read_text(encoding="utf-8"))  # where each cell's "{" is
    cell_line = {name: lines["cells", index] for index, name in enumerate(CELLS, start=1)}
    app, warnings = build(srcdir)
    ours = [(w[1], w[2].split(":")[0], w[2].split("(")[1].split(")")[0]) for w in warnings]
    assert ours == [
        (cell_line["slider"], "cell 2", "a Jupyter widget, whose code loads from a CDN"),
        (cell_line["alert"], "cell 3", "JavaScript"),
        (cell_line["remote"], "cell 4", "HTML that loads from another host"),
        (cell_line["remote"], "cell 4", "HTML with a script"),
    ]
    assert {w[0] for w in warnings} == {"posts/2025/widgets.ipynb"}
    assert {w[3] for w in warnings} == {"kb.notebook"}
    article = page(Path(app.outdir), "posts/2025/widgets").select_one("article")
    assert article.select("script") == []
    shown = [node.get_text(strip=True) for node in article.select(".cell_output .output")]
    assert shown == ["IntSlider(value=3)", "<remote object>", "plain HTML stays"]
    # Read again by the next build, so a second `sphinx-build -W` fails as the first did.
    app, again = build(srcdir)
    assert again == warnings
    # kb check says the same, at the same lines, without building.
    status, problems, _ = run_check(srcdir)
    assert status == 1
    assert problems == [(path, line, message) for path, line, message, _ in warnings]


def test_a_warning_about_a_cell_names_the_files_own_line(tmp_path):
    # MyST-NB numbers a notebook's lines (cell + 1) * 10000 + line: "nb.ipynb:20002" is no
    # line of any file. The build says the line of the JSON where the source line sits.
    srcdir = copy_site(tmp_path / "site")
    path = write_notebook(
        srcdir / "posts/2025/lines.ipynb",
        [
            markdown_cell("title", "# Lines\n\nA notebook.\n\n```{firstdirective}\n```"),
            markdown_cell(
                "second", "```{seconddirective}\n```\n\ntext\n\n```{thirddirective}\n```"
            ),
        ],
    )  # fmt: skip
    text = path.read_text(encoding="utf-8").splitlines()
    wanted = [next(n for n, line in enumerate(text, 1) if f"{{{name}directive}}" in line)
              for name in ("first", "second", "third")]  # fmt: skip
    _, warnings = build(srcdir)
    found = [(w[1], w[2]) for w in warnings if w[3] == "myst.directive_unknown"]
    assert found == [
        (line, f"Unknown directive type: '{name}directive'")
        for line, name in zip(wanted, ("first", "second", "third"), strict=True)
    ]
    assert all(line < 100 for line in wanted)


def test_widget_state_in_the_metadata_is_dropped_with_a_warning(tmp_path):
    srcdir = copy_site(tmp_path / "site")
    state = {"state": {"f00": {"model_name": "IntSliderModel", "state": {"value": 3}}}}
    metadata = {
        "blogpost": True,
        "date": "2025-06-01",
        "category": "Article",
        "author": "mira",
        "widgets": {"application/vnd.jupyter.widget-state+json": {**state, "version_major": 2}},
    }
    path = write_notebook(
        srcdir / "posts/2025/widget-state.ipynb",
        [markdown_cell("title", "# Widget state\n\nA notebook saved with its widgets' state.")],
        metadata,
    )
    line = find_lines(path.read_text(encoding="utf-8"))["metadata", "widgets"]
    app, warnings = build(srcdir)
    assert [(w[0], w[1], w[2].split(":")[0], w[3]) for w in warnings] == [
        ("posts/2025/widget-state.ipynb", line, "the notebook's widget state (metadata `widgets`) "
         "is dropped", "kb.notebook"),
    ]  # fmt: skip
    html = (Path(app.outdir) / "posts/2025/widget-state.html").read_text(encoding="utf-8")
    assert "widget-state+json" not in html and "require.js" not in html


def test_hidden_cells_fold_into_details(tmp_path):
    srcdir = copy_site(tmp_path / "site")
    folded = code_cell("folded", "setup()", [{"output_type": "stream", "name": "stdout",
                                             "text": "ready\n"}])  # fmt: skip
    folded["metadata"]["tags"] = ["hide-input"]
    write_notebook(
        srcdir / "posts/2025/folded.ipynb",
        [markdown_cell("title", "# Folded\n\nA notebook with a folded cell."), folded],
    )
    app, warnings = build(srcdir)
    assert warnings == []
    cell = page(Path(app.outdir), "posts/2025/folded").select_one(".cell")
    details = cell.select_one("details.kb-folded")
    assert details.select_one("summary").get_text() == "Show code cell source"
    assert "setup()" in details.get_text() and "ready" in cell.select_one(".cell_output").get_text()


@pytest.mark.parametrize(
    "mime_type, html, verdict",
    [
        ("text/html", '<img src="//cdn.example.org/a.png">', REMOTE),
        ("text/html", "<style>@import 'https://x.org/a.css';</style>", REMOTE),
        ("text/html", '<a href="https://example.org/">a link</a>', ""),
        ("text/html", '<img src="figure.png" alt="x">', ""),
        ("text/html", "<SCRIPT>x()</SCRIPT>", "HTML with a script"),
        ("image/png", "", ""),
        ("text/javascript", "", "JavaScript"),
    ],
)  # fmt: skip
def test_what_counts_as_unsafe(mime_type, html, verdict):
    assert unsafe(mime_type, html) == verdict


# -- Broken notebooks: clear errors, never a traceback ----------------------------------------

BROKEN = {
    "not JSON": (
        '{\n "cells": [\n  {"cell_type": "markdown",}\n ]\n}\n',
        3,
        "this notebook is not valid JSON (Expecting property name enclosed in double quotes, "
        "column 28): an .ipynb is JSON written by Jupyter; restore the file from version "
        "control, or open and save it in Jupyter if Jupyter can still open it",
    ),
    "nbformat 3": (
        '{\n "metadata": {},\n "nbformat": 3,\n "nbformat_minor": 0,\n "worksheets": []\n}\n',
        3,
        "this notebook is nbformat 3, and MyST-NB reads nbformat 4: open it in Jupyter and save "
        "it, which upgrades it",
    ),
    "code cell without outputs": (
        '{\n "cells": [\n  {\n   "cell_type": "code",\n   "id": "a",\n   "metadata": {},\n'
        '   "source": "1/0"\n  }\n ],\n "metadata": {},\n "nbformat": 4,\n'
        ' "nbformat_minor": 5\n}\n',
        3,
        'cell 1 is not a valid notebook cell (a code cell without an "outputs" list): open and '
        "save the notebook in Jupyter, or fix the cell",
    ),
}  # fmt: skip


@pytest.mark.parametrize("text, line, message", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_ipynb_is_a_clear_error_in_check_and_build(tmp_path, text, line, message):
    srcdir = copy_site(tmp_path / "site")
    (srcdir / "posts/2025/broken.ipynb").write_text(text, encoding="utf-8")
    status, problems, _ = run_check(srcdir)
    assert (status, problems) == (1, [("posts/2025/broken.ipynb", line, message)])
    app, warnings = build(srcdir)  # no traceback: Sphinx's test app would raise it
    assert warnings == [("posts/2025/broken.ipynb", line, message, "kb.frontmatter")]
    said = page(Path(app.outdir), "posts/2025/broken").select_one("article").get_text()
    assert "This notebook could not be read: kb check posts/2025/broken.ipynb says why." in said


def test_the_build_fails_on_a_broken_ipynb_without_a_traceback(tmp_path):
    srcdir = copy_site(tmp_path / "site")
    (srcdir / "posts/2025/broken.ipynb").write_text("{", encoding="utf-8")
    command = [sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-b", "html", ".", "_out"]
    result = subprocess.run(command, cwd=srcdir, env=ENV, capture_output=True, text=True)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "posts/2025/broken.ipynb:1: WARNING: this notebook is not valid JSON" in result.stderr


def test_a_text_notebook_takes_dates_as_a_markdown_post_does(tmp_path):
    # YAML reads `date: 2025-05-20` as a date, which JSON (a notebook's metadata) cannot hold:
    # kb gives MyST-NB the date as text, on the same line, and the post is dated as any other.
    srcdir = copy_site(tmp_path / "site")
    path = srcdir / f"{TEXT}.md"
    path.write_text(path.read_text().replace('date: "2025-05-20"', "date: 2025-05-20"))
    assert run_check(srcdir)[:2] == (0, [])
    app, warnings = build(srcdir)
    assert warnings == []
    outdir = Path(app.outdir)
    page = soup(outdir / f"{TEXT}.html")
    assert page.select_one(".kb-post-meta time")["datetime"] == "2025-05-20"
    listed = [a["href"] for a in soup(outdir / "blog.html").select(".kb-entry-title a")]
    assert f"{TEXT}.html" in listed
    assert path.read_text().count("date: 2025-05-20") == 1  # the source is never rewritten


def test_a_date_inside_a_list_in_a_text_notebook_is_refused_with_the_fix(tmp_path):
    srcdir = copy_site(tmp_path / "site")
    path = srcdir / f"{TEXT}.md"
    path.write_text(path.read_text().replace("part: 3", "part: 3\nmilestones: [2025-05-20]"))
    message = (
        "milestones holds a YAML date inside a list or mapping, which a notebook "
        "cannot hold (Jupyter and MyST-NB keep front matter as JSON, which has no dates): quote "
        'each date in it, as in `["2026-11-30"]`'
    )
    assert run_check(srcdir)[:2] == (1, [(f"{TEXT}.md", 19, message)])
    _, warnings = build(srcdir)  # MyST-NB alone ends in a TypeError traceback
    assert warnings == [(f"{TEXT}.md", 19, message, "kb.frontmatter")]


def test_an_ipynb_metadata_problem_names_its_line(tmp_path):
    srcdir = copy_site(tmp_path / "site")
    path = srcdir / f"{IPYNB}.ipynb"
    path.write_text(path.read_text().replace('"category": "Benchmarks"', '"category": "Benchmark"'))
    line = 1 + path.read_text().splitlines().index('  "category": "Benchmark",')
    message = (
        'unknown category "Benchmark" (did you mean "Benchmarks"?); allowed are Article, '
        "Benchmarks (kb_categories in conf.py)"
    )
    assert run_check(srcdir)[:2] == (1, [(f"{IPYNB}.ipynb", line, message)])
    _, warnings = build(srcdir)
    assert warnings == [(f"{IPYNB}.ipynb", line, message, "kb.frontmatter")]


def test_an_ipynb_title_is_its_first_markdown_heading():
    title = '"source": ["Some text first.\\n", "\\n", "# The title\\n", "\\n", "A paragraph."]'
    text = (
        '{\n "cells": [\n  {"cell_type": "markdown", "id": "a", "metadata": {},\n   '
        + title
        + '}\n ],\n "metadata": {"blogpost": true, "date": "2025-01-02", "category": "Article"},\n'
        ' "nbformat": 4, "nbformat_minor": 5\n}\n'
    )
    facts, problems = check_source("x.ipynb", text, RULES)
    assert (facts.title, facts.title_line, problems) == ("The title", 4, [])
    facts, problems = check_source("x.ipynb", text.replace("# The title", "The title"), RULES)
    assert [p.message.split(":")[0] for p in problems] == ["no title"]
    assert "first markdown cell" in problems[0].message


# -- Running a notebook is opt-in ------------------------------------------------------------


def test_kb_execute_runs_the_notebook_through_the_cache(tmp_path):
    srcdir = copy_site(tmp_path / "site")
    path = srcdir / f"{TEXT}.md"
    path.write_text(
        path.read_text().replace(
            "file_format: mystnb\n", "file_format: mystnb\nkb_execute: cache\n"
        )
    )
    assert run_check(srcdir)[:2] == (0, [])
    _, warnings = build(srcdir)
    # The kernel does not exist: running was attempted, through jupyter-cache under _build/.
    assert warnings == [
        (f"{TEXT}.md", 1, "MyST-NB could not render this notebook (NoSuchKernel: No such kernel "
         "named kb-test-no-such-kernel)", "kb.notebook"),
    ]  # fmt: skip
    assert (srcdir / "_build" / ".jupyter_cache").is_dir()


KB_EXECUTE = {
    "unknown mode": (
        "---\nfile_format: mystnb\nkernelspec: {name: python3}\nkb_execute: sometimes\n---\n",
        'kb_execute "sometimes" is not a way to run a notebook',
    ),
    "no kernel": (
        "---\nfile_format: mystnb\nkb_execute: cache\n---\n",
        "kb_execute runs the notebook, which needs a `kernelspec`",
    ),
    "a Markdown post": (
        "---\nkb_execute: cache\n---\n",
        "kb_execute only runs notebooks, and this is a Markdown post",
    ),
}


@pytest.mark.parametrize("head, message", KB_EXECUTE.values(), ids=KB_EXECUTE.keys())
def test_kb_execute_is_checked(head, message):
    text = head.replace("---\n", "---\nblogpost: true\ndate: '2025-01-02'\ncategory: Article\n", 1)
    _, problems = check_source("x.md", text + "\n# T\n\nText.\n", RULES)
    assert [p.message for p in problems if p.key == "kb_execute"][0].startswith(message)


# -- Drafts, and builds that read no notebook --------------------------------------------------


def test_a_notebook_dated_after_today_is_a_draft(tmp_path):
    srcdir = copy_site(tmp_path / "site")
    path = srcdir / f"{IPYNB}.ipynb"
    path.write_text(path.read_text().replace('"date": "2025-04-15"', '"date": "2099-01-01"'))
    app, warnings = build(srcdir)
    assert warnings == []
    assert not (Path(app.outdir) / f"{IPYNB}.html").exists()
    assert not (Path(app.outdir) / f"{IPYNB}.ipynb").exists()


BUILD_AND_REPORT = """
import sys
from sphinx.cmd.build import build_main
status = build_main(["-q", "-b", "html", ".", "_build/html"])
print(status, "myst_nb.sphinx_" in sys.modules, "jupyter_cache" in sys.modules)
"""


@pytest.mark.slow
def test_builds_that_read_no_notebook_never_import_myst_nb(tmp_path):
    srcdir = copy_site(tmp_path / "site")

    def build_once() -> str:
        result = subprocess.run(
            [sys.executable, "-c", BUILD_AND_REPORT], cwd=srcdir, env=ENV, capture_output=True,
            text=True, timeout=600,
        )  # fmt: skip
        return result.stdout.split("\n")[-2]

    assert build_once() == "0 True True"  # the first build reads the notebooks
    assert build_once() == "0 False False"  # nothing changed
    markdown = srcdir / f"{MARKDOWN}.md"
    markdown.write_text(markdown.read_text() + "\nOne more sentence.\n")
    assert build_once() == "0 False False"  # a Markdown post changed


# -- kb new --notebook -----------------------------------------------------------------------------


def kb(root: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("fmt, suffix", [("ipynb", ".ipynb"), ("md", ".md")])
def test_kb_new_starts_a_notebook_that_checks_and_builds(tmp_path, fmt, suffix):
    srcdir = copy_site(tmp_path / "site")
    args = ("new", "Occupancy sweep", "--notebook", "--format", fmt, "--category", "Benchmarks",
            "--tag", "occupancy", "--author", "mira", "--series", "Roofline notes", "--part",
            "4", "--date", "2025-09-01", "--description", "Occupancy, roofline.")  # fmt: skip
    relpath = f"posts/2025/occupancy-sweep{suffix}"
    assert kb(srcdir, *args) == (0, f"{relpath}\n", "")
    assert run_check(srcdir) == (0, [], "kb check: 4 post(s), no errors\n")
    app, warnings = build(srcdir)
    assert warnings == []
    html = page(Path(app.outdir), "posts/2025/occupancy-sweep")
    assert html.select_one("h1").get_text().startswith("Occupancy sweep")
    assert "Part 4 of" in html.select_one("aside.kb-series-box").get_text(" ")
    assert download_of(Path(app.outdir), "posts/2025/occupancy-sweep").is_file()
    # Never overwrites, whatever the format: the slug is taken.
    before = snapshot(srcdir)
    for other in ("ipynb", "md"):
        status, out, err = kb(srcdir, *args[:4], other, *args[5:])
        assert (status, out) == (2, "") and ("already exists" in err or "is taken by" in err)
    status, _, err = kb(srcdir, "new", "Gemm roofline", "--notebook", "--category", "Article")
    assert status == 2 and 'the slug "gemm-roofline" is taken by posts/2025/gemm-roofline.md' in err
    assert kb(srcdir, "new", "X", "--format", "md", "--category", "Article") == (
        2,
        "",
        "kb new: --format chooses a notebook's format: add --notebook\n",
    )
    assert snapshot(srcdir) == before


# -- The real site's notebook post ---------------------------------------------------------------

REAL = "posts/2026/h200-measurements-notebook"


def test_the_real_notebook_post_is_small_and_links_its_notebook(built_site):
    repo = Path(__file__).parent.parent
    if not (repo / f"{REAL}.ipynb").is_file():
        pytest.skip(f"{REAL}.ipynb: the sample notebook post is not on this site (a fork)")
    path = built_site / f"{REAL}.html"
    assert path.stat().st_size <= 40 * 1024, f"{path.stat().st_size / 1024:.1f} KB"
    html = soup(path)
    assert html.select_one(".kb-post-meta .kb-category").get_text() == "Benchmarks"
    images = html.select("article .cell_output img")
    assert len(images) == 3 and all(len(image["alt"]) > 80 for image in images)
    assert all((built_site / resolve_link(REAL, i["src"])).is_file() for i in images)
    assert download_of(built_site, REAL).read_bytes() == (repo / f"{REAL}.ipynb").read_bytes()
    notebook = json.loads((repo / f"{REAL}.ipynb").read_text(encoding="utf-8"))
    outputs = [o for cell in notebook["cells"] for o in cell.get("outputs", ())]
    # Committed with the outputs it shows: three figures, four printed tables, no error.
    assert sum("image/png" in output.get("data", {}) for output in outputs) == 3
    assert sum(output["output_type"] == "stream" for output in outputs) == 4
    assert not any(output["output_type"] == "error" for output in outputs)
