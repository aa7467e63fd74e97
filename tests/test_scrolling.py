"""Blocks that scroll sideways take keyboard focus and have a name, written at build time (no
script needed): code blocks, tables, display formulas, benchmark tables."""

from __future__ import annotations

import pytest
from helpers import soup

FOCUSABLE = {"tabindex": "0", "role": "group"}


def _focusable(element) -> dict[str, str]:
    return {key: element.get(key) for key in ("tabindex", "role", "aria-label")}


@pytest.mark.sphinx("html", testroot="code")
def test_code_blocks_are_focusable_and_named(app):
    app.build()
    page = soup(app.outdir / "index.html")
    pres = page.select("div.highlight pre")
    assert [_focusable(pre) for pre in pres] == [
        {**FOCUSABLE, "aria-label": "A CUDA kernel"},  # the caption names it
        {**FOCUSABLE, "aria-label": "Hopper and Blackwell PTX"},
        {**FOCUSABLE, "aria-label": "Code (Python)"},  # else its language, as Pygments names it
        {**FOCUSABLE, "aria-label": "Code (Bash)"},
    ]
    # The region is the element that scrolls (furo: pre { overflow: auto }), and no script
    # is needed to make it reachable.
    scripts = [tag.get("src", "") for tag in page.find_all("script")]
    assert not [src for src in scripts if "scroll" in src]


@pytest.mark.sphinx("html", testroot="code")
def test_a_block_with_line_numbers_names_the_code(app):
    (app.srcdir / "numbered.md").write_text(
        "---\norphan: true\n---\n# Numbered\n\n```{code-block} text\n:linenos:\n\na\nb\n```\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    app.build()
    page = soup(app.outdir / "numbered.html")
    focusable = page.select('[tabindex="0"]')
    assert [_focusable(element) for element in focusable] == [
        {**FOCUSABLE, "aria-label": "Code"},
        {**FOCUSABLE, "aria-label": "Table"},  # furo's scrolling table wrapper
    ]
    assert focusable[0].name == "pre" and "table-wrapper" in focusable[1]["class"]


@pytest.mark.sphinx("html", testroot="math")
def test_display_formulas_are_focusable_and_named(app):
    app.build()
    blocks = soup(app.outdir / "index.html").select("div.math.kb-math")
    assert [block.get("aria-label") for block in blocks] == [
        "Equation",
        "Equation (1)",
        "Equation (2)",
        "Equation",
        "Equation",
    ]
    assert all(block.get("tabindex") == "0" and block.get("role") == "group" for block in blocks)
    # furo's wrapper around it does not scroll (the formula does): no second tab stop.
    assert not soup(app.outdir / "index.html").select(".math-wrapper[tabindex]")


@pytest.mark.sphinx("html", testroot="benchmark")
def test_benchmark_tables_scroll_in_a_named_wrapper(app):
    app.build()
    wrappers = soup(app.outdir / "index.html").select("figure.kb-benchmark .table-wrapper")
    assert [_focusable(wrapper) for wrapper in wrappers] == [
        {**FOCUSABLE, "aria-label": "FA4 backward on B200"},  # the table's caption
        {**FOCUSABLE, "aria-label": "Copy bandwidth on H200"},
    ]
    assert all(wrapper.table.get("tabindex") is None for wrapper in wrappers)
