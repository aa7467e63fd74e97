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

Each figure has a stable anchor (its ``:name:``, else ``benchmark-<CSV name>``) and leaves its
datasets for the rest of the site (facts.py: the benchmarks page, ``data/benchmarks.json``);
with several CSV files or ``:compare:`` it draws them on one chart (compare.py); a metadata
file that names its ``command`` adds a Reproduce block (caption.py).
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..core import paths
from ..core.html import add_html_node, skip_node
from . import caption, compare, hardware, labels
from . import facts as facts_module
from .caption import (
    benchmark_reproduce,
    depart_reproduce_html,
    visit_reproduce_html,
    visit_reproduce_other,
)
from .data import (
    BenchmarkError,
    Measurements,
    RefusedPath,
    load_metadata,
    metadata_facts,
    read_csv,
)
from .elements import (
    benchmark,
    benchmark_chart,
    benchmark_comparison,
    benchmark_data,
    depart_data_html,
    folded,
    pass_node,
    visit_chart_html,
    visit_data_html,
)
from .plan import Peak, Plan, chart_spec, split
from .table import benchmark_table, build_table, depart_table_html, visit_table_html

logger = logging.getLogger(__name__)


class BenchmarkDirective(SphinxDirective):
    required_arguments = 0
    optional_arguments = 8  # several CSV files: a comparison
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
        "compare": directives.unchanged_required,
        "legend": directives.unchanged_required,
        "name": directives.unchanged,
        "class": directives.class_option,
    }

    def run(self) -> list[nodes.Node]:
        try:
            if len(self.arguments) > 1 or "compare" in self.options:
                return [compare.comparison(self)]
            if not self.arguments:
                raise BenchmarkError("give the CSV file of measurements to show")
            plan, facts = self.plan_for(self.arguments[0], self.options.get("metadata", ""))
            return [self._figure(plan, facts)]
        except RefusedPath as refused:
            location = self.get_location()
            paths.warn(
                "benchmark", refused.shown, refused.refusal, location, refused.option, self.env
            )
        except BenchmarkError as error:
            self.warn(str(error))
        return []

    def warn(self, message: str) -> None:
        logger.warning(
            "benchmark: %s",
            message,
            location=(self.env.docname, self.lineno),
            type="kb",
            subtype="benchmark",
        )

    # -- Reading and checking ---------------------------------------------------------------

    def load(self, argument: str, option: str, suffix: str, kind: str) -> tuple[str, Path]:
        """A file the directive names: its path from the source folder, and on disk."""
        # Checked before anything is read: a refused file is never read, shown or published.
        refused = paths.site_refusal(
            self.env, paths.named_path(self.env, argument), suffixes=(suffix,), kind=kind
        )
        if refused is not None:
            raise RefusedPath(option, argument, refused)
        relative, absolute = self.env.relfn2path(argument, self.env.docname)
        self.env.note_dependency(relative)
        return Path(relative).as_posix(), Path(absolute)

    def plan_for(self, argument: str, metadata_file: str, lenient: bool = False):
        """The plan of one CSV file and the facts of its metadata file. ``lenient`` (in a
        comparison): a GPU without the ``:peak:`` metric, or none, is drawn without a peak."""
        data = read_csv(self.load(argument, "", ".csv", "a CSV file")[1], shown=argument)
        if "filter" in self.options:
            data = data.where(split(self.options["filter"]))
        facts = {}
        if metadata_file:
            path = self.load(metadata_file, ":metadata:", ".json", "a JSON file")[1]
            facts = metadata_facts(load_metadata(path, metadata_file))
        metadata = {k: facts[k] for k in ("gpu", "dtype", "date", "software") if k in facts}
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
        # :labels: names columns, and the values of the group column (copy_d2d=copy): those
        # come from the metadata's "labels" too, the directive's words first.
        group_values = data.values(group) if group else []
        try:
            names = labels.parse_labels(self.options.get("labels"), [*data.header, *group_values])
        except ValueError as error:
            raise BenchmarkError(str(error)) from None
        values = {k: v for k, v in facts.get("labels", {}).items() if k in group_values}
        values.update({k: v for k, v in names.items() if k in group_values})
        names = {k: v for k, v in names.items() if k not in values or k in data.header}
        for column in names:
            data.require(column)
        gpu = self._gpu(metadata, metadata_file)
        unit = self.options.get("unit", "")
        peak = None
        if "peak" in self.options and not (lenient and not self._has_peak(gpu)):
            peak = self._peak(gpu, unit)
        if peak and not unit:
            unit = peak.metric.unit
        plan = Plan(
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
            values=values,
            spreads=self._spreads(data, ys),
            digits=self.options.get("digits", 3),
        )
        return plan, facts

    def _spreads(self, data: Measurements, ys: list[str]) -> dict[str, tuple[str, str]]:
        """Each measured column's low and high columns: ``:spread: low, high`` (one measured
        column), ``:spread: none``, or by default its ``_min`` and ``_max`` when the data has
        them."""
        option = self.options.get("spread", "").strip()
        if option.lower() == "none":
            return {}
        if not option:
            return {y: pair for y in ys if (pair := data.spread_columns(y)) is not None}
        named = split(option)
        if len(named) != 2 or len(ys) != 1:
            raise BenchmarkError(
                ":spread: takes none, or the low and high columns of the one :y: column "
                f"(e.g. {ys[0]}_min, {ys[0]}_max), got {option!r}"
            )
        for column in named:
            data.require(column)
            data.numbers(column)
        return {ys[0]: (named[0], named[1])}

    def _gpu(self, metadata: dict[str, str], metadata_file: str) -> hardware.Gpu | None:
        registry = hardware.load_registry()
        name, named_in = self.options.get("hardware"), ""
        if name is None:
            name, named_in = metadata.get("gpu"), f" (named in {metadata_file})"
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

    def _has_peak(self, gpu: hardware.Gpu | None) -> bool:
        return gpu is not None and self.options["peak"] in gpu.peaks

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

    def new_figure(self) -> tuple[benchmark, str]:
        """An empty figure with its stable id (see facts.figure_name), and that id."""
        figure = benchmark(classes=["kb-benchmark", *self.options.get("class", [])])
        self.set_source_info(figure)
        if self.options.get("name"):
            self.add_name(figure)
            if figure["ids"]:
                return figure, figure["ids"][0]
        first = self.arguments[0] if self.arguments else "comparison"
        anchor = facts_module.figure_name(self.state.document, "", first)
        figure["ids"].append(anchor)
        self.state.document.ids[anchor] = figure
        return figure, anchor

    def dataset(self, plan: Plan, facts: dict, name: str, anchor: str, csv: str, meta: str):
        """The dataset of one CSV file the figure shows, with its files as the post names
        them (facts.attach)."""
        found = facts_module.dataset(
            plan,
            self.options,
            facts,
            docname=self.env.docname,
            name=name,
            anchor=anchor,
            title=self.options.get("title", ""),
            line=self.lineno,
            csv=self.load(csv, "", ".csv", "a CSV file")[0],
            metadata=self.load(meta, ":metadata:", ".json", "a JSON file")[0] if meta else "",
        )
        return found, csv, meta

    def _figure(self, plan: Plan, facts: dict) -> benchmark:
        title = self.options.get("title", "")
        figure, anchor = self.new_figure()
        figure += benchmark_chart(spec=chart_spec(plan, self.options, title))
        constant = plan.constant_columns()
        shown = [column for column in plan.columns if column not in constant]
        table = build_table(
            plan.data,
            shown,
            {column: plan.header(column) for column in shown},
            plan.ys,
            plan.peak.value if plan.peak else None,
            plan.digits,
            names={y: plan.name_of(y) for y in plan.ys},
            units={column: plan.unit_of(column) for column in shown},
            values={plan.group: plan.value_names()} if plan.group else {},
        )
        figure += folded(table, len(plan.data.rows))
        metadata_file = self.options.get("metadata", "")
        files = [(self.arguments[0], metadata_file)]
        measured = caption.measured_on(plan, self.options)
        if constant:
            measured.insert(0, caption.every_row(plan, constant))
        self.add_caption(figure, measured, files, [facts])
        found = self.dataset(plan, facts, anchor, anchor, self.arguments[0], metadata_file)
        facts_module.attach(figure, [found], [])
        return figure

    def add_caption(self, figure: benchmark, measured, files, all_facts) -> None:
        """The caption, once, under chart and table, as a paper's figure has it; then the
        author's text, what the data was measured on, the downloads and how to reproduce it."""
        title = self.options.get("title", "")
        if title:
            figure += nodes.caption(title, title)
        legend = nodes.legend()
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, legend)
        legend += measured
        if files:
            legend += caption.downloads(self.env.docname, files)
        for facts in all_facts:
            legend += caption.reproduce(facts)
        figure += legend


# -- Writers ------------------------------------------------------------------------------


def setup_benchmark(app: Sphinx) -> None:
    app.add_node(benchmark)
    add_html_node(app, benchmark_chart, visit_chart_html)
    skip = (skip_node, None)  # resolved into a table first (compare.py); never written itself
    app.add_node(benchmark_comparison, html=skip, latex=skip, text=skip, man=skip, texinfo=skip)
    plain = (visit_reproduce_other, visit_reproduce_other)
    add_html_node(
        app, benchmark_reproduce, visit_reproduce_html, depart_reproduce_html, elsewhere=plain
    )
    app.add_node(benchmark_table, html=(visit_table_html, depart_table_html))
    through = (pass_node, pass_node)
    app.add_node(
        benchmark_data,
        html=(visit_data_html, depart_data_html),
        latex=through,
        text=through,
        man=through,
        texinfo=through,
    )
    app.add_directive("benchmark", BenchmarkDirective)
    app.add_css_file("kb-benchmark.css")
    facts_module.setup_facts(app)
    compare.setup_compare(app)
