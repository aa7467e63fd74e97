"""Reading a benchmark's files: the CSV of measurements and the optional metadata JSON.

Errors are :class:`BenchmarkError` with a message that names the file, the column and the
row, and says what to do; the directive adds the document's location.
"""

from __future__ import annotations

import csv
import json
import math
import re
import shlex
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

from ..checks.rawhtml import shorten
from ..core import paths
from .charts import Series

#: How much of a file's text an error message quotes: a value, or the list of columns.
VALUE_LIMIT, COLUMNS_LIMIT = 40, 160


class BenchmarkError(ValueError):
    """Bad input to a ``benchmark`` directive; the message is shown to the author.

    It quotes at most a short excerpt of a file (a cell, the column names), on one line: the
    files are the repository's own (kb.core.paths refuses any other before it is read)."""


class RefusedPath(Exception):
    """A file the directive names that a post may not use (kb.core.paths)."""

    def __init__(self, option: str, shown: str, refusal: paths.Refusal) -> None:
        super().__init__(shown)
        self.option, self.shown, self.refusal = option, shown, refusal


@dataclass
class Measurements:
    shown: str  # the path as the directive gives it
    header: list[str]
    rows: list[dict[str, str]]
    lines: list[int]  # the line of the file each row is on

    @property
    def names(self) -> str:
        return shorten(", ".join(self.header), COLUMNS_LIMIT)

    def require(self, column: str) -> None:
        if column not in self.header:
            raise BenchmarkError(f"column {column!r} not in {self.shown} (columns: {self.names})")

    def values(self, column: str) -> list[str]:
        """The column's distinct values, in order of appearance."""
        return list(dict.fromkeys(row[column] for row in self.rows))

    def is_numeric(self, column: str) -> bool:
        values = [row[column] for row in self.rows if row[column]]
        return bool(values) and all(_number(value) is not None for value in values)

    def numbers(self, column: str) -> list[float | None]:
        """The column as numbers (None where a cell is empty)."""
        result = []
        for row, line in zip(self.rows, self.lines, strict=True):
            value = row[column]
            number = _number(value) if value else None
            if value and number is None:
                what = "a number too large to draw (at most about 1.8e308)"
                raise BenchmarkError(
                    f"{self.shown}:{line}: column {column!r} holds "
                    f"{shorten(value, VALUE_LIMIT)!r}, "
                    f"{what if _overflows(value) else 'not a number'}"
                )
            result.append(number)
        return result

    def where(self, conditions: list[str]) -> Measurements:
        """Only the rows matching every ``column=value`` (``value`` may list ``a|b``)."""
        rows, lines = list(self.rows), list(self.lines)
        for condition in conditions:
            column, sep, wanted = (part.strip() for part in condition.partition("="))
            if not sep or not wanted:
                raise BenchmarkError(
                    f":filter: needs column=value conditions separated by commas, got {condition!r}"
                )
            self.require(column)
            allowed = {value.strip() for value in wanted.split("|")}
            kept = [
                (row, line) for row, line in zip(rows, lines, strict=True) if row[column] in allowed
            ]
            rows, lines = [row for row, _ in kept], [line for _, line in kept]
        if not rows:
            raise BenchmarkError(f"no row of {self.shown} matches :filter: {', '.join(conditions)}")
        return Measurements(self.shown, self.header, rows, lines)

    def series(
        self,
        x: str,
        ys: list[str],
        group: str | None,
        numeric_x: bool,
        names: dict[str, str] | None = None,
        spreads: dict[str, tuple[str, str]] | None = None,
        values: dict[str, str] | None = None,
    ) -> list[Series]:
        """One series per group value (in order of appearance) and measured column.

        ``names`` says what to call each measured column in the legend (default: the column);
        ``spreads`` gives a measured column's low and high columns (its min and max);
        ``values`` what to call each group value (``copy_d2d`` -> "copy")."""
        names, spreads, values = names or {}, spreads or {}, values or {}
        xs = self.numbers(x) if numeric_x else [row[x] for row in self.rows]
        groups = list(dict.fromkeys(row[group] for row in self.rows)) if group else [None]
        result = []
        for name in groups:
            for y in ys:
                low, high = spreads.get(y, (None, None))
                lows = self.numbers(low) if low else [None] * len(self.rows)
                highs = self.numbers(high) if high else [None] * len(self.rows)
                points, spread = [], []
                for row, x_value, y_value, lo, hi in zip(
                    self.rows, xs, self.numbers(y), lows, highs, strict=True
                ):
                    if group is not None and row[group] != name:
                        continue
                    if y_value is None or x_value in (None, ""):
                        continue
                    points.append((x_value, y_value))
                    if lo is not None and hi is not None:
                        spread.append((x_value, lo, hi))
                shown = names.get(y, y) if len(ys) > 1 else None
                called = values.get(name, name) if name is not None else None
                label = " · ".join(part for part in (called, shown) if part)
                result.append(Series(label or names.get(y, y), tuple(points), tuple(spread)))
        return result

    def spread_columns(self, y: str) -> tuple[str, str] | None:
        """The min and max columns that go with a measured column, when the data has them:
        ``tflops_min`` and ``tflops_max`` for ``tflops_median`` (or ``_mean``, or ``tflops``)."""
        base = re.sub(r"_(median|mean|avg|average|p50)$", "", y)
        pair = (f"{base}_min", f"{base}_max")
        if all(column in self.header and self.is_numeric(column) for column in pair):
            return pair
        return None


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _overflows(text: str) -> bool:
    """A finite number that a float cannot hold (``1e400``, a 400-digit integer)."""
    try:
        return Decimal(text.strip()).is_finite()
    except InvalidOperation:
        return False


def read_csv(path: Path, shown: str) -> Measurements:
    if not path.is_file():
        raise BenchmarkError(f"data file {shown} not found (looked for {path})")
    with open(path, encoding="utf-8-sig", newline="") as stream:
        reader = csv.reader(stream)
        header = [name.strip() for name in next(reader, [])]
        if not header or not all(header):
            raise BenchmarkError(f"{shown}:1: the first line must name every column")
        rows, lines = [], []
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(header):
                raise BenchmarkError(
                    f"{shown}:{reader.line_num}: {len(cells)} cells, but the header names "
                    f"{len(header)} columns ({shorten(', '.join(header), COLUMNS_LIMIT)})"
                )
            rows.append(dict(zip(header, (cell.strip() for cell in cells), strict=True)))
            lines.append(reader.line_num)
    if not rows:
        raise BenchmarkError(f"{shown} has a header but no rows of data")
    return Measurements(shown, header, rows, lines)


# Keys a measurement script may use for what the caption shows, searched at the top level
# and one level down (e.g. {"software": {"torch": ...}} or {"environment": {...}}).
GPU_KEYS = ("gpu", "gpu_name", "device_name", "device", "hardware")
DTYPE_KEYS = ("dtype",)
DATE_KEYS = ("date", "measured", "measured_at", "timestamp")
SOFTWARE_KEYS = {
    "torch": "torch",
    "torch_version": "torch",
    "pytorch": "torch",
    "cuda": "CUDA",
    "cuda_version": "CUDA",
    "torch_cuda": "CUDA",
    "torch_cuda_version": "CUDA",
    "cudnn": "cuDNN",
    "cudnn_version": "cuDNN",
    "driver": "driver",
    "driver_version": "driver",
    "nvidia_driver": "driver",
    "triton": "Triton",
    "triton_version": "Triton",
    "flash_attn": "flash-attn",
    "flash_attn_version": "flash-attn",
}


def read_metadata(path: Path, shown: str) -> dict[str, str]:
    """What the caption needs from a measurement's JSON: gpu, dtype, software, date."""
    facts = metadata_facts(load_metadata(path, shown))
    return {key: facts[key] for key in ("gpu", "dtype", "date", "software") if key in facts}


def load_metadata(path: Path, shown: str) -> dict:
    """A measurement's JSON object; BenchmarkError when it is missing or not an object."""
    if not path.is_file():
        raise BenchmarkError(f"metadata file {shown} not found (looked for {path})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise BenchmarkError(f"{shown}:{error.lineno}: not valid JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise BenchmarkError(f"{shown}: expected a JSON object of facts, got {type(data).__name__}")
    return data


def metadata_facts(data: dict) -> dict:
    """What figures and the dataset catalog use of a measurement's JSON: ``gpu``, ``dtype``,
    ``date`` (YYYY-MM-DD), ``software`` (one line) and ``versions`` (label -> version), and
    for the Reproduce block the ``command`` that wrote it (a string, or a list of arguments)."""
    command = data.get("command")
    for key in GPU_KEYS:  # {"gpu": {"name": "NVIDIA H200", "driver": ...}}
        if isinstance(data.get(key), dict) and data[key].get("name"):
            inner = {k: v for k, v in data[key].items() if k != "name"}
            data = {**inner, **data, key: data[key]["name"]}
    flat = _flatten(data)
    summary: dict = {}
    for name, keys in (("gpu", GPU_KEYS), ("dtype", DTYPE_KEYS), ("date", DATE_KEYS)):
        value = next((flat[key] for key in keys if flat.get(key)), None)
        if value is not None:
            summary[name] = _day(value) if name == "date" else str(value)
    software = {}
    for key, label in SOFTWARE_KEYS.items():
        if flat.get(key) and label not in software:
            software[label] = str(flat[key])
    if software:
        summary["software"] = ", ".join(f"{label} {value}" for label, value in software.items())
        summary["versions"] = software
    if isinstance(data.get("title"), str) and data["title"].strip():
        summary["title"] = " ".join(data["title"].split())
    # What to call the data's values ({"copy_d2d": "copy"}): series in legends, table cells.
    if isinstance(data.get("labels"), dict):
        summary["labels"] = {
            str(key): str(value)
            for key, value in data["labels"].items()
            if isinstance(value, str) and value.strip()
        }
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        command = shlex.join(command)
    if isinstance(command, str) and command.strip():
        summary["command"] = " ".join(command.split())
    return summary


def _day(value: object) -> str:
    """The day of an ISO time stamp or of seconds since the epoch, as YYYY-MM-DD."""
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, tz=UTC).date().isoformat()
    return str(value)[:10]


def _flatten(data: dict) -> dict[str, object]:
    flat: dict[str, object] = {}
    for value in data.values():
        if isinstance(value, dict):
            for inner, inner_value in value.items():
                if not isinstance(inner_value, dict | list):
                    flat.setdefault(inner.lower(), inner_value)
    for key, value in data.items():  # the top level wins over nested values
        if not isinstance(value, dict | list):
            flat[key.lower()] = value
    return flat
