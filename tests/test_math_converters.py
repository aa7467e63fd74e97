"""benchmarks/math_converters.py without npm, pip or a network: the formulas it finds in MyST
Markdown and in a notebook, how it judges an answer, and the report it writes from results."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

SCRIPT = Path(__file__).parent.parent / "benchmarks" / "math_converters.py"

POST = r"""---
title: Formulas
---

# The cost of $h$ heads

Inline $a^2 + b^2$ and a role {math}`\sqrt{x}`.

$$
E = mc^2
$$

$$
x = 1
$$ (eq-one)

\begin{align}
a &= b
\end{align}

```{admonition} Note
:class: note

Inside $\alpha$.
```

```python
price = "$p$ stays code"
```

```{math}
:label: eq-two
y = 2
```

$$
p

q
$$
"""

NOTEBOOK = {
    "cells": [
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["Text $t$\n", "\n", "$$\n", "u\n", "$$\n"],
        },
        {"cell_type": "code", "metadata": {}, "source": "v = '$v$'", "outputs": []},
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": "\\begin{equation}\nw\n\\end{equation}",
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("math_converters", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass looks its module up while it is made
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_markdown_formulas_inline_display_labelled_amsmath(bench) -> None:
    found = bench.formulas_in_markdown(POST, "posts/x.md")
    assert [(f.kind, f.display, f.tex) for f in found] == [
        ("math_inline", False, "h"),
        ("math_inline", False, "a^2 + b^2"),
        ("{math} role", False, r"\sqrt{x}"),
        ("math_block", True, "E = mc^2"),
        ("math_block_label", True, "x = 1"),
        ("amsmath", True, "\\begin{align}\na &= b\n\\end{align}"),
        ("math_inline", False, r"\alpha"),  # inside the admonition
        ("{math} directive", True, "y = 2"),
        ("math_block", True, r"\begin{split}p \\ q\end{split}"),  # as kb gives it to Temml
    ]
    lines = POST.splitlines()
    inside = next(f for f in found if f.tex == r"\alpha")
    assert lines[inside.line - 1] == r"Inside $\alpha$."
    assert {f.source for f in found} == {"posts/x.md"}


def test_notebook_formulas_come_from_markdown_cells(bench) -> None:
    found = bench.formulas_in_notebook(NOTEBOOK, "posts/n.ipynb")
    assert [(f.kind, f.display, f.tex, f.source) for f in found] == [
        ("math_inline", False, "t", "posts/n.ipynb (cell 0)"),
        ("math_block", True, "u", "posts/n.ipynb (cell 0)"),
        ("amsmath", True, "\\begin{equation}\nw\n\\end{equation}", "posts/n.ipynb (cell 2)"),
    ]


def test_the_site_extensions_are_read_from_conf(bench) -> None:
    assert {"dollarmath", "amsmath"} <= set(bench.myst_extensions())


def test_an_answer_is_judged(bench) -> None:
    math = '<math xmlns="http://www.w3.org/1998/Math/MathML">{}</math>'
    assert bench.failure({"error": "Undefined\n control sequence"}, "x") == (
        "Undefined control sequence"
    )
    assert bench.failure({"mathml": math.format("<mi>x</mi>")}, "x") is None
    assert "merror" in bench.failure({"mathml": math.format("<merror>bad</merror>")}, "x")
    assert "\\foo" in bench.failure({"mathml": math.format(r"<mi>\foo</mi>")}, r"\foo")
    assert "&" in bench.failure({"mathml": math.format("<mi>&amp;</mi>")}, "a & b")
    assert bench.failure({"mathml": math.format("<mo>&amp;</mo>")}, r"a \& b") is None
    dropped = bench.failure({"mathml": math.format("<mi>a</mi>")}, r"\begin{x}a\end{x}", {"y"})
    assert "environment x" in dropped


def test_normalised_keeps_the_math_alone(bench) -> None:
    written = (
        '<span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML">\n  <semantics>'
        '<mi data-latex="x">x</mi>\n  <annotation encoding="application/x-tex">x</annotation>'
        "</semantics></math></span>"
    )
    assert bench.normalised(written) == b"<math><mi>x</mi></math>"


def test_node_engine_ranges(bench) -> None:
    assert bench.satisfies("v20.20.2", "18 || 20 || >=22")
    assert not bench.satisfies("v20.20.2", ">=22.12.0")
    assert bench.satisfies("v20.20.2", ">=16 || 14 >=14.17")


def converter(name: str, converted: int, **extra) -> dict:
    figures = {
        "name": name,
        "version": "1.0",
        "total": 10,
        "converted": converted,
        "distinct_failing": 10 - converted,
        "bytes": {
            "common_written": 1000,
            "common_normalised": 900,
            "converted_written": 1100,
            "converted_normalised": 990,
        },
        "time_ms": {"inside": 1.5, "round_trip": 3.0, "first_pass_round_trip": 9.0},
        "startup_ms": 50.0,
        "installs": "nothing: vendored",
        "size": 480_000,
        "size_with_dependencies": 480_000,
        "needs_node": True,
        "unmet_engines": [],
        "reference_mismatches": None,
        "refused": {"count": 0, "reasons": []},
        "broken": {"total": 6, "raised": 6, "silent": []},
        "failures": [],
    }
    figures.update(extra)
    return figures


def test_report_table_from_results(bench) -> None:
    failing = {
        "tex": r"\operatorname{" + "x" * 100 + "}",
        "display": True,
        "count": 2,
        "where": "posts/a.md:3",
        "error": "Undefined control sequence",
    }
    results = {
        "command": ".venv/bin/python benchmarks/math_converters.py --out r.md",
        "installs": ["npm install katex@1"],
        "rtd_nodejs": "20",
        "date": "2026-01-01",
        "machine": "Linux, 2 CPU cores",
        "node": "v20.0.0",
        "python": "3.12.0",
        "runs": 5,
        "formulas": {
            "total": 10,
            "distinct": 7,
            "inline": 8,
            "display": 2,
            "files": 3,
            "files_read": 5,
            "kinds": {"math_inline": 8, "math_block": 2},
        },
        "common": 9,
        "baselines_ms": {"node": 40.0, "python": 10.0},
        "converters": [
            converter("Temml (ours)", 10, version="0.13.5", reference_mismatches=0),
            converter(
                "Other (MathML)",
                9,
                installs="npm other@2",
                size=4_100_000,
                size_with_dependencies=4_400_000,
                time_ms={"inside": 12.34, "round_trip": 20.0, "first_pass_round_trip": 30.0},
                bytes={
                    "common_written": 12_345,
                    "common_normalised": 800,
                    "converted_written": 1,
                    "converted_normalised": 1,
                },
                failures=[failing],
            ),
        ],
    }
    text = bench.report(results)
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| converter | version"))
    assert "formulas converted / total" in lines[header]
    assert "(9 formulas all convert)" in lines[header]
    assert lines[header + 1].startswith("|---|")
    assert lines[header + 2] == (
        "| Temml (ours) | 0.13.5 | 10 / 10 | 0 | 1,000 / 900 | 1.5 (3.0) | 50 "
        "| nothing: vendored (0.48 MB; Node: yes) |"
    )
    assert lines[header + 3] == (
        "| Other (MathML) | 1.0 | 9 / 10 | 1 | 12,345 / 800 | 12.3 (20.0) | 50 "
        "| npm other@2 (4.1 MB, 4.4 MB with dependencies; Node: yes) |"
    )
    listed = next(line for line in lines if line.startswith("- `\\operatorname"))
    assert "…`" in listed and "(display, 2 times, posts/a.md:3)" in listed
    assert len(listed.split("`")[1]) == 80
    assert results["command"] in text
    assert "## Conclusion" in text
