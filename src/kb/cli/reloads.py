"""When ``kb serve``'s browsers reload: once the edited pages are written, and once more only
if the rest of the build changed what a browser shows.

A build writes the pages of the documents it read (and of those whose catalog signature
changed) in ``Builder.write``; the builder's ``finish`` then writes the generated pages
(listings, feeds, the shared sidebar), copies images and static files, and the build records
what it did. At 1000 posts that rest is about a third of a one-post edit's build. ``kb serve``
tells the browsers to reload when the documents' pages are on disk
(:func:`kb.upstream.sphinx_build.build_update`'s ``pages_written``), not when the build ends.

The edited page is already the one the finished build leaves: no later step writes a
document's page (Sphinx writes what it read, and :mod:`kb.incremental.freshness` never also
refreshes it in place). Before the browsers are told, a deleted post's page is removed (the
finished build would remove it) and furo's code colours are written (:func:`ready_to_show`).

What the rest of the build changes may be shown too: a listing with the edited title, the
shared sidebar, another post's related list (freshness puts it in place once the edited pages
are written), an image the edit names for the first time. So the
output folder is stamped when the browsers are told (:class:`Shown`), and compared once the
build has finished: the browsers reload a second time only if a file was added or removed or
has other bytes. Not compared:

* the search bundle, which ``kb serve`` writes after the build (``kb_search_defer``), and
  which no page loads until the reader searches; nor the search page's part that names it,
  which the same indexer fills in once the build has said it succeeded (the rest of the
  search page is compared: it is the build's). A faster indexer made that fill land before
  the comparison now and then, and the browsers reloaded a second time for nothing;
* ``.buildinfo`` and ``objects.inv``, which Sphinx writes on every build and no page shows.

Sphinx also renders a few static files from templates on every build (``basic.css``,
``documentation_options.js``): a static file whose stamp changed is compared by its bytes,
read when the browsers were told. Every page is renamed into place whole
(:mod:`kb.core.output`), and a generated page whose bytes did not change is left as it was,
so a page's stamp changes only with its bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from sphinx.application import Sphinx

from ..core.fileio import file_version, walk_files, write_if_changed
from ..core.journal import PARTIAL_SUFFIX
from ..core.state import build_state
from ..core.urls import output_path
from ..incremental.freshness import remove_gone_documents
from ..search import marking
from ..search.pagefind import BUNDLE_DIR, without_bundle
from ..upstream.furo import pygments_stylesheet

#: Files Sphinx writes on every build that no page shows.
NEVER_SHOWN = frozenset({".buildinfo", "objects.inv"})

#: Sphinx's static files, some of them rendered again on every build.
STATIC_DIR = "_static"

Stamp = tuple[int, int, int]


def ready_to_show(app: Sphinx) -> None:
    """Make the output what the finished build will show in every file a page of this build
    loads: what was refreshed in place so far is on disk, a deleted post's page is gone, and
    the theme's code colours are its own (furo writes them over Sphinx's only at
    ``build-finished``, :mod:`kb.upstream.furo`)."""
    writes = build_state(app).background_writes
    if writes is not None:
        writes.wait()
    remove_gone_documents(app)
    stylesheet = pygments_stylesheet(app)
    if stylesheet is not None:
        write_if_changed(Path(app.outdir, STATIC_DIR, "pygments.css"), stylesheet)


def search_page(app: Sphinx) -> str | None:
    """The search page's path in the output folder, where kb's search writes one."""
    if not marking.enabled(app):
        return None
    return os.path.relpath(output_path(app, "search"), app.outdir).replace(os.sep, "/")


class Shown:
    """The output folder as the browsers were told to reload it. ``search_page``: the search
    page's path in it, if the site has one."""

    def __init__(self, outdir: str | os.PathLike[str], search_page: str | None = None) -> None:
        self.outdir = Path(outdir)
        self.search_page = search_page
        self.stamps = output_stamps(self.outdir)
        self.compared = {
            name: self._digest(name)
            for name in self.stamps
            if name.startswith(STATIC_DIR + "/") or name == search_page
        }

    def changed(self) -> bool:
        """Whether a file was added or removed since, or has other bytes."""
        now = output_stamps(self.outdir)
        if now.keys() != self.stamps.keys():
            return True
        for name, stamp in now.items():
            if stamp == self.stamps[name]:
                continue
            if name not in self.compared or self._digest(name) != self.compared[name]:
                return True
        return False

    def _digest(self, name: str) -> bytes | None:
        """A file's bytes, digested; the search page's without the indexer's part."""
        try:
            data = (self.outdir / name).read_bytes()
        except OSError:
            return None
        if name == self.search_page:
            data = without_bundle(data.decode("utf-8", "replace")).encode("utf-8")
        return hashlib.blake2b(data, digest_size=16).digest()


def output_stamps(outdir: Path) -> dict[str, Stamp]:
    """Every file under ``outdir`` a page may show, by its path relative to it. Not the new
    files of writes under way (``*.partial``, renamed over the file once written): the search
    indexer fills the search page in as the build ends, and a walk that found its new file
    before the rename made the browsers reload a second time for nothing, now and then (the
    rename itself is compared, as any file's new stamp)."""
    stamps: dict[str, Stamp] = {}
    for name, entry in walk_files(outdir, lambda _, name: name != BUNDLE_DIR):
        if name not in NEVER_SHOWN and not name.endswith(PARTIAL_SUFFIX):
            with contextlib.suppress(OSError):  # removed while listed: not there
                stamps[name] = file_version(entry.stat(follow_symlinks=False))
    return stamps
