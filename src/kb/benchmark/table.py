"""The benchmark directive's table: the data, a "% of peak" column, header scopes in HTML."""

from __future__ import annotations

import re

from docutils import nodes

from .data import Measurements


class benchmark_table(nodes.table):
    """A table whose header cells say ``scope="col"`` in HTML; a plain table elsewhere."""


def build_table(
    data: Measurements,
    columns: list[str],
    measured: list[str],
    unit: str,
    peak: float | None,
    caption: str,
) -> benchmark_table:
    """The data as a table: the chosen columns, each measured one followed by its % of peak."""
    header: list[str] = []
    cells: list[list[str]] = [[] for _ in data.rows]
    numeric: list[bool] = []
    for column in columns:
        is_measured = column in measured
        header.append(f"{column} ({unit})" if is_measured and unit else column)
        numeric.append(data.is_numeric(column))
        for row, values in zip(cells, data.rows, strict=True):
            row.append(values[column])
        if is_measured and peak:
            header.append("% of peak" if len(measured) == 1 else f"{column}: % of peak")
            numeric.append(True)
            for row, value in zip(cells, data.numbers(column), strict=True):
                row.append("" if value is None else f"{100 * value / peak:.1f}")
    table = benchmark_table(classes=["kb-benchmark-table"])
    table += nodes.title(caption, caption)
    group = nodes.tgroup(cols=len(header))
    table += group
    # Widths in characters: text builders draw with them; HTML lets the browser decide.
    widths = [max(len(value) for value in column) for column in zip(header, *cells, strict=True)]
    group += [nodes.colspec(colwidth=width) for width in widths]
    group += nodes.thead("", _row(header, numeric))
    group += nodes.tbody("", *(_row(row, numeric) for row in cells))
    return table


def _row(values: list[str], numeric: list[bool]) -> nodes.row:
    row = nodes.row()
    for value, is_number in zip(values, numeric, strict=True):
        classes = ["kb-num"] if is_number else []
        row += nodes.entry("", nodes.paragraph(value, value), classes=classes)
    return row


def visit_table_html(self, node: benchmark_table) -> None:
    self.kb_table_start = len(self.body)
    self.visit_table(node)


def depart_table_html(self, node: benchmark_table) -> None:
    self.depart_table(node)
    # docutils writes <th class="head"> in the header row; screen readers want the scope.
    for index in range(self.kb_table_start, len(self.body)):
        self.body[index] = re.sub(
            r'<th class="head([^"]*)"', r'<th scope="col" class="head\1"', self.body[index]
        )
