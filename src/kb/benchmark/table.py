"""The benchmark directive's table: the data, a "% of peak" column, header scopes in HTML.

Headers name each column in the reader's words with its unit ("median (TFLOP/s)"), and
numbers are rounded to the precision the measurement supports (see :mod:`.labels`). The
table has no caption of its own: it sits in the figure, whose caption says what it shows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from weakref import WeakKeyDictionary

from docutils import nodes

from .data import Measurements
from .labels import BYTE_UNITS, count_label, round_number, tick_label

#: A cell: its text, or its text and the exact value it shortens ("16K", "16384").
Cell = str | tuple[str, str]


class benchmark_table(nodes.table):
    """A table whose header cells say ``scope="col"`` in HTML; a plain table elsewhere."""


def build_table(
    data: Measurements,
    columns: list[str],
    headers: dict[str, str],
    measured: list[str],
    peak: float | None,
    digits: int = 3,
    names: dict[str, str] | None = None,
    units: dict[str, str] | None = None,
    values: dict[str, dict[str, str]] | None = None,
) -> benchmark_table:
    """The data as a table: the chosen columns under ``headers``, numbers to ``digits``
    significant digits, each measured column followed by its % of peak (named after the
    column's entry in ``names`` when there are several). A column in a byte unit (``units``)
    prints binary sizes, as the chart's axis does ("8 GiB"); ``values`` names a column's values
    in words (``copy_d2d`` -> "copy")."""
    header: list[str] = []
    cells: list[list[Cell]] = [[] for _ in data.rows]
    numeric: list[bool] = []
    kinds: list[str] = []  # "measured" for a measured column and its % of peak
    units, values = units or {}, values or {}
    for column in columns:
        header.append(headers.get(column, column))
        is_number = data.is_numeric(column)
        numeric.append(is_number)
        kinds.append("measured" if column in measured else "")
        unit = units.get(column, "")
        # A cell's number: None where the cell is empty or the column is not numeric.
        numbers = data.numbers(column) if is_number else [None] * len(data.rows)
        for row, number, cell in zip(cells, numbers, data.rows, strict=True):
            value = cell[column]
            if number is not None and unit in BYTE_UNITS:
                row.append(tick_label(number, unit))
            elif number is not None and float(number).is_integer() and column not in measured:
                shown = count_label(int(number))
                row.append(shown if shown == value.strip() else (shown, value.strip()))
            elif number is not None:
                row.append(round_number(value, digits))
            else:
                row.append(values.get(column, {}).get(value, value))
        if column in measured and peak:
            name = (names or {}).get(column, column)
            header.append("% of peak" if len(measured) == 1 else f"{name}: % of peak")
            numeric.append(True)
            kinds.append("measured")
            for row, number in zip(cells, data.numbers(column), strict=True):
                row.append("" if number is None else f"{100 * number / peak:.1f}")
    return rows_table(header, cells, numeric, kinds)


def rows_table(
    header: list[str],
    cells: list[list[Cell]],
    numeric: list[bool],
    kinds: list[str] | None = None,
) -> benchmark_table:
    """A benchmark table of ready-made cells (``numeric``: which columns hold numbers;
    ``kinds``: "measured" for what was measured, class ``kb-measured``)."""
    kinds = kinds or [""] * len(header)
    table = benchmark_table(classes=["kb-benchmark-table"])
    group = nodes.tgroup(cols=len(header))
    table += group
    # Widths in characters: text builders draw with them; HTML lets the browser decide.
    widths = [
        max(len(_text(value)) for value in column) for column in zip(header, *cells, strict=True)
    ]
    group += [nodes.colspec(colwidth=width) for width in widths]
    group += nodes.thead("", _row(header, numeric, kinds))
    group += nodes.tbody("", *(_row(row, numeric, kinds) for row in cells))
    return table


def _text(cell: Cell) -> str:
    return cell if isinstance(cell, str) else cell[0]


def _row(values: Sequence[Cell], numeric: list[bool], kinds: list[str]) -> nodes.row:
    row = nodes.row()
    for value, is_number, kind in zip(values, numeric, kinds, strict=True):
        classes = (["kb-num"] if is_number else []) + ([f"kb-{kind}"] if kind else [])
        if isinstance(value, str):
            content = nodes.paragraph(value, value)
        else:  # a shortened number: the exact one on hover and for screen readers
            text, exact = value
            content = nodes.paragraph("", "", nodes.abbreviation(text, text, explanation=exact))
        row += nodes.entry("", content, classes=classes)
    return row


#: Where each translator's benchmark table began in its body (kept beside the translator, not
#: as an undeclared attribute of Sphinx's object); read when the table ends.
_table_starts: WeakKeyDictionary[object, int] = WeakKeyDictionary()


def visit_table_html(self, node: benchmark_table) -> None:
    _table_starts[self] = len(self.body)
    self.visit_table(node)


def depart_table_html(self, node: benchmark_table) -> None:
    self.depart_table(node)
    # docutils writes <th class="head"> in the header row; screen readers want the scope.
    for index in range(_table_starts.pop(self), len(self.body)):
        self.body[index] = re.sub(
            r'<th class="head([^"]*)"', r'<th scope="col" class="head\1"', self.body[index]
        )
