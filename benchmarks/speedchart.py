"""The scaling chart of ``build_speed.py --scaling``: clean-build time against posts, as SVG.

A plain SVG (no plotting library): one polyline with dots per site, the seconds printed at
each dot, axes with round ticks, a legend, and a ``<title>``/``<desc>`` that say in words what
the chart shows, so that it reads without the picture too.
"""

from __future__ import annotations

import math
from html import escape

WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 70, 150, 40, 60
COLOURS = {"ours": "#0b6e4f", "stock": "#b5453a"}
LABELS = {"ours": "ours (kb)", "stock": "stock ablog + furo"}


def _ticks(top: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least ``top``."""
    raw = max(top, 1e-9) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [step * i for i in range(int(math.ceil(top / step)) + 1)]


def _number(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def scaling_svg(series: dict[str, dict[int, float]], title: str) -> str:
    """``series``: site name -> {posts: seconds}. Returns the SVG document."""
    posts = sorted({n for points in series.values() for n in points})
    x_ticks = _ticks(max(posts))
    y_ticks = _ticks(max(s for points in series.values() for s in points.values()))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(n: float) -> float:
        return LEFT + plot_w * n / x_ticks[-1]

    def y(s: float) -> float:
        return TOP + plot_h * (1 - s / y_ticks[-1])

    described = "; ".join(
        f"{LABELS.get(name, name)}: "
        + ", ".join(f"{n} posts {s:.1f} s" for n, s in sorted(points.items()))
        for name, points in series.items()
    )
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}"'
        f' width="{WIDTH}" height="{HEIGHT}" role="img" font-family="sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(described)}</desc>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
        f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    for value in y_ticks:
        out.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(value):.1f}" y2="{y(value):.1f}"'
            ' stroke="#ddd"/>'
            f'<text x="{LEFT - 8}" y="{y(value) + 4:.1f}" text-anchor="end">{_number(value)}</text>'
        )
    for value in x_ticks:
        out.append(
            f'<text x="{x(value):.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">'
            f"{_number(value)}</text>"
        )
    out += [
        f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}" stroke="#333"/>',
        f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{TOP + plot_h}" y2="{TOP + plot_h}"'
        ' stroke="#333"/>',
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 18}" text-anchor="middle">posts (N)</text>',
        f'<text transform="translate(18 {TOP + plot_h / 2}) rotate(-90)" text-anchor="middle">'
        "clean build, seconds (median)</text>",
    ]
    for row, (name, points) in enumerate(series.items()):
        colour = COLOURS.get(name, "#333")
        coords = [(x(n), y(s), s) for n, s in sorted(points.items())]
        path = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy, _ in coords)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for cx, cy, seconds in coords:
            out.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.5" fill="{colour}"/>'
                f'<text x="{cx:.1f}" y="{cy + (18 if row == 0 else -8):.1f}"'
                f' text-anchor="middle" fill="{colour}">'
                f"{seconds:.1f}</text>"
            )
        ly = TOP + 10 + 20 * row
        out.append(
            f'<line x1="{LEFT + plot_w + 12}" x2="{LEFT + plot_w + 32}" y1="{ly}" y2="{ly}"'
            f' stroke="{colour}" stroke-width="2"/>'
            f'<text x="{LEFT + plot_w + 38}" y="{ly + 4}">{escape(LABELS.get(name, name))}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"
