"""The doctree nodes of a benchmark figure and how HTML writes the chart."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes

from . import charts


class benchmark(nodes.figure):
    """The whole figure; written as a ``<figure>`` by every builder."""


class benchmark_chart(nodes.General, nodes.Element):
    """The chart; ``node["spec"]`` is a :class:`charts.ChartSpec`. HTML only."""


class benchmark_comparison(nodes.General, nodes.Element):
    """Where a comparison's chart and table go once every dataset it names is known (at
    write time): ``node["keys"]`` names the datasets, ``node["options"]`` how to draw them."""


def visit_chart_html(self, node: benchmark_chart) -> None:
    svg = charts.cached_svg(node["spec"], Path(self.builder.doctreedir) / "kb-charts")
    # One translator per page: the count keeps ids unique when a page has several charts.
    self.kb_chart_count = getattr(self, "kb_chart_count", 0) + 1
    inline = charts.inline_svg(
        svg.read_text(encoding="utf-8"), f"kb-chart-{self.kb_chart_count}", node["spec"].title
    )
    self.body.append(f'<div class="kb-benchmark-chart">{inline}</div>\n')
    raise nodes.SkipNode


def skip_node(self, node: nodes.Node) -> None:
    raise nodes.SkipNode
