"""How a benchmark figure names and prints things: units, labels, rounded numbers.

A measurement script names its columns for itself (``tflops_median``, ``latency_ms_p99``,
``buffer_bytes``); a reader wants "Throughput (TFLOP/s)" on the axis, "median (TFLOP/s)" over
the column and 686 rather than 686.392 in the cell. The directive's ``:labels:`` names
columns in the author's words; without them the defaults come from the unit, which is the
directive's ``:unit:`` for the measured columns and otherwise read off the column's name.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation, localcontext

#: Units a column's name may carry, as one of its ``_``-separated words.
UNIT_WORDS = {
    "pflops": "PFLOP/s",
    "tflops": "TFLOP/s",
    "gflops": "GFLOP/s",
    "tbps": "TB/s",
    "gbps": "GB/s",
    "mbps": "MB/s",
    "s": "s",
    "sec": "s",
    "seconds": "s",
    "ms": "ms",
    "us": "µs",
    "ns": "ns",
    "bytes": "bytes",
    "kib": "KiB",
    "mib": "MiB",
    "gib": "GiB",
    "mhz": "MHz",
    "ghz": "GHz",
    "w": "W",
    "watts": "W",
}

#: What a quantity in a unit is called on an axis: "Throughput (TFLOP/s)".
QUANTITIES = {
    "PFLOP/s": "Throughput",
    "TFLOP/s": "Throughput",
    "GFLOP/s": "Throughput",
    "TB/s": "Bandwidth",
    "GB/s": "Bandwidth",
    "MB/s": "Bandwidth",
    "s": "Time",
    "ms": "Time",
    "µs": "Time",
    "ns": "Time",
    "bytes": "Size",
    "KiB": "Size",
    "MiB": "Size",
    "GiB": "Size",
    "MHz": "Clock",
    "GHz": "Clock",
    "W": "Power",
}

#: Units whose axis ticks read better as binary sizes: 33554432 bytes is "32 MiB".
BYTE_UNITS = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def name_unit(column: str) -> str:
    """The unit a column's name carries (``latency_ms_p99`` is in ms), or ""."""
    for word in column.lower().split("_"):
        if word in UNIT_WORDS:
            return UNIT_WORDS[word]
    return ""


def plain_name(column: str) -> str:
    """A column's name as words, without its unit: ``latency_ms_p99`` -> "latency p99"."""
    words = [word for word in column.split("_") if word]
    kept = [word for word in words if word.lower() not in UNIT_WORDS]
    if len(kept) == len(words) or not kept:
        # No unit in it, or nothing but the unit ("tflops"): say the unit's quantity.
        unit = name_unit(column)
        return QUANTITIES.get(unit, "").lower() if unit and not kept else " ".join(words)
    return " ".join(kept)


#: One spelling for each data type, in the order filters list them: what a CSV or a metadata
#: file calls it (lower case, "-" and " " as "_") -> the site's word. A fast-accumulation
#: variant is the same data type.
DTYPES = {
    "fp64": "FP64", "float64": "FP64", "double": "FP64",
    "fp32": "FP32", "float32": "FP32", "float": "FP32",
    "tf32": "TF32",
    "bf16": "BF16", "bfloat16": "BF16",
    "fp16": "FP16", "float16": "FP16", "half": "FP16",
    "fp8": "FP8",
    "fp8_e4m3": "FP8 E4M3", "e4m3": "FP8 E4M3", "float8_e4m3fn": "FP8 E4M3",
    "fp8_e4m3_fastacc": "FP8 E4M3",
    "fp8_e5m2": "FP8 E5M2", "e5m2": "FP8 E5M2", "float8_e5m2": "FP8 E5M2",
    "int8": "INT8", "i8": "INT8",
    "int4": "INT4",
    "mxfp8": "MXFP8",
    "mxfp6": "MXFP6",
    "mxfp4": "MXFP4",
    "nvfp4": "NVFP4",
    "fp4": "FP4", "fp4_e2m1": "FP4", "e2m1": "FP4",
}  # fmt: skip
DTYPE_ORDER = list(dict.fromkeys(DTYPES.values()))


def dtype_word(value: str) -> str:
    """A data type in the site's one spelling (``bf16``, ``BF16``, ``bfloat16`` -> "BF16");
    a name the vocabulary lacks is kept as it is written."""
    key = re.sub(r"[\s-]+", "_", value.strip().lower())
    return DTYPES.get(key, value.strip())


def dtype_key(word: str) -> tuple[int, str]:
    """Where a data type comes in a list: the vocabulary's order, then the others by name."""
    if word in DTYPE_ORDER:
        return (DTYPE_ORDER.index(word), "")
    return (len(DTYPE_ORDER), word.casefold())


IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+$")


def identifier_words(value: str) -> str:
    """A snake_case value as words (``read_sum`` -> "read sum"); anything else as it is."""
    return value.replace("_", " ") if IDENTIFIER.match(value) else value


def with_unit(label: str, unit: str) -> str:
    """ "median (TFLOP/s)"; a label that already names its unit is left as it is."""
    if not unit or f"({unit})" in label or label == unit:
        return label
    return f"{label} ({unit})" if label else unit


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def parse_labels(value: str | None, columns) -> dict[str, str]:
    """``:labels: m=Matrix size, M = N = K, seqlen=Sequence length``: column -> label.

    A label may hold commas and "=" ("M = N = K"): a new pair starts at a comma followed by
    one of the data's ``columns`` and "=", or by a name written against its "=" (``flops=``,
    reported if it is no column)."""
    labels: dict[str, str] = {}
    if not value or not value.strip():
        return labels
    names = "|".join(re.escape(column) for column in sorted(columns, key=len, reverse=True))
    known = f"(?:{names})\\s*=|" if names else ""
    starts = rf",\s*(?={known}[\w.-]+=)"
    for pair in re.split(starts, value.strip()):
        column, sep, label = (part.strip() for part in pair.partition("="))
        if not sep or not column or not label:
            raise ValueError(f":labels: needs column=label pairs separated by commas, got {pair!r}")
        labels[column] = label
    return labels


# -- Numbers ----------------------------------------------------------------------------------


#: Beyond 10**21 (and under 10**-21) a number is written with an exponent, as JavaScript does.
PLAIN_DIGITS = 21


def round_number(text: str, digits: int) -> str:
    """A measured value as a paper prints it: ``digits`` significant digits, never more
    decimals than the data has, and never fewer integer digits (1237 stays 1237).

    ``176.469`` -> ``176``, ``0.0121692`` -> ``0.0122``, ``4.50012`` -> ``4.50``, ``64`` -> ``64``.
    """
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return text
    if not value.is_finite() or value.is_zero():
        return text.strip()
    exponent = value.as_tuple().exponent
    source_decimals = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    magnitude = value.adjusted()  # floor(log10(|value|)), whatever the exponent (1e999999)
    if not -PLAIN_DIGITS <= magnitude < PLAIN_DIGITS:
        return format(value, f".{max(digits - 1, 0)}e")  # 1.00e+28, as a paper prints it
    decimals = min(max(0, digits - 1 - magnitude), source_decimals)
    # Decimal's default precision (28 digits) would refuse to quantize 1e28 or more.
    with localcontext(Context(prec=3 * PLAIN_DIGITS)):
        rounded = value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{rounded:f}"


def round_value(value: float, digits: int) -> str:
    """A computed value (a bar's label) to ``digits`` significant digits."""
    return round_number(repr(float(value)), digits)


def tick_label(value: float, unit: str) -> str:
    """An x tick: binary sizes for byte units (32 MiB), whole numbers without an exponent."""
    if unit in BYTE_UNITS and value > 0:
        size = value * BYTE_UNITS[unit]
        for name, factor in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
            if size >= factor:
                return f"{size / factor:.4g} {name}"
        return f"{size:.4g} B"
    if float(value).is_integer():
        return count_label(int(value))
    return f"{value:g}"


#: A whole number of more digits than this is shortened (a table cell shows at most four).
COUNT_DIGITS = 4


def count_label(value: int) -> str:
    """A whole number as a GPU paper prints a size: ``16384`` is ``16K``, ``131072`` ``128K``
    (K = 1024, as for sequence lengths and matrix sizes); any other stays as it is."""
    if len(str(abs(value))) > COUNT_DIGITS and value % 1024 == 0:
        return f"{value // 1024}K"
    return str(value)
