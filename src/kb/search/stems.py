"""Sphinx's own search index, when ``kb_search = False``: stems remembered per build.

Sphinx's indexer stems every word of every page through the pure-Python Snowball stemmer,
once per occurrence; a page repeats most of its words, and the site repeats its vocabulary.
A search language that remembers its stems does the same work once per word. Registered with
Sphinx's own API (``add_search_language``), nothing patched.
"""

from __future__ import annotations

from importlib import import_module
from typing import ClassVar

from sphinx.application import Sphinx
from sphinx.search import SearchLanguage, languages


def stem_caching(base: type[SearchLanguage]) -> type[SearchLanguage]:
    """A subclass of ``base`` that stems each distinct word once per build."""

    # A base chosen at run time, which mypy cannot check a class against.
    class CachedStems(base):  # type: ignore[valid-type,misc]
        #: Marks the classes made here: a language already cached is not wrapped again.
        stems_cached: ClassVar[bool] = True

        def __init__(self, options: dict) -> None:
            self._stems: dict[str, str] = {}
            super().__init__(options)

        def stem(self, word: str) -> str:
            try:
                return self._stems[word]
            except KeyError:
                self._stems[word] = stemmed = super().stem(word)
                return stemmed

    CachedStems.__name__ = CachedStems.__qualname__ = f"CachedStems{base.__name__}"
    return CachedStems


def _cache_search_stems(app: Sphinx) -> None:
    lang = app.config.html_search_language or app.config.language or "en"
    base = languages.get(lang) or languages.get(lang.partition("_")[0])
    if isinstance(base, str):  # Sphinx names most languages by dotted path
        module, _, name = base.rpartition(".")
        base = getattr(import_module(module), name)
    if base is None or getattr(base, "stems_cached", False):
        return
    app.add_search_language(stem_caching(base))


def setup_stems(app: Sphinx) -> None:
    app.connect("builder-inited", _cache_search_stems)
