"""Incremental builds that match clean ones, and skip what did not change.

Sphinx rewrites a page only when its own source changed; it cannot know that the home page,
every sidebar or a series box shows other posts. After the catalog is built we sign what
each page shows of the catalog, compare with the signatures of the last successful build
(kept in the doctree folder), and:

* return the documents whose signature changed, so Sphinx rewrites them (no re-read), and
  those whose cross-references now lead to another page, title or anchor, which Sphinx
  resolves only when it writes a page (:mod:`kb.core.links`);
* once Sphinx has written those and the documents it read (``html-collect-pages``), have
  Sphinx write the other documents' pages that are not there whole, then (once the search
  indexer has started) put the changed page parts and regions into the others
  (:func:`_keep_other_pages`): what only other pages show is made after the edited page;
* let generated pages (archives, feeds) be skipped when their signature and file are unchanged.

Freshness asks, it does not import: outputs register what a page depends on with
:func:`add_signer`, and a *region* (a part shown on every page, such as the blog sidebar)
with :func:`set_region`. When only a region changed, the pages that are otherwise current get
that region replaced between its markers, which costs a file read and an atomic write instead
of a page render (adding one post at 1000 posts: 0.3 s instead of re-rendering 1000 pages).
A generated page can also name its :class:`Content` (a listing's posts), and a document's page
can have a :class:`PagePart` (a post's related posts, :func:`add_page_part`): when only that
changed, it is replaced the same way. A document Sphinx reads in this build is written by
Sphinx, never also refreshed in place. Those writes go to a few threads
(:class:`~kb.core.fileio.BackgroundWrites`) and are all on disk when the build finishes.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import TypeGuard

from sphinx.application import Sphinx
from sphinx.util import logging

from ..core import events
from ..core.catalog import render_excerpts_again
from ..core.fileio import BackgroundWrites, crash_point, crashing, file_times
from ..core.journal import Journal, remove_partial_files
from ..core.links import linking_again, links_before
from ..core.posts import digest
from ..core.records import CheckedAhead
from ..core.records import Content as Content
from ..core.records import PagePart as PagePart
from ..core.records import Region as Region
from ..core.records import Signer as Signer
from ..core.state import BuildState, Record, build_state
from ..core.urls import output_file, output_path
from ..upstream.sphinx import configuration_changed, html_settings_hashes, newest_template_mtime

logger = logging.getLogger(__name__)


def add_page_part(app: Sphinx, part: PagePart) -> None:
    build_state(app).page_parts.append(part)


def add_signer(app: Sphinx, signer: Signer) -> None:
    """Register ``signer(app, docname) -> str``: what ``docname`` shows of other posts."""
    build_state(app).signers.append(signer)


def set_site_signature(app: Sphinx, name: str, signature: str) -> None:
    """Declare (at ``kb-catalog-built``) what every page shows that no region can replace in
    place (the theme's navigation of the site's pages): when it changes, every page and every
    generated page is written again, as a clean build writes them."""
    build_state(app).site_signatures[name] = signature


def set_region(app: Sphinx, region: Region) -> None:
    """Declare this build's version of a region (at ``kb-catalog-built``)."""
    build_state(app).regions[region.name] = region


def _build_signature(app: Sphinx) -> str:
    """Changes when our package, any template or the HTML settings change: every generated
    page is then rewritten, as Sphinx rewrites every document in those cases."""
    # One scandir a folder (5 ms at every build with Path.rglob and a stat of each file).
    mtimes = file_times(Path(__file__).parent.parent, frozenset({"__pycache__"}))
    parts = [app.config.html_theme, *mtimes, *html_settings_hashes(app.builder)]
    newest_template = newest_template_mtime(app.builder)
    if newest_template is not None:
        parts.append(repr(newest_template))
    return digest(parts)


def _env_updated(app: Sphinx, env) -> list[str]:
    crash_point("env-updated")
    if app.builder.format != "html":
        return []
    state = build_state(app)
    journal = _journal(state)
    # Regions are on every page but not part of a page's signature (see the module's doc);
    # only whether there are any is.
    regions = sorted(state.regions)
    site_wide = [f"{name}={sig}" for name, sig in sorted(state.site_signatures.items())]
    base = digest([_build_signature(app), *regions, *site_wide])
    # A changed configuration or extension set makes Sphinx start a fresh environment; our
    # record of what the last build wrote no longer vouches for anything.
    fresh_env = configuration_changed(env)
    # What is on disk, for removing what is gone; after a stopped build, only its names.
    state.state_previous = previous = journal.load_state()
    # kb_incremental = False: no record vouches for anything, as after a stopped build.
    rewrite_all = journal.recovering or not state.config.incremental
    distrusted = fresh_env or rewrite_all
    state.state_old = {"docs": {}, "pages": {}} if distrusted else previous
    journal.known(_page_names(previous))
    journal.expect(sorted(env.found_docs))
    docs = {}
    for docname in env.found_docs:
        extra = [signer(app, docname) for signer in state.signers]
        docs[docname] = digest([base, *extra])
    old_regions = state.state_old.get("regions", {})
    state.changed_regions = [
        state.regions[name]
        for name in regions
        if name in old_regions and old_regions[name] != state.regions[name].signature
    ]
    state.state_new = {
        "docs": docs,
        "parts": {},
        "pages": {},
        "regions": {name: state.regions[name].signature for name in regions},
    }
    state.base_signature = base
    if rewrite_all:
        # Any page may be what the stopped build wrote (or kb is told to reuse none): each
        # is written as a clean build writes it (Sphinx's environment, which Sphinx checks
        # itself, is kept).
        journal.begin()
        state.pages_to_keep = []
        return sorted(docs)
    old_docs = state.state_old.get("docs", {})
    changed = {d for d, sig in docs.items() if d in old_docs and old_docs[d] != sig}
    changed |= _written_to_save_removals(app, env)
    # Pages whose cross-references now lead elsewhere: Sphinx resolves them when it writes.
    changed |= state.relinked
    # Sphinx writes what it read: refreshing that page in place too would race its write.
    state.pages_to_keep = sorted(docs.keys() & old_docs.keys() - changed - state.docs_read)
    return sorted(changed)


def _write_pages_not_whole(app: Sphinx, *_) -> list:
    """Once Sphinx has written the pages of the documents it read or that
    :func:`_env_updated` named (the edited post's first: ``kb serve`` shows it now), the other
    documents' pages that are not there whole (deleted, emptied or cut short since the last
    build) are written by Sphinx, before the search indexer lists the pages."""
    state = build_state(app)
    if app.builder.format != "html" or state.state_new is None:
        return []
    ahead = state.checked_ahead

    def whole(docname: str) -> bool:
        if ahead is not None and docname in ahead.documents:
            return docname in ahead.whole_pages  # as the standby found it
        return is_whole(output_file(app, docname))

    gone = {docname for docname in state.pages_to_keep if not whole(docname)}
    if gone:
        state.pages_to_keep = [name for name in state.pages_to_keep if name not in gone]
        app.builder.write_documents(gone)
    return []


def _keep_other_pages(app: Sphinx, *_) -> list:
    """Then each document's page parts are signed, and the other documents' pages, all whole,
    get their changed parts and regions put in place (a page with no place for one, which
    only a hand could have made, is written by Sphinx: the same text, so the same search
    record). What only other pages show (the related lists of every post but the edited
    ones) is then made after the edited page, while the search indexer runs."""
    state = build_state(app)
    if app.builder.format != "html" or state.state_new is None:
        return []
    docs = state.state_new["docs"]
    for part in state.page_parts:
        if part.before_signing is not None:
            part.before_signing(app)
    parts = {
        docname: {part.name: part.sign(app, docname) for part in state.page_parts}
        for docname in docs
    }
    state.state_new["parts"] = parts
    old_parts = state.state_old.get("parts", {})
    unkept = []
    for docname in state.pages_to_keep:
        contents = _changed_parts(app, docname, parts[docname], old_parts.get(docname))
        if not contents and not state.changed_regions:
            continue  # whole (_write_pages_not_whole), with nothing to put in
        if not _keep_page(app, docname, output_file(app, docname), contents):
            unkept.append(docname)
    state.pages_to_keep = []
    if unkept:
        app.builder.write_documents(set(unkept))
    return []


def _changed_parts(app: Sphinx, docname: str, signatures: dict, old_signatures) -> list[Content]:
    """The page parts of ``docname`` that show something else than the written page shows
    (all of them when the last build did not record it)."""
    old = old_signatures if isinstance(old_signatures, dict) else {}
    return [
        Content(signatures[part.name], part.start, part.end, partial(part.render, app, docname))
        for part in build_state(app).page_parts
        if old.get(part.name) != signatures[part.name]
    ]


def _keep_page(app: Sphinx, pagename: str, path: str | Path, contents=()) -> bool:
    """Keep a page an earlier build wrote whole, with this build's changed regions and
    ``contents`` (a sequence of :class:`Content`) put into it; False when it is not there
    whole, or has no place for a content, and must be rendered. Each page is read at most
    once, as bytes: the markers are ASCII, and decoding 1000 pages to put a sidebar into
    each cost 0.4 s."""
    state = build_state(app)
    if not contents and not state.changed_regions:
        return is_whole(path)  # nothing to put in: the page's last bytes are enough
    page = _read_whole(path)
    if page is None:
        return False
    new_page = page
    for content in contents:
        rendered = (content.start + content.render() + content.end).encode("utf-8")
        replaced = _replace_between(new_page, content.start, content.end, rendered)
        if replaced is None:
            return False
        new_page = replaced
    for region in state.changed_regions:
        rendered = region.render(app, pagename).encode("utf-8")
        new_page = _replace_between(new_page, region.start, region.end, rendered) or new_page
    if new_page != page:
        _journal(state).begin(pagename)
        _background_writes(state).write(path, new_page)
    return True


def _replace_between(page: bytes, start: str, end: str, new: bytes) -> bytes | None:
    """``page`` with the part from ``start`` to the first ``end`` after it replaced."""
    first = page.find(start.encode("utf-8"))
    end_bytes = end.encode("utf-8")
    last = page.find(end_bytes, first)
    if first < 0 or last < 0:
        return None
    return page[:first] + new + page[last + len(end_bytes) :]


def page_signature(app: Sphinx, *parts: str) -> str:
    return digest([build_state(app).base_signature, *parts])


def should_write(
    app: Sphinx,
    docname: str,
    signature: str,
    path: Path | None = None,
    content: Content | None = None,
) -> bool:
    """Record a generated page's signature; True when it must be (re)written.

    False means the file on disk is current: its changed regions, and its ``content`` when
    only that changed, have just been replaced in it."""
    target = output_file(app, docname) if path is None else path
    whole = signature if content is None else f"{signature} {content.signature}"
    state = build_state(app)
    old = state.state_old.get("pages", {}).get(docname)
    _new_record(state).setdefault("pages", {})[docname] = whole
    if old == whole:
        kept = _keep_page(app, docname, target)
    elif content is not None and old is not None and old.split(" ")[0] == signature:
        kept = _keep_page(app, docname, target, [content])  # only the content changed
    else:
        kept = False
    if not kept:
        _journal(state).begin(docname)  # before Sphinx writes it
    return not kept


def group_kept(app: Sphinx, group: str, signature: str) -> bool:
    """Whether a group of generated pages (every page of every listing) is kept as a whole:
    the last build recorded the group (:func:`record_group`) made from inputs signed
    ``signature``, no region changed, and each of its pages is whole. Then each page's record
    is carried over as the last build made it, and the caller makes none of them. Otherwise
    False: the caller asks :func:`should_write` of each page, then records the group.

    ``signature`` signs all that the group's pages and their own signatures are made of: a
    group of unchanged inputs costs one signature and a check of each file instead of two
    signatures a page (14,584 listing pages at 10,000 posts: 0.65-0.97 s of an edit's build,
    after its page, instead of 1.21 s, for no page written)."""
    state = build_state(app)
    groups = state.state_old.get("groups")
    old = groups.get(group) if isinstance(groups, dict) else None
    if state.changed_regions or not _is_group(old) or old[0] != signature:
        return False
    recorded = state.state_old.get("pages", {})
    names = old[1]
    if not all(name in recorded for name in names):
        return False
    if not all(is_whole(output_file(app, name)) for name in names):
        return False
    pages = _new_record(state).setdefault("pages", {})
    for name in names:
        pages[name] = recorded[name]
    record_group(app, group, signature, names)
    return True


def record_group(app: Sphinx, group: str, signature: str, names) -> None:
    """Once :func:`should_write` was asked of each of ``names``, the pages of ``group``: they
    are made from inputs signed ``signature`` (:func:`group_kept`)."""
    _new_record(build_state(app)).setdefault("groups", {})[group] = [signature, list(names)]


def _is_group(record: object) -> TypeGuard[list]:
    """Whether a group's record, read from the state file, has the shape it is written in."""
    return (
        isinstance(record, list)
        and len(record) == 2
        and isinstance(record[0], str)
        and isinstance(record[1], list)
        and all(isinstance(name, str) for name in record[1])
    )


def is_current(app: Sphinx, key: str, signature: str, paths) -> bool:
    """Record what ``key``, a group of files that are not pages (the feeds), is made from; True
    when that is what the last build made it from and its files are all still there."""
    return _is_current(app, "files", key, signature, paths)


def written_pages(app: Sphinx) -> set[str]:
    """Generated pages this build wrote or kept (the sitemap lists them)."""
    return set((build_state(app).state_new or {}).get("pages", {}))


def _is_current(app: Sphinx, section: str, key: str, signature: str, paths) -> bool:
    # "pages" lists generated pages (the sitemap lists them too); "files", anything else.
    state = build_state(app)
    _new_record(state).setdefault(section, {})[key] = signature
    unchanged = state.state_old.get(section, {}).get(key) == signature
    if unchanged and all(is_whole(path) for path in paths):
        return True
    _journal(state).begin()
    return False


def _read_whole(path: str | Path) -> bytes | None:
    """The bytes of a file :func:`is_whole` accepts, or None."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if not data or (_is_page(path) and not data.rstrip().endswith(b"</html>")):
        return None
    return data


def _is_page(path: str | Path) -> bool:
    return os.fspath(path).endswith(".html")


def is_whole(path: str | Path) -> bool:
    """A file an earlier build finished writing: present, not empty, and for a page, ending
    with its ``</html>``. Read through a bare descriptor: a build asks this of every page, and a
    Python file object cost two to four times as much (19–46 against 10–13 µs a page)."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        size = os.fstat(descriptor).st_size
        if size == 0:
            return False
        if not _is_page(path):
            return True
        return os.pread(descriptor, 64, max(0, size - 64)).rstrip().endswith(b"</html>")
    except OSError:
        return False
    finally:
        os.close(descriptor)


def _remove_gone(app: Sphinx) -> None:
    """Delete the pages of documents and generated pages that this build no longer has (a
    post deleted or renamed, a tag no longer used): an incremental build then leaves the same
    files as a clean one. Only pages kb recorded, only inside the output folder."""
    state = build_state(app)
    previous, current = state.state_previous or {}, state.state_new or {}
    gone = set(previous.get("pages", {})) - set(current.get("pages", {}))
    _remove_pages(app, gone - set(current.get("docs", {})))
    remove_gone_documents(app)


def remove_gone_documents(app: Sphinx) -> None:
    """Delete the pages of the documents the last successful build had and this one has not,
    and their copies of the source (``html_copy_source``). Known from ``env-updated`` on:
    done at ``build-finished``, and by ``kb serve`` as soon as the pages are written (a
    deleted post's page is gone when the browsers reload, :mod:`kb.cli.reloads`)."""
    state = build_state(app)
    previous, current = state.state_previous or {}, state.state_new
    if current is None:
        return  # before env-updated: nothing is known to be gone yet
    gone = sorted(set(previous.get("docs", {})) - set(current.get("docs", {})))
    _remove_pages(app, set(gone) - set(current.get("pages", {})))
    outdir = Path(app.outdir).resolve()
    # A gone document's copy of its source (html_copy_source), as Sphinx names it.
    sources = outdir / "_sources"
    for name in gone:
        for suffix in app.config.source_suffix:
            link_suffix = app.config.html_sourcelink_suffix
            copy = (sources / f"{name}{suffix}").resolve()
            if not copy.name.endswith(link_suffix):
                copy = copy.with_name(copy.name + link_suffix)
            if sources in copy.parents and copy.is_file():
                copy.unlink()


def _remove_pages(app: Sphinx, names: set[str]) -> None:
    outdir = Path(app.outdir).resolve()
    for name in sorted(names):
        path = output_path(app, name).resolve()
        if path.suffix == ".html" and outdir in path.parents and path.is_file():
            path.unlink()
            _remove_empty_folders(path.parent, outdir)


def _remove_empty_folders(folder: Path, outdir: Path) -> None:
    """``folder`` and the folders above it, up to ``outdir``, where nothing is left in them
    (a tag's numbered pages, gone with the tag's posts): a clean build makes none of them."""
    while folder != outdir and outdir in folder.parents:
        try:
            folder.rmdir()  # only an empty folder
        except OSError:
            return
        folder = folder.parent


def _page_names(record: Record) -> list[str]:
    return [name for section in ("docs", "pages") for name in record.get(section, {})]


def _journal(state: BuildState) -> Journal:
    if state.journal is None:
        raise RuntimeError("kb's journal is opened at builder-inited")
    return state.journal


def _background_writes(state: BuildState) -> BackgroundWrites:
    if state.background_writes is None:
        raise RuntimeError("kb's background writes start at builder-inited")
    return state.background_writes


def _new_record(state: BuildState) -> Record:
    if state.state_new is None:
        raise RuntimeError("kb's freshness record is made at env-updated")
    return state.state_new


def _build_finished(app: Sphinx, exception) -> None:
    state = build_state(app)
    writes = state.background_writes
    if writes is not None:
        try:
            writes.wait()  # the pages refreshed in place are all on disk
        except OSError:
            if exception is None:
                raise
    journal = state.journal
    if journal is None:
        return
    # Only a successful build vouches for what is on disk; a failed one leaves its journal,
    # and the next build distrusts what it may have written.
    new = state.state_new
    if exception is None and new is not None:
        new = {**new, **{name: make() for name, make in sorted(state.kept_sections.items())}}
        _remove_gone(app)
        if journal.begun or journal.recovering or new != state.state_previous:
            journal.commit(new)
    journal.close()


def _builder_inited(app: Sphinx) -> None:
    state = build_state(app)
    state.regions = {}
    state.site_signatures = {}
    state.docs_read = set()
    state.pages_to_keep = []
    state.changed_regions = []
    state.kept_sections = {}
    state.background_writes = BackgroundWrites()
    # The folders are locked (kb.core.output): a journal found now is a dead build's. The
    # whole-page builder (kb.core.output) reads it from the state too.
    state.journal = Journal(app.doctreedir)
    if state.journal.recovering and app.builder.format == "html":
        logger.info(
            "kb: the last build into %s stopped before it finished; every page is written again",
            app.outdir,
            color="yellow",
        )
        remove_partial_files(app.outdir, app.doctreedir)


def _note_outdated(app: Sphinx, env, added, changed, removed) -> list[str]:
    """Note what this build removes, and where the links to what it reads or removes lead
    before Sphinx purges those (:func:`kb.core.links.links_before`)."""
    state = build_state(app)
    state.docs_removed |= set(removed)
    state.links_before = links_before(env, set(added) | set(changed) | set(removed))
    return []


def _find_relinked(app: Sphinx, env) -> list[str]:
    """Once every document is read, before the catalog: the documents not read whose links
    now lead elsewhere (:func:`kb.core.links.linking_again`), written again at
    :func:`_env_updated`, with their excerpts rendered again."""
    state = build_state(app)
    if app.builder.format == "html":
        state.relinked = linking_again(env, state.links_before, state.docs_read)
        render_excerpts_again(env, state.relinked)
    return []


def _written_to_save_removals(app: Sphinx, env) -> set[str]:
    """The root document, when this build removed documents: Sphinx pickles the environment
    only when a document was read or is to be written (``Builder.build``), so a build that
    only removed some (an old post deleted, or made a draft, with no page showing it) left them
    in the saved environment. Every later build removed them again, and ``kb serve``'s standby
    took a draft's file for one of the environment's documents and built with an application
    that a new build would not make. Its page is written again, the same bytes, and the
    environment is saved."""
    root = app.config.root_doc
    return {root} if build_state(app).docs_removed and root in env.found_docs else set()


def _before_read(app: Sphinx, env, docnames: list[str]) -> None:
    state = build_state(app)
    not_read = env.found_docs - set(docnames)
    ahead = state.checked_ahead
    if ahead is not None:
        damaged = ahead.damaged_doctrees & not_read
        damaged |= _damaged_doctrees(env, not_read - ahead.documents)
    else:
        damaged = _damaged_doctrees(env, not_read)
    docnames.extend(sorted(damaged))
    state.docs_read = set(docnames)
    crash_point("read-start")


def check_ahead(app: Sphinx) -> None:
    """``kb serve``'s standby, while it waits: check each document's doctree, for its build's
    check before the read (:func:`_damaged_doctrees`, 70 ms at 10,000 posts), and page, for
    its signing (:func:`is_whole`, about 0.1 s). Only builds write the build folders, and the
    standby's application builds only where no build ran or stopped since it was made
    (:mod:`kb.incremental.standby`): what is found now is what its build would find."""
    env = app.env
    found = frozenset(env.found_docs)
    whole = frozenset(d for d in found if is_whole(output_file(app, d)))
    damaged = frozenset(_damaged_doctrees(env, found))
    build_state(app).checked_ahead = CheckedAhead(found, damaged, whole)


def _damaged_doctrees(env, docnames) -> set[str]:
    """Documents whose pickled doctree Sphinx would load to write their page but that is
    missing, empty or cut short (a pickle ends with its STOP opcode, ``.``): read again
    instead of failing the build with a traceback. One small read a document (about 5 ms at
    1000 posts)."""
    folder = os.fspath(env.doctreedir)
    damaged = set()
    for docname in docnames:
        try:
            descriptor = os.open(os.path.join(folder, f"{docname}.doctree"), os.O_RDONLY)
        except OSError:
            damaged.add(docname)
            continue
        try:
            size = os.fstat(descriptor).st_size
            if size == 0 or os.pread(descriptor, 1, size - 1) != b".":
                damaged.add(docname)
        except OSError:
            damaged.add(docname)
        finally:
            os.close(descriptor)
    return damaged


def setup_freshness(app: Sphinx) -> None:
    # The signers and page parts outputs add in their setup are in the build state (made
    # empty by kb's setup(), before this).
    app.connect("builder-inited", _builder_inited, priority=events.OPEN_JOURNAL)
    # Last: after every handler that adds documents to read.
    app.connect("env-get-outdated", _note_outdated)
    app.connect("env-updated", _find_relinked, priority=events.FIND_RELINKED)
    app.connect("env-before-read-docs", _before_read, priority=events.LAST_TO_ADD_READS)
    # After the catalog (400) and the modules that derive data from it (kb-catalog-built).
    app.connect("env-updated", _env_updated, priority=events.SIGN_PAGES)
    app.connect("html-collect-pages", _write_pages_not_whole, priority=events.WRITE_NOT_WHOLE)
    app.connect("html-collect-pages", _keep_other_pages, priority=events.PUT_PARTS_IN_PLACE)
    app.connect("build-finished", _build_finished)
    if crashing():  # tests/hostile: a build stopped while it reads
        app.connect("doctree-read", lambda app, doctree: crash_point("read"))
