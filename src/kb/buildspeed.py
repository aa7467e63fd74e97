"""Build speed: two costs that Sphinx and ablog leave in every build, trimmed at our level.

Measured with ``benchmarks/build_speed.py --profile`` at 1000 posts (see benchmarks/RESULTS.md):

* ablog keeps, for every post, a deep copy of its whole document in ``env.ablog_posts``
  (``"doctree"``) plus copies of its excerpt paragraphs; Sphinx's ``deepcopy`` points each
  copied node back at the original document, so pickling the environment drags every post's
  doctree along twice, with its settings. The environment reached 68 MB and a no-change
  rebuild spent most of its time unpickling it. ablog reads ``"doctree"`` only for full-text
  feeds (``blog_feed_fulltext``), which our feeds do not use: unless that option is on, we
  replace it with an empty section; the excerpt copies stay, cut loose from the document.
* Sphinx's search indexer stems every word of every page through the pure-Python Snowball
  stemmer, once per occurrence; a page repeats most of its words, and the site repeats its
  vocabulary. A search language that remembers its stems does the same work once per word.

Neither patches ablog or Sphinx: the first edits ablog's data through Sphinx's
``doctree-read`` event, the second registers a search language with Sphinx's own API.
"""

from __future__ import annotations

from importlib import import_module

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.search import SearchLanguage, languages

from .catalog import detach


def _slim_ablog_posts(app: Sphinx, doctree: nodes.document) -> None:
    infos = getattr(app.env, "ablog_posts", {}).get(app.env.docname, ())
    for info in infos:
        copy = info.get("doctree")
        if isinstance(copy, nodes.Node) and not app.config.blog_feed_fulltext:
            # An empty section: to_html(fulltext=True) on it gives an empty body, not an error.
            info["doctree"] = nodes.section()
        elif isinstance(copy, nodes.Node):
            detach(copy)
        for paragraph in info.get("excerpt") or ():
            detach(paragraph)


def stem_caching(base: type[SearchLanguage]) -> type[SearchLanguage]:
    """A subclass of ``base`` that stems each distinct word once per build."""

    class CachedStems(base):
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
    if base is None or getattr(base, "_kb_cached", False):
        return
    cached = stem_caching(base)
    cached._kb_cached = True
    app.add_search_language(cached)


def setup_buildspeed(app: Sphinx) -> None:
    # After ablog's doctree-read handler (500) has stored the post, before the catalog (600).
    app.connect("doctree-read", _slim_ablog_posts, priority=550)
    app.connect("builder-inited", _cache_search_stems)
