"""What a benchmark figure leaves for the rest of the site: one :class:`~kb.core.datasets.Dataset`
per CSV file it shows, recorded when the post is read.

The directive makes each dataset from its plan (:func:`dataset`) and hangs the list on the
figure; once Sphinx's download collector has named the published copies of the files
(``doctree-read``), :func:`_doctree_read` adds their paths and records the document's datasets
in the environment (kb.core.datasets), from which the dataset catalog, the benchmarks page
and comparisons in other posts read them.
"""

from __future__ import annotations

import re
from dataclasses import replace

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

from ..core import datasets, events
from ..core.datasets import Dataset, Reference, Series
from . import labels
from . import plan as plan_module
from .plan import Plan, split

#: Units in which less is better: the best value is the smallest.
TIME_UNITS = {"s", "ms", "µs", "ns"}


def figure_name(document: nodes.document, given: str, csv: str) -> str:
    """A figure's anchor: its ``:name:`` (as docutils makes an id of it), else
    ``benchmark-<CSV file name>``, numbered when the page already has that id."""
    if given:
        return nodes.make_id(given)
    stem = re.sub(r"\.csv$", "", csv.rsplit("/", 1)[-1], flags=re.I)
    base = nodes.make_id(f"benchmark-{stem}") or "benchmark"
    candidate, number = base, 1
    while candidate in document.ids:
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def dataset_title(plan: Plan, options: dict, facts: dict, series, gpu: str) -> str:
    """A dataset's name of its own, for the catalog: the metadata's ``title``; else what was
    measured, against what, on which GPU, and the series ("Throughput by matrix size
    M = N = K on H200 (BF16)"). A figure's caption is no name: "The same for FP8" means
    something only under the figure before it."""
    if isinstance(facts.get("title"), str) and facts["title"].strip():
        return facts["title"].strip()
    quantity = _without_unit(plan_module.y_label(plan, options))
    against = _without_unit(plan_module.x_label(plan, options))
    if not quantity or not against:
        return ""
    if not re.match(r"^[A-Z0-9]{2}|^[^A-Za-z]", against):
        against = against[:1].lower() + against[1:]
    title = f"{quantity} by {against}" + (f" on {gpu}" if gpu else "")
    names = [one.label for one in series if one.label]
    parts = []
    if plan.group and 1 <= len(names) <= 4:
        shown = " / ".join(names)
        # Bare numbers say what they are: "Head dim 64 / 128".
        numeric = all(re.fullmatch(r"[-+.\d]+", name) for name in names)
        parts.append(f"{plan.name_of(plan.group)} {shown}" if numeric else shown)
    # What a :filter: keeps, beyond the series: two figures of one CSV get two names.
    for condition in split(options.get("filter")):
        column, _, wanted = (part.strip() for part in condition.partition("="))
        if column and column != plan.group and wanted and column in plan.data.header:
            values = [plan.value_of(v.strip()) for v in wanted.split("|")]
            parts.append(f"{plan.name_of(column).lower()} {' / '.join(values)}")
    return title + (f" ({'; '.join(parts)})" if parts else "")


def _without_unit(label: str) -> str:
    return re.sub(r"\s*\([^()]*\)$", "", label).strip()


def dtype_of(plan: Plan, options: dict, facts: dict) -> str:
    """``:dtype:``; else the values the figure shows of a ``dtype`` column; else the
    metadata's; each in the site's one spelling (labels.DTYPES), in its order."""
    found = [options["dtype"]] if options.get("dtype") else []
    if not found:
        column = next((c for c in plan.data.header if c.lower() == "dtype"), None)
        found = plan.data.values(column) if column else []
    if not found and facts.get("dtype"):
        found = [str(facts["dtype"])]
    words = [labels.dtype_word(part) for value in found for part in value.split(",")]
    return ", ".join(sorted(dict.fromkeys(w for w in words if w), key=labels.dtype_key))


def _x_shown(plan: Plan, x: float | str) -> str:
    if isinstance(x, str):
        return x
    return labels.tick_label(x, plan.unit_of(plan.x))


def dataset(
    plan: Plan,
    options: dict,
    facts: dict,
    *,
    docname: str,
    name: str,
    anchor: str,
    title: str,
    line: int,
    csv: str,
    metadata: str = "",
) -> Dataset:
    """The facts of one CSV file as ``plan`` shows it."""
    y = plan.ys[0]
    unit = plan.unit_of(y)
    numeric_x = plan.kind == "line"
    drawn = plan.data.series(
        plan.x, [y], plan.group, numeric_x, names={y: plan.name_of(y)}, values=plan.value_names()
    )
    series = tuple(Series(one.label, one.points) for one in drawn)
    points = [(value, x, one.label) for one in series for x, value in one.points]
    best, best_at = None, ""
    if points:
        pick = min if unit in TIME_UNITS else max
        best, x, label = pick(points, key=lambda point: point[0])
        # "M = N = K 8192", "Size 1 GiB"; a label on a bar chart says itself: "head dim 128"
        best_at = (
            _x_shown(plan, x)
            if isinstance(x, str)
            else f"{plan.name_of(plan.x)} {_x_shown(plan, x)}"
        )
        if plan.group:  # "bf16"; a bare number says what it is: "Head dimension 128"
            numeric = re.fullmatch(r"[-+.\d]+", label) is not None
            best_at += f", {plan.name_of(plan.group)} {label}" if numeric else f", {label}"
    gpu = plan.gpu
    metric, metric_label = "", labels.QUANTITIES.get(unit, "").lower()
    if plan.peak:
        metric, metric_label = plan.peak.metric.key, plan.peak.metric.label
    elif metric_label:
        metric = metric_label
    return Dataset(
        docname=docname,
        name=name,
        anchor=anchor,
        title=dataset_title(plan, options, facts, series, gpu.short if gpu else "")
        or title
        or csv.rsplit("/", 1)[-1],
        line=line,
        csv=csv,
        metadata=metadata,
        gpu_key=gpu.key if gpu else "",
        gpu_name=gpu.name if gpu else str(facts.get("gpu", "")),
        gpu_short=gpu.short if gpu else str(facts.get("gpu", "")),
        dtype=dtype_of(plan, options, facts),
        measured=str(facts.get("date", "")),
        software=options.get("software") or str(facts.get("software", "")),
        versions=tuple(facts.get("versions", {}).items()),
        unit=unit,
        metric=metric,
        metric_label=metric_label,
        x=plan.x,
        x_label=plan.name_of(plan.x),
        x_unit=plan.unit_of(plan.x),
        y=y,
        y_label=plan.name_of(y),
        group=plan.group or "",
        filter=options.get("filter", ""),
        best=best,
        best_shown=labels.round_value(best, plan.digits) if best is not None else "",
        best_at=best_at,
        peak=plan.peak.value if plan.peak else None,
        peak_source=plan.peak.gpu.source if plan.peak else "",
        command=str(facts.get("command", "")),
        series=series,
    )


def attach(
    figure: nodes.Element,
    found: list[tuple[Dataset, str, str]],
    references: list[Reference],
) -> None:
    """Hang a figure's datasets on it, each with its CSV and metadata files as the directive
    names them, for :func:`_doctree_read` to record."""
    figure["kb_datasets"] = list(found)
    figure["kb_references"] = list(references)


def _downloads(figure: nodes.Element) -> dict[str, str]:
    """Each file the figure offers for download -> its path in the output folder."""
    found = {}
    for reference in figure.findall(addnodes.download_reference):
        if reference.get("filename"):
            found[reference["reftarget"]] = f"_downloads/{reference['filename']}"
    return found


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    found: list[Dataset] = []
    references: list[Reference] = []
    for figure in doctree.findall(nodes.figure):
        if "kb_datasets" not in figure:
            continue
        published = _downloads(figure)
        for one, csv, metadata in figure["kb_datasets"]:
            found.append(
                replace(
                    one,
                    csv_download=published.get(csv, ""),
                    metadata_download=published.get(metadata, "") if metadata else "",
                )
            )
        references.extend(figure["kb_references"])
        # Recorded: the doctree need not carry them (it is pickled for every page written).
        del figure["kb_datasets"], figure["kb_references"]
    datasets.record(app.env, app.env.docname, found, references)


def setup_facts(app: Sphinx) -> None:
    # After Sphinx's download collector (500) has named the published copies.
    app.connect("doctree-read", _doctree_read, priority=events.READ_POST_RECORDS)
