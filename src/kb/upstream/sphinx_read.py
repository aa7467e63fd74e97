"""Sphinx's three questions before an incremental build, asked of text paths.

Before it reads the one post that changed, an incremental build asks which documents there
are (``BuildEnvironment.find_files``), which of them changed since the environment was saved
(``get_outdated_files``) and which pages are older than their sources
(``StandaloneHTMLBuilder.get_outdated_docs``). Sphinx answers each with a few
``pathlib.Path`` objects per document: 23-25, 18-19 and 20-23 ms at 1000 posts, on a loaded
application, out of the 0.3-0.4 s from ``kb serve``'s go to the edited page. The functions
here give the same answers in 11, 7 and 9-10 ms: the files are found by Sphinx's own walk,
and the last discovery (in the saved environment) stands when it names the same documents;
the rest is Sphinx's own ``_last_modified_time`` (a time rounded up to the microsecond) and
``os.path.isfile`` on text paths, with Sphinx's rules (a missing doctree or dependency is a
change). :func:`read` is ``Builder.read``
with the first two. ``tests/test_upstream.py`` compares each with Sphinx's own on the same
folders, in every case they tell apart.

Where a builder or environment is not Sphinx's own HTML one (a subclass that overrides how a
page's file is named, such as ``dirhtml``, or how a document is found out of date), Sphinx's
own method answers. Copied from Sphinx 9.0 (``sphinx.builders.Builder.read``,
``sphinx.environment.BuildEnvironment.get_outdated_files`` with ``_has_doc_changed``,
``sphinx.builders.html.StandaloneHTMLBuilder.get_outdated_docs``), with the private
names they use (``Project._docname_to_path``, ``Builder._read_serial``, ``_read_parallel``
and ``_app``, ``sphinx.util.osutil._last_modified_time``).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, cast

from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.environment import CONFIG_CHANGED_REASON, CONFIG_OK, BuildEnvironment
from sphinx.util import logging
from sphinx.util.osutil import _last_modified_time

if TYPE_CHECKING:
    from sphinx.builders import Builder

logger = logging.getLogger("sphinx.builders")


def _found_sources(env: BuildEnvironment) -> dict:
    """Sphinx's own table of each document it found a file for and that file, relative to the
    source folder (a path object): what ``env.doc2path`` looks up."""
    return env.project._docname_to_path


def _source_paths(env: BuildEnvironment) -> dict[str, str]:
    """Each document's source file, as ``env.doc2path(docname)`` names it."""
    srcdir = os.fspath(env.srcdir)
    return {
        docname: os.path.join(srcdir, os.fspath(relpath))
        for docname, relpath in _found_sources(env).items()
    }


def source_relpaths(env: BuildEnvironment, docnames: Iterable[str]) -> dict[str, str]:
    """Each document's source file relative to the source folder, ``/``-separated:
    ``env.doc2path(docname, base=False).as_posix()`` without its path objects (0.1 s of each
    build's checks across 10,000 posts)."""
    known = _found_sources(env)
    relpaths = {}
    for docname in docnames:
        relpath = known.get(docname)
        relpaths[docname] = (
            os.fspath(relpath).replace(os.sep, "/")
            if relpath is not None
            else env.doc2path(docname, base=False).as_posix()
        )
    return relpaths


def _source_path(env: BuildEnvironment, paths: dict[str, str], docname: str) -> str:
    found = paths.get(docname)
    return found if found is not None else os.fspath(env.doc2path(docname))


# -- Which documents there are ----------------------------------------------------------------


def find_files(env: BuildEnvironment, builder: Builder) -> None:
    """``env.find_files(config, builder)``: the documents of the source folder, in
    ``env.found_docs``."""
    from sphinx.errors import DocumentError
    from sphinx.locale import __
    from sphinx.util.i18n import CatalogRepository, docname_to_domain

    if type(env).find_files is not BuildEnvironment.find_files:
        env.find_files(builder.config, builder)
        return
    config = env.config
    try:
        _discover(env.project, _excluded(builder), config.include_patterns)
        if builder.use_message_catalog:
            # Sphinx's own step: each document depends on its message catalog's .mo file.
            repository = CatalogRepository(
                env.srcdir, config.locale_dirs, config.language, config.source_encoding
            )
            mo_paths = {c.domain: c.mo_path for c in repository.catalogs}
            for docname in env.found_docs:
                domain = docname_to_domain(docname, config.gettext_compact)
                if domain in mo_paths:
                    env.note_dependency(mo_paths[domain], docname=docname)
    except OSError as exc:
        raise DocumentError(__("Failed to scan documents in %s: %r") % (env.srcdir, exc)) from exc


def _excluded(builder: Builder) -> list[str]:
    """The patterns of what ``find_files`` never finds, as it lists them (Sphinx adds its own
    ``EXCLUDE_PATHS``)."""
    config = builder.config
    return config.exclude_patterns + config.templates_path + builder.get_asset_paths()


def documents_in(env: BuildEnvironment, builder: Builder, folder: str) -> set[str]:
    """The files of ``folder`` (relative to the source folder, ``/``-separated) that
    ``find_files`` would take for documents, as Sphinx's walk finds them: links followed, the
    folders an exclude pattern matches left out (and nothing where ``folder`` or a folder
    above it is one), each path in NFC. Sphinx's ``get_matching_files`` walks the whole source
    folder; this walks one folder of it the same way."""
    from sphinx.project import EXCLUDE_PATHS
    from sphinx.util.matching import compile_matchers

    excluded = compile_matchers([*_excluded(builder), *EXCLUDE_PATHS])
    included = compile_matchers(builder.config.include_patterns)
    parts = _nfc(folder).split("/")
    if any(m("/".join(parts[:n])) for n in range(1, len(parts) + 1) for m in excluded):
        return set()
    srcdir = os.fspath(env.srcdir)
    found = set()
    for root, dirs, files in os.walk(os.path.join(srcdir, folder), followlinks=True):
        relative = os.path.relpath(root, srcdir).replace(os.sep, "/")
        for name in files:
            path = _nfc(f"{relative}/{name}")
            matched = any(m(path) for m in included) and not any(m(path) for m in excluded)
            if matched and _docname(env.project, path) is not None:
                found.add(path)
        dirs[:] = [d for d in dirs if not any(m(_nfc(f"{relative}/{d}")) for m in excluded)]
    return found


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _discover(project, excluded: list[str], included: list[str]) -> None:
    """``project.discover(excluded, included)``. The files are found by Sphinx's own walk; when
    they are the files of the last discovery (kept in the saved environment), each readable
    and named as before, that discovery stands, as Sphinx would make it again (the same
    documents, paths and names), without its three path objects per file."""
    from sphinx.project import EXCLUDE_PATHS
    from sphinx.util.matching import get_matching_files

    files = list(get_matching_files(project.srcdir, included, [*excluded, *EXCLUDE_PATHS]))
    if not _same_as_last_discovery(project, files):
        project.discover(excluded, included)


def _same_as_last_discovery(project, files: list[str]) -> bool:
    """Whether the documents among ``files`` are those of the last discovery, each readable
    and named as then; if so, the project's documents are those again."""
    documents = [(f, name) for f in files if (name := _docname(project, f)) is not None]
    last = {os.fspath(path): docname for path, docname in project._path_to_docname.items()}
    if not len(last) == len(project._docname_to_path) == len(documents):
        return False  # a file came or went, or two files of one name (Sphinx warns)
    srcdir = os.fspath(project.srcdir)
    for filename, docname in documents:
        if last.get(filename) != docname:
            return False
        if not os.access(os.path.join(srcdir, filename), os.R_OK):
            return False  # Sphinx warns about it: let it
    project.docnames.clear()
    project.docnames.update(last.values())
    return True


def _docname(project, filename: str) -> str | None:
    """``project.path2doc(filename)`` for a path relative to the source folder, as
    ``get_matching_files`` gives it (``/``-separated, in NFC)."""
    name = filename.rpartition("/")[2]
    for suffix in project.source_suffix:
        if name.endswith(suffix):
            return filename.removesuffix(suffix)
    return None


# -- Which documents changed since the environment was saved -----------------------------------


def outdated_files(env: BuildEnvironment, config_changed: bool) -> tuple[set, set, set]:
    """``env.get_outdated_files(config_changed)``: the (added, changed, removed) documents."""
    if type(env).get_outdated_files is not BuildEnvironment.get_outdated_files:
        return env.get_outdated_files(config_changed)
    removed = env.all_docs.keys() - env.found_docs
    added: set[str] = set()
    changed: set[str] = set()
    if config_changed:
        return set(env.found_docs), changed, removed
    paths = _source_paths(env)
    doctreedir = os.fspath(env.doctreedir)
    for docname in env.found_docs:
        if docname not in env.all_docs:
            logger.debug("[build target] added %r", docname)
            added.add(docname)
        elif _has_doc_changed(env, docname, _source_path(env, paths, docname), doctreedir):
            changed.add(docname)
    return added, changed, removed


def _has_doc_changed(env: BuildEnvironment, docname: str, source: str, doctreedir: str) -> bool:
    if docname in env.reread_always:
        logger.debug("[build target] changed %r: re-read forced", docname)
        return True
    if not os.path.isfile(os.path.join(doctreedir, docname + ".doctree")):
        logger.debug("[build target] changed %r: doctree file does not exist", docname)
        return True
    saved = env.all_docs[docname]
    if _last_modified_time(source) > saved:  # raises, as Sphinx does, if it is gone
        logger.debug("[build target] changed: %r is outdated", docname)
        return True
    for dependency in env.dependencies.get(docname, ()):
        # Sphinx: not a file, or a file it cannot stat, is a change ("another chance").
        try:
            newer = not os.path.isfile(dependency) or _last_modified_time(dependency) > saved
        except (OSError, ValueError):
            newer = True
        if newer:
            logger.debug("[build target] changed: %r: dependency %r", docname, dependency)
            return True
    return False


# -- Which pages are older than their sources --------------------------------------------------


def outdated_pages(builder: Builder) -> Iterable[str] | str:
    """``builder.get_outdated_docs()``: the documents whose page must be written again."""
    if not _asks_its_own_html_questions(builder):
        return builder.get_outdated_docs()
    return _outdated_html_pages(cast("StandaloneHTMLBuilder", builder))


def _outdated_html_pages(builder: StandaloneHTMLBuilder) -> Iterator[str]:
    # The build information and the templates as Sphinx checks them: its own generator, up to
    # the loop over the documents (it yields every document when the information differs).
    everything, template_mtime = _html_settings_verdict(builder)
    if everything:
        yield from builder.env.found_docs
        return
    yield from _pages_older_than_sources(builder, builder.env.found_docs, template_mtime)


def _pages_older_than_sources(
    builder: StandaloneHTMLBuilder, docnames: Iterable[str], template_mtime: int
) -> Iterator[str]:
    """Sphinx's loop over the documents: those of ``docnames`` whose page is older than its
    source or the newest template, or that the environment does not hold."""
    env = builder.env
    paths = _source_paths(env)
    outdir, suffix = os.fspath(builder.outdir), builder.out_suffix
    for docname in docnames:
        if docname not in env.all_docs:
            logger.debug("[build target] did not in env: %r", docname)
            yield docname
            continue
        try:
            target_mtime = _last_modified_time(os.path.join(outdir, docname + suffix))
        except OSError:
            target_mtime = 0
        try:
            doc_mtime = _last_modified_time(_source_path(env, paths, docname))
        except OSError:
            continue  # the source does not exist any more
        if max(doc_mtime, template_mtime) > target_mtime:
            logger.debug("[build target] docname %r", docname)
            yield docname


def _html_settings_verdict(
    builder: StandaloneHTMLBuilder, quietly: bool = False
) -> tuple[bool, int]:
    """Sphinx's checks before its loop, with its messages: whether every page is out of date
    because the build information changed (the old file is kept as ``.buildinfo.bak``), and
    the newest template's time in microseconds (0 without templates). ``quietly``: the same
    verdict with no message and no file moved."""
    import shutil

    from sphinx._cli.util.colour import bold
    from sphinx.builders.html._build_info import BuildInfo
    from sphinx.locale import __

    build_info_path = builder.outdir / ".buildinfo"
    try:
        build_info = BuildInfo.load(build_info_path)
    except ValueError as exc:
        if not quietly:
            logger.warning(__("Failed to read build info file: %r"), exc)
    except OSError:
        pass
    else:
        if builder.build_info != build_info:
            if quietly:
                return True, 0
            backup = build_info_path.with_name(".buildinfo.bak")
            try:
                shutil.move(build_info_path, backup)
                builder.build_info.dump(build_info_path)
            except OSError:
                pass
            else:
                message = __("build_info mismatch, copying .buildinfo to .buildinfo.bak")
                logger.info(bold(__("building [html]: ")) + message)
            return True, 0
    if not builder.templates:
        return False, 0
    template_mtime = int(builder.templates.newest_template_mtime() * 10**6)
    try:
        old_mtime = _last_modified_time(build_info_path)
    except OSError:
        pass
    else:
        if template_mtime > old_mtime and not quietly:
            logger.info(
                bold("building [html]: ")
                + __(
                    "template %s has been changed since the previous build, "
                    "all docs will be rebuilt"
                ),
                builder.templates.newest_template_name(),
            )
    return False, template_mtime


# -- The questions, asked now or answered ahead ------------------------------------------------


class Questions:
    """Sphinx's three questions before a build, asked of the files as they are now (the
    functions above); :class:`AnsweredAhead` answers them before the change."""

    def find_files(self, env: BuildEnvironment, builder: Builder) -> None:
        find_files(env, builder)

    def outdated_files(self, env: BuildEnvironment, config_changed: bool) -> tuple[set, set, set]:
        return outdated_files(env, config_changed)

    def outdated_pages(self, builder: Builder) -> Iterable[str] | str:
        return outdated_pages(builder)


class AnsweredAhead(Questions):
    """The questions answered for a loaded application before its build (``kb serve``'s
    standby, while the author reads), then told which documents may have changed since
    (:meth:`changed_since`): the build asks again only of those.

    An answer is a function of the files: of each document's source and dependencies, its
    doctree and page, the build information and the templates. Where none of a document's
    files changed, its answer is the one given ahead; the caller vouches for that, naming
    every document one of whose files it cannot show unchanged. The documents are found
    again (a file may have come or gone), by Sphinx's walk, or, where the caller names the
    only folders in which a file may have come or gone, by a walk of those folders
    (:func:`documents_in`): where they are not those found ahead, or the build information
    or the templates' time differ, the build asks every question again. Not told (no
    :meth:`changed_since`), it asks them all again."""

    def __init__(self, builder: Builder) -> None:
        env = builder.env
        self._suspects: frozenset[str] | None = None
        self._look_again_in: list[str] | None = None
        # Where a builder or environment answers in its own way, nothing is answered ahead.
        self._answered = _asks_its_own_html_questions(builder) and _finds_its_own_files(env)
        # The pages are asked of the environment's last discovery, before the documents are
        # found again, as build_update asks.
        self._pages_asked_of = frozenset(env.found_docs)
        self._pages: frozenset[str] = frozenset()
        self._verdict = (True, 0)
        self._found: dict = {}
        self._config_changed = False
        self._files: tuple[set, set, set] = (set(), set(), set())
        if not self._answered:
            return
        html = cast("StandaloneHTMLBuilder", builder)
        self._verdict = _html_settings_verdict(html, quietly=True)
        everything, template_mtime = self._verdict
        if not everything:
            pages = _pages_older_than_sources(html, self._pages_asked_of, template_mtime)
            self._pages = frozenset(pages)
        find_files(env, builder)
        self._found = dict(env.project._path_to_docname)
        self._config_changed = env.config_status != CONFIG_OK
        self._files = outdated_files(env, self._config_changed)

    def changed_since(
        self, docnames: Iterable[str], files_alike_but_in: Iterable[str] | None = None
    ) -> None:
        """Every document one of whose files may differ from when the answers were made; and,
        where the caller can tell, the folders (relative to the source folder) outside which
        every file is the one it was, by name and as readable: only there are the documents
        looked for again."""
        self._suspects = frozenset(docnames)
        self._look_again_in = None if files_alike_but_in is None else list(files_alike_but_in)

    def find_files(self, env: BuildEnvironment, builder: Builder) -> None:
        if self._answered and self._suspects is not None and self._look_again_in is not None:
            again = set().union(*(documents_in(env, builder, f) for f in self._look_again_in))
            before = {
                path
                for path in map(os.fspath, self._found)
                if any(path.startswith(f"{folder}/") for folder in self._look_again_in)
            }
            if again == before:
                return  # the documents found ahead are the documents there are
        find_files(env, builder)

    def outdated_files(self, env: BuildEnvironment, config_changed: bool) -> tuple[set, set, set]:
        suspects = self._suspects
        same = config_changed == self._config_changed
        found_again = env.project._path_to_docname == self._found
        if suspects is None or not self._answered or not same or not found_again:
            return outdated_files(env, config_changed)
        added, changed, removed = (set(answer) for answer in self._files)
        if config_changed:
            return added, changed, removed  # every document, whatever changed
        paths = _source_paths(env)
        doctreedir = os.fspath(env.doctreedir)
        changed -= suspects
        for docname in suspects & env.found_docs & env.all_docs.keys():
            if _has_doc_changed(env, docname, _source_path(env, paths, docname), doctreedir):
                changed.add(docname)
        return added, changed, removed

    def outdated_pages(self, builder: Builder) -> Iterable[str] | str:
        if not self._answered:
            return outdated_pages(builder)
        html = cast("StandaloneHTMLBuilder", builder)
        everything, template_mtime = verdict = _html_settings_verdict(html)  # as Sphinx asks
        asked_of, suspects = self._pages_asked_of, self._suspects
        if everything:
            return set(asked_of)
        if suspects is None or verdict != self._verdict:
            return set(_pages_older_than_sources(html, asked_of, template_mtime))
        again = _pages_older_than_sources(html, suspects & asked_of, template_mtime)
        return (self._pages - suspects) | set(again)


def _finds_its_own_files(env: BuildEnvironment) -> bool:
    """Whether the environment finds its files and what changed as :func:`find_files` and
    :func:`outdated_files` do (no subclass does it another way)."""
    own = type(env)
    return (
        own.find_files is BuildEnvironment.find_files
        and own.get_outdated_files is BuildEnvironment.get_outdated_files
    )


def _asks_its_own_html_questions(builder: Builder) -> bool:
    """Whether the builder is Sphinx's own HTML builder as :func:`outdated_pages` answers for
    it (no subclass names its pages, or their freshness, another way)."""
    own = type(builder)
    return (
        isinstance(builder, StandaloneHTMLBuilder)
        and own.get_outdated_docs is StandaloneHTMLBuilder.get_outdated_docs
        and getattr(own, "get_output_path", None) is StandaloneHTMLBuilder.get_output_path
    )


# -- Builder.read ------------------------------------------------------------------------------


def read(builder: Builder, questions: Questions | None = None) -> list[str]:
    """``builder.read()``, asking ``questions`` (by default of the files now,
    :func:`find_files` and :func:`outdated_files`) which documents there are and changed."""
    from sphinx._cli.util.colour import bold
    from sphinx.errors import SphinxError
    from sphinx.locale import __
    from sphinx.util.parallel import parallel_available

    env, app = builder.env, builder._app
    questions = questions or Questions()
    logger.info(bold(__("updating environment: ")), nonl=True)
    questions.find_files(env, builder)
    updated = env.config_status != CONFIG_OK
    added, changed, removed = questions.outdated_files(env, updated)
    for docs in builder.events.emit("env-get-outdated", env, added, changed, removed):
        changed.update(set(docs) & env.found_docs)
    if added or removed:
        changed.update(env.glob_toctrees & env.found_docs)
    if updated:
        reason = CONFIG_CHANGED_REASON.get(env.config_status, "") + (env.config_status_extra or "")
        logger.info("[%s] ", reason, nonl=True)
    logger.info(__("%s added, %s changed, %s removed"), len(added), len(changed), len(removed))
    for docname in removed:
        builder.events.emit("env-purge-doc", env, docname)
        env.clear_doc(docname)
    docnames = sorted(added | changed)
    builder.events.emit("env-before-read-docs", env, docnames)
    if parallel_available and app.parallel > 1 and app.is_parallel_allowed("read"):
        builder._read_parallel(docnames, nproc=app.parallel)
    else:
        builder._read_serial(docnames)
    if builder.config.master_doc not in env.all_docs:
        raise SphinxError(_missing_master_doc(builder))
    for retval in builder.events.emit("env-updated", env):
        if retval is not None:
            docnames.extend(retval)
    env.config_status = CONFIG_OK
    return sorted(docnames)


def _missing_master_doc(builder: Builder) -> str:
    """Sphinx's message when the master document was not read, naming the pattern to blame."""
    from sphinx.locale import __
    from sphinx.project import EXCLUDE_PATHS
    from sphinx.util.matching import _translate_pattern

    config = builder.config
    path = builder.env.doc2path(config.master_doc)
    canon = path.as_posix()
    for pattern in EXCLUDE_PATHS:
        if re.match(_translate_pattern(pattern), canon):
            return __(
                "Sphinx is unable to load the master document (%s) "
                "because it matches a built-in exclude pattern %r. "
                "Please move your master document to a different location."
            ) % (path, pattern)
    for pattern in config.exclude_patterns:
        if re.match(_translate_pattern(pattern), canon):
            return __(
                "Sphinx is unable to load the master document (%s) "
                "because it matches an exclude pattern specified "
                "in conf.py, %r. "
                "Please remove this pattern from conf.py."
            ) % (path, pattern)
    if set(config.include_patterns) != {"**"} and not any(
        re.match(_translate_pattern(pattern), canon) for pattern in config.include_patterns
    ):
        return __(
            "Sphinx is unable to load the master document (%s) "
            "because it is not included in the custom include_patterns = %r. "
            "Ensure that a pattern in include_patterns matches the "
            "master document."
        ) % (path, config.include_patterns)
    return (
        __(
            "Sphinx is unable to load the master document (%s). "
            "The master document must be within the source directory "
            "or a subdirectory of it."
        )
        % path
    )
