"""What a benchmark figure says under its chart and table: what the data was measured on, the
peak it is compared with, where to download it, and how to reproduce it.

The Reproduce block appears when the measurement's metadata names the ``command`` that wrote
it (the GPU scripts of ``benchmarks/gpu/`` record theirs): the command, to run from the
repository's root, and the environment it ran in (GPU, driver, CUDA, torch and the other
versions the metadata gives), in a ``<details>`` element under the figure's caption.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

from . import hardware
from .labels import BYTE_UNITS, tick_label
from .plan import Plan

#: Versions the Reproduce block lists, in this order, when the metadata has them.
ENVIRONMENT = ("driver", "CUDA", "torch", "cuDNN", "Triton", "flash-attn")


class benchmark_reproduce(nodes.General, nodes.Element):
    """How to reproduce a figure's data: a ``<details>`` element in HTML, its content
    elsewhere."""


def every_row(plan: Plan, columns: list[str]) -> nodes.paragraph:
    """What the table leaves out because it is the same on every row: "Data type: BF16"."""
    paragraph = nodes.paragraph(classes=["kb-benchmark-constant"])
    paragraph += nodes.Text("In every row: ")
    for index, column in enumerate(columns):
        value = plan.data.rows[0][column]
        if column == plan.group:
            value = plan.value_of(value)
        elif plan.unit_of(column) and plan.data.is_numeric(column):
            number = plan.data.numbers(column)[0]
            unit = plan.unit_of(column)
            # A numeric column's one value is not empty, so its number is never None here.
            if unit in BYTE_UNITS and number is not None:
                value = tick_label(number, unit)
            else:
                value = f"{value} {unit}"
        paragraph += [nodes.strong("", f"{plan.name_of(column)}: "), nodes.Text(value)]
        paragraph += nodes.Text("; " if index < len(columns) - 1 else ".")
    return paragraph


def measured_on(plan: Plan, options: dict) -> list[nodes.Node]:
    facts = {
        "Hardware": plan.gpu.name if plan.gpu else plan.metadata.get("gpu", ""),
        "Data type": options.get("dtype", plan.metadata.get("dtype", "")),
        "Software": options.get("software", plan.metadata.get("software", "")),
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
        note += linkify(peak.gpu.source)
        result.append(note)
    return result


def downloads(docname: str, files: list[tuple[str, str]]) -> nodes.paragraph:
    """ "Download the data: a.csv and how it was measured: a.json" for each (CSV, metadata)."""
    paragraph = nodes.paragraph(classes=["kb-benchmark-downloads"])
    paragraph += nodes.Text("Download the data: ")
    for index, (csv, metadata) in enumerate(files):
        if index:
            paragraph += nodes.Text("; ")
        paragraph += download(docname, csv)
        if metadata:
            paragraph += nodes.Text(" and how it was measured: ")
            paragraph += download(docname, metadata)
    return paragraph


def download(docname: str, target: str) -> addnodes.download_reference:
    # Sphinx's download collector copies the file into _downloads/ and links it.
    name = Path(target).name
    reference = addnodes.download_reference(
        "", "", reftarget=target, refdoc=docname, refexplicit=True, refwarn=False
    )
    reference += nodes.literal(name, name, classes=["xref", "download"])
    return reference


def reproduce(metadata: dict) -> list[nodes.Node]:
    """The Reproduce block, when the metadata names its command."""
    command = metadata.get("command")
    if not command:
        return []
    block = benchmark_reproduce(classes=["kb-benchmark-reproduce"])
    block += nodes.paragraph("", "Run from the repository's root:")
    code = nodes.literal_block(command, command, language="shell")
    code["classes"].append("kb-benchmark-command")
    block += code
    versions = metadata.get("versions", {})
    facts = [("GPU", metadata.get("gpu", ""))]
    facts += [(label, versions[label]) for label in ENVIRONMENT if versions.get(label)]
    facts = [(label, value) for label, value in facts if value]
    if facts:
        paragraph = nodes.paragraph(classes=["kb-benchmark-environment"])
        paragraph += nodes.Text("Measured with: ")
        for index, (label, value) in enumerate(facts):
            if index:
                paragraph += nodes.Text(", ")
            paragraph += [nodes.strong(label, label), nodes.Text(f" {value}")]
        paragraph += nodes.Text(".")
        block += paragraph
    return [block]


def visit_reproduce_html(self, node: benchmark_reproduce) -> None:
    self.body.append(
        '<details class="kb-benchmark-reproduce"><summary>Reproduce</summary>'
        '<div class="kb-benchmark-reproduce-body">'
    )


def depart_reproduce_html(self, node: benchmark_reproduce) -> None:
    self.body.append("</div></details>\n")


def visit_reproduce_other(self, node: benchmark_reproduce) -> None:
    """Other builders show the block's content as it is."""


def linkify(text: str) -> list[nodes.Node]:
    """Text with its URLs turned into links."""
    result: list[nodes.Node] = []
    position = 0
    for match in re.finditer(r"https?://\S+[^\s.,;)]", text):
        result.append(nodes.Text(text[position : match.start()]))
        result.append(nodes.reference(match.group(), match.group(), refuri=match.group()))
        position = match.end()
    result.append(nodes.Text(text[position:]))
    return result
