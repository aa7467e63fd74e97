"""Make Pagefind's bundle the same bytes for the same pages.

Pagefind writes each filter index (our category filter) from a hash map, in an order that
changes from run to run (Pagefind/pagefind#638): the filter file, its name (a hash of its
bytes), the metadata file that names it, and ``pagefind-entry.json`` that names that, all
differ between two builds of the same sources. After Pagefind has run, each filter's values
are put in sorted order and the two files are written again under names made from their new
bytes, so two builds give identical bundles.

The files are gzip'd ``pagefind_dcd`` + CBOR, read and written by :mod:`.cbor`.
A bundle of a Pagefind version whose layout kb does not know (:mod:`kb.upstream.pagefind`), or
that does not look as expected, is left as Pagefind wrote it.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from ..upstream.pagefind import layout_is_known
from .cbor import Unexpected as _Unexpected
from .cbor import read_file, write_file

__all__ = ["canonicalize", "read_file", "write_file"]

ENTRY = "pagefind-entry.json"
#: Where the metadata names the filter files: ``[[filter name, file hash], …]``.
META_FILTERS = 3

# -- The bundle ----------------------------------------------------------------------------------


def canonicalize(bundle: Path) -> None:
    """Put every filter index of ``bundle`` in a stable order (see the module's doc)."""
    try:
        entry = json.loads((bundle / ENTRY).read_text(encoding="utf-8"))
        if not layout_is_known(entry.get("version")):
            return  # another Pagefind version: its bundle is left as it wrote it
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
