"""Is an application made before the author saved still the one a new build would make?

``kb serve``'s warm worker makes the next build's application while the author reads the page
(:mod:`kb.cli.buildworker`): it reads the configuration, sets up every extension, runs their
``config-inited`` and ``builder-inited`` steps and loads the environment, then waits. When the
author saves, that application is used only if making it now would give the same one. That
holds when what it was made from is unchanged, except for the text of documents it knows:

* the files in the doctree folder (Sphinx's environment, kb's record of the last build and its
  journal) and the output's ``.buildinfo`` are the same files, unchanged: no other build ran
  in between, and none was stopped;
* no file of the source folder was added, removed or renamed (``conf.py``, templates, data
  and images are files like the others), but posts: a file ablog's ``blog_post_pattern``
  matches, with a suffix Sphinx reads. The posts are then matched again, as ablog matched
  them when the configuration was read, and the application keeps the new list; Sphinx
  finds the documents afresh in each build anyway;
* every file that changed is a document of the environment (a post or page Sphinx reads in
  the build itself, after the wait);
* every step that read the source folder's contents while the application was made (what is
  left out as unsafe, the drafts, the files of a post's folder, the posts whose names
  Sphinx cannot find; each recorded with :func:`kb.core.finding.scanned`) finds the same
  again, the posts as they are now. Where no file came or went, a scan that can be told what
  was saved (the drafts, the unsafe sources) reads only that
  (:func:`kb.core.finding.found_again`).

When it is used, Sphinx's questions before the read, answered while the author read
(:class:`kb.upstream.sphinx_read.AnsweredAhead`), are told which documents may have changed
since: those whose source was saved or is not stamped (read through a linked folder), and
those with a dependency not stamped alike before and now. Where no file came or went and
every saved file can be read, they are told too that the documents need looking for only in
the folders the stamps skip (each stamped as its path and a ``/``). The doctrees and pages
are the build folders' files, which only a build writes, and the state files show that none
ran.

Otherwise the worker discards it and builds with a new application, as before. The checks
are on what the steps read, not on what the author changed, so an edit that turns a post into
a draft (a date after today) or a page into a post's companion, or a new post that is a draft
or moves a file into a post's own folder, is caught like any other.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from sphinx.application import Sphinx

from ..core.ablog import is_blog_post, match_posts_again, matched_posts
from ..core.fileio import file_stamp, walk_files
from ..core.finding import SinceScanned, found_again
from ..core.journal import SEARCH_FILES
from ..core.state import build_state
from ..upstream.sphinx_read import source_relpaths

#: Folders of the source tree that no configuration step reads: version control, caches,
#: environments, and the build folders (whose state files are compared on their own).
UNREAD_FOLDERS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__"}
    | {".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox", ".nox", "_build"}
)

#: A file's identity and version: inode, modification time, size, change time.
Stamp = tuple[int, int, int, int]


@dataclass(frozen=True)
class Inputs:
    """What an application was made from, as stamps: the source folder's files (relative to
    it), taken before it was made, and the build's state files, taken once it was made (while
    it held the folders' lock)."""

    sources: dict[str, Stamp]
    state: dict[str, Stamp]


def still_current(app: Sphinx, made_from: Inputs) -> bool:
    """Whether a new application, made now, would be ``app`` (made from ``made_from``); where
    posts were added or removed since, ``app`` is first brought up to date by matching them
    again (and is of no use if this says no). Call it holding the output folders' lock
    (:func:`kb.core.output.lock_folders`)."""
    now = Inputs(source_stamps(app.srcdir, app.outdir, app.doctreedir), state_stamps(app))
    if now.state != made_from.state:
        return False
    came = now.sources.keys() - made_from.sources.keys()
    went = made_from.sources.keys() - now.sources.keys()
    if (came or went) and not _only_posts_came_or_went(app, came, went):
        return False
    kept = now.sources.keys() & made_from.sources.keys()
    changed = [path for path in kept if made_from.sources[path] != now.sources[path]]
    documents = app.env.found_docs
    srcdir = Path(app.srcdir)
    if any(app.env.path2doc(srcdir / path) not in documents for path in changed):
        return False
    state = build_state(app)
    skipped = [path.removesuffix("/") for path in now.sources if path.endswith("/")]
    since = None if came or went else SinceScanned(frozenset(changed), tuple(skipped))
    for scan, found in state.source_scans.values():
        if found_again(scan, found, since) != found:
            return False
    if state.questions_ahead is not None:
        unchanged = kept.difference(changed)
        # Every file outside the folders the stamps skip is the file it was, by name and as
        # readable: the documents are looked for again only in those folders.
        alike = not (came or went) and all(os.access(srcdir / path, os.R_OK) for path in changed)
        touched = _not_known_unchanged(app, unchanged)
        state.questions_ahead.changed_since(touched, skipped if alike else None)
    return True


def _not_known_unchanged(app: Sphinx, unchanged: set[str]) -> set[str]:
    """The documents with a file not among ``unchanged`` (the files stamped alike before and
    now): a source that was saved, or one the stamps do not see (in a linked folder); a
    dependency (an included file, an image, a data file) that changed, or whose version is
    not known (outside the source folder, or in a folder the stamps skip)."""
    env = app.env
    sources = source_relpaths(env, env.found_docs)
    touched = {docname for docname, relpath in sources.items() if relpath not in unchanged}
    prefix = os.path.join(os.fspath(app.srcdir), "")

    def known_unchanged(dependency) -> bool:
        path = os.path.normpath(os.fspath(dependency))
        inside = path.startswith(prefix)
        return inside and path[len(prefix) :].replace(os.sep, "/") in unchanged

    touched.update(
        docname
        for docname, dependencies in env.dependencies.items()
        if not all(known_unchanged(dependency) for dependency in dependencies)
    )
    return touched


def _only_posts_came_or_went(app: Sphinx, came: set[str], went: set[str]) -> bool:
    """Whether every file added is a post and every file removed was one, as ablog matches
    them (``blog_post_pattern``, when the application was made and now; a file removed before
    the posts were matched, as the last build's posts), with a suffix Sphinx reads; if so, the
    application now holds the posts matched again. Sphinx finds the
    documents afresh in each build; the steps that read the source folder before it (the
    scans) are run again by the caller."""
    before = set(matched_posts(app.config))
    srcdir = Path(app.srcdir)

    def post(path: str, matched: set[str]) -> bool:
        docname = app.env.path2doc(srcdir / path)  # None without a suffix Sphinx reads
        return docname is not None and docname in matched

    def gone_post(path: str) -> bool:
        # A post when ablog matched the posts, or a post of the last build that was gone by
        # then: the save came after the sources were stamped and before the configuration
        # was read (at 28 posts on a busy machine, now and then), and the application
        # matched the posts as they are.
        docname = app.env.path2doc(srcdir / path)
        return post(path, before) or (docname is not None and is_blog_post(app.env, docname))

    if not all(gone_post(path) for path in went):
        return False
    after = set(match_posts_again(app))
    return all(post(path, after) for path in came)


def _stamp(entry: os.DirEntry) -> Stamp:
    try:
        info = entry.stat()  # a link's target: what a build reads through it
    except OSError:
        info = entry.stat(follow_symlinks=False)  # a link to nothing
    return file_stamp(info)


#: The stamp of a folder the stamps do not walk into, kept as its path and a ``/``: one made
#: or removed there is a file that came or went.
SKIPPED_FOLDER: Stamp = (0, 0, 0, 0)


def source_stamps(srcdir, outdir, doctreedir) -> dict[str, Stamp]:
    """Every file under ``srcdir`` but those of :data:`UNREAD_FOLDERS` and of the build's
    folders, by its path relative to ``srcdir``; and each folder not walked into (those, and
    links to folders), by its path and a ``/``, stamped :data:`SKIPPED_FOLDER`."""
    skipped = {os.path.realpath(outdir), os.path.realpath(doctreedir)}
    stamps: dict[str, Stamp] = {}

    def descend(entry: os.DirEntry, relative: str) -> bool:
        # No stamp of its own: an editor that saves by renaming a new file over the old one
        # changes the folder, not its names.
        if entry.name not in UNREAD_FOLDERS and os.path.realpath(entry) not in skipped:
            return True
        stamps[relative + "/"] = SKIPPED_FOLDER
        return False

    for name, entry in walk_files(srcdir, descend):
        stamps[name] = _stamp(entry)
        if entry.is_symlink() and _is_folder(entry):
            stamps[name + "/"] = SKIPPED_FOLDER
    return stamps


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a loop of links: no folder (the build refuses it, at its line 1)
        return False


def state_stamps(app: Sphinx) -> dict[str, Stamp]:
    """The doctree folder's own files (the environment, kb's state and journal, caches; not
    the search index's, :data:`SEARCH_FILES`) and the output's ``.buildinfo``: every build
    that finishes, or stops, changes one of them."""
    stamps = {}
    try:
        entries = [
            entry
            for entry in os.scandir(app.doctreedir)
            if entry.is_file(follow_symlinks=False) and not entry.name.startswith(SEARCH_FILES)
        ]
    except OSError:
        entries = []
    for entry in entries:
        stamps[entry.path] = _stamp(entry)
    buildinfo = Path(app.outdir, ".buildinfo")
    with contextlib.suppress(OSError):
        info = buildinfo.stat()
        stamps[str(buildinfo)] = file_stamp(info)
    return stamps
