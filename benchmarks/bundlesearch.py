"""Look a word up in a built site's Pagefind bundle, as a search does: which pages hold it.

Reads the bundle's metadata, the index chunk whose range holds the word and the fragments of
the pages found (``kb.search.cbor`` reads Pagefind's files). Pagefind stems words, so a word
is looked up by the stem that it starts with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
from kb.search.cbor import read_file, unpack  # noqa: E402


def pages_with(bundle: Path, prefix: str, language: str = "en") -> set[str]:
    """URLs of the pages that hold a word starting with ``prefix`` (lower case)."""
    entry = json.loads((bundle / "pagefind-entry.json").read_text(encoding="utf-8"))
    info = entry["languages"][language]
    _, pages, chunks, *_ = read_file(bundle / f"pagefind.{info['hash']}.pf_meta")
    found: set[int] = set()
    for start, end, chunk in chunks:
        # A chunk's range is written as prefixes: read every chunk that could hold the word.
        if prefix[: len(start)] < start or prefix[: len(end)] > end:
            continue
        (words,) = read_file(bundle / "index" / f"{chunk}.pf_index")
        for word, word_pages, _ in words:
            if word.startswith(prefix):
                number = 0
                for delta, *_ in word_pages:
                    number += delta
                    found.add(number)
    urls = set()
    for number in found:
        fragment = json.loads(unpack(bundle / "fragment" / f"{pages[number][0]}.pf_fragment"))
        urls.add(fragment["url"])
    return urls
