"""The ``benchmark`` directive: a CSV of measurements as a chart, a table and a download.

````markdown
```{benchmark} data/fa4-bwd-b200.csv
:x: configuration
:y: tflops
:unit: TFLOP/s
:hardware: b200
:peak: dense_bf16
:title: FA4 backward on B200

Caption text (MyST).
```
````

renders a ``<figure>`` with the chart (SVG drawn at build time, see charts.py), an
accessible table with a "% of peak" column computed from the hardware registry
(data/hardware.toml), the caption (once, under both), what the figures were measured on
(from the options and an optional metadata JSON), and links to download the data. A
missing file, an unknown column, GPU or peak metric is a warning at the directive's line,
so ``-W`` fails the build.

Read like a paper's figure (labels.py): ``:xlabel:``, ``:ylabel:`` and ``:labels:`` (a label
per column) name things in the author's words, with defaults from the unit ("Throughput
(TFLOP/s)"); table numbers are rounded to ``:digits:`` significant digits (3); a measured
column's ``_min`` and ``_max`` columns are drawn as a band (``:spread:``); sizes that double
get a log2 axis unless ``:xscale:`` says otherwise.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..core import paths
from . import charts, hardware, labels
from .data import BenchmarkError, Measurements, read_csv, read_metadata
from .plan import Peak, Plan, chart_spec, split
from .table import benchmark_table, build_table, depart_table_html, visit_table_html

logger = logging.getLogger(__name__)


class benchmark(nodes.figure):
    """The whole figure; written as a ``<figure>`` by every builder."""


class benchmark_chart(nodes.General, nodes.Element):
    """The chart; ``node["spec"]`` is a :class:`charts.ChartSpec`. HTML only."""


class RefusedPath(Exception):
    """A file the directive names that a post may not use (kb.core.paths)."""

    def __init__(self, option: str, shown: str, refusal: paths.Refusal) -> None:
        super().__init__(shown)
        self.option, self.shown, self.refusal = option, shown, refusal


class BenchmarkDirective(SphinxDirective):
    required_arguments = 1
    has_content = True
    option_spec = {
        "x": directives.unchanged_required,
        "y": directives.unchanged_required,
        "group": directives.unchanged_required,
        "columns": directives.unchanged_required,
        "chart": lambda arg: directives.choice(arg, ("line", "bar")),
        "xscale": lambda arg: directives.choice(arg, ("linear", "log2")),
        "xlabel": directives.unchanged_required,
        "ylabel": directives.unchanged_required,
        "x-label": directives.unchanged_required,  # the first spellings, still read
        "y-label": directives.unchanged_required,
        "labels": directives.unchanged_required,
        "spread": directives.unchanged_required,
        "digits": directives.positive_int,
        "unit": directives.unchanged_required,
        "hardware": directives.unchanged_required,
        "peak": directives.unchanged_required,
        "dtype": directives.unchanged_required,
        "software": directives.unchanged_required,
        "metadata": directives.unchanged_required,
        "title": directives.unchanged_required,
        "filter": directives.unchanged_required,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def run(self) -> list[nodes.Node]:
        try:
            plan = self._plan()
        except RefusedPath as refused:
            location = self.get_location()
            paths.warn(
                "benchmark", refused.shown, refused.refusal, location, refused.option, self.env
            )
            return []
        except BenchmarkError as error:
            logger.warning(
                "benchmark: %s",
                error,
                location=(self.env.docname, self.lineno),
                type="kb",
                subtype="benchmark",
            )
            return []
        return [self._figure(plan)]

    # -- Reading and checking ---------------------------------------------------------------

    def _load(self, argument: str, option: str, suffix: str, kind: str) -> Path:
        # Checked before anything is read: a refused file is never read, shown or published.
        refused = paths.site_refusal(
            self.env, paths.named_path(self.env, argument), suffixes=(suffix,), kind=kind
        )
        if refused is not None:
            raise RefusedPath(option, argument, refused)
        relative, absolute = self.env.relfn2path(argument, self.env.docname)
        self.env.note_dependency(relative)
        return Path(absolute)

    def _plan(self) -> Plan:
        data = read_csv(
            self._load(self.arguments[0], "", ".csv", "a CSV file"),
            shown=self.arguments[0],
        )
        if "filter" in self.options:
            data = data.where(split(self.options["filter"]))
        metadata = {}
        if "metadata" in self.options:
            shown = self.options["metadata"]
            path = self._load(shown, ":metadata:", ".json", "a JSON file")
            metadata = read_metadata(path, shown)
        ys = split(self.options.get("y"))
        if not ys:
            raise BenchmarkError(
                f"give :y: the column(s) of {data.shown} to plot (columns: {data.names})"
            )
        x = self.options.get("x", data.header[0])
        group = self.options.get("group")
        columns = split(self.options.get("columns")) or list(data.header)
        for column in [x, *ys, *([group] if group else []), *columns]:
            data.require(column)
        for column in ys:
            data.numbers(column)  # every value must be a number
        kind = self.options.get("chart") or ("line" if data.is_numeric(x) else "bar")
        if kind == "line":
            data.numbers(x)  # a line chart needs a numeric x: say which cell is not
        try:
            names = labels.parse_labels(self.options.get("labels"), data.header)
        except ValueError as error:
            raise BenchmarkError(str(error)) from None
        for column in names:
            data.require(column)
        gpu = self._gpu(metadata)
        unit = self.options.get("unit", "")
        peak = self._peak(gpu, unit) if "peak" in self.options else None
        if peak and not unit:
            unit = peak.metric.unit
        return Plan(
            data,
            x,
            ys,
            group,
            columns,
            unit,
            kind,
            gpu,
            peak,
            metadata,
            labels=names,
            spreads=self._spreads(data, ys),
            digits=self.options.get("digits", 3),
        )

    def _spreads(self, data: Measurements, ys: list[str]) -> dict[str, tuple[str, str]]:
        """Each measured column's low and high columns: ``:spread: low, high`` (one measured
        column), ``:spread: none``, or by default its ``_min`` and ``_max`` when the data has
        them."""
        option = self.options.get("spread", "").strip()
        if option.lower() == "none":
            return {}
        if not option:
            return {y: pair for y in ys if (pair := data.spread_columns(y)) is not None}
        pair = split(option)
        if len(pair) != 2 or len(ys) != 1:
            raise BenchmarkError(
                ":spread: takes none, or the low and high columns of the one :y: column "
                f"(e.g. {ys[0]}_min, {ys[0]}_max), got {option!r}"
            )
        for column in pair:
            data.require(column)
            data.numbers(column)
        return {ys[0]: (pair[0], pair[1])}

    def _gpu(self, metadata: dict[str, str]) -> hardware.Gpu | None:
        registry = hardware.load_registry()
        name, named_in = self.options.get("hardware"), ""
        if name is None:
            name, named_in = metadata.get("gpu"), f" (named in {self.options.get('metadata')})"
            if name is None or "peak" not in self.options:
                return registry.find(name) if name else None
        gpu = registry.find(name)
        if gpu is None:
            known = ", ".join(registry.gpus)
            raise BenchmarkError(
                f"unknown hardware {name!r}{named_in} (known: {known}); "
                f"add it to {hardware.REGISTRY_SHOWN}"
            )
        return gpu

    def _peak(self, gpu: hardware.Gpu | None, unit: str) -> Peak:
        registry = hardware.load_registry()
        key = self.options["peak"]
        metric = registry.metrics.get(key)
        if metric is None:
            known = ", ".join(registry.metrics)
            raise BenchmarkError(f"unknown peak metric {key!r} (known: {known})")
        if gpu is None:
            raise BenchmarkError(
                ":peak: needs :hardware: (one of: "
                f"{', '.join(registry.gpus)}) or a metadata file that names the GPU"
            )
        if key not in gpu.peaks:
            raise BenchmarkError(
                f"{gpu.name} has no {key} figure in {hardware.REGISTRY_SHOWN} "
                f"(it has: {', '.join(gpu.peaks)})"
            )
        unit = unit or metric.unit
        if unit not in hardware.UNITS:
            raise BenchmarkError(f"unknown :unit: {unit!r} (known: {', '.join(hardware.UNITS)})")
        try:
            value = hardware.convert(gpu.peaks[key], metric.unit, unit)
        except ValueError as error:
            raise BenchmarkError(f":peak: {key} is in {metric.unit}: {error}") from None
        self.env.note_dependency(str(hardware.REGISTRY))
        return Peak(gpu, metric, value)

    # -- Building the figure ------------------------------------------------------------------

    def _figure(self, plan: Plan) -> benchmark:
        title = self.options.get("title", "")
        figure = benchmark(classes=["kb-benchmark", *self.options.get("class", [])])
        self.set_source_info(figure)
        self.add_name(figure)
        chart = benchmark_chart(spec=chart_spec(plan, self.options, title))
        figure += chart
        figure += build_table(
            plan.data,
            plan.columns,
            {column: plan.header(column) for column in plan.columns},
            plan.ys,
            plan.peak.value if plan.peak else None,
            plan.digits,
            names={y: plan.name_of(y) for y in plan.ys},
        )
        # The caption once, under chart and table, as a paper's figure has it.
        if title:
            figure += nodes.caption(title, title)
        legend = nodes.legend()
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, legend)
        legend += self._measured_on(plan)
        legend += self._downloads(plan)
        figure += legend
        return figure

    def _measured_on(self, plan: Plan) -> list[nodes.Node]:
        facts = {
            "Hardware": plan.gpu.name if plan.gpu else plan.metadata.get("gpu", ""),
            "Data type": self.options.get("dtype", plan.metadata.get("dtype", "")),
            "Software": self.options.get("software", plan.metadata.get("software", "")),
            "Measured": plan.metadata.get("date", ""),
        }
        paragraph = nodes.paragraph(classes=["kb-benchmark-meta"])
        for label, value in facts.items():
            if value:
                paragraph += [nodes.strong(label, f"{label}: "), nodes.Text(f"{value}. ")]
        result = [paragraph] if len(paragraph) else []
        if plan.peak:
            peak = plan.peak
            note = nodes.paragraph(classes=["kb-benchmark-peak"])
            note += nodes.Text(
                f"% of peak: against {hardware.format_number(peak.value)} {plan.unit}, the "
                f"{peak.metric.label} peak of the {peak.gpu.name}. Source: "
            )
            note += _linkify(peak.gpu.source)
            result.append(note)
        return result

    def _downloads(self, plan: Plan) -> nodes.paragraph:
        paragraph = nodes.paragraph(classes=["kb-benchmark-downloads"])
        paragraph += nodes.Text("Download the data: ")
        paragraph += self._download(self.arguments[0])
        if "metadata" in self.options:
            paragraph += nodes.Text(" and how it was measured: ")
            paragraph += self._download(self.options["metadata"])
        return paragraph

    def _download(self, target: str) -> addnodes.download_reference:
        # Sphinx's download collector copies the file into _downloads/ and links it.
        name = Path(target).name
        reference = addnodes.download_reference(
            "", "", reftarget=target, refdoc=self.env.docname, refexplicit=True, refwarn=False
        )
        reference += nodes.literal(name, name, classes=["xref", "download"])
        return reference


def _linkify(text: str) -> list[nodes.Node]:
    """Text with its URLs turned into links."""
    result: list[nodes.Node] = []
    position = 0
    for match in re.finditer(r"https?://\S+[^\s.,;)]", text):
        result.append(nodes.Text(text[position : match.start()]))
        result.append(nodes.reference(match.group(), match.group(), refuri=match.group()))
        position = match.end()
    result.append(nodes.Text(text[position:]))
    return result


# -- Writers ------------------------------------------------------------------------------


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


def setup_benchmark(app: Sphinx) -> None:
    app.add_node(benchmark)
    skip = (skip_node, None)
    app.add_node(
        benchmark_chart,
        html=(visit_chart_html, None),
        latex=skip,
        text=skip,
        man=skip,
        texinfo=skip,
    )
    app.add_node(benchmark_table, html=(visit_table_html, depart_table_html))
    app.add_directive("benchmark", BenchmarkDirective)
    app.add_css_file("kb-benchmark.css")
