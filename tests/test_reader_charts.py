"""Benchmark figures as a reader wants them: series named in words (metadata or :labels:), sizes
with their units, a column of one value said once in the caption, a long table folded under its
chart, and a narrow drawing for phones with its legend under the plot and text of 10 pt or more."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from authoring import ROOTS, build
from helpers import filled_sidebar, soup

ROOT = ROOTS / "test-reader-charts"
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


@pytest.fixture(scope="module")
def figure(tmp_path_factory):
    root = tmp_path_factory.mktemp("reader-charts") / "site"
    shutil.copytree(ROOT, root)
    app, warnings = build(root)
    assert warnings == []
    page = soup(Path(app.outdir) / "index.html")
    return page.select_one("figure.kb-benchmark")


def _legend(svg) -> list[str]:
    return [text.get_text() for text in svg.find_all("text")]


def test_series_are_named_in_words(figure):
    for svg in figure.select("svg.kb-chart"):
        texts = _legend(svg)
        # From the metadata's labels, and from :labels: for the one it lacks.
        for label in ("copy", "read (sum)", "write (fill_)"):
            assert label in texts
        assert not [text for text in texts if SNAKE.search(text)], texts
    kernels = [row.find("td").get_text() for row in figure.select("tbody tr")]
    assert list(dict.fromkeys(kernels)) == ["copy", "read (sum)", "write (fill_)"]


def test_sizes_carry_their_units_and_numbers_are_short(figure):
    header = [th.get_text() for th in figure.select("thead th")]
    assert header == ["Kernel", "Buffer size", "Bandwidth (GB/s)", "% of peak"]
    rows = [[td.get_text() for td in row.find_all("td")] for row in figure.select("tbody tr")]
    assert [row[1] for row in rows[:4]] == ["1 MiB", "16 MiB", "256 MiB", "1 GiB"]
    for row in rows:
        for cell in row[2:]:
            digits = re.sub(r"\D", "", cell).lstrip("0")
            assert len(digits) <= 4, row


def test_a_column_of_one_value_is_said_in_the_caption(figure):
    assert "Data type" not in [th.get_text() for th in figure.select("thead th")]
    constant = figure.select_one("figcaption .kb-benchmark-constant, .kb-benchmark-constant")
    assert constant.get_text() == "In every row: Data type: fp32."


def test_a_long_table_folds_under_the_chart(figure):
    details = figure.select_one("details.kb-benchmark-data")
    assert details is not None and details.find("table") is not None
    assert details.find("summary").get_text() == "The data: 12 rows"
    # Under the chart, before the caption.
    order = [child.name for child in figure.find_all(["div", "details", "figcaption"])]
    assert order.index("details") > 0 and order.index("details") < order.index("figcaption")


def test_a_narrow_drawing_for_phones(figure):
    wide = figure.select_one("svg.kb-chart-wide")
    narrow = figure.select_one("svg.kb-chart-narrow")
    assert wide is not None and narrow is not None
    ids = [tag["id"] for tag in figure.find_all(id=True)]
    assert len(ids) == len(set(ids))
    width = float(narrow["viewbox"].split()[2])
    assert width < float(wide["viewbox"].split()[2])
    sizes = [
        float(match)
        for text in narrow.find_all("text")
        for match in re.findall(r"font-size: ([\d.]+)px", text.get("style", ""))
    ]
    assert sizes and min(sizes) >= 10
    # Legend under the plot: its entries sit below the x axis label.
    xlabel = next(t for t in narrow.find_all("text") if t.get_text() == "Buffer size")
    entry = next(t for t in narrow.find_all("text") if t.get_text() == "copy")

    def y(text) -> float:
        return float(text["y"])

    assert y(entry) > y(xlabel)


# -- The catalog (benchmarks.html) ----------------------------------------------------------------


@pytest.fixture(scope="module")
def catalog(figure, tmp_path_factory):
    folder = next(tmp_path_factory.getbasetemp().glob("reader-charts*/site/_build/html"))
    return soup(folder / "benchmarks.html")


def test_a_dataset_has_a_name_of_its_own(catalog):
    (row,) = catalog.select("table.kb-benchmarks-table tbody tr")
    name = row.find("th").find("a").get_text()
    # Not the caption ("Bandwidth by buffer size."): what, against what, where, which series.
    assert name == ("Bandwidth by buffer size on H200 (copy / read (sum) / write (fill_))")


def test_data_types_have_one_spelling(catalog):
    (row,) = catalog.select("table.kb-benchmarks-table tbody tr")
    assert row["data-dtype"] == "FP32"  # the CSV says fp32
    assert row.select_one('td[data-label="Data type"]').get_text() == "FP32"


def test_data_types_in_a_fixed_order():
    from kb.benchmark.labels import dtype_key, dtype_word
    from kb.pages.benchmarks import DTYPE_ORDER

    assert [dtype_word(v) for v in ("bf16", "BF16", "bfloat16", "fp8_e4m3", "Float32")] == [
        "BF16",
        "BF16",
        "BF16",
        "FP8 E4M3",
        "FP32",
    ]
    words = ["NVFP4", "INT8", "BF16", "FP32", "FP8 E4M3", "weird"]
    assert sorted(words, key=dtype_key) == ["FP32", "BF16", "FP8 E4M3", "INT8", "NVFP4", "weird"]
    # The page's own copy of the order (a page never imports a feature) is the same.
    from kb.benchmark.labels import DTYPE_ORDER as VOCABULARY

    assert list(DTYPE_ORDER) == VOCABULARY


def test_the_catalog_is_high_in_the_sidebar(tmp_path_factory):
    folder = next(tmp_path_factory.getbasetemp().glob("reader-charts*/site/_build/html"))
    sidebar = filled_sidebar(folder / "benchmarks.html")
    titles = [h2.get_text() for h2 in sidebar.select("nav.kb-sidebar h2.kb-sidebar-title")]
    assert titles.index("Benchmark data") == 1, titles
