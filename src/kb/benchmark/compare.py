"""Comparisons: several datasets on one chart, from this post's CSV files and other posts'.

````markdown
```{benchmark} data/b200-gemm.csv data/h100-gemm.csv
:x: m
:y: tflops_median
:metadata: data/b200-gemm.json, data/h100-gemm.json
:compare: posts/2026/h200-gemm-and-memory-bandwidth#h200-gemm-bf16
:peak: dense_bf16
:legend: gpu
```
````

Each CSV file (with the metadata file at the same place in ``:metadata:``) and each dataset
named in ``:compare:`` (``<post>#<dataset name>``; ``#<name>`` for one of this post, a path
with ``./`` or ``../`` from this post's folder) becomes one or more series, labelled by the
legend: ``gpu`` (each dataset's GPU), ``name`` (its dataset name), ``title``, or one label per
dataset in order. Values are converted to ``:unit:`` (else the first dataset's: GFLOP/s,
TFLOP/s and PFLOP/s, GB/s and TB/s convert), and each GPU's peak of the ``:peak:`` metric
(else each dataset's own) is marked.

Another post's dataset is only known once every post is read, so the figure is a placeholder
(``benchmark_comparison``) until the page is written (:class:`ResolveComparisons`). A name
that leads nowhere, or a unit that does not convert, is a warning at the directive's line on
every build; a figure's page is rewritten when a dataset it shows changes (a freshness
signer), and only then.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from ..core import datasets, paths
from ..core.datasets import Dataset, Reference
from ..core.posts import digest
from ..incremental.freshness import add_signer
from . import charts, hardware, labels
from .data import BenchmarkError, RefusedPath
from .elements import benchmark, benchmark_chart, benchmark_comparison
from .facts import attach
from .plan import split
from .table import rows_table

logger = logging.getLogger(__name__)

LEGENDS = ("gpu", "name", "title")
#: The directive's options a comparison is drawn with.
DRAW_OPTIONS = ("unit", "peak", "legend", "xlabel", "ylabel", "xscale", "chart", "title", "digits")


# -- Reading: the figure, with a placeholder for the chart and the table -----------------------


def comparison(directive) -> benchmark:
    options = directive.options
    metadata_files = split(options.get("metadata"))
    if len(metadata_files) > len(directive.arguments):
        raise BenchmarkError(
            f":metadata: names {len(metadata_files)} files for {len(directive.arguments)} CSV "
            "file(s): give one per CSV file, in the same order"
        )
    figure, anchor = directive.new_figure()
    found, files, all_facts = [], [], []
    for index, argument in enumerate(directive.arguments):
        metadata = metadata_files[index] if index < len(metadata_files) else ""
        plan, facts = directive.plan_for(argument, metadata, lenient=True)
        name = anchor if index == 0 else f"{anchor}-{index + 1}"
        found.append(directive.dataset(plan, facts, name, anchor, argument, metadata))
        files.append((argument, metadata))
        all_facts.append(facts)
    unit = options.get("unit") or (found[0][0].unit if found else "")
    if unit and options.get("unit") and unit not in hardware.UNITS:
        raise BenchmarkError(f"unknown :unit: {unit!r} (known: {', '.join(hardware.UNITS)})")
    references = references_of(directive, unit) if "compare" in options else []
    keys = [one.key for one, _, _ in found] + [reference.target for reference in references]
    if len(keys) < 2:
        raise BenchmarkError(
            "a comparison needs two datasets or more: CSV files, or "
            ":compare: <post>#<dataset name>, comma-separated"
        )
    legend = options.get("legend", "").strip()
    if legend and legend not in LEGENDS and len(split(legend)) != len(keys):
        raise BenchmarkError(
            f":legend: takes {', '.join(LEGENDS)}, or one label per dataset ({len(keys)}), "
            f"got {legend!r}"
        )
    drawn = {key: options[key] for key in DRAW_OPTIONS if key in options}
    figure += benchmark_comparison(keys=keys, options=drawn)
    directive.add_caption(figure, [], files, all_facts)
    attach(figure, found, references)
    return figure


def references_of(directive, unit: str) -> list[Reference]:
    """``:compare:``'s datasets as ``<docname>#<name>``, each checked to name a page of the
    repository (kb.core.paths) before anything is looked up."""
    env = directive.env
    result = []
    for item in split(directive.options["compare"]):
        page, sep, name = item.partition("#")
        page, name = page.strip(), name.strip()
        if not sep or not name:
            raise BenchmarkError(
                f":compare: takes <post>#<dataset name> (e.g. posts/2026/x#h200-gemm), got {item!r}"
            )
        page = page.removesuffix(".md").removesuffix(".html")
        if page.startswith(("./", "../")):
            page = posixpath.normpath(posixpath.join(posixpath.dirname(env.docname), page))
        docname = page.lstrip("/") or env.docname
        refused = paths.site_refusal(env, Path(env.srcdir, docname))
        if refused is not None:
            raise RefusedPath(":compare:", item, refused)
        result.append(Reference(f"{docname}#{name}", directive.lineno, unit))
    return result


# -- Writing: the chart and the table, from every dataset named ---------------------------------


class ResolveComparisons(SphinxPostTransform):
    """Each comparison's chart and table, now that every post has been read. Before furo wraps
    tables (500), so that a comparison's table scrolls like any other."""

    default_priority = 400

    def run(self, **kwargs) -> None:
        for node in list(self.document.findall(benchmark_comparison)):
            found = [one for key in node["keys"] if (one := datasets.find(self.env, key))]
            figure = node.parent
            node.replace_self(draw(found, node["options"]))
            shown = [one for one in found if one.docname != self.env.docname]
            if shown and isinstance(figure, benchmark):
                self._also_shown(figure, shown)

    def _also_shown(self, figure: benchmark, shown: list[Dataset]) -> None:
        """ "Also shown: <dataset> in <post>", linked to the figure there."""
        paragraph = nodes.paragraph(classes=["kb-benchmark-compared"])
        paragraph += nodes.Text("Also shown: ")
        for index, one in enumerate(shown):
            if index:
                paragraph += nodes.Text("; ")
            # Linked once the builder is at hand (_link_also_shown): a post transform is
            # given no public handle on it.
            paragraph += nodes.reference(
                "", one.title, refuri=f"#{one.anchor}", kb_docname=one.docname
            )
            title = self.env.titles.get(one.docname)
            if title is not None:
                paragraph += nodes.Text(f" in {title.astext()}")
        paragraph += nodes.Text(".")
        legend = next(iter(figure.findall(nodes.legend)), None)
        if legend is None:
            legend = nodes.legend()
            figure += legend
        legend += paragraph


def _factor(unit: str, to_unit: str) -> float:
    if unit == to_unit:
        return 1.0
    if unit not in hardware.UNITS or to_unit not in hardware.UNITS:
        raise ValueError(f"cannot compare {unit or 'values without a unit'} with {to_unit}")
    return hardware.convert(1.0, unit, to_unit)


def legend_labels(found: list[Dataset], legend: str) -> list[str]:
    if legend and legend not in LEGENDS:
        return split(legend)[: len(found)] + [one.name for one in found[len(split(legend)) :]]
    if not legend:
        gpus = [one.gpu_short for one in found]
        legend = "gpu" if all(gpus) and len(set(gpus)) == len(gpus) else "name"
    if legend == "gpu":
        return [one.gpu_short or one.name for one in found]
    return [one.title if legend == "title" else one.name for one in found]


def _peak_of(one: Dataset, metric_key: str, unit: str) -> float | None:
    registry = hardware.load_registry()
    gpu, metric = registry.gpus.get(one.gpu_key), registry.metrics.get(metric_key)
    if gpu is None or metric is None or metric_key not in gpu.peaks or unit not in hardware.UNITS:
        return None
    try:
        return hardware.convert(gpu.peaks[metric_key], metric.unit, unit)
    except ValueError:
        return None


def draw(found: list[Dataset], options: dict) -> list[nodes.Node]:
    """The chart and the table of a comparison, each dataset in the comparison's unit."""
    unit = options.get("unit") or (found[0].unit if found else "")
    usable = []
    for one in found:
        try:
            usable.append((one, _factor(one.unit, unit)))
        except ValueError:
            continue  # reported at its directive's line (_check)
    if not usable:
        return [nodes.paragraph("", "No data to compare.", classes=["kb-benchmark-empty"])]
    names = legend_labels([one for one, _ in usable], options.get("legend", "").strip())
    registry = hardware.load_registry()
    digits = options.get("digits", 3)
    numeric_x = all(
        isinstance(x, int | float) for one, _ in usable for s in one.series for x, _ in s.points
    )
    kind = options.get("chart") or ("line" if numeric_x else "bar")
    x_unit = usable[0][0].x_unit

    def x_value(x):
        if kind == "line" or isinstance(x, str):
            return x
        return labels.tick_label(x, x_unit)

    series: list = []
    rows: list = []
    peaks: dict = {}
    grouped = any(len(one.series) > 1 or one.group for one, _ in usable)
    for (one, factor), name in zip(usable, names, strict=True):
        metric_key = options.get("peak") or one.metric
        peak = _peak_of(one, metric_key, unit)
        if peak is not None:
            metric = registry.metrics[metric_key]
            peaks.setdefault((peak, metric.label), []).append(one.gpu_short)
        for line in one.series:
            label = f"{name} · {line.label}" if one.group else name
            points = tuple((x_value(x), y * factor) for x, y in line.points)
            series.append(charts.Series(label, points))
            for x, y in points:
                row = [name, *([line.label if one.group else ""] if grouped else [])]
                row += [x if isinstance(x, str) else labels.tick_label(x, x_unit)]
                row += [labels.round_value(y, digits)]
                if peak is not None:
                    row.append(f"{100 * y / peak:.1f}")
                rows.append(row)
    first = usable[0][0]
    shown_x_unit = "" if x_unit in labels.BYTE_UNITS else x_unit
    x_label = options.get("xlabel") or labels.with_unit(first.x_label, shown_x_unit)
    y_name = labels.QUANTITIES.get(unit, "") or first.y_label
    y_label = options.get("ylabel") or labels.with_unit(y_name, unit)
    header = ["Data", *(["Series"] if grouped else []), x_label, labels.with_unit(y_name, unit)]
    numeric = [False, *([False] if grouped else []), numeric_x, True]
    if peaks:
        header.append("% of peak")
        numeric.append(True)
        rows = [row + [""] * (len(header) - len(row)) for row in rows]
    peak_lines = tuple(
        (
            value,
            f"{', '.join(dict.fromkeys(gpus))} {metric} peak: "
            f"{hardware.format_number(value)} {unit}",
        )
        for (value, metric), gpus in sorted(peaks.items())
    )
    xscale = options.get("xscale") or (
        charts.default_xscale(x for one in series for x, _ in one.points)
        if kind == "line"
        else "linear"
    )
    spec = charts.ChartSpec(
        kind=kind,
        title=options.get("title") or ", ".join(names),
        x_label=x_label,
        y_label=y_label,
        series=tuple(series),
        xscale=xscale,
        x_unit=x_unit,
        digits=digits,
        more_peaks=peak_lines,
    )
    return [benchmark_chart(spec=spec), rows_table(header, rows, numeric)]


# -- Every build: names that lead nowhere; pages to rewrite when a dataset they show changes ----


def _check(app: Sphinx, catalog) -> None:
    env = app.env
    for docname in datasets.documents(env):
        for reference in datasets.references_of(env, docname):
            problem = _problem(env, reference)
            if problem:
                logger.warning(
                    "benchmark: :compare: %s",
                    problem,
                    location=(docname, reference.line),
                    type="kb",
                    subtype="benchmark",
                )


def _problem(env, reference: Reference) -> str:
    page, _, name = reference.target.partition("#")
    found = datasets.find(env, reference.target)
    if found is None:
        if page not in env.found_docs:
            return (
                f"{reference.target!r}: there is no page {page!r} (a post dated after today "
                "is a draft, which the site does not show yet)"
            )
        names = [one.name for one in datasets.datasets_of(env, page)]
        shown = f"its datasets: {', '.join(names)}" if names else "it shows none"
        return f"{reference.target!r}: {page} shows no dataset named {name!r} ({shown})"
    try:
        _factor(found.unit, reference.unit or found.unit)
    except ValueError as error:
        return f"{reference.target!r}: {error}"
    return ""


def _signer(app: Sphinx, docname: str) -> str:
    references = datasets.references_of(app.env, docname)
    if not references:
        return ""
    parts = []
    for reference in references:
        found = datasets.find(app.env, reference.target)
        title = app.env.titles.get(found.docname) if found else None
        parts.append(found.fingerprint() if found else f"missing:{reference.target}")
        parts.append(title.astext() if title is not None else "")
    return digest(parts)


def _link_also_shown(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Point the "Also shown" links at the other posts' pages, relative to this one."""
    for reference in doctree.findall(nodes.reference):
        target = reference.get("kb_docname")
        if target is not None:
            uri = app.builder.get_relative_uri(docname, target)
            reference["refuri"] = uri + reference["refuri"]
            del reference["kb_docname"]


def setup_compare(app: Sphinx) -> None:
    app.add_post_transform(ResolveComparisons)
    app.connect("doctree-resolved", _link_also_shown)
    app.connect("kb-catalog-built", _check)
    add_signer(app, _signer)
