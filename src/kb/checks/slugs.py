"""Slugs: the page name a tag, category, author or series gets.

The same rule as ablog's ``slugify`` (NFKD, drop what is not a word character, space or
hyphen, lower case, runs of spaces and hyphens become one hyphen), written here so that the
checks, which import no Sphinx or ablog, name the very pages the build writes.
``tests/test_upstream.py`` compares the two on many strings and fails if ablog's changes.
"""

from __future__ import annotations

import functools
import posixpath
import re
from unicodedata import normalize

_NOT_WORD = re.compile(r"[^\w\s-]")
_SPACES = re.compile(r"[-\s]+")


def slugify(text: str) -> str:
    return _slug(str(text))  # any value a source gives (a YAML list, a number) as its text


@functools.lru_cache(maxsize=65536)
def _slug(text: str) -> str:
    # Cached: every build slugs each post's tags, categories and series several times over
    # (checks, labels, listings), about 50,000 calls at 10,000 posts for a few hundred names.
    text = normalize("NFKD", text)
    return _SPACES.sub("-", _NOT_WORD.sub("", text).strip().lower())


def join(path: str, *paths: str) -> str:
    """Join docname parts with ``/`` on every platform."""
    return posixpath.join(path, *paths)
