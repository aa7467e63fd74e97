"""Pagefind bundles of disjoint sets of pages, merged into the one bundle a search page loads.

Pagefind has no incremental mode (Pagefind/pagefind#71): one changed page costs a run over
every page. :mod:`kb.search.shards` runs it over one shard of the pages at a time; this module
reads each shard's bundle (:func:`read_shard`, once per change of the shard, kept in a
pickle) and writes a bundle that holds all their pages (:func:`merge`), as Pagefind would
index them together: the same words in the same index chunks (Pagefind's own rule: a chunk
ends once it holds 20,000 locations), the same page counts and word counts for ranking, the
filters and sort orders of all pages. Pages are numbered shard after shard. The browser sees
one ordinary bundle: a query fetches what it fetched from a bundle made in one run.

How the files are laid out (Pagefind 1.5, only for the versions of
:data:`kb.upstream.pagefind.KNOWN_VERSIONS`; anything else raises :class:`Unexpected` and the
caller indexes every page in one run instead):

* ``pagefind.<hash>.pf_meta``: ``[version, [[fragment, word count]…], [[from, to, chunk]…],
  [[filter, file]…], [[sort, [page…]]…], [meta field…]]``;
* ``index/<chunk>.pf_index``: ``[[[word, [[page delta, [location…], [meta location…]]…],
  []]…]]``, page numbers as the difference from the one before (the first from 0), meta
  locations naming a meta field by its place in the list;
* ``filter/<file>.pf_filter``: ``[filter, [[value, [page…]]…]]``;
* ``fragment/<fragment>.pf_fragment``: one page's text and metadata, copied as it is.

The word entries are copied as bytes: only the first page delta of each shard's part of a
word is written again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.fileio import write_atomically
from ..core.waiting import stop_if
from ..upstream.pagefind import layout_is_known
from .bundle import link_into_place
from .cbor import (
    Unexpected,
    decode,
    encode,
    encode_head,
    head,
    pack,
    pack_many,
    read_file,
    skip,
    unpack,
)
from .metafields import renumbered

ENTRY = "pagefind-entry.json"
#: Pagefind's chunk rule (``chunk_index(word_map, 20000)`` in its indexer).
CHUNK_LOCATIONS = 20000
_EMPTY_ARRAY = b"\x80"
#: How many index chunks a merge encodes between two questions whether a build waits for it:
#: a question opens a file and tries its lock (8 µs without a note, 21 µs with one), and 64 of
#: the 700 chunks at 10,000 posts are a few hundredths of a second of encoding.
CHECK_EVERY = 64
_SORT_VALUE = re.compile(r'data-pagefind-sort="([^":]+)">([^<]*)<')


@dataclass
class Language:
    """One language's index in one shard; pages numbered from 0 within the shard."""

    wasm: str
    meta_fields: list[str]
    pages: list[tuple[str, int]] = field(default_factory=list)  # fragment name, word count
    #: word -> (pages, first page, the first page's entry after its delta, the other entries,
    #: last page, locations counted as Pagefind counts them for chunking)
    words: dict[str, tuple[int, int, bytes, bytes, int, int]] = field(default_factory=dict)
    filters: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    sorts: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # (value, page)


@dataclass
class Shard:
    version: str
    include_characters: list
    folder: str  # the shard's bundle, where its fragments and Pagefind's scripts are
    languages: dict[str, Language]


# -- Reading one shard ---------------------------------------------------------------------------


def read_shard(folder: Path, records: dict[str, str]) -> Shard:
    """Read the bundle Pagefind wrote for ``records`` (site path -> record file)."""
    entry = json.loads((folder / ENTRY).read_text(encoding="utf-8"))
    if not layout_is_known(entry.get("version")):
        raise Unexpected(f"a bundle of Pagefind {entry.get('version')}, a layout kb does not know")
    languages = {}
    for code, info in sorted(entry["languages"].items()):
        meta = read_file(folder / f"pagefind.{info['hash']}.pf_meta")
        if len(meta) != 6 or not isinstance(meta[0], str):
            raise Unexpected("metadata of another layout")
        version, pages, chunks, filters, sorts, fields = meta
        language = Language(info.get("wasm") or "unknown", list(fields))
        if any(len(page) != 2 for page in pages):  # grouped fragments (--max-fragments)
            raise Unexpected("pages of another layout")
        language.pages = [(name, count) for name, count in pages]
        for _, _, chunk in chunks:
            _read_chunk(unpack(folder / "index" / f"{chunk}.pf_index"), language)
        for _, file in filters:
            filter_name, values = read_file(folder / "filter" / f"{file}.pf_filter")
            language.filters[filter_name] = {value: list(numbers) for value, numbers in values}
        if sorts:
            language.sorts = _sort_values(folder, language, sorts, records)
        if entry["version"] != version:
            raise Unexpected("entry and metadata of different versions")
        languages[code] = language
    return Shard(entry["version"], entry.get("include_characters", []), str(folder), languages)


def _read_chunk(data: bytes, language: Language) -> None:
    major, count, pos = head(data, 0)
    if major != 4 or count != 1:
        raise Unexpected("index chunk of another layout")
    major, words, pos = head(data, pos)
    for _ in range(words):
        major, size, pos = head(data, pos)
        if major != 4 or size != 3:
            raise Unexpected("word entry of another layout")
        word, pos = decode(data, pos)
        major, entries, pos = head(data, pos)
        if major != 4 or entries == 0:
            raise Unexpected("word without pages")
        page = locations = 0
        first, first_tail, rest_start = 0, b"", 0  # set by the first entry (there is one)
        for number in range(entries):
            if data[pos] != 0x83:
                raise Unexpected("page entry of another layout")
            major, delta, tail = head(data, pos + 1)
            if major != 0:
                raise Unexpected("negative page delta")
            page += delta
            major, locs, _ = head(data, tail)
            meta_start = skip(data, tail)
            major, meta_locs, _ = head(data, meta_start)
            end = skip(data, meta_start)
            locations += locs + meta_locs + 1  # as Pagefind counts them to cut chunks
            if number == 0:
                first, first_tail, rest_start = page, data[tail:end], end
            pos = end
        if data[pos : pos + 1] != _EMPTY_ARRAY:
            raise Unexpected("word entry with extra data")
        if page >= len(language.pages) or word in language.words:
            raise Unexpected("word entry out of range")
        language.words[word] = (entries, first, first_tail, data[rest_start:pos], page, locations)
        pos += 1


def _sort_values(folder, language, sorts, records) -> dict[str, list[tuple[str, int]]]:
    """Each sorted page's value, read from its record (Pagefind keeps only the order)."""
    values: dict[int, dict[str, str]] = {}
    for number, (name, _) in enumerate(language.pages):
        fragment = json.loads(unpack(folder / "fragment" / f"{name}.pf_fragment"))
        url = fragment["url"].lstrip("/")
        relpath = url + "index.html" if url == "" or url.endswith("/") else url
        if relpath not in records:
            raise Unexpected(f"no record for {fragment['url']}")
        text = Path(records[relpath]).read_text(encoding="utf-8")
        values[number] = dict(_SORT_VALUE.findall(text))
    result = {}
    for sort, pages in sorts:
        try:
            result[sort] = [(values[number][sort], number) for number in pages]
        except KeyError as missing:
            raise Unexpected(f"sort value not found: {missing}") from None
    return result


# -- Merging ----------------------------------------------------------------------------------


def merge(
    shards: list[Shard],
    bundle: Path,
    written: dict | None = None,
    superseded: Callable[[], bool] = lambda: False,
) -> set[str]:
    """Write ``bundle`` from ``shards``: one Pagefind bundle of all their pages; the names of
    its files (as ``folder/name``).

    Files already in ``bundle`` with the right bytes are kept (names are hashes of the
    bytes); new ones are renamed into place, the entry last, so a reader of the old entry
    finds every file it names. Removing the files no longer named
    (:func:`kb.search.bundle.prune`) leaves what a merge into an empty folder gives.
    ``written``: what the last merge wrote, kept by the caller between builds (see
    :func:`kb.search.cbor.pack`); updated to what this merge leaves. ``superseded`` is asked
    every :data:`CHECK_EVERY` index chunks and before the entry is written: where it says so,
    the merge raises :class:`~kb.core.waiting.Superseded`, leaving the entry as it was (the
    files it wrote beside the old ones are the next merge's to keep or remove)."""
    if not shards:
        raise Unexpected("nothing to merge")
    first = shards[0]
    for shard in shards[1:]:
        same = (shard.version, shard.include_characters, sorted(shard.languages)) == (
            first.version,
            first.include_characters,
            sorted(first.languages),
        )
        if not same:
            raise Unexpected("shards indexed differently")
    keep: set[Path] = set()
    fragments: set[str] = set()  # file names in fragment/ (one per page: kept as names)
    for folder in ("index", "filter", "fragment"):
        (bundle / folder).mkdir(parents=True, exist_ok=True)
    languages: dict[str, dict] = {}
    for code in sorted(first.languages):
        parts = [shard.languages[code] for shard in shards]
        meta_hash, pages = _merge_language(
            code, parts, shards, bundle, keep, written, fragments, superseded
        )
        languages[code] = {"hash": meta_hash, "wasm": parts[0].wasm, "page_count": pages}
    entry = {
        "version": first.version,
        "languages": languages,
        "include_characters": first.include_characters,
    }
    _copy_scripts(Path(first.folder), bundle, keep)
    stop_if(superseded)
    entry_path = bundle / ENTRY
    text = json.dumps(entry, separators=(",", ":"), ensure_ascii=False)
    try:
        same = entry_path.read_text(encoding="utf-8") == text
    except (OSError, ValueError):
        same = False
    if not same:
        write_atomically(entry_path, text)
    keep.add(entry_path)
    if written is not None:
        kept = {str(path) for path in keep}
        for path in [path for path in written if path not in kept]:
            del written[path]
    names = {path.relative_to(bundle).as_posix() for path in keep}
    return names | {f"fragment/{name}" for name in fragments}


def _merge_language(
    code, parts: list[Language], shards, bundle, keep, written, fragments, superseded
) -> tuple[str, int]:
    if any(part.wasm != parts[0].wasm for part in parts):
        raise Unexpected("shards with different WebAssembly")
    fields = sorted({name for part in parts for name in part.meta_fields})
    parts = [renumbered(part, fields) for part in parts]
    offsets, total = [], 0
    for part in parts:
        offsets.append(total)
        total += len(part.pages)
    names = _fragments(parts, shards, bundle, fragments)
    pages = [
        [name, count]
        for part_names, part in zip(names, parts, strict=True)
        for name, (_, count) in zip(part_names, part.pages, strict=True)
    ]
    chunks = _write_chunks(code, parts, offsets, bundle, keep, written, superseded)
    filters = _write_filters(code, parts, offsets, bundle, keep, written)
    sorts = _merge_sorts(parts, offsets)
    meta = encode([shards[0].version, pages, chunks, filters, sorts, fields])
    name = pack(bundle, f"pagefind.{code}", ".pf_meta", meta, 10, keep, written)
    return name.removeprefix("pagefind."), total


def _fragments(parts, shards, bundle: Path, kept: set[str]) -> list[list[str]]:
    """Each page's fragment in the bundle, linked from its shard; a name two shards gave to
    different pages (Pagefind's names are 7 hex digits of a hash) is made longer. Paths are
    strings here: one ``Path`` a page cost 0.8 s at 10,000 posts."""
    folders = [os.path.join(shard.folder, "fragment") for shard in shards]
    sources: dict[str, set[str]] = {}
    for part, folder in zip(parts, folders, strict=True):
        for name, _ in part.pages:
            sources.setdefault(name, set()).add(os.path.join(folder, f"{name}.pf_fragment"))
    renamed = {}
    for name, paths in sources.items():
        if len(paths) > 1 and len({Path(p).read_bytes() for p in paths}) > 1:
            for path in paths:
                digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                renamed[path] = f"{name}_{digest[:12]}"
    target_folder = os.path.join(bundle, "fragment")
    names = []
    for part, folder in zip(parts, folders, strict=True):
        part_names = []
        for name, _ in part.pages:
            source = os.path.join(folder, f"{name}.pf_fragment")
            final = renamed.get(source, name)
            _link(source, os.path.join(target_folder, f"{final}.pf_fragment"))
            kept.add(f"{final}.pf_fragment")
            part_names.append(final)
        names.append(part_names)
    return names


def _write_chunks(code, parts, offsets, bundle: Path, keep, written, superseded) -> list[list[str]]:
    stop_if(superseded)
    shards_of = _shards_of_words(parts, offsets)
    chunks, current, size = [], [], 0
    for word in sorted(shards_of):
        current.append(word)
        size += sum(entry[5] for _, entry in shards_of[word])
        if size >= CHUNK_LOCATIONS:
            chunks.append(current)
            current, size = [], 0
    if current:
        chunks.append(current)
    meta = _chunk_ranges(chunks)
    bodies = []
    for number, chunk in enumerate(chunks):
        if number % CHECK_EVERY == 0:
            stop_if(superseded)
        entries = (_word_entry(word, shards_of[word]) for word in chunk)
        bodies.append(b"".join([encode_head(4, 1), encode_head(4, len(chunk)), *entries]))
    stop_if(superseded)
    names = pack_many(bundle / "index", code, ".pf_index", bodies, 7, keep, written)
    for entry, name in zip(meta, names, strict=True):
        entry.append(name)
    return meta


def _shards_of_words(parts, offsets) -> dict[str, list[tuple[int, tuple]]]:
    """Each word's entries in the shards that hold it, in shard order, with each shard's first
    page number. Built by going through each shard's words once: asking every shard for every
    word cost words × shards lookups (11 million at 10,000 posts in 256 shards: 30 s of an
    edit under cProfile)."""
    shards_of: dict[str, list[tuple[int, tuple]]] = {}
    for part, offset in zip(parts, offsets, strict=True):
        for word, entry in part.words.items():
            found = shards_of.get(word)
            if found is None:
                shards_of[word] = [(offset, entry)]
            else:
                found.append((offset, entry))
    return shards_of


def _chunk_ranges(chunks: list[list[str]]) -> list[list[str]]:
    """``[from, to]`` of each chunk of sorted words, as Pagefind 1.5's ``chunk_meta`` writes
    them: cut short where the next chunk's words differ, but never to end before its start."""
    ranges = [[chunk[0], chunk[-1]] for chunk in chunks]
    for before, after in zip(ranges, ranges[1:], strict=False):
        end, start = _prefixes(before[1], after[0])
        if end >= before[0]:
            before[1] = end
        after[0] = start
    return ranges


def _word_entry(word: str, entries_by_shard: list[tuple[int, tuple]]) -> bytes:
    pieces, entries, previous = [], 0, 0
    for offset, (count, first, first_tail, rest, last, _) in entries_by_shard:
        entries += count
        pieces += [b"\x83", encode_head(0, offset + first - previous), first_tail, rest]
        previous = offset + last
    return b"".join([b"\x83", encode(word), encode_head(4, entries), *pieces, _EMPTY_ARRAY])


def _prefixes(last: str, first: str) -> tuple[str, str]:
    """Where one chunk ends and the next starts, as Pagefind 1.5 writes them (``chunk_meta``):
    the two words cut one character after what they share."""
    common = 0
    for a, b in zip(last, first, strict=False):
        if a != b:
            break
        common += 1
    return last[: common + 1], first[: common + 1]


def _write_filters(code, parts, offsets, bundle: Path, keep, written) -> list[list[str]]:
    merged: dict[str, dict[str, list[int]]] = {}
    for part, offset in zip(parts, offsets, strict=True):
        for name, values in part.filters.items():
            target = merged.setdefault(name, {})
            for value, numbers in values.items():
                target.setdefault(value, []).extend(offset + n for n in numbers)
    result = []
    for name in sorted(merged):
        values = [[value, sorted(numbers)] for value, numbers in sorted(merged[name].items())]
        cbor = encode([name, values])
        file = pack(bundle / "filter", code, ".pf_filter", cbor, 7, keep, written)
        result.append([name, file])
    return result


def _merge_sorts(parts, offsets) -> list:
    """Pagefind sorts by text (Rust's byte order, which is Python's code point order), pages
    with equal values in page order; by number only when every value reads as one, in 32-bit
    floats, which is not repeated here: such a sort raises :class:`Unexpected`."""
    merged: dict[str, list[tuple[str, int]]] = {}
    for part, offset in zip(parts, offsets, strict=True):
        for name, pairs in part.sorts.items():
            merged.setdefault(name, []).extend((value, offset + n) for value, n in pairs)
    result = []
    for name in sorted(merged):
        pairs = merged[name]
        if all(_is_number(value) for value, _ in pairs):
            raise Unexpected(f"numeric sort {name!r}")
        result.append([name, [number for _, number in sorted(pairs)]])
    return result


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _copy_scripts(source: Path, bundle: Path, keep) -> None:
    """Pagefind's scripts and WebAssembly, the same in every shard's bundle."""
    for path in sorted(source.iterdir()):
        if path.is_file() and path.name != ENTRY and not path.name.endswith(".pf_meta"):
            target = bundle / path.name
            _link(path, target, compare_bytes=True)
            keep.add(target)


def _link(source, target, compare_bytes: bool = False) -> None:
    try:
        if os.path.samefile(source, target):
            return
        if compare_bytes and Path(source).read_bytes() == Path(target).read_bytes():
            return
    except FileNotFoundError:
        pass
    link_into_place(source, target)
