"""The doctree nodes of a benchmark figure and how HTML writes the chart."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from weakref import WeakKeyDictionary

from docutils import nodes

from . import charts


class benchmark(nodes.figure):
    """The whole figure; written as a ``<figure>`` by every builder."""


class benchmark_chart(nodes.General, nodes.Element):
    """The chart; ``node["spec"]`` is a :class:`charts.ChartSpec`. HTML only."""


class benchmark_comparison(nodes.General, nodes.Element):
    """Where a comparison's chart and table go once every dataset it names is known (at
    write time): ``node["keys"]`` names the datasets, ``node["options"]`` how to draw them."""


#: The charts each translator (one per page written) has drawn so far; kept beside the
#: translator, not as an undeclared attribute of Sphinx's object, and gone with it.
_charts_drawn: WeakKeyDictionary[object, int] = WeakKeyDictionary()


def visit_chart_html(self, node: benchmark_chart) -> None:
    # Two drawings of one chart: the wide one beside the text, the narrow one (legend under
    # the plot, larger text) on a phone; kb-benchmark.css shows one.
    spec = node["spec"]
    cache = Path(self.builder.doctreedir) / "kb-charts"
    # One translator per page: the count keeps ids unique when a page has several charts.
    count = _charts_drawn[self] = _charts_drawn.get(self, 0) + 1
    drawings = []
    for variant, drawn in (("wide", spec), ("narrow", dataclasses.replace(spec, narrow=True))):
        svg = charts.cached_svg(drawn, cache).read_text(encoding="utf-8")
        prefix = f"kb-chart-{count}" + ("-n" if drawn.narrow else "")
        drawings.append(charts.inline_svg(svg, prefix, spec.title, variant))
    self.body.append(f'<div class="kb-benchmark-chart">{"".join(drawings)}</div>\n')
    raise nodes.SkipNode


class benchmark_data(nodes.General, nodes.Element):
    """A long table, folded under its chart: ``<details>`` in HTML (a browser's find opens it,
    kb-benchmark.css opens it to print), the table as it is elsewhere."""


def visit_data_html(self, node: benchmark_data) -> None:
    rows = node["rows"]
    self.body.append(
        f'<details class="kb-benchmark-data"><summary>The data: {rows} rows</summary>\n'
    )


def depart_data_html(self, node: benchmark_data) -> None:
    self.body.append("</details>\n")


def pass_node(self, node: nodes.Node) -> None:
    pass


def folded(table: nodes.Element, rows: int, limit: int = 10) -> nodes.Element:
    """``table`` as it is, or folded into a :class:`benchmark_data` when it has over ``limit``
    rows."""
    if rows <= limit:
        return table
    return benchmark_data("", table, rows=rows)
