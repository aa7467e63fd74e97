"""Running Pagefind over the search records: the bundle, and what the search page learns of it.

Nothing here needs Sphinx: :mod:`kb.search.index` calls it at the end of a build, and
``python -m kb.search.worker`` after the build has returned (``kb serve``).
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..config import KbConfig
from ..core.fileio import crash_point, write_atomically
from ..core.waiting import stop_if
from ..upstream import pagefind as upstream_pagefind
from . import bundle as bundle_files
from .canonical import canonicalize
from .cbor import Unexpected
from .shards import FORMAT as SHARDS_FORMAT
from .shards import (
    SHARDS_DIR,
    ShardedRun,
    record_digests,
    shard_count,
    sources_fingerprint,
    stage,
)


def _error(message: str) -> Exception:
    """Sphinx's ExtensionError, which a build reports in its own words. Sphinx is imported
    only here and in :func:`_say`: ``python -m kb.search.worker``, on ``kb serve``'s way from a
    save to the search, would otherwise import Sphinx's logging and docutils before it could
    start Pagefind (45 ms of its 110 ms of imports)."""
    from sphinx.errors import ExtensionError

    return ExtensionError(message)


def _say(message: str, *args: object) -> None:
    """Log through Sphinx, as a build logs (see :func:`_error`)."""
    from sphinx.util import logging

    logging.getLogger(__name__).info(message, *args)


#: Where the bundle goes, relative to the output folder; the search page loads it from there.
BUNDLE_DIR = "pagefind"

#: Parts of an indexed page that are not its content: heading permalinks ("¶"), and the home
#: page's latest posts, which would make it found by other posts' titles and excerpts. The
#: parts kb adds to a post's page that are no words of it carry ``data-pagefind-ignore``
#: themselves (kb.pages.postpage), whatever their templates write: its date, authors and
#: reading time (results show the date and categories from the metadata, so snippets stay
#: about the text), the series box and related posts (other posts' titles), the cite block.
EXCLUDE_SELECTORS = (
    ".headerlink",
    ".kb-listing",
    ".kb-all-posts",
)

#: In the doctree folder: what the last bundle was made from, and its files
#: (:mod:`.bundle`).
STATE_FILE = "kb-search-state"
#: In the doctree folder: the settings under which shards could not be merged, if any.
UNSHARDED_FILE = "kb-search-unsharded"

#: Pages in one shard of the search index, at most (``kb_search_shard_size``).
DEFAULT_SHARD_SIZE = KbConfig.search_shard_size

#: Where the search page gets what it needs to know of the bundle, once it is written: between
#: these two comments, so that a later bundle replaces what an earlier one put there.
BUNDLE_START = "<!-- kb-search-bundle -->"
BUNDLE_END = "<!-- /kb-search-bundle -->"
_BUNDLE_SECTION = re.compile(re.escape(BUNDLE_START) + ".*?" + re.escape(BUNDLE_END), re.DOTALL)


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
    try:
        entry = json.loads((bundle / "pagefind-entry.json").read_text(encoding="utf-8"))
        return sum(language["page_count"] for language in entry["languages"].values())
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return 0  # the caller warns that the index does not hold the pages it should


@functools.cache
def find_pagefind() -> Path:
    """Pagefind's binary, looked up once per process (importing its package to find it costs
    ~80 ms): :func:`kb.search.index.index_in_background` finds it before it forks the
    indexer, which then has it."""
    from pagefind.service import get_executable

    executable = get_executable()
    if executable is None:
        raise _error(
            "kb search: Pagefind's binary is missing. Install it with "
            "`pip install 'pagefind[extended]'` (a dependency of this project), or set "
            "kb_search = False in conf.py to fall back to Sphinx's built-in search."
        )
    return Path(executable)


class IndexRun:
    """Pagefind over the search sources, started now and finished by :meth:`wait`.

    Pagefind's command line indexes a folder: it gets one that holds only the pages to index
    (hard links to their records), so pages left on disk by earlier builds are never found.
    (Its Python API can stop the indexer before it has finished writing a large bundle.)
    When the sources and settings are those the bundle was made from and the bundle is whole
    (:func:`kb.search.bundle.is_intact`), nothing runs. Pagefind
    writes its filter index in an arbitrary order (Pagefind/pagefind#638): the bundle is put
    in a stable order afterwards (:mod:`.canonical`), so the same pages give the same bytes.

    A site of more than ``shard_size`` pages is indexed in shards (:mod:`.shards`): only the
    shards a change touched are indexed again, and merged into one bundle. Should the merge
    meet a bundle it does not know, every page is indexed in one run instead; so is it with a
    Pagefind whose bundle layout kb was not checked against (:mod:`kb.upstream.pagefind`).

    Pagefind writes into a folder of its own; :meth:`wait` puts the new files into the bundle
    beside the old ones, and :meth:`finish`, once the search page carries the new entry,
    removes the old ones and records the bundle (:mod:`.bundle`).
    """

    def __init__(
        self,
        outdir: Path,
        sources: dict[str, str],
        workdir: Path,
        keep_index_url: bool,
        shard_size: int = DEFAULT_SHARD_SIZE,
        reuse: bool = True,
        superseded: Callable[[], bool] = lambda: False,
    ):
        self.bundle = outdir / BUNDLE_DIR
        #: Asked at each step (:class:`~kb.core.waiting.Superseded`): whether a newer build
        #: waits for the folders, and indexes its pages itself.
        self.superseded = superseded
        self.state = workdir / STATE_FILE
        self.sources, self.workdir, self.keep_index_url = sources, workdir, keep_index_url
        self.process: subprocess.Popen[str] | None = None
        self.sharded: ShardedRun | None = None
        self.published: set[str] | None = None  # the new bundle's files, once they are in
        # Signed with the settings and Pagefind's version; the binary is looked up (an import
        # and a search of the package) only when it has to run.
        template = pagefind_command(Path("pagefind"), Path("<site>"), self.bundle, keep_index_url)
        self.settings = "\0".join([upstream_pagefind.installed_version(), *template])
        # Nothing of an earlier bundle reused (kb_incremental = False): one run over every page.
        count = shard_count(len(sources), shard_size) if reuse else 1
        self.unsharded = workdir / UNSHARDED_FILE
        # Shards are merged only in the bundle layout kb knows: with any other Pagefind, every
        # page is indexed in one plain run (kb.upstream.pagefind).
        if (
            count > 1
            and upstream_pagefind.layout_is_known(upstream_pagefind.installed_version())
            and _read(self.unsharded) != f"{SHARDS_FORMAT}\0{self.settings}"
        ):
            # What a single run left says nothing of the bundle the shards will write.
            self.state.unlink(missing_ok=True)
            self.sharded = ShardedRun(
                self.bundle, sources, workdir, self._shard_command, self.settings, count, superseded
            )
            self.reindexed = self.sharded.reindexing
            return
        shutil.rmtree(workdir / SHARDS_DIR, ignore_errors=True)
        self.fingerprint = self._fingerprint()
        intact = reuse and bundle_files.is_intact(self.state, self.fingerprint, self.bundle)
        self.reindexed = not intact
        if self.reindexed:
            self._start_single()

    def _fingerprint(self) -> str:
        digests = record_digests(self.sources, self.workdir)
        return sources_fingerprint(self.settings, self.sources, digests)

    def _shard_command(self, site: Path, bundle: Path) -> list[str]:
        executable = find_pagefind()
        return pagefind_command(executable, site, bundle, self.keep_index_url)

    def _start_single(self) -> None:
        bundle_files.invalidate(self.state)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.staging = Path(tempfile.mkdtemp(prefix="kb-search-", dir=self.workdir))
        stage(self.sources, self.staging / "site")
        command = pagefind_command(
            find_pagefind(),
            self.staging / "site",
            self.staging / "bundle",
            self.keep_index_url,
        )
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )

    def _failed(self, output: str, status: int):
        raise _error(
            f"kb search: Pagefind failed (exit status {status}) "
            f"while indexing for {self.bundle.parent}:\n{output}"
        )

    def wait(self) -> int:
        """Wait for Pagefind; how many pages the bundle holds. Raises
        :class:`~kb.core.waiting.Superseded` where a newer build waits for the folders
        (:meth:`cancel` then stops what runs)."""
        if self.process is not None:
            stop_if(self.superseded)
        if self.sharded is not None:
            try:
                self.sharded.wait(self._failed)
            except Unexpected as error:
                # Remembered, so that the next builds with this Pagefind do not try again.
                _say("kb search: indexing every page in one run (%s)", error)
                self.sharded.cancel()
                self.sharded = None
                shutil.rmtree(self.workdir / SHARDS_DIR, ignore_errors=True)
                write_atomically(self.unsharded, f"{SHARDS_FORMAT}\0{self.settings}")
                self.fingerprint = self._fingerprint()
                self._start_single()
        if self.sharded is not None:
            self.published = self.sharded.published
        if self.process is not None:
            output, _ = self.process.communicate()
            try:
                if self.process.returncode != 0:
                    self._failed(output, self.process.returncode)
                staged = self.staging / "bundle"
                canonicalize(staged)
                crash_point("index")
                # A fresh bundle: fragments of deleted or renamed pages go in finish().
                self.published = bundle_files.publish(staged, self.bundle)
            finally:
                shutil.rmtree(self.staging, ignore_errors=True)
                self.process = None
        return indexed_page_count(self.bundle)

    def finish(self) -> None:
        """Once the search page carries the new entry: the old bundle's files go, and the
        bundle is recorded (nothing to do when it was current)."""
        if self.published is None:
            return
        bundle_files.prune(self.bundle, self.published)
        if self.sharded is not None:
            self.sharded.record()
        else:
            bundle_files.write_state(self.state, self.fingerprint, self.bundle)
        self.published = None

    def cancel(self) -> None:
        if self.sharded is not None:
            self.sharded.cancel()
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            shutil.rmtree(self.staging, ignore_errors=True)
            self.process = None


def build_search_index(
    outdir: Path,
    sources: dict[str, str],
    workdir: Path,
    keep_index_url: bool = True,
    shard_size: int = DEFAULT_SHARD_SIZE,
) -> int:
    """Index ``sources`` (site path → file) into ``outdir/pagefind``; pages it holds."""
    run = IndexRun(outdir, sources, workdir, keep_index_url, shard_size)
    count = run.wait()
    run.finish()
    return count


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


# -- The search page's head ---------------------------------------------------------------


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


def without_bundle(html: str) -> str:
    """The search page with what :func:`fill_search_page` puts in it left out."""
    return _BUNDLE_SECTION.sub(lambda _: BUNDLE_START + BUNDLE_END, html, count=1)


def fill_search_page(page: Path, bundle: Path, prefix: str) -> None:
    """Put the bundle's entry into the search page: a new file renamed over the page, so a
    reader (``kb serve``, a browser) never gets half of it."""
    try:
        html = page.read_text(encoding="utf-8")
    except OSError:
        return  # no search page this build (it is written at html-collect-pages)
    section = BUNDLE_START + bundle_head_html(bundle, prefix) + BUNDLE_END
    filled = _BUNDLE_SECTION.sub(lambda _: section, html, count=1)
    if filled != html:  # an unchanged page keeps its file as it was
        crash_point("fill")
        write_atomically(page, filled)
