"""A shard's meta field numbers written again for the merged bundle.

Pagefind's metadata lists the meta fields of the pages it indexed (``title``, ``date``, …),
sorted, and a word found in a page's metadata names its field by its place in that list
(``[-(field + 1), position, …]`` in the word's meta locations). A shard whose pages have
fewer fields (a shard of pages without a date) numbers them otherwise than the merged
bundle, which lists every shard's fields: its word entries are written again with the
bundle's numbers. The lists are sorted, so the numbers keep their order, and the entries
are what Pagefind writes when it indexes all pages together.
"""

from __future__ import annotations

import dataclasses

from .cbor import Unexpected, decode, encode, head, skip


def renumbered(language, fields: list[str]):
    """``language`` (a :class:`kb.search.merge.Language`) with the meta fields ``fields``."""
    if language.meta_fields == fields:
        return language
    if language.meta_fields != sorted(language.meta_fields):
        raise Unexpected("meta fields not in order")
    mapping = [fields.index(name) for name in language.meta_fields]
    words = {}
    for word, (count, first, first_tail, rest, last, locations) in language.words.items():
        tail, _ = _page_tail(first_tail, 0, mapping)
        words[word] = (count, first, tail, _pages(rest, mapping), last, locations)
    return dataclasses.replace(language, meta_fields=list(fields), words=words)


def _page_tail(data: bytes, pos: int, mapping: list[int]) -> tuple[bytes, int]:
    """A page entry's locations (copied) and meta locations (renumbered) from ``pos``: their
    bytes, and where they end."""
    meta = skip(data, pos)
    end = skip(data, meta)
    values, _ = decode(data, meta)
    if not values:
        return data[pos:end], end
    try:
        values = [-(mapping[-value - 1] + 1) if value < 0 else value for value in values]
    except (IndexError, TypeError):
        raise Unexpected("meta location of an unknown field") from None
    return data[pos:meta] + encode(values), end


def _pages(data: bytes, mapping: list[int]) -> bytes:
    """Page entries (``0x83``, page delta, locations, meta locations), renumbered."""
    pieces, pos = [], 0
    while pos < len(data):
        _, _, tail = head(data, pos + 1)
        renumbered_tail, end = _page_tail(data, tail, mapping)
        pieces += [data[pos:tail], renumbered_tail]
        pos = end
    return b"".join(pieces)
