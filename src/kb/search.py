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
* runs Pagefind over the output at ``build-finished``, so ``make html`` and Read the Docs both
  produce the bundle (``pagefind/`` in the output folder) with no extra step;
* on Read the Docs, adds a small script that opens Read the Docs' server-side search from
  furo's search box (``kb_search_readthedocs``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from html import escape, unescape
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

from .catalog import Post, get_catalog
from .listings import root_prefix

logger = logging.getLogger(__name__)

#: Where the bundle goes, relative to the output folder; the search page loads it from there.
BUNDLE_DIR = "pagefind"

#: Parts of an indexed page that are not its content: heading permalinks ("¶"); a post's
#: date, authors, categories and reading time (results show date and categories from the
#: metadata, so snippets stay about the text); whatever lists other posts, which would make
#: a post found by their titles and excerpts: the home page's latest posts, a series' box
#: and its previous/next links (kb.series); the "Cite this post" box (kb.citation), which
#: repeats the title.
EXCLUDE_SELECTORS = (
    ".headerlink",
    ".kb-post-meta",
    ".kb-listing",
    ".kb-all-posts",
    ".kb-series-box",
    ".kb-series-nav",
    ".kb-cite",
)

#: Builders whose output is a browsable site with one HTML file per page.
SITE_BUILDERS = ("html", "dirhtml")

SEARCH_TEMPLATE = "kb/search.html"
#: Where the search page gets what it needs to know of the bundle, once it is written.
BUNDLE_MARKER = "<!-- kb-search-bundle -->"
RTD_SCRIPT = "kb-search-readthedocs.js"
#: In the doctree folder: what the last bundle was made from.
STATE_FILE = "kb-search-state"

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


def mark_searchable(body: str, title: str, post: Post | None) -> str:
    """Wrap a page's body as Pagefind's content; its metadata sits outside the wrapper."""
    return f"{search_metadata_html(title, post)}<div data-pagefind-body>{body}</div>"


def is_searchable_doc(app: Sphinx, docname: str) -> bool:
    """Published posts and real pages, written from a source.

    Not drafts, and not a file ablog takes for a post that the catalog leaves out (undated,
    or rejected by the checks): it is no real page either.
    """
    if docname not in app.env.found_docs:
        return False
    post = get_catalog(app).by_docname(docname)
    if post is not None:
        return post.published
    return docname not in getattr(app.env, "ablog_posts", {})


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
        # The search page shows no code: skip the highlighting styles (20 KB) it would load.
        context["css_files"] = [
            css
            for css in context.get("css_files", [])
            if getattr(css, "filename", css) != "_static/pygments.css"
        ]
        return
    if "body" not in context:
        return
    if not is_searchable(app, pagename, templatename, doctree):
        return
    post = get_catalog(app).by_docname(pagename)
    title = post.title if post is not None else plain_title(context.get("title", ""))
    context["body"] = mark_searchable(context["body"], title, post)


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
    context = {
        "title": "Search",
        "kb_search_bundle": BUNDLE_DIR,
        "kb_search_bundle_marker": BUNDLE_MARKER,
    }
    yield "search", context, SEARCH_TEMPLATE


# -- Indexing the built site ------------------------------------------------------------------


def pagefind_command(executable: Path, site: Path, bundle: Path, keep_index_url: bool) -> list:
    # No extra word characters (--include-characters): Pagefind already indexes
    # `wgmma.mma_async`, `cp.async.bulk` and `__shfl_xor_sync` both whole and as their parts,
    # while adding "." would glue full stops to words ("memory." would not match "memory").
    command = [
        str(executable),
        "--site", str(site),
        "--output-path", str(bundle),
        "--exclude-selectors", ", ".join(EXCLUDE_SELECTORS),
        "--quiet",
    ]  # fmt: skip
    if keep_index_url:  # the html builder links to index.html; dirhtml to folders
        command.append("--keep-index-url")
    return command


def indexed_page_count(bundle: Path) -> int:
    """Pages in the bundle: those whose HTML carries ``data-pagefind-body``."""
    entry = json.loads((bundle / "pagefind-entry.json").read_text(encoding="utf-8"))
    return sum(language["page_count"] for language in entry["languages"].values())


def _stage(pages: list[Path], outdir: Path, staging: Path) -> None:
    """Link the pages to index into ``staging``, at their paths in the site."""
    for path in pages:
        target = staging / path.relative_to(outdir)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target)
        except OSError:  # another file system
            shutil.copyfile(path, target)


def build_search_index(
    outdir: Path, pages: list[Path], workdir: Path, keep_index_url: bool = True
) -> int:
    """Index ``pages`` (files under ``outdir``) into ``outdir/pagefind``.

    Pagefind's command line indexes a folder: we give it one that holds only the pages to
    index (hard links), so pages left on disk by earlier builds are never found. (Its
    Python API can stop the indexer before it has finished writing a large bundle.)
    Returns how many pages the bundle holds.
    """
    from pagefind.service import get_executable

    executable = get_executable()
    if executable is None:
        raise ExtensionError(
            "kb search: Pagefind's binary is missing. Install it with "
            "`pip install 'pagefind[extended]'` (a dependency of this project), or set "
            "kb_search = False in conf.py to fall back to Sphinx's built-in search."
        )
    bundle = outdir / BUNDLE_DIR
    command = pagefind_command(executable, Path("<staging>"), bundle, keep_index_url)
    state = workdir / STATE_FILE
    fingerprint = _fingerprint(command, pages, outdir)
    # Same pages, same settings: keep the bundle. Pagefind writes its filter index in an
    # arbitrary order (Pagefind/pagefind#638), so indexing again would change files (and
    # the search page, which names them) for nothing.
    if (bundle / "pagefind-entry.json").is_file() and _read(state) == fingerprint:
        return indexed_page_count(bundle)
    # A fresh bundle: fragments of deleted or renamed pages must not linger.
    shutil.rmtree(bundle, ignore_errors=True)
    workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kb-search-", dir=workdir) as staging:
        _stage(pages, outdir, Path(staging))
        command[command.index("<staging>")] = staging
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise ExtensionError(
            f"kb search: Pagefind failed (exit status {result.returncode}) while indexing "
            f"{outdir}:\n{result.stdout}{result.stderr}"
        )
    state.write_text(fingerprint, encoding="utf-8")
    return indexed_page_count(bundle)


def _fingerprint(command: list[str], pages: list[Path], outdir: Path) -> str:
    """What the bundle is made from: the indexer and its settings, each page's path and bytes."""
    digest = hashlib.sha256("\0".join([_pagefind_version(), *command]).encode())
    for path in pages:
        digest.update(str(path.relative_to(outdir)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _pagefind_version() -> str:
    try:
        return importlib.metadata.version("pagefind")
    except importlib.metadata.PackageNotFoundError:  # a binary found on PATH
        return "unknown"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def bundle_head_html(bundle: Path, prefix: str) -> str:
    """What the search page's head learns once the bundle is written.

    Pagefind's entry file (which languages, which index files) goes into the page, and the
    search script hands it to Pagefind instead of a request; the files Pagefind fetches
    next, its metadata and WebAssembly, are preloaded. Their names carry the index's hash.
    With several languages, Pagefind picks one by the page's language: preload none.
    """
    entry_text = (bundle / "pagefind-entry.json").read_text(encoding="utf-8")
    entry = json.loads(entry_text)
    safe_text = entry_text.replace("</", "<\\/")  # "</" inside <script> could end it early
    html = [f'<script type="application/json" id="kb-search-entry">{safe_text}</script>']
    if len(entry["languages"]) == 1:
        (language,) = entry["languages"].values()
        for name in (f"pagefind.{language['hash']}.pf_meta", f"wasm.{language['wasm']}.pagefind"):
            html.append(f'<link rel="preload" href="{prefix}{name}" as="fetch" crossorigin>')
    return "".join(html)


def output_path(app: Sphinx, docname: str) -> Path:
    """The file a page is written to (``x.html``, or ``x/index.html`` for dirhtml)."""
    uri = app.builder.get_target_uri(docname)
    return Path(app.outdir) / (uri + "index.html" if uri.endswith("/") or not uri else uri)


def complete_search_page(app: Sphinx, bundle: Path) -> None:
    page = output_path(app, "search")
    fill_search_page(page, bundle, root_prefix(app, "search") + BUNDLE_DIR + "/")


def fill_search_page(page: Path, bundle: Path, prefix: str) -> None:
    html = page.read_text(encoding="utf-8")
    page.write_text(html.replace(BUNDLE_MARKER, bundle_head_html(bundle, prefix)), encoding="utf-8")


def searchable_pages(app: Sphinx) -> list[Path]:
    """The files of the current searchable documents.

    Listed from the environment, not from the output folder: the page of a post deleted
    since the last build is still on disk, and must not be found.
    """
    pages = (output_path(app, d) for d in sorted(app.env.found_docs) if is_searchable_doc(app, d))
    return [path for path in pages if path.is_file()]


def _build_finished(app: Sphinx, exception) -> None:
    if exception is not None or not _enabled(app):
        return
    pages = searchable_pages(app)
    bundle = Path(app.outdir) / BUNDLE_DIR
    if app.kb_config.search_defer and (bundle / "pagefind-entry.json").is_file():
        index_in_background(app, pages)
        return
    logger.info("kb search: indexing with Pagefind… ", nonl=True)
    start = time.perf_counter()
    count = build_search_index(
        Path(app.outdir),
        pages,
        workdir=Path(app.doctreedir),
        keep_index_url=app.builder.name == "html",
    )
    complete_search_page(app, Path(app.outdir) / BUNDLE_DIR)
    logger.info("%d pages in %.1f s", count, time.perf_counter() - start)
    if count != len(pages):
        logger.warning(
            "kb search: %d pages should be searchable but the index holds %d. A template "
            "that replaces the page body may have dropped data-pagefind-body; rebuild from "
            "scratch (make clean html) and check the templates.",
            len(pages),
            count,
            type="kb",
            subtype="search",
        )


# -- Indexing after the build returns (live preview) -------------------------------------------

BACKGROUND_LOG = "kb-search-background.log"


def index_in_background(app: Sphinx, pages: list[Path]) -> None:
    """Index in a detached process, so a preview shows the edited page without waiting.

    Only with ``kb_search_defer`` (``kb serve`` sets it) and once a first bundle exists: the
    search page keeps working from the previous bundle until the new one is in place, a few
    seconds later. ``make html``, CI and Read the Docs index before the build returns.
    """
    outdir, workdir = Path(app.outdir), Path(app.doctreedir)
    listing = workdir / "kb-search-pages.txt"
    listing.write_text("\n".join(str(p.relative_to(outdir)) for p in pages), encoding="utf-8")
    search_page = output_path(app, "search")
    prefix = root_prefix(app, "search") + BUNDLE_DIR + "/"
    arguments = [str(outdir), str(workdir), str(listing), str(search_page), prefix]
    arguments.append("keep-url" if app.builder.name == "html" else "folder-url")
    with open(workdir / BACKGROUND_LOG, "w", encoding="utf-8") as log:
        subprocess.Popen(
            [sys.executable, "-m", "kb.search_worker", *arguments],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives sphinx-build and sphinx-autobuild's rebuild
        )
    logger.info("kb search: indexing %d pages in the background", len(pages))


def setup_search(app: Sphinx) -> None:
    app.connect("builder-inited", _builder_inited)
    app.connect("html-page-context", _html_page_context)
    app.connect("html-collect-pages", _html_collect_pages)
    app.connect("build-finished", _build_finished)
