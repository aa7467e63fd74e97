"""Pagefind's bundle read as a search reads it, for tests that compare bundles or look words up.

Page numbers are replaced by page URLs, so that bundles whose pages are numbered differently
(one Pagefind run, or shards merged) compare equal when a search finds the same in both.
"""

from __future__ import annotations

import json
from pathlib import Path

from kb.search.cbor import read_file, unpack


def bundle_files(bundle: Path) -> dict[str, bytes]:
    return {
        p.relative_to(bundle).as_posix(): p.read_bytes() for p in bundle.rglob("*") if p.is_file()
    }


def read_bundle(bundle: Path) -> dict:
    """What a search can find in a bundle, by page URL."""
    entry = json.loads((bundle / "pagefind-entry.json").read_text(encoding="utf-8"))
    found = {"version": entry["version"], "languages": {}}
    for code, info in sorted(entry["languages"].items()):
        meta = read_file(bundle / f"pagefind.{info['hash']}.pf_meta")
        _, pages, chunks, filters, sorts, fields = meta
        urls, fragments = [], {}
        for name, word_count in pages:
            fragment = json.loads(unpack(bundle / "fragment" / f"{name}.pf_fragment"))
            urls.append(fragment["url"])
            fragments[fragment["url"]] = (word_count, fragment)
        words = {}
        for _, _, chunk in chunks:
            (entries,) = read_file(bundle / "index" / f"{chunk}.pf_index")
            for word, word_pages, variants in entries:
                page, where = 0, {}
                for delta, locations, meta_locations in word_pages:
                    page += delta
                    where[urls[page]] = (locations, meta_locations)
                words[word] = (where, variants)
        filter_values = {}
        for _, file in filters:
            name, values = read_file(bundle / "filter" / f"{file}.pf_filter")
            filter_values[name] = {
                value: sorted(urls[n] for n in numbers) for value, numbers in values
            }
        found["languages"][code] = {
            "page_count": info["page_count"],
            "fragments": fragments,
            "words": words,
            "filters": filter_values,
            "sorts": {name: [urls[n] for n in numbers] for name, numbers in sorts},
            "meta_fields": fields,
            "chunk_ranges": [chunk[:2] for chunk in chunks],
        }
    return found


def pages_with(bundle: Path, prefix: str) -> set[str]:
    """URLs of the pages holding a word that starts with ``prefix``, as a search finds them."""
    words = read_bundle(bundle)["languages"]["en"]["words"]
    return {url for word, (where, _) in words.items() if word.startswith(prefix) for url in where}
