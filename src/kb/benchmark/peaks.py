"""The ``gpu-peaks`` directive: the GPU registry (``data/hardware.toml``) as a reference table.

The hardware reference page (``pages/hardware.md``) is made from the very registry the
``benchmark`` directive reads for its peak lines and "% of peak" columns, so a reader can check
any percentage against the figure, the clock behind it and its source. One table of every
GPU's dense peaks and clock, then each GPU's names and source under an anchor of its own
(``gpu-<key>``). The page is read again whenever the registry changes (a dependency of the
document), so a figure changed there never leaves a stale reference.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from . import hardware

_URL = re.compile(r"https?://\S+")


def _table(registry: hardware.Registry) -> nodes.table:
    metrics = list(registry.metrics.values())
    headings = ["GPU", *(f"{m.label} ({m.unit})" for m in metrics), "clock (MHz)"]
    table = nodes.table(classes=["kb-gpu-peaks"])
    group = nodes.tgroup(cols=len(headings))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in headings)
    head, body = nodes.thead(), nodes.tbody()
    group += [head, body]
    head += _row([nodes.Text(text) for text in headings])
    for gpu in registry.gpus.values():
        name = nodes.reference("", gpu.name, refid=f"gpu-{gpu.key}", internal=True)
        figures = [
            nodes.Text(hardware.format_number(gpu.peaks[m.key]) if m.key in gpu.peaks else "–")
            for m in metrics
        ]
        clock = hardware.format_number(gpu.clock_mhz) if gpu.clock_mhz else "not stated"
        body += _row([name, *figures, nodes.Text(clock)])
    return table


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", cell)
        row += entry
    return row


def _source(text: str) -> nodes.paragraph:
    """A source's text with its addresses as links."""
    paragraph = nodes.paragraph()
    last = 0
    for match in _URL.finditer(text):
        paragraph += nodes.Text(text[last : match.start()])
        url = match.group().rstrip(".,;)")
        paragraph += nodes.reference(url, url, refuri=url)
        last = match.start() + len(url)
    paragraph += nodes.Text(text[last:])
    return paragraph


def _gpu_section(gpu: hardware.Gpu) -> nodes.container:
    box = nodes.container(ids=[f"gpu-{gpu.key}"], classes=["kb-gpu-source"])
    names = ", ".join(gpu.aliases)
    box += nodes.rubric("", gpu.name)
    box += nodes.paragraph(
        "", "", nodes.Text(f"Registry key {gpu.key}; a benchmark's :hardware: may also say "),
        nodes.Text(names or gpu.name), nodes.Text("."),
    )  # fmt: skip
    box += _source(" ".join(gpu.source.split()))
    return box


class GpuPeaks(SphinxDirective):
    """``{gpu-peaks}``: every GPU of the registry, its peaks, clock and source."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(hardware.REGISTRY))
        registry = hardware.load_registry()
        return [_table(registry), *(_gpu_section(gpu) for gpu in registry.gpus.values())]


def setup_peaks(app: Sphinx) -> None:
    app.add_directive("gpu-peaks", GpuPeaks)
