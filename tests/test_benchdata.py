"""Benchmarks as data: the catalog of every dataset (benchmarks.html, data/benchmarks.json and
its schema), comparisons across posts, the Reproduce block.

tests/roots/test-benchdata has three datasets in two posts: ``posts/h200`` shows a GEMM (with
a metadata file that names its command) and a copy bandwidth (no metadata, no :name:);
``posts/b200`` compares its own GEMM, in GFLOP/s, with the H200's, in TFLOP/s. A draft with a
dataset is never read.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from helpers import filled_sidebar, resolve_link, soup, warning_lines
from sitebuild import build, copy_root
from test_incremental import build as build_site

from kb.benchmark import hardware
from kb.pages.datasets import SCHEMA_SOURCE

SITE = "https://benchdata.example.org/"
IDS = ["posts/b200#gemm-b200-h200", "posts/h200#h200-gemm", "posts/h200#benchmark-h200-copy"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    srcdir = copy_root("benchdata", tmp_path_factory.mktemp("benchdata") / "site")
    return build_site(srcdir, srcdir / "_build")  # with no warning


def _catalog(outdir: Path) -> dict:
    return json.loads((outdir / "data" / "benchmarks.json").read_text(encoding="utf-8"))


# -- data/benchmarks.json ------------------------------------------------------------------------


def test_json_follows_its_schema_with_absolute_urls(built: Path) -> None:
    catalog = _catalog(built)
    schema = json.loads(SCHEMA_SOURCE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(catalog)
    # The schema is published next to the catalog, which names it.
    assert (built / "data" / "benchmarks.schema.json").read_text() == SCHEMA_SOURCE.read_text()
    assert catalog["schema"] == f"{SITE}data/benchmarks.schema.json"
    assert catalog["page"] == f"{SITE}benchmarks.html"
    # Newest post first, each post's datasets in its order; no draft.
    assert [one["id"] for one in catalog["datasets"]] == IDS
    assert catalog["count"] == 3
    gemm = catalog["datasets"][1]
    assert gemm["url"] == f"{SITE}posts/h200.html#h200-gemm"
    assert gemm["page"] == {
        "docname": "posts/h200",
        "title": "GEMM and copies on an H200",
        "url": f"{SITE}posts/h200.html",
        "is_post": True,
        "date": "2026-01-10",
    }
    assert gemm["gpu"] == {"key": "h200-sxm", "name": "NVIDIA H200 SXM 141GB", "short": "H200"}
    assert gemm["measured"] == "2026-01-05"
    assert gemm["software"]["versions"] == {
        "torch": "2.11.0+cu130",
        "CUDA": "13.0",
        "driver": "580.159.04",
    }
    assert gemm["metric"] == {"key": "dense_bf16", "label": "dense BF16"}
    peak = hardware.load_registry().gpus["h200-sxm"].peaks["dense_bf16"]
    assert gemm["best"] == {
        "value": 686.392,
        "shown": "686",
        "at": "Matrix size 8192, BF16",
        "percent_of_peak": round(100 * 686.392 / peak, 1),
    }
    command = "python3 benchmarks/gpu/gemm.py --out /tmp/bench --sizes 1024,4096,8192"
    assert gemm["command"] == command
    for one in catalog["datasets"]:
        for key in ("url", "csv"):
            assert one[key].startswith(SITE)
        # Every link leads to a file of the site.
        for key in ("csv", "metadata"):
            if one[key]:
                assert (built / one[key].removeprefix(SITE)).is_file()
    copy = catalog["datasets"][2]
    assert copy["metadata"] is None and copy["dtype"] == "FP32" and copy["command"] is None
    assert copy["best"]["at"] == "Size 1 GiB, copy"
    assert copy["metric"]["key"] == "mem_bw" and copy["unit"] == "GB/s"


def test_json_bytes_are_the_same_in_every_build(built: Path, tmp_path: Path) -> None:
    srcdir = copy_root("benchdata", tmp_path / "again")
    again = build_site(srcdir, tmp_path / "elsewhere")
    path = Path("data") / "benchmarks.json"
    assert (again / path).read_bytes() == (built / path).read_bytes()
    text = (built / path).read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_drafts_stay_out_even_in_a_preview(tmp_path: Path, make_app) -> None:
    app = build(
        make_app, copy_root("benchdata", tmp_path / "site"), confoverrides={"kb_drafts": True}
    )
    assert [one["id"] for one in _catalog(Path(app.outdir))["datasets"]] == IDS


# -- benchmarks.html ---------------------------------------------------------------------------


def test_benchmarks_page_table_links_and_filters(built: Path) -> None:
    page = soup(built / "benchmarks.html")
    article = page.select_one("article[role=main]")
    assert article.h1.get_text() == "Benchmark data"
    rows = article.select("table.kb-benchmarks-table tbody tr")
    assert len(rows) == 3
    # Without JavaScript: every row shown, the filters hidden (the script shows them).
    assert not any(row.has_attr("hidden") for row in rows)
    form = article.select_one("form.kb-benchmarks-filters")
    assert form.has_attr("hidden")
    options = {
        select["data-filter"]: [option.get_text() for option in select.find_all("option")]
        for select in form.find_all("select")
    }
    assert options == {
        "gpu": ["All", "B200", "H200"],
        "dtype": ["All", "FP32", "BF16"],
        "metric": ["All", "dense BF16", "memory bandwidth"],
    }
    assert all(form.find("label", attrs={"for": s["id"]}) for s in form.find_all("select"))
    assert [(row["data-gpu"], row["data-dtype"], row["data-metric"]) for row in rows] == [
        ("B200", "BF16", "dense BF16"),
        ("H200", "BF16", "dense BF16"),
        ("H200", "FP32", "memory bandwidth"),
    ]
    scripts = [s["src"] for s in page.find_all("script", src=True)]
    assert "_static/kb-benchmarks.js" in scripts
    assert (built / "_static" / "kb-benchmarks.js").is_file()
    # The cells of the H200 GEMM's row.
    cells = [cell.get_text(" ", strip=True) for cell in rows[1].find_all(["th", "td"])]
    # Its own name, not the caption: what was measured, against what, on which GPU.
    assert cells[0].startswith("Throughput by matrix size on H200 (BF16) in GEMM and copies")
    assert cells[1:5] == ["H200", "BF16", "686 TFLOP/s at Matrix size 8192, BF16", "69.4"]
    assert cells[5].startswith("2026-01-05")
    assert cells[6] == "CSV JSON"
    # Every link resolves: figures by their anchor, posts, files.
    for link in article.select("table a[href]"):
        target, _, anchor = resolve_link("benchmarks", link["href"]).partition("#")
        assert (built / target).is_file(), link["href"]
        if anchor:
            assert soup(built / target).find(id=anchor).name == "figure"
    json_link = article.select_one(".kb-benchmarks-json a")
    assert json_link["href"] == "data/benchmarks.json"


def test_sidebar_and_category_page_link_the_page(built: Path) -> None:
    sidebar = filled_sidebar(built / "posts" / "h200.html")
    link = sidebar.find("a", string="Every dataset")
    assert link["href"] == "../benchmarks.html"
    assert link.find_next_sibling().get_text() == "(3)"
    line = soup(built / "blog" / "category" / "benchmarks.html").select_one(".kb-archive-data")
    assert line.a["href"] == "../../benchmarks.html"


# -- Comparisons and the Reproduce block -------------------------------------------------------


def test_comparison_converts_units_and_marks_each_peak(built: Path) -> None:
    figure = soup(built / "posts" / "b200.html").select_one("figure#gemm-b200-h200")
    rows = [
        [cell.get_text(strip=True) for cell in tr.find_all(["th", "td"])]
        for tr in figure.select("table tr")
    ]
    registry = hardware.load_registry()
    b200 = registry.gpus["b200"].peaks["dense_bf16"] * 1000  # GFLOP/s
    h200 = registry.gpus["h200-sxm"].peaks["dense_bf16"] * 1000
    assert rows[0] == ["Data", "Series", "M", "Throughput (GFLOP/s)", "% of peak"]
    assert rows[1:] == [
        ["B200", "", "1024", "410000", f"{100 * 410000 / b200:.1f}"],
        ["B200", "", "4096", "1350000", f"{100 * 1350000 / b200:.1f}"],
        ["B200", "", "8192", "1520001", f"{100 * 1520000.5 / b200:.1f}"],
        # The H200's TFLOP/s, in GFLOP/s, against the H200's own peak.
        ["H200", "BF16", "1024", "163078", f"{100 * 163078 / h200:.1f}"],
        ["H200", "BF16", "4096", "640500", f"{100 * 640500 / h200:.1f}"],
        ["H200", "BF16", "8192", "686392", f"{100 * 686392 / h200:.1f}"],
    ]
    svg = figure.select_one("svg.kb-chart")
    text = svg.get_text(" ", strip=True)
    assert "B200 dense BF16 peak: 2250000 GFLOP/s" in text
    assert "H200 dense BF16 peak: 989400 GFLOP/s" in text
    assert "B200" in text and "H200 · BF16" in text  # the legend, by GPU
    assert svg.select("g[id^=line2d]") or "stroke-dasharray" in str(svg)
    also = figure.select_one(".kb-benchmark-compared")
    assert also.get_text(" ", strip=True) == (
        "Also shown: Throughput by matrix size on H200 (BF16) in GEMM and copies on an H200."
    )
    assert also.a["href"] == "h200.html#h200-gemm"


def test_reproduce_block_from_the_metadata(built: Path) -> None:
    page = soup(built / "posts" / "h200.html")
    gemm, copy = page.select("figure.kb-benchmark")
    block = gemm.select_one("details.kb-benchmark-reproduce")
    assert block.summary.get_text() == "Reproduce"
    assert block.pre.get_text().strip() == (
        "python3 benchmarks/gpu/gemm.py --out /tmp/bench --sizes 1024,4096,8192"
    )
    assert block.select_one(".kb-benchmark-environment").get_text(" ", strip=True) == (
        "Measured with: GPU NVIDIA H200, driver 580.159.04, CUDA 13.0, torch 2.11.0+cu130."
    )
    assert copy.select_one("details") is None  # no metadata
    assert copy["id"] == "benchmark-h200-copy"  # a stable anchor without :name:
    b200 = soup(built / "posts" / "b200.html")
    assert b200.select_one("details.kb-benchmark-reproduce") is None  # no command in it


def test_compare_errors_are_warnings_at_the_directive(tmp_path: Path, make_app) -> None:
    srcdir = copy_root("benchdata", tmp_path / "site")
    (srcdir / "posts" / "bad.md").write_text(
        "---\nblogpost: true\ndate: 2026-03-01\ncategory: Benchmarks\ntags: [gemm]\nauthor: ada\n"
        "---\n\n"
        "# Bad comparisons\n\nComparisons that lead nowhere.\n\n"
        "```{benchmark}\n:compare: posts/h200#nothing, posts/missing#x\n```\n\n"
        "```{benchmark}\n:compare: ../../../outside#x, posts/h200#h200-gemm\n```\n\n"
        "```{benchmark} data/h200-copy.csv\n:x: size_mib\n:y: gbps\n:unit: GB/s\n"
        ":compare: posts/h200#h200-gemm\n```\n",
        encoding="utf-8",
    )
    app = build(make_app, srcdir)
    lines = warning_lines(app.warning)
    bad = str(srcdir / "posts" / "bad.md")
    assert any(
        line.startswith(f"{bad}:13:")
        and "posts/h200 shows no dataset named 'nothing' (its "
        "datasets: h200-gemm, benchmark-h200-copy)"
        in line
        for line in lines
    ), lines
    assert any(i.startswith(f"{bad}:13:") and "no page 'posts/missing'" in i for i in lines)
    assert any(
        line.startswith(f"{bad}:17:") and "'../../../outside#x' is outside the repository" in line
        for line in lines
    ), lines
    assert any(
        line.startswith(f"{bad}:21:") and "cannot compare TFLOP/s with GB/s" in line
        for line in lines
    ), lines
    assert len(lines) == 4, lines
