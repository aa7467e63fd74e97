"""What a ``benchmark`` directive will draw: its plan (data, columns, units, labels, the GPU's
peak) and the chart spec made from it. Pure data: no docutils nodes here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import charts, hardware, labels
from .data import Measurements


def split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


@dataclass
class Peak:
    gpu: hardware.Gpu
    metric: hardware.Metric
    value: float  # in the directive's unit


@dataclass
class Plan:
    """What one directive asks for, checked against the data."""

    data: Measurements
    x: str
    ys: list[str]
    group: str | None
    columns: list[str]
    unit: str
    kind: str  # of chart: "line" or "bar"
    gpu: hardware.Gpu | None
    peak: Peak | None
    metadata: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # column -> the author's words
    spreads: dict[str, tuple[str, str]] = field(default_factory=dict)  # y -> (low, high)
    digits: int = 3  # significant digits of the table's numbers
    values: dict[str, str] = field(default_factory=dict)  # a group value -> the author's words

    def unit_of(self, column: str) -> str:
        """A column's unit: ``:unit:`` for the measured columns and their spread, else the
        unit its name carries (``ms_median`` is in ms)."""
        spread = {c for pair in self.spreads.values() for c in pair}
        if self.unit and (column in self.ys or column in spread):
            return self.unit
        return labels.name_unit(column)

    def name_of(self, column: str) -> str:
        """A column in words: its ``:labels:`` entry, else its name without the unit
        (``latency_ms_p99`` -> "Latency p99")."""
        return self.labels.get(column) or labels.capitalised(labels.plain_name(column))

    def value_of(self, value: str) -> str:
        """A group value in words: its ``:labels:`` or metadata entry, else an identifier's
        words (``write_fill`` -> "write fill"), never the identifier; a data type in the
        site's one spelling (``bf16`` -> "BF16")."""
        if value in self.values:
            return self.values[value]
        if self.group and self.group.lower() == "dtype":
            return labels.dtype_word(value)
        return labels.identifier_words(value)

    def value_names(self) -> dict[str, str]:
        if not self.group:
            return {}
        found = {value: self.value_of(value) for value in self.data.values(self.group)}
        words = list(found.values())
        # Two values one word (fp8_e4m3 and fp8_e4m3_fastacc are both FP8 E4M3): their own.
        return {
            value: word if words.count(word) == 1 else labels.identifier_words(value)
            for value, word in found.items()
        }

    def header(self, column: str) -> str:
        """A table header: the column in words with its unit, "Median (TFLOP/s)"; a size in
        bytes says its unit in each cell ("8 GiB"), as the axis does."""
        unit = self.unit_of(column)
        return labels.with_unit(self.name_of(column), "" if unit in labels.BYTE_UNITS else unit)

    def constant_columns(self) -> list[str]:
        """The shown columns other than the measured ones that hold one value on every row
        (a "Data type" that is bf16 throughout): the caption says it once instead."""
        if len(self.data.rows) < 2:
            return []
        measured = set(self.ys) | {c for pair in self.spreads.values() for c in pair}
        return [
            column
            for column in self.columns
            if column not in measured and len(self.data.values(column)) == 1
        ]


def chart_spec(plan: Plan, options: dict, title: str) -> charts.ChartSpec:
    """What the chart draws: its series, axes, labels and the GPU's peak."""
    peak_value, peak_label = None, ""
    if plan.peak:
        peak_value = plan.peak.value
        peak_label = (
            f"{plan.peak.gpu.short} {plan.peak.metric.label} peak: "
            f"{hardware.format_number(peak_value)} {plan.unit}"
        )
    numeric_x = plan.kind == "line"
    series = plan.data.series(
        plan.x,
        plan.ys,
        plan.group,
        numeric_x,
        names={y: plan.name_of(y) for y in plan.ys},
        spreads=plan.spreads,
        values=plan.value_names(),
    )
    xscale = options.get("xscale") or (
        charts.default_xscale(x for one in series for x, _ in one.points) if numeric_x else "linear"
    )
    return charts.ChartSpec(
        kind=plan.kind,
        title=title or Path(plan.data.shown).name,
        x_label=x_label(plan, options),
        y_label=y_label(plan, options),
        series=tuple(series),
        xscale=xscale,
        peak=peak_value,
        peak_label=peak_label,
        legend_title=plan.name_of(plan.group) if plan.group else "",
        x_unit=plan.unit_of(plan.x),
        spread_label=spread_label(plan),
        digits=plan.digits,
    )


def x_label(plan: Plan, options: dict) -> str:
    given = options.get("xlabel") or options.get("x-label")
    if given:
        return given
    unit = plan.unit_of(plan.x)
    if unit in labels.BYTE_UNITS:  # the ticks say it: 32 MiB, 2 GiB
        unit = ""
    return labels.with_unit(plan.name_of(plan.x), unit)


def y_label(plan: Plan, options: dict) -> str:
    """``:ylabel:``; else the measured column's label with its unit; else what the unit
    measures ("Throughput (TFLOP/s)"); else the measured columns' names."""
    given = options.get("ylabel") or options.get("y-label")
    if given:
        return given
    units = {plan.unit_of(y) for y in plan.ys}
    unit = units.pop() if len(units) == 1 else ""
    if len(plan.ys) == 1 and plan.ys[0] in plan.labels:
        return labels.with_unit(plan.labels[plan.ys[0]], unit)
    if unit:
        return labels.with_unit(labels.QUANTITIES.get(unit, ""), unit)
    return ", ".join(plan.name_of(y) for y in plan.ys)


def spread_label(plan: Plan) -> str:
    """What the bands or error bars show: "min–max", or the two columns' names."""
    names = set()
    for low, high in plan.spreads.values():
        if low.endswith("_min") and high == f"{low[:-4]}_max":
            names.add("min–max")
        else:
            names.add(f"{plan.name_of(low)}–{plan.name_of(high)}")
    return ", ".join(sorted(names))
