"""Make Pagefind's bundle the same bytes for the same pages.

Pagefind writes each filter index (our category filter) from a hash map, in an order that
changes from run to run (Pagefind/pagefind#638): the filter file, its name (a hash of its
bytes), the metadata file that names it, and ``pagefind-entry.json`` that names that, all
differ between two builds of the same sources. After Pagefind has run, each filter's values
are put in sorted order and the two files are written again under names made from their new
bytes, so two builds give identical bundles.

The files are gzip'd ``pagefind_dcd`` + CBOR; the few CBOR types Pagefind uses there
(unsigned integers, text, arrays) are read and written here, shortest form, as Pagefind does.
A bundle that does not look as expected is left as Pagefind wrote it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

MAGIC = b"pagefind_dcd"
ENTRY = "pagefind-entry.json"
#: Where the metadata names the filter files: ``[[filter name, file hash], …]``.
META_FILTERS = 3


class _Unexpected(ValueError):
    """The bundle is not laid out as this module knows it."""


# -- A little CBOR ---------------------------------------------------------------------------------


def _decode(data: bytes, pos: int = 0):
    major, info = data[pos] >> 5, data[pos] & 0x1F
    pos += 1
    if info < 24:
        value = info
    elif 24 <= info <= 27:
        size = 1 << (info - 24)
        value = int.from_bytes(data[pos : pos + size], "big")
        pos += size
    else:
        raise _Unexpected(f"CBOR item {major}/{info}")
    if major == 0:
        return value, pos
    if major == 3:
        return data[pos : pos + value].decode("utf-8"), pos + value
    if major == 4:
        items = []
        for _ in range(value):
            item, pos = _decode(data, pos)
            items.append(item)
        return items, pos
    raise _Unexpected(f"CBOR major type {major}")


def _head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([major << 5 | value])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if value < 1 << (8 * size):
            return bytes([major << 5 | info]) + value.to_bytes(size, "big")
    raise _Unexpected("integer too large")


def _encode(value) -> bytes:
    if isinstance(value, bool) or not isinstance(value, (int, str, list)):
        raise _Unexpected(f"cannot write {type(value).__name__}")
    if isinstance(value, int):
        return _head(0, value)
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return _head(3, len(raw)) + raw
    return _head(4, len(value)) + b"".join(_encode(item) for item in value)


def read_file(path: Path):
    data = gzip.decompress(path.read_bytes())
    if not data.startswith(MAGIC):
        raise _Unexpected(f"{path.name} is not a Pagefind index file")
    value, end = _decode(data, len(MAGIC))
    if end != len(data):
        raise _Unexpected(f"{path.name} has trailing data")
    return value


def write_file(folder: Path, prefix: str, suffix: str, value, digits: int) -> str:
    """Write ``value`` under a name made from its bytes; return the hash part of the name."""
    data = MAGIC + _encode(value)
    name = f"{prefix}_{hashlib.sha256(data).hexdigest()[:digits]}"
    (folder / f"{name}{suffix}").write_bytes(gzip.compress(data, mtime=0))
    return name


# -- The bundle ----------------------------------------------------------------------------------


def canonicalize(bundle: Path) -> None:
    """Put every filter index of ``bundle`` in a stable order (see the module's doc)."""
    try:
        entry = json.loads((bundle / ENTRY).read_text(encoding="utf-8"))
        for language in entry["languages"].values():
            language["hash"] = _canonical_meta(bundle, language["hash"])
    except (OSError, KeyError, TypeError, ValueError, IndexError, gzip.BadGzipFile):
        return  # not the layout we know (another Pagefind version): leave it as it is
    (bundle / ENTRY).write_text(json.dumps(entry, separators=(",", ":")), encoding="utf-8")


def _canonical_meta(bundle: Path, meta_hash: str) -> str:
    old_meta = bundle / f"pagefind.{meta_hash}.pf_meta"
    meta = read_file(old_meta)
    prefix = meta_hash.rsplit("_", 1)[0]
    for pair in meta[META_FILTERS]:
        filter_name, file_hash = pair
        old_filter = bundle / "filter" / f"{file_hash}.pf_filter"
        name, values = read_file(old_filter)
        if name != filter_name:
            raise _Unexpected(f"filter {file_hash} holds {name!r}, not {filter_name!r}")
        values.sort(key=lambda item: item[0])
        new_hash = write_file(bundle / "filter", prefix, ".pf_filter", [name, values], 7)
        if new_hash != file_hash:
            old_filter.unlink()
        pair[1] = new_hash
    new_meta = write_file(bundle, f"pagefind.{prefix}", ".pf_meta", meta, 10)
    if new_meta != f"pagefind.{meta_hash}":
        old_meta.unlink()
    return new_meta.removeprefix("pagefind.")
