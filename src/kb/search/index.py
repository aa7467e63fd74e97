"""Full-text search with Pagefind, built by ``sphinx-build`` itself.

Why Pagefind and not Sphinx's own search: Sphinx's search page downloads the whole index and
then every hit's page to cut snippets (megabytes per query at a few hundred posts); Pagefind
downloads only the index chunks a query needs and the fragments of the results it shows.
``benchmarks/search_speed.py`` measures both.

What this module does:

* marks what is searchable while pages are written: the body of each post and real page gets
  ``data-pagefind-body``, with its title, date and categories as Pagefind metadata and
  filters; archive listings, the home page's list of posts and furo's chrome never do;
* writes our own search page (``search.html``, template ``kb/search.html``) in place of
  Sphinx's, and turns Sphinx's index off, since nothing reads it;
* keeps a small record of each searchable page as it is written, and runs Pagefind over the
  records (:mod:`kb.search.pagefind`) once the documents are written, alongside the archives;
  in a record each formula is its TeX source, which a snippet can show, instead of the
  MathML the page draws (whose text reads ``Cij=∑csi,cAsc,jB``);
  the build waits for it at ``build-finished``, so ``make html`` and Read the Docs both
  produce the bundle (``pagefind/`` in the output folder) with no extra step;
* on Read the Docs, adds a small script that opens Read the Docs' server-side search from
  furo's search box (``kb_search_readthedocs``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from html import escape, unescape
from pathlib import Path

from docutils import nodes
from markupsafe import Markup
from sphinx.application import Sphinx
from sphinx.util import logging

from ..core import ablog
from ..core.catalog import get_catalog
from ..core.fileio import write_atomically
from ..core.freshness import page_signature, should_write
from ..core.output import held_descriptors
from ..core.posts import Post
from ..core.urls import SITE_BUILDERS, output_path, root_prefix, site_path
from .pagefind import (
    BUNDLE_DIR,
    BUNDLE_END,
    BUNDLE_START,
    IndexRun,
    fill_search_page,
)

logger = logging.getLogger(__name__)

#: What the search page leaves out of the assets every page loads: it shows no code (so no
#: highlighting styles or copy buttons), math or charts; Sphinx's term
#: highlighting serves pages opened from Sphinx's own search; the one key of Sphinx's doctools
#: a reader uses there, ``/``, kb-search.js handles. (``documentation_options.js`` stays:
#: other extensions' scripts read the settings it defines.) Each is a request competing with
#: Pagefind's before the first results.
NOT_ON_SEARCH_PAGE = {
    "_static/pygments.css",
    "_static/kb-math.css",
    "_static/kb-benchmark.css",
    "_static/sphinx_highlight.js",
    "_static/doctools.js",
    "_static/clipboard.min.js",
    "_static/copybutton.js",
}

SEARCH_TEMPLATE = "kb/search.html"
RTD_SCRIPT = "kb-search-readthedocs.js"

_TAGS = re.compile(r"<[^>]+>")


def _enabled(app: Sphinx) -> bool:
    return app.kb_config.search and app.builder.name in SITE_BUILDERS


# -- Marking what is searchable -------------------------------------------------------------


def plain_title(html: str) -> str:
    """A title from Sphinx's page context (escaped HTML, maybe with tags) as plain text."""
    return unescape(_TAGS.sub("", html)).strip()


def search_metadata_html(title: str, post: Post | None) -> str:
    """Pagefind metadata and filters, hidden and outside the indexed body."""
    parts = [f'<span data-pagefind-meta="title">{escape(title)}</span>']
    if post is not None:
        day = post.date.date().isoformat()
        parts.append(f'<span data-pagefind-meta="date">{day}</span>')
        parts.append(f'<span data-pagefind-sort="date">{day}</span>')
        parts.extend(
            f'<span data-pagefind-filter="category">{escape(label.name)}</span>'
            for label in post.categories
        )
    return f'<div class="kb-search-meta" hidden>{"".join(parts)}</div>'


def searchable_html(body: str, metadata_html: str) -> str:
    """A page's body as Pagefind's content, its metadata outside the wrapper: what the page
    template (``page.html``) writes around the body of a searchable page."""
    return f"{metadata_html}<div data-pagefind-body>{body}</div>"


def is_searchable_doc(app: Sphinx, docname: str) -> bool:
    """Published posts and real pages, written from a source.

    Not drafts, and not a post the front-matter checks rejected, nor a file ablog takes for a
    post that the catalog leaves out (undated), nor a post file ablog could not read as one
    (an empty file): none is a real page yet, and the checks already say what is wrong with it
    (Pagefind would skip some, an empty one, and the count of indexed pages would then blame
    the templates).
    """
    if docname not in app.env.found_docs:
        return False
    checked = getattr(app.env, "kb_posts", {}).get(docname)
    if checked is not None and checked.flawed:
        return False
    post = get_catalog(app).by_docname(docname)
    if post is not None:
        return post.published
    return not (ablog.is_blog_post(app.env, docname) or docname in ablog.matched_posts(app.config))


def is_searchable(app: Sphinx, pagename: str, templatename: str, doctree) -> bool:
    """Whether the page being written is searchable.

    Archives, catalog pages, the general index and the search page are generated (no
    doctree, another template), so they never are.
    """
    if doctree is None or templatename != "page.html":
        return False
    return is_searchable_doc(app, pagename)


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if not _enabled(app):
        return
    if templatename == SEARCH_TEMPLATE:
        for key in ("css_files", "script_files"):
            context[key] = [
                asset
                for asset in context.get(key, [])
                if getattr(asset, "filename", asset) not in NOT_ON_SEARCH_PAGE
            ]
        return
    if "body" not in context:
        return
    if not is_searchable(app, pagename, templatename, doctree):
        return
    post = get_catalog(app).by_docname(pagename)
    title = post.title if post is not None else plain_title(context.get("title", ""))
    # The template wraps the body (kb's page.html); its record is written once every handler
    # is done.
    context["kb_search_meta"] = Markup(search_metadata_html(title, post))


# -- The search page --------------------------------------------------------------------------


def _builder_inited(app: Sphinx) -> None:
    if app.kb_config.search_readthedocs:
        app.add_js_file(RTD_SCRIPT, loading_method="defer")
    if not _enabled(app):
        return
    # Our page replaces Sphinx's search page, and nothing reads Sphinx's index any more
    # (Read the Docs' server-side search indexes the HTML itself): skip building it.
    app.builder.search = False


def _html_collect_pages(app: Sphinx):
    if not _enabled(app):
        return
    # Rendered again only when the templates or settings changed (its sidebar is refreshed
    # in place, and the bundle's part of its head is filled in at the end of every build).
    if not should_write(app, "search", page_signature(app, "search", app.builder.name)):
        return
    context = {
        "title": "Search",
        "kb_search_bundle": BUNDLE_DIR,
        "kb_search_bundle_marker": Markup(BUNDLE_START + BUNDLE_END),
    }
    yield "search", context, SEARCH_TEMPLATE


# -- Search records ----------------------------------------------------------------------------

#: In the doctree folder: one small HTML file per searchable page, at the page's path in the
#: site, holding only what Pagefind reads (the marked body and its metadata).
RECORDS_DIR = "kb-search-records"


def record_html(body: str, language: str) -> str:
    """A page as Pagefind needs to see it: its language and its marked body, no chrome."""
    return (
        f'<!DOCTYPE html><html lang="{escape(language)}"><head><meta charset="utf-8">'
        f"</head><body>{body}</body></html>"
    )


#: A MathML formula in a page's body; MathML has no nested <math>.
_MATHML = re.compile(r"<math\b[^>]*>.*?</math>", re.DOTALL)


def formulas_tex(doctree) -> list[tuple[str, bool]]:
    """The TeX source of each formula of a page, in the order the page shows them, and
    whether it is displayed (a block) or inline."""
    if doctree is None:
        return []
    found = doctree.findall(lambda node: isinstance(node, nodes.math | nodes.math_block))
    return [(node.astext().strip(), isinstance(node, nodes.math_block)) for node in found]


def math_as_tex(body: str, formulas: list[tuple[str, bool]]) -> str:
    """The body with each MathML formula replaced by its TeX source, ``$…$`` inline and
    ``$$…$$`` displayed, for the index: a snippet then reads ``$$C_{ij} = \\sum_{c} …$$``.

    The formulas pair with the page's MathML in order; should they not (a formula the build
    could not convert is shown as TeX already, a raw ``<math>`` in a post), the MathML is
    left out of the record rather than guessed at."""
    found = _MATHML.findall(body)
    if len(found) != len(formulas):
        return _MATHML.sub(" ", body)
    replacements = iter(formulas)

    def tex(match: re.Match) -> str:
        source, display = next(replacements)
        source = " ".join(source.split())
        marked = f"$${source}$$" if display else f"${source}$"
        return f' <span class="kb-math-tex">{escape(marked, quote=False)}</span> '

    return _MATHML.sub(tex, body)


def _write_search_record(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """Keep the indexed part of each searchable page as it is written.

    Why not index the pages themselves: on a 1000-post site Pagefind then spends most of its
    time parsing sidebars, heads and icons it throws away, and the pages are read again to
    decide whether anything changed. The records are a third of the bytes, and a page left
    unchanged keeps its record from the build that wrote it. Runs late, after every other
    handler has finished the body.
    """
    if not context.get("kb_search_meta"):
        return
    # A new file, not the old one rewritten: a Pagefind run still reading the previous
    # record through its staging link (kb serve's background indexing) keeps a whole file.
    write_atomically(
        records_root(app) / site_path(app, pagename),
        record_html(
            searchable_html(
                math_as_tex(context["body"], formulas_tex(doctree)), context["kb_search_meta"]
            ),
            app.config.language or "en",
        ),
    )


def records_root(app: Sphinx) -> Path:
    return Path(app.doctreedir) / RECORDS_DIR


def search_sources(app: Sphinx) -> dict[str, Path]:
    """What to index: each current searchable page's path in the site, and its record.

    Listed from the environment, not from the output folder: the page of a post deleted
    since the last build is still on disk, and must not be found. A page with no record
    (its record folder was deleted, say) is indexed from its written page instead.
    """
    folders = (str(records_root(app)), str(app.outdir))
    sources = {}
    for docname in sorted(app.env.found_docs):
        if not is_searchable_doc(app, docname):
            continue
        relpath = site_path(app, docname)
        for folder in folders:
            candidate = os.path.join(folder, relpath)
            if os.path.isfile(candidate):
                sources[relpath] = Path(candidate)
                break
    return sources


def prune_records(app: Sphinx, sources: dict[str, Path]) -> None:
    """Remove the records of pages that are gone (a post deleted or renamed): never indexed,
    they would only pile up. Done when the sources changed, so the bundle was made again."""
    root = records_root(app)
    current = {root / relpath for relpath in sources}
    for path in root.rglob("*"):
        if path.is_file() and path not in current:
            path.unlink()


# -- Indexing ----------------------------------------------------------------------------------


def complete_search_page(app: Sphinx, bundle: Path) -> None:
    page = output_path(app, "search")
    fill_search_page(page, bundle, root_prefix(app, "search") + BUNDLE_DIR + "/")


def _keep_index_url(app: Sphinx) -> bool:
    return app.builder.name == "html"


def _start_indexing(app: Sphinx):
    """Start Pagefind as soon as every searchable page is written.

    Sphinx writes the documents (every searchable page) before it collects the generated
    pages (archives, feeds' pages, the search page itself) and copies static files: Pagefind
    runs alongside that work, and :func:`_build_finished` waits for it.
    """
    if not _enabled(app) or (app.kb_config.search_defer and _has_bundle(app)):
        return []
    app.kb_search_sources = search_sources(app)
    logger.info("kb search: indexing %d pages with Pagefind", len(app.kb_search_sources))
    app.kb_search_run = IndexRun(
        Path(app.outdir), app.kb_search_sources, Path(app.doctreedir), _keep_index_url(app)
    )
    return []


def _has_bundle(app: Sphinx) -> bool:
    return (Path(app.outdir) / BUNDLE_DIR / "pagefind-entry.json").is_file()


def _build_finished(app: Sphinx, exception) -> None:
    if not _enabled(app):
        return
    run = getattr(app, "kb_search_run", None)
    app.kb_search_run = None
    if exception is not None:
        if run is not None:
            run.cancel()
        return
    if run is None:
        # Deferred (kb serve), or a build that wrote no HTML at all.
        sources = search_sources(app)
        if app.kb_config.search_defer and _has_bundle(app):
            index_in_background(app, sources)
            return
        app.kb_search_sources = sources
        run = IndexRun(Path(app.outdir), sources, Path(app.doctreedir), _keep_index_url(app))
    start = time.perf_counter()
    reindexed = run.process is not None
    count = run.wait()
    if reindexed:
        prune_records(app, app.kb_search_sources)
    complete_search_page(app, Path(app.outdir) / BUNDLE_DIR)
    logger.info("kb search: %d pages indexed (%.1f s waited)", count, time.perf_counter() - start)
    expected = len(app.kb_search_sources)
    if count != expected:
        logger.warning(
            "kb search: %d pages should be searchable but the index holds %d. A template "
            "that replaces the page body may have dropped data-pagefind-body; rebuild from "
            "scratch (make clean html) and check the templates.",
            expected,
            count,
            type="kb",
            subtype="search",
        )


# -- Indexing after the build returns (live preview) -------------------------------------------

BACKGROUND_LOG = "kb-search-background.log"


def index_in_background(app: Sphinx, sources: dict[str, Path]) -> None:
    """Index in a detached process, so a preview shows the edited page without waiting.

    Only with ``kb_search_defer`` (``kb serve`` sets it) and once a first bundle exists: the
    search page keeps working from the previous bundle until the new one is in place, a few
    seconds later. ``make html``, CI and Read the Docs index before the build returns.
    """
    outdir, workdir = Path(app.outdir), Path(app.doctreedir)
    listing = workdir / "kb-search-pages.json"
    listing.write_text(
        json.dumps({relpath: str(source) for relpath, source in sources.items()}),
        encoding="utf-8",
    )
    search_page = output_path(app, "search")
    prefix = root_prefix(app, "search") + BUNDLE_DIR + "/"
    arguments = [str(outdir), str(workdir), str(listing), str(search_page), prefix]
    arguments.append("keep-url" if _keep_index_url(app) else "folder-url")
    with open(workdir / BACKGROUND_LOG, "w", encoding="utf-8") as log:
        subprocess.Popen(
            [sys.executable, "-m", "kb.search.worker", *arguments],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives sphinx-build and sphinx-autobuild's rebuild
            # The build's locks on its folders go with the worker, with no moment between the
            # two when another build could start: the next build waits for the new bundle.
            pass_fds=held_descriptors(app),
        )
    logger.info("kb search: indexing %d pages in the background", len(sources))


def setup_search(app: Sphinx) -> None:
    app.connect("builder-inited", _builder_inited)
    app.connect("html-page-context", _html_page_context)
    # Last, when every other handler has finished the page's body.
    app.connect("html-page-context", _write_search_record, priority=950)
    # First, so that Pagefind runs while the generated pages are written.
    app.connect("html-collect-pages", _start_indexing, priority=100)
    app.connect("html-collect-pages", _html_collect_pages)
    app.connect("build-finished", _build_finished)
