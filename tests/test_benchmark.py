"""The benchmark directive: chart, table, % of peak, downloads, metadata, errors, chart cache."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import soup, warning_lines

from kb.benchmark import charts, hardware, labels
from kb.benchmark.data import read_metadata

ERRORS_ROOT = Path(__file__).parent / "roots" / "test-benchmark-errors"


def _figures(app):
    return soup(app.outdir / "index.html").select("figure.kb-benchmark")


def _table(figure):
    table = figure.find("table")
    header = [th.get_text(strip=True) for th in table.select("thead th")]
    rows = [
        [td.get_text(strip=True) for td in tr.find_all("td")] for tr in table.select("tbody tr")
    ]
    return table, header, rows


@pytest.mark.sphinx("html", testroot="benchmark")
def test_bar_chart_table_and_peak(app, warning):
    app.build()
    assert warning.getvalue() == ""
    figure = _figures(app)[0]
    assert figure["id"] == "fa4-figure"

    svg = figure.select_one(".kb-benchmark-chart > svg.kb-chart")
    assert svg["role"] == "img"
    assert svg.find("title").get_text() == "FA4 backward on B200"
    assert svg["aria-labelledby"] == svg.find("title")["id"]
    assert "viewbox" in svg.attrs and "width" not in svg.attrs  # sized by the page's CSS
    # Drawn in the page's colours: text and axes in currentColor, bars in a theme variable.
    assert "currentColor" in str(svg)
    assert "var(--kb-chart-1" in str(svg)
    assert not re.search(r"#0a0b0\d|#010203", str(svg))  # no placeholder colour left over

    table, header, rows = _table(figure)
    # No caption of its own: the figure's caption, under chart and table, is said once.
    assert table.caption is None
    visible = figure.get_text(" ", strip=True).replace(svg.get_text(" ", strip=True), "")
    assert visible.count("FA4 backward on B200") == 1
    assert all(th.get("scope") == "col" for th in table.select("thead th"))
    # Headers in words with the unit; the measured column named after what the unit measures.
    assert header == ["Configuration", "Head dim", "Throughput (TFLOP/s)", "% of peak"]
    peak = hardware.load_registry().gpus["b200"].peaks["dense_bf16"]
    csv_rows = [
        ("head dim 128", "128", 1237),
        ("head dim 64, low", "64", 675),
        ("head dim 64, high", "64", 832.5),
    ]
    # Three significant digits (832.5 -> 833), but never fewer whole digits (1237 stays).
    assert rows == [
        [name, dim, shown, f"{100 * value / peak:.1f}"]
        for (name, dim, value), shown in zip(csv_rows, ["1237", "675", "833"], strict=True)
    ]
    assert [row[3] for row in rows] == ["55.0", "30.0", "37.0"]  # the post's 55% and 30-37%

    caption = figure.figcaption
    assert caption.select_one(".caption-text").get_text() == "FA4 backward on B200"
    assert caption.find("em").get_text() == "quoted"  # the body is parsed as MyST
    meta = caption.select_one(".kb-benchmark-meta").get_text(" ", strip=True)
    assert "Hardware: NVIDIA B200" in meta and "Data type: BF16" in meta
    peak_note = caption.select_one(".kb-benchmark-peak")
    assert "2250 TFLOP/s" in peak_note.get_text()
    assert peak_note.find("a")["href"] == "https://www.nvidia.com/en-us/data-center/hgx/"

    link = caption.select_one(".kb-benchmark-downloads a.download")
    assert link.get_text() == "fa4.csv"
    assert (app.outdir / link["href"]).read_bytes() == (app.srcdir / "data/fa4.csv").read_bytes()

    # The {ref} to the figure's :name: resolves to it.
    assert soup(app.outdir / "index.html").select_one('a[href="#fa4-figure"]') is not None


@pytest.mark.sphinx("html", testroot="benchmark")
def test_line_chart_from_metadata(app, warning):
    app.build()
    assert warning.getvalue() == ""
    figure = _figures(app)[1]
    meta = figure.select_one(".kb-benchmark-meta").get_text(" ", strip=True)
    # The GPU named in the JSON is found in the registry under its alias "NVIDIA H200".
    assert "Hardware: NVIDIA H200 SXM 141GB" in meta
    assert "Data type: float32" in meta
    assert "Software: torch 2.9.1, CUDA 12.8, driver 570.86" in meta
    assert "Measured: 2026-11-20" in meta

    _, header, rows = _table(figure)
    # The unit of size_mib is read off its name; a size says its unit in each cell, as the
    # chart's axis does (64 MiB, 1 GiB).
    assert header == ["Kernel", "Size", "Bandwidth (GB/s)", "% of peak"]
    # GB/s against a peak in TB/s: 4.8 TB/s is 4800 GB/s; the cell rounded, not the ratio.
    assert rows[0] == ["copy", "64 MiB", "3891", f"{100 * 3890.5 / 4800:.1f}"]
    assert rows[-1] == ["triad", "1 GiB", "", ""]  # an empty cell stays empty
    downloads = [a.get_text() for a in figure.select(".kb-benchmark-downloads a.download")]
    assert downloads == ["h200-copy.csv", "h200-copy.json"]

    svg = str(figure.select_one("svg.kb-chart"))
    assert "var(--kb-chart-1" in svg and "var(--kb-chart-2" in svg  # one line per kernel
    assert ">copy<" in svg and ">triad<" in svg  # the legend, as text


@pytest.mark.sphinx("html", testroot="benchmark")
def test_ids_unique_with_two_charts(app, warning):
    app.build()
    page = soup(app.outdir / "index.html")
    ids = [tag["id"] for tag in page.find_all(id=True)]
    assert len(ids) == len(set(ids))
    # Every reference inside a chart points at an element of the page.
    for svg in page.select("svg.kb-chart"):
        for target in re.findall(r'(?:url\(#|href="#)([^")]+)', str(svg)):
            assert target in ids


@pytest.mark.sphinx("text", testroot="benchmark")
def test_other_builders_get_the_table(app, warning):
    app.build()
    assert warning.getvalue() == ""
    text = (app.outdir / "index.txt").read_text(encoding="utf-8")
    assert "% of peak" in text and "833" in text and "832.5" not in text


@pytest.mark.sphinx("html", testroot="benchmark-errors")
def test_errors_name_the_line_and_the_fix(app, warning):
    app.build()
    lines = [
        number
        for number, line in enumerate((app.srcdir / "index.md").read_text().splitlines(), 1)
        if line.startswith("```{benchmark}")
    ]
    expected = [
        f"data file data/missing.csv not found (looked for {app.srcdir / 'data/missing.csv'})",
        "column 'tflop' not in data/ok.csv (columns: name, tflops)",
        "data/bad-cell.csv:3: column 'tflops' holds 'oops', not a number",
        "unknown hardware 'a100' (known: h100-sxm, h200-sxm, b200, rtx-pro-6000); "
        "add it to src/kb/data/hardware.toml",
        "unknown peak metric 'dense_fp16' (known: dense_bf16, dense_fp8, dense_fp4, mem_bw)",
        "NVIDIA H100 SXM5 80GB has no dense_fp4 figure in src/kb/data/hardware.toml "
        "(it has: dense_bf16, dense_fp8, mem_bw)",
        "data/bad.json:2: not valid JSON (Expecting property name enclosed in double quotes)",
        ":peak: needs :hardware: (one of: h100-sxm, h200-sxm, b200, rtx-pro-6000) "
        "or a metadata file that names the GPU",
        ":peak: dense_bf16 is in TFLOP/s: cannot compare TFLOP/s with GB/s",
        "give :y: the column(s) of data/ok.csv to plot (columns: name, tflops)",
        "column 'vendor' not in data/ok.csv (columns: name, tflops)",
        "no row of data/ok.csv matches :filter: name=nothing-matches",
        ":labels: needs column=label pairs separated by commas, got 'tflops'",
        "column 'flops' not in data/ok.csv (columns: name, tflops)",
        ":spread: takes none, or the low and high columns of the one :y: column "
        "(e.g. tflops_min, tflops_max), got 'name'",
    ]
    assert warning_lines(warning) == [
        f"{app.srcdir / 'index.md'}:{line}: WARNING: benchmark: {message} [kb.benchmark]"
        for line, message in zip(lines, expected, strict=True)
    ]
    # The page is still written, without the broken figures; no source file was touched.
    assert _figures(app) == []
    for path in ERRORS_ROOT.rglob("*"):
        if path.is_file():
            assert (app.srcdir / path.relative_to(ERRORS_ROOT)).read_bytes() == path.read_bytes()


@pytest.mark.sphinx("html", testroot="benchmark", srcdir="benchmark-cache", freshenv=True)
def test_charts_redrawn_only_when_their_data_changes(app, warning):
    cache = Path(app.doctreedir) / "kb-charts"
    shutil.rmtree(cache, ignore_errors=True)
    app.build()
    first = {path: path.stat().st_mtime_ns for path in cache.glob("*.svg")}
    assert len(first) == 4  # two charts, each drawn wide and narrow

    # Edit the page's prose: the page is rebuilt, the charts are reused as they are.
    index = app.srcdir / "index.md"
    index.write_text(index.read_text() + "\nOne more sentence.\n")
    app.build()
    assert "One more sentence." in (app.outdir / "index.html").read_text()
    assert {path: path.stat().st_mtime_ns for path in cache.glob("*.svg")} == first

    # Edit the data: the page is rebuilt (the CSV is a dependency) with a new chart.
    data = app.srcdir / "data/fa4.csv"
    data.write_text(data.read_text().replace("1237", "1300"))
    app.build()
    now = {path: path.stat().st_mtime_ns for path in cache.glob("*.svg")}
    assert len(now) == 6 and all(now[path] == mtime for path, mtime in first.items())
    new_charts = set(now) - set(first)
    assert len(new_charts) == 2
    page = soup(app.outdir / "index.html")
    assert ">1300<" in str(page.select_one("svg.kb-chart"))
    assert page.select("figure.kb-benchmark tbody tr")[0].find_all("td")[2].get_text() == "1300"
    assert all("1300" in chart.read_text() for chart in new_charts)


def test_svg_is_reproducible():
    spec = charts.ChartSpec(
        kind="line",
        title="t",
        x_label="x",
        y_label="y",
        series=(charts.Series("a", ((1.0, 2.0), (2.0, 3.0))),),
        peak=4.0,
        peak_label="peak",
    )
    first, second = charts.render_svg(spec), charts.render_svg(spec)
    assert first == second
    assert "<dc:date>" not in first
    assert spec.digest() == charts.ChartSpec(**vars(spec)).digest()


def test_registry_is_complete_and_dense():
    registry = hardware.load_registry()
    assert set(registry.gpus) == {"h100-sxm", "h200-sxm", "b200", "rtx-pro-6000"}
    for gpu in registry.gpus.values():
        assert {"dense_bf16", "dense_fp8", "mem_bw"} <= set(gpu.peaks)
        assert re.search(r"https://www\.nvidia\.com/\S+", gpu.source), gpu.key
        # Dense figures: FP8 runs at twice the BF16 rate, FP4 (where there is one) at four times.
        assert gpu.peaks["dense_fp8"] == pytest.approx(2 * gpu.peaks["dense_bf16"], rel=1e-3)
        if "dense_fp4" in gpu.peaks:
            assert gpu.peaks["dense_fp4"] == pytest.approx(4 * gpu.peaks["dense_bf16"], rel=1e-3)
    # The FA4 post's claim: 1237 TFLOP/s is about 55% of B200's dense BF16 peak.
    assert 1237 / registry.gpus["b200"].peaks["dense_bf16"] == pytest.approx(0.55, abs=0.005)
    assert registry.find("NVIDIA H200").key == "h200-sxm"
    assert registry.find("rtx-pro-6000").key == registry.find("RTX PRO 6000").key


@pytest.mark.parametrize(
    "facts",
    [
        {"gpu": "NVIDIA H200", "torch": "2.9.1", "cuda": "12.8", "date": "2026-11-20T14:03:00Z"},
        {
            "gpu": {"name": "NVIDIA H200", "memory_gb": 141},
            "versions": {"torch_version": "2.9.1", "torch_cuda_version": "12.8"},
            "timestamp": 1795183380,  # 2026-11-20T14:03:00Z
        },
    ],
)
def test_metadata_shapes_a_measurement_script_may_write(tmp_path, facts):
    path = tmp_path / "h200.json"
    path.write_text(json.dumps(facts))
    assert read_metadata(path, "h200.json") == {
        "gpu": "NVIDIA H200",
        "date": "2026-11-20",
        "software": "torch 2.9.1, CUDA 12.8",
    }


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_series_colours_are_readable_on_both_themes():
    # WCAG 1.4.11: graphics need 3:1 against what is next to them, here furo's backgrounds.
    css = (Path(charts.__file__).parent.parent / "static" / "kb-benchmark.css").read_text()
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    blocks = re.findall(r"([^{}]+)\{([^{}]*--kb-chart-1[^{}]*)\}", css)
    themes = {"light": "#ffffff", "dark": "#131416"}
    checked = set()
    for selector, body in blocks:
        theme = "dark" if "dark" in selector or "light" in selector else "light"
        background = _luminance(themes[theme])
        colours = re.findall(r"--kb-chart-\d+:\s*(#[0-9a-f]{6})", body)
        assert len(colours) == len(charts.SERIES)
        for colour in colours:
            high, low = sorted((_luminance(colour), background), reverse=True)
            assert (high + 0.05) / (low + 0.05) >= 3, (selector.strip(), colour)
        checked.add(theme)
    assert checked == {"light", "dark"}


@pytest.mark.sphinx("html", testroot="benchmark")
def test_filter_keeps_only_matching_rows(app, warning):
    (app.srcdir / "filtered.md").write_text(
        "---\norphan: true\n---\n# Filtered\n\n```{benchmark} data/fa4.csv\n"
        ":x: configuration\n:y: tflops\n:filter: head_dim=64|32, tflops=675|1237\n```\n"
    )
    app.build()
    assert warning_lines(warning) == []
    figure = soup(app.outdir / "filtered.html").select_one("figure.kb-benchmark")
    _, _, rows = _table(figure)
    assert [row[0] for row in rows] == ["head dim 64, low"]


# -- Charts and tables that read like a paper's ------------------------------------------------

GEMM_PAGE = """---
orphan: true
---
# Square GEMM

```{{benchmark}} data/gemm.csv
:x: m
:y: tflops_median
:group: dtype
{options}
:title: Square GEMM on one GPU
```
"""
GEMM_COLUMNS = ["dtype", "m", "tflops_median", "tflops_min", "tflops_max", "ms_median"]


def _gemm_figure(app, name: str, options: str = ""):
    """Build a page with one figure of data/gemm.csv; its HTML figure and its chart's spec."""
    from kb.benchmark.directive import benchmark_chart

    (app.srcdir / f"{name}.md").write_text(GEMM_PAGE.format(options=options), encoding="utf-8")
    app.build()
    assert warning_lines(app._warning) == []
    figure = soup(app.outdir / f"{name}.html").select_one("figure.kb-benchmark")
    (chart,) = app.env.get_doctree(name).findall(benchmark_chart)
    return figure, chart["spec"]


def _svg_texts(figure) -> list[str]:
    return [text.get_text(strip=True) for text in figure.select("svg.kb-chart text")]


@pytest.mark.sphinx("html", testroot="benchmark")
def test_readable_defaults_from_the_unit(app):
    figure, spec = _gemm_figure(app, "gemm-defaults")
    # No :unit: and no :labels:: the unit is read off the column's name (tflops_, ms_).
    assert spec.y_label == "Throughput (TFLOP/s)"
    assert spec.x_label == "M" and spec.legend_title == "Dtype"
    texts = _svg_texts(figure)
    assert "Throughput (TFLOP/s)" in texts
    assert not any("_" in text for text in texts)  # no raw column name anywhere
    _, header, rows = _table(figure)
    assert header == [
        "Dtype",
        "M",
        "Median (TFLOP/s)",
        "Min (TFLOP/s)",
        "Max (TFLOP/s)",
        "Median (ms)",
    ]
    # Three significant digits, never more decimals than the data, never fewer whole digits;
    # a data type in the site's one spelling.
    assert rows[0] == ["BF16", "1024", "163", "142", "214", "0.0132"]
    assert rows[5] == ["FP8", "2048", "1016", "1016", "1073", "0.0169"]


@pytest.mark.sphinx("html", testroot="benchmark")
def test_labels_given_by_the_author(app):
    options = (
        ":xlabel: Matrix size M = N = K\n"
        ":labels: dtype=Data type, tflops_median=Throughput, tflops_min=Min, tflops_max=Max, "
        "ms_median=Time, m=M = N = K\n"
        ":digits: 4"
    )
    figure, spec = _gemm_figure(app, "gemm-labels", options)
    assert spec.x_label == "Matrix size M = N = K"
    assert spec.y_label == "Throughput (TFLOP/s)"  # the measured column's label, its unit
    assert spec.legend_title == "Data type"
    texts = _svg_texts(figure)
    assert {"Matrix size M = N = K", "Throughput (TFLOP/s)", "Data type"} <= set(texts)
    for column in GEMM_COLUMNS:
        assert column not in texts and not any(f"{column}_" in t or "_" in t for t in texts)
    _, header, rows = _table(figure)
    assert header == [
        "Data type",
        "M = N = K",
        "Throughput (TFLOP/s)",
        "Min (TFLOP/s)",
        "Max (TFLOP/s)",
        "Time (ms)",
    ]
    assert rows[0] == ["BF16", "1024", "163.1", "142.1", "213.6", "0.01317"]  # :digits: 4


@pytest.mark.sphinx("html", testroot="benchmark")
def test_spread_is_drawn_when_the_data_has_it(app):
    figure, spec = _gemm_figure(app, "gemm-spread")
    # tflops_min and tflops_max go with tflops_median: a band around each line.
    assert [len(series.spread) for series in spec.series] == [4, 4]
    assert spec.series[0].spread[0] == (1024.0, 142.116, 213.648)
    svg = str(figure.select_one("svg.kb-chart"))
    assert svg.count("opacity: 0.18") == 3  # two bands and their key in the legend
    assert "min–max" in _svg_texts(figure)

    figure, spec = _gemm_figure(app, "gemm-no-spread", ":spread: none")
    assert all(series.spread == () for series in spec.series)
    assert "opacity: 0.18" not in str(figure.select_one("svg.kb-chart"))
    assert "min–max" not in _svg_texts(figure)

    _, spec = _gemm_figure(app, "gemm-own-spread", ":spread: tflops_min, tflops_max")
    assert spec.series[1].spread[0] == (1024.0, 90.8887, 141.504)


@pytest.mark.sphinx("html", testroot="benchmark")
def test_sizes_that_double_get_a_log2_axis(app):
    _, spec = _gemm_figure(app, "gemm-log2")
    assert spec.xscale == "log2"  # 1024 … 8192, all powers of two
    _, spec = _gemm_figure(app, "gemm-linear", ":xscale: linear")
    assert spec.xscale == "linear"  # the author's choice wins
    assert charts.default_xscale([512, 1024, 2048, 4096]) == "log2"
    assert charts.default_xscale([1, 2, 4]) == "linear"  # a factor of 4: linear reads better
    assert charts.default_xscale([1024, 1536, 2048, 3072, 4096, 8192]) == "linear"
    assert charts.default_xscale([0, 1, 2, 4, 8]) == "linear"
    assert charts.default_xscale(["a", "b"]) == "linear"


@pytest.mark.parametrize(
    ("text", "digits", "shown"),
    [
        ("176.469", 3, "176"),
        ("0.0121692", 3, "0.0122"),
        ("4.50012", 3, "4.50"),
        ("832.5", 3, "833"),  # half up, not to even
        ("1237", 3, "1237"),
        ("33554432", 3, "33554432"),
        ("64", 3, "64"),
        ("1", 3, "1"),
        ("0.959177", 3, "0.959"),
        ("2.5", 3, "2.5"),  # never more decimals than measured
        ("-0.04567", 2, "-0.046"),
        ("0", 3, "0"),
        ("1e-05", 3, "0.00001"),
        ("n/a", 3, "n/a"),
    ],
)
def test_numbers_are_rounded_to_significant_digits(text, digits, shown):
    assert labels.round_number(text, digits) == shown


def test_units_and_names_from_column_names():
    assert labels.name_unit("tflops_median") == "TFLOP/s"
    assert labels.name_unit("latency_ms_p99") == "ms"
    assert labels.name_unit("buffer_bytes") == "bytes"
    assert labels.name_unit("seqlen") == ""
    assert labels.plain_name("latency_ms_p99") == "latency p99"
    assert labels.plain_name("tflops") == "throughput"  # nothing but the unit
    assert labels.plain_name("head_dim") == "head dim"
    assert labels.with_unit("Median", "ms") == "Median (ms)"
    assert labels.with_unit("Time (ms)", "ms") == "Time (ms)"
    assert labels.tick_label(33554432, "bytes") == "32 MiB"
    assert labels.tick_label(8 * 2**30, "bytes") == "8 GiB"
    # Sizes as GPU papers print them (K = 1024), so no cell shows more than four digits.
    assert labels.tick_label(16384.0, "") == "16K"
    assert [labels.count_label(n) for n in (131072, 12288, 4096, 10000, -32768)] == [
        "128K", "12K", "4096", "10000", "-32K",
    ]  # fmt: skip
    assert labels.tick_label(0.5, "") == "0.5"


def test_labels_option_allows_commas_and_equals_in_labels():
    # A new pair starts only at ", column=" for a column of the data.
    columns = ["m", "seqlen"]
    value = "m=Size, M = N = K, seqlen=Length (tokens, log scale)"
    assert labels.parse_labels(value, columns) == {
        "m": "Size, M = N = K",
        "seqlen": "Length (tokens, log scale)",
    }
    with pytest.raises(ValueError, match="column=label pairs"):
        labels.parse_labels("m", columns)
