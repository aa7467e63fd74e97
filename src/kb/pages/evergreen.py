"""Evergreen pages (``pages/``): checked as ``kb check`` checks them, while Sphinx reads them.

A page is any document that is not a post (the home page, About, the glossary, a how-to). It
is built like any Sphinx document and, unlike a post, is never listed, in a feed or dated:
listings and feeds read the catalog, which holds posts only. What kb adds is the check of
:func:`kb.checks.pages.check_page` (a title; front matter YAML can read) on each page it
reads, with the very words and lines ``kb check`` prints, so ``-W`` stops there too. Search,
the sitemap and Open Graph take every document already; backlinks end every page
(:mod:`.backlinks`); the navigation is the toctree of ``index.md``.

The navigation is on every page (furo's sidebar), but Sphinx rewrites only the pages it read:
a page added, removed or retitled would leave every other page's navigation as it was. So each
build declares the navigation's digest as a site-wide signature
(:func:`~kb.incremental.freshness.set_site_signature`), and a change to it rewrites every page, as a
clean build would write them.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from ..checks.notebook import is_ipynb
from ..checks.pages import check_page, says_blogpost
from ..core import ablog
from ..core.posts import digest
from ..incremental.freshness import set_site_signature

logger = logging.getLogger(__name__)


class CheckPageSource(SphinxTransform):
    """Check a page's source text (never a post's: :mod:`kb.core.validation` checks those)."""

    default_priority = 790  # with the post checks, before ablog reads the front matter

    def apply(self) -> None:
        docname = self.env.docname
        path = Path(self.env.doc2path(docname))
        if docname in _posts(self.config) or is_ipynb(path.name):
            return
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError):
            return  # kb.core.validation reports a file Sphinx cannot read
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if says_blogpost(text, rst=path.suffix == ".rst"):
            return  # a post wherever it is: kb.core.validation checks it
        _, problems = check_page(text)
        for problem in problems:
            if problem.is_error:
                logger.warning(
                    problem.message, location=(docname, problem.line), type="kb", subtype="page"
                )


_matched: list = [None, frozenset()]  # ablog's tuple of posts, and the same as a set


def _posts(config) -> frozenset[str]:
    """ablog's matched posts as a set, made once per build: a tuple asked for each of 10,000
    documents would be 10,000 times 10,000 comparisons."""
    matched = ablog.matched_posts(config)
    if _matched[0] is not matched:
        _matched[:] = [matched, frozenset(matched)]
    return _matched[1]


def navigation(env) -> list[tuple[str, str, tuple[str, ...]]]:
    """What the site's navigation shows: each document reachable from the root's toctree, in
    order, with its title and the documents its own toctree holds."""
    shown, stack, seen = [], [env.config.root_doc], set()
    while stack:
        docname = stack.pop()
        if docname in seen:
            continue
        seen.add(docname)
        children = tuple(env.toctree_includes.get(docname, ()))
        title = env.titles[docname].astext() if docname in env.titles else ""
        shown.append((docname, title, children))
        stack.extend(reversed(children))
    return shown


def _catalog_built(app: Sphinx, catalog) -> None:
    # After every document was read (the catalog is built at env-updated), before freshness
    # signs the pages.
    set_site_signature(app, "navigation", digest([repr(navigation(app.env))]))


def setup_evergreen(app: Sphinx) -> None:
    app.connect("kb-catalog-built", _catalog_built)
    app.add_transform(CheckPageSource)
