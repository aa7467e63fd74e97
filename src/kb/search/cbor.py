"""The little CBOR that Pagefind's index files use, read and written as Pagefind writes it.

Pagefind's files are gzip'd ``pagefind_dcd`` + one CBOR item made of unsigned and negative
integers, text, byte strings and arrays (maps are read, never written), each in its shortest
form. :func:`decode` reads a whole item into Python values; :func:`skip` only finds where an
item ends, for code that copies items as bytes (:mod:`kb.search.shards`).

Files are compressed with ISA-L's gzip (:mod:`isal.igzip`, at its best level), not zlib's:
a post added or deleted changes every index chunk of the merged bundle, and compressing
them was most of the merge (4.4 MB of chunks at 1000 posts: 0.24 s with zlib at level 6,
0.017 s with ISA-L, for files 3% larger; 1.5 s of 2.7 at 10,000 posts). Any gzip reader
reads them, the browser's included.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from isal import igzip

from ..core.fileio import crash_point, holds_exactly, write_if_changed

MAGIC = b"pagefind_dcd"


class Unexpected(ValueError):
    """The data is not laid out as this module knows it."""


def head(data: bytes, pos: int) -> tuple[int, int, int]:
    """``(major type, argument, position after the head)`` of the item at ``pos``."""
    byte = data[pos]
    major, info = byte >> 5, byte & 0x1F
    if info < 24:
        return major, info, pos + 1
    if info > 27:
        raise Unexpected(f"CBOR item {major}/{info}")
    size = 1 << (info - 24)
    return major, int.from_bytes(data[pos + 1 : pos + 1 + size], "big"), pos + 1 + size


def skip(data: bytes, pos: int) -> int:
    """Where the item at ``pos`` ends.

    A loop over a count of items still to pass, not a recursion: index chunks are mostly
    arrays of small integers (word positions), and a call per integer was most of the time
    a merge took (1.3 s of an added post's build at 1000 posts under cProfile)."""
    remaining = 1
    while remaining:
        remaining -= 1
        byte = data[pos]
        major, info = byte >> 5, byte & 0x1F
        if info < 24:
            value, pos = info, pos + 1
        elif info <= 27:
            size = 1 << (info - 24)
            value = int.from_bytes(data[pos + 1 : pos + 1 + size], "big")
            pos += 1 + size
        else:
            raise Unexpected(f"CBOR item {major}/{info}")
        if major <= 1:
            continue
        if major <= 3:
            pos += value
        elif major == 4:
            remaining += value
        elif major == 5:
            remaining += 2 * value
        else:
            raise Unexpected(f"CBOR major type {major}")
    return pos


def decode(data: bytes, pos: int = 0):
    """``(value, end)`` of the item at ``pos``."""
    major, value, pos = head(data, pos)
    if major == 0:
        return value, pos
    if major == 1:
        return -1 - value, pos
    if major == 2:
        return data[pos : pos + value], pos + value
    if major == 3:
        return data[pos : pos + value].decode("utf-8"), pos + value
    if major == 4:
        items = []
        for _ in range(value):
            item, pos = decode(data, pos)
            items.append(item)
        return items, pos
    if major == 5:
        mapping = {}
        for _ in range(value):
            key, pos = decode(data, pos)
            mapping[key], pos = decode(data, pos)
        return mapping, pos
    raise Unexpected(f"CBOR major type {major}")


def encode_head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([major << 5 | value])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if value < 1 << (8 * size):
            return bytes([major << 5 | info]) + value.to_bytes(size, "big")
    raise Unexpected("integer too large")


def encode(value) -> bytes:
    if isinstance(value, bool):
        raise Unexpected("cannot write bool")
    if isinstance(value, int):
        return encode_head(0, value) if value >= 0 else encode_head(1, -1 - value)
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return encode_head(3, len(raw)) + raw
    if isinstance(value, bytes):
        return encode_head(2, len(value)) + value
    if isinstance(value, list):
        return encode_head(4, len(value)) + b"".join(encode(item) for item in value)
    raise Unexpected(f"cannot write {type(value).__name__}")


def compress(data: bytes) -> bytes:
    """``data`` gzip'd, the same bytes for the same data (no time stamp)."""
    return igzip.compress(data, COMPRESSION_LEVEL, mtime=0)


#: ISA-L's best level (its levels are 0 to 3); its files come out between zlib's levels 4
#: and 5 in size.
COMPRESSION_LEVEL = 3


def unpack(path: Path) -> bytes:
    """The CBOR bytes of a Pagefind file, after its magic."""
    data = gzip.decompress(path.read_bytes())
    if not data.startswith(MAGIC):
        raise Unexpected(f"{path.name} is not a Pagefind index file")
    return data[len(MAGIC) :]


def read_file(path: Path):
    data = unpack(path)
    value, end = decode(data)
    if end != len(data):
        raise Unexpected(f"{path.name} has trailing data")
    return value


def pack(
    folder: Path, prefix: str, suffix: str, cbor: bytes, digits: int, taken=None, written=None
) -> str:
    """Write CBOR bytes as Pagefind does, under a name made from them; the name, no suffix.

    A file of that name already there with the same bytes is left as it is. ``taken``: paths
    this bundle already holds, which a short name that is the same for other bytes must not
    replace (the name then gets longer, as Pagefind does); the new path joins them.
    ``written``: what earlier calls left (path -> file identity and digest of the bytes before
    compression), updated here. A file still as it was left, for the same bytes, is neither
    compressed nor read again: compressing every index chunk was most of a merge after a
    one-post edit, which changes few chunks."""
    packed = plan_pack(folder, prefix, suffix, cbor, digits, taken, written)
    if packed.data is not None:
        packed.write()
        if written is not None:
            written[str(packed.path)] = packed.identity()
    return packed.name


def pack_many(folder: Path, prefix: str, suffix: str, files, digits: int, taken, written):
    """:func:`pack` for each CBOR bytes of ``files``, in order; their names. The names are
    given in order (a name two files share gets longer for the second, as Pagefind does); the
    files are compressed and written by as many threads as there are processors (ISA-L lets
    go of the lock that keeps Python to one thread): a post added or deleted renumbers the
    pages after it, which changes every index chunk (70 at 1000 posts, 700 at 10,000)."""
    plans = [plan_pack(folder, prefix, suffix, cbor, digits, taken, written) for cbor in files]
    pending = [packed for packed in plans if packed.data is not None]
    if len(pending) > 1:
        with ThreadPoolExecutor(min(len(pending), os.cpu_count() or 1)) as pool:
            for _ in pool.map(_Packed.write, pending):
                pass
    else:
        for packed in pending:
            packed.write()
    if written is not None:
        for packed in pending:
            written[str(packed.path)] = packed.identity()
    return [packed.name for packed in plans]


@dataclass
class _Packed:
    """A file :func:`plan_pack` named: its bytes (None when the file is as it was left)."""

    name: str
    path: Path
    digest: str
    data: bytes | None

    def write(self) -> None:
        assert self.data is not None
        compressed = compress(self.data)
        if not holds_exactly(self.path, compressed):
            crash_point("merge")
            write_if_changed(self.path, compressed)

    def identity(self) -> list | None:
        return _identity(self.path, self.digest)


def plan_pack(
    folder: Path, prefix: str, suffix: str, cbor: bytes, digits: int, taken=None, written=None
) -> _Packed:
    """The name :func:`pack` gives ``cbor``, and whether its file is to be written."""
    data = MAGIC + cbor
    digest = hashlib.sha256(data).hexdigest()
    for length in range(digits, len(digest) + 1):
        name = f"{prefix}_{digest[:length]}"
        path = folder / f"{name}{suffix}"
        if taken is None or path not in taken:
            break
    if taken is not None:
        taken.add(path)
    if written is not None:
        known = written.get(str(path))
        if known is not None and known == _identity(path, digest):
            return _Packed(name, path, digest, None)
    return _Packed(name, path, digest, data)


def _identity(path: Path, digest: str) -> list | None:
    """What tells that ``path`` is the file written for bytes of ``digest``: its inode, time
    stamp and size (a file written again has another), and the digest."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return [stat.st_ino, stat.st_mtime_ns, stat.st_size, digest]


def write_file(folder: Path, prefix: str, suffix: str, value, digits: int) -> str:
    """Write ``value`` under a name made from its bytes; return the hash part of the name."""
    return pack(folder, prefix, suffix, encode(value), digits)
