"""Benchmark charts, drawn at build time as SVG and kept in a cache keyed by their content.

A chart is described by a :class:`ChartSpec` (built from the CSV and the directive's
options); its digest names the cached file, so a chart is drawn again only when its data or
options change. matplotlib draws with placeholder colours that are then swapped for
``currentColor`` and CSS variables: the SVG is inlined in the page and follows furo's light
and dark themes (see static/kb-benchmark.css). The output is byte-for-byte reproducible:
a fixed ``svg.hashsalt`` and no date in the metadata.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from importlib.metadata import version
from io import StringIO
from pathlib import Path

from ..core.fileio import write_atomically
from .labels import round_value, tick_label

#: Bump when the drawing code changes, so that cached charts are drawn again.
CHART_VERSION = "3"

# Placeholder colours that the drawn SVG carries and _theme() replaces.
FOREGROUND = "#010203"
SERIES = ["#0a0b01", "#0a0b02", "#0a0b03", "#0a0b04", "#0a0b05", "#0a0b06"]
# Okabe-Ito colours, distinguishable with colour-blindness; the CSS sets lighter ones for
# dark mode. These fallbacks apply only where the stylesheet is missing.
FALLBACKS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"]

MAX_TICKS = 12


@dataclass(frozen=True)
class Series:
    label: str
    points: tuple[tuple[float | str, float], ...]
    #: The spread around each point, (x, low, high): a band around a line, error bars on a bar.
    spread: tuple[tuple[float | str, float, float], ...] = ()


@dataclass(frozen=True)
class ChartSpec:
    """Everything that decides how a chart looks; equal specs give identical SVG bytes."""

    kind: str  # "line" (numeric x) or "bar" (x as categories)
    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...]
    xscale: str = "linear"  # or "log2"
    peak: float | None = None
    peak_label: str = ""
    legend_title: str = ""  # what the series are: the group column's label
    x_unit: str = ""  # the x column's unit: byte units tick as binary sizes (32 MiB)
    spread_label: str = ""  # what the bands or error bars show ("min–max"), in the legend
    digits: int = 3  # significant digits of the values printed on bars
    #: Further peaks, each (value, label): a comparison marks each GPU's peak.
    more_peaks: tuple[tuple[float, str], ...] = ()
    #: Drawn for a phone: narrower, every text 10 pt or more, the legend under the plot.
    narrow: bool = False

    @property
    def peaks(self) -> list[tuple[float, str]]:
        first = [(self.peak, self.peak_label)] if self.peak is not None else []
        return first + list(self.more_peaks)

    def digest(self) -> str:
        key = repr((CHART_VERSION, version("matplotlib"), self))
        return hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def default_xscale(xs) -> str:
    """``log2`` for sizes that double (512, 1024, … 32768): at least three, all powers of two,
    spanning a factor of 8 or more; else ``linear``."""
    values = sorted({x for x in xs if isinstance(x, int | float)})
    if len(values) < 3 or values[0] <= 0 or values[-1] / values[0] < 8:
        return "linear"
    return "log2" if all(_is_power_of_two(x) for x in values) else "linear"


def cached_svg(spec: ChartSpec, cache_dir: Path) -> Path:
    """The SVG file of ``spec`` in ``cache_dir``, drawn only if it is not there yet."""
    path = cache_dir / f"chart-{spec.digest()}.svg"
    if not path.exists():
        write_atomically(path, render_svg(spec))  # parallel writers never see half a file
    return path


def _rc() -> dict:
    from cycler import cycler

    return {
        "svg.hashsalt": "kb-benchmark",
        "svg.fonttype": "none",  # real text: smaller, selectable, coloured by the page
        "font.family": "DejaVu Sans",
        "font.size": 10,
        "text.color": FOREGROUND,
        "axes.labelcolor": FOREGROUND,
        "axes.edgecolor": FOREGROUND,
        "xtick.color": FOREGROUND,
        "ytick.color": FOREGROUND,
        "grid.color": FOREGROUND,
        "grid.alpha": 0.2,
        "axes.prop_cycle": cycler(color=SERIES),
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "savefig.facecolor": "none",
        "savefig.edgecolor": "none",
    }


def render_svg(spec: ChartSpec) -> str:
    # Imported here: most pages have no chart, and a cached chart needs no matplotlib.
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_rc()):
        # Constrained layout makes room for the legend beside the plot, and no more. The
        # narrow one is 288 pt wide: shown about 360 px wide on a 390 px phone, its 10 pt
        # text is 12 px there (the wide one's 8 pt would be 6).
        size = (4.0, 3.9) if spec.narrow else (6.4, 3.6)
        figure = Figure(figsize=size, layout="constrained")
        axes = figure.add_subplot()
        if spec.kind == "bar":
            _draw_bars(axes, spec)
        else:
            _draw_lines(axes, spec)
        _draw_peak(axes, spec)
        axes.set_xlabel(spec.x_label)
        axes.set_ylabel(spec.y_label)
        axes.grid(axis="y")
        axes.spines[["top", "right"]].set_visible(False)
        _legend(figure, axes, spec)
        out = StringIO()
        figure.savefig(out, format="svg", metadata={"Date": None})
    return _theme(out.getvalue())


def _has_spread(spec: ChartSpec) -> bool:
    return any(series.spread for series in spec.series)


def _small(spec: ChartSpec, size: int) -> int:
    """A small text's size: never under 10 pt on the narrow chart."""
    return max(size, 10) if spec.narrow else size


def _legend(figure, axes, spec: ChartSpec) -> None:
    """Series by colour, under the group's name, and what the shading means when there is any."""
    handles, labels = axes.get_legend_handles_labels()
    title = spec.legend_title or None
    if len(spec.series) < 2:  # one series needs no key, nor a name for the series
        handles, labels, title = [], [], None
    if _has_spread(spec) and spec.spread_label:
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        if spec.kind == "bar":  # error bars
            handles.append(Line2D([], [], color=FOREGROUND, marker="|", linestyle="none"))
        else:  # a shaded band around each line
            handles.append(Patch(facecolor=FOREGROUND, alpha=0.18, linewidth=0))
        labels.append(spec.spread_label)
    if handles and spec.narrow:
        # Under the plot on a phone: beside it, it would take a fifth of the width.
        longest = max(len(label) for label in labels)
        figure.legend(
            handles,
            labels,
            title=title,
            frameon=False,
            fontsize=10,
            title_fontsize=10,
            loc="outside lower center",
            ncols=2 if longest <= 16 else 1,
        )
    elif handles:
        # Beside the plot, as a paper's figure has it: never over a line, a band or the peak.
        axes.legend(
            handles,
            labels,
            title=title,
            frameon=False,
            fontsize=9,
            loc="upper left",
            bbox_to_anchor=(1.02, 1),
            borderaxespad=0,
            alignment="left",
        )


def _draw_lines(axes, spec: ChartSpec) -> None:
    xs = sorted({x for series in spec.series for x, _ in series.points})
    for series in spec.series:
        points = sorted(series.points)
        (line,) = axes.plot(
            [x for x, _ in points], [y for _, y in points], marker="o", label=series.label
        )
        if series.spread:
            spread = sorted(series.spread)
            axes.fill_between(
                [x for x, _, _ in spread],
                [low for _, low, _ in spread],
                [high for _, _, high in spread],
                color=line.get_color(),
                alpha=0.18,
                linewidth=0,
            )
    if spec.xscale == "log2":
        axes.set_xscale("log", base=2)
    ticks = _ticks(xs, spec.xscale)
    if len(ticks) <= MAX_TICKS:
        axes.set_xticks(ticks, [tick_label(x, spec.x_unit) for x in ticks])
        axes.minorticks_off()
    axes.set_ylim(bottom=0)


def _is_power_of_two(x) -> bool:
    return x > 0 and float(x).is_integer() and int(x) & (int(x) - 1) == 0


def _ticks(xs: list, xscale: str) -> list:
    """A tick at each measured x; on a log2 axis whose sizes are not all powers of two
    (1024, 1536, 2048, 3072 …), only at the powers of two among them, so labels never
    crowd."""
    if xscale == "log2" and not all(_is_power_of_two(x) for x in xs):
        powers = [x for x in xs if _is_power_of_two(x)]
        if len(powers) >= 2:
            return powers
    return xs


def _draw_bars(axes, spec: ChartSpec) -> None:
    categories = list(dict.fromkeys(x for series in spec.series for x, _ in series.points))
    width = 0.8 / len(spec.series)
    for index, series in enumerate(spec.series):
        offset = (index - (len(spec.series) - 1) / 2) * width
        positions = [categories.index(x) + offset for x, _ in series.points]
        bars = axes.bar(positions, [y for _, y in series.points], width, label=series.label)
        if series.spread:
            values = dict(series.points)
            axes.errorbar(
                [categories.index(x) + offset for x, _, _ in series.spread],
                [values[x] for x, _, _ in series.spread],
                yerr=[
                    [values[x] - low for x, low, _ in series.spread],
                    [high - values[x] for x, _, high in series.spread],
                ],
                fmt="none",
                ecolor=FOREGROUND,
                elinewidth=1,
                capsize=3,
            )
        if len(categories) * len(spec.series) <= MAX_TICKS:
            axes.bar_label(
                bars,
                fmt=lambda value: round_value(value, spec.digits),
                fontsize=_small(spec, 8),
                padding=2,
            )
    axes.set_xticks(range(len(categories)), categories)


def _draw_peak(axes, spec: ChartSpec) -> None:
    peaks = spec.peaks
    if not peaks:
        return
    for value, label in peaks:
        axes.axhline(value, color=FOREGROUND, linestyle="--", linewidth=1)
        axes.annotate(
            label,
            (0.99, value),
            xycoords=axes.get_yaxis_transform(),
            xytext=(0, 3),  # clear of the dashed line
            textcoords="offset points",
            ha="right",
            va="bottom",
            fontsize=_small(spec, 8),
        )
    axes.set_ylim(0, max(value for value, _ in peaks) * 1.12)


def _theme(svg: str) -> str:
    svg = svg.replace(FOREGROUND, "currentColor")
    for index, (placeholder, fallback) in enumerate(zip(SERIES, FALLBACKS, strict=True)):
        svg = svg.replace(placeholder, f"var(--kb-chart-{index + 1}, {fallback})")
    return svg


# -- Inlining into a page -------------------------------------------------------------------

_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_ID = re.compile(r'\sid="([^"]+)"')
_SIZE = re.compile(r'\s(?:width|height)="[^"]*"')


def inline_svg(svg: str, prefix: str, title: str, variant: str = "wide") -> str:
    """``svg`` ready to sit in HTML: ids unique on the page, a title, sized by CSS."""
    svg = _METADATA.sub("", _PROLOGUE.sub("", svg, count=1))
    referenced = set(re.findall(r'(?:url\(#|href="#)([^")]+)', svg))

    def rename(match: re.Match) -> str:
        name = match.group(1)
        return f' id="{prefix}-{name}"' if name in referenced else ""

    svg = _ID.sub(rename, svg)
    svg = re.sub(r'(url\(#|href="#)([^")]+)', lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", svg)
    root_end = svg.index(">") + 1
    root = _SIZE.sub("", svg[: root_end - 1])
    label = html.escape(title)
    return (
        f'{root} class="kb-chart kb-chart-{variant}" role="img" aria-labelledby="{prefix}-title">'
        f'<title id="{prefix}-title">{label}</title>{svg[root_end:]}'
    )
