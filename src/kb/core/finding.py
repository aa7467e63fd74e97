"""Source files left out of what Sphinx finds, without changing the setting it compares.

Posts and post folders that must never be read (links that lead out of the repository or go
round, FIFOs, files over ``kb_max_file_bytes``: :mod:`kb.checks.sourcefiles`), drafts
(:mod:`.drafts`) and posts Sphinx could not find by their name (:mod:`.validation`) are left
out of a build by adding each to ``exclude_patterns``. Sphinx compares that setting with
the last build's before it looks for files, and any difference makes it read every post again:
adding a draft, or a draft's day coming, cost as much as a clean build (at 1000 posts: 107 s,
against 4.2 s now). So the names join the setting only while Sphinx finds the files, from
``builder-inited`` to the first ``env-get-outdated`` handler, and the environment keeps the
setting ``conf.py`` made for the next build to compare with. A build with no saved environment
compares nothing, and Sphinx looks for files before ``builder-inited`` too: there the names
join at ``config-inited``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from sphinx.application import Sphinx
from sphinx.project import EXCLUDE_PATHS
from sphinx.util import logging
from sphinx.util.matching import compile_matchers

from ..checks.bounded import DEFAULT_LIMIT
from ..checks.ignored import ignored_sources
from ..checks.messages import say
from ..checks.sitechecks import DOC_SUFFIXES
from ..checks.sourcefiles import UnsafeScan, excluded_by, inside
from ..upstream.sphinx import has_saved_environment
from . import ablog, events
from .state import build_state

logger = logging.getLogger(__name__)

T = TypeVar("T")


def scanned(app: Sphinx, name: str, scan: Callable[[], T]) -> T:
    """What ``scan`` (a step that reads the source folder before the environment loads) finds,
    remembered with it: an application made ahead of a change is used only if every such scan
    finds the same again (:mod:`kb.incremental.standby`, through :func:`found_again`)."""
    found = scan()
    build_state(app).source_scans[name] = (scan, found)
    return found


@dataclass(frozen=True)
class SinceScanned:
    """What changed in the source folder since the scans ran, where ``kb serve``'s standby
    can tell from its stamps: no file came or went; the files ``saved`` (relative paths, with
    ``/``) changed; and the stamps did not look into the ``unseen`` folders (or links to
    folders), whose files may have changed too."""

    saved: frozenset[str]
    unseen: tuple[str, ...]

    def sees_all_of(self, folders: Iterable[str]) -> bool:
        """Whether the stamps looked at every file under each of ``folders`` (``""`` the
        source folder)."""
        return not any(
            inside(unseen, folder) or inside(folder, unseen)
            for unseen in self.unseen
            for folder in folders
        )


def found_again(scan: Callable[[], T], found: T, since: SinceScanned | None) -> T:
    """What ``scan``, which found ``found``, finds now. A scan that reads only the files under
    its ``folders`` (each looked at by the stamps) and has an ``again(found, saved)`` is told
    which files were saved instead of reading every file again (at 10,000 posts, the drafts
    and the unsafe sources took 0.11 s of each edit); any other scan, or where ``since`` is
    None (files came or went), runs whole."""
    again = getattr(scan, "again", None)
    if since is None or again is None or not since.sees_all_of(getattr(scan, "folders", [""])):
        return scan()
    return again(found, since.saved)


def leave_out(app: Sphinx, relpaths) -> None:
    """Leave these files (paths relative to the source folder) out of this build's sources;
    call before ``builder-inited``."""
    build_state(app).left_out.extend(relpaths)


def _exclude(app: Sphinx) -> None:
    state = build_state(app)
    if not state.left_out or state.configured_excludes is not None:
        return
    config = app.config
    state.configured_excludes = config.exclude_patterns
    # Each name as a pattern that matches only itself ("[" in a file name is no class).
    escaped = [re.sub(r"([*?\[])", r"[\1]", name) for name in sorted(set(state.left_out))]
    config.exclude_patterns = [*config.exclude_patterns, *escaped]


def _leave_out_unsafe(app: Sphinx, config) -> None:
    """Posts and post folders Sphinx must never walk or read (:mod:`kb.checks.sourcefiles`):
    links that lead out of the repository or go round, FIFOs, devices, files too large. Each
    is a warning at its line 1, in the words of ``kb check``."""
    suffixes = config.source_suffix  # as conf.py wrote it: Sphinx makes it a dict later
    suffixes = (suffixes,) if isinstance(suffixes, str) else tuple(suffixes or ())
    limit = getattr(config, "kb_max_file_bytes", DEFAULT_LIMIT)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        limit = DEFAULT_LIMIT  # reported as a configuration error at builder-inited
    scan = UnsafeScan(
        app.srcdir,
        config.blog_post_pattern,
        (*DOC_SUFFIXES, *suffixes),
        limit,
        excluded=excluded_by([*config.exclude_patterns, *EXCLUDE_PATHS]),
    )
    found = scanned(app, "unsafe sources", scan)
    for relpath, problems in sorted(found.problems.items()):
        for problem in problems:
            logger.warning(
                problem.message,
                location=f"{Path(app.srcdir, relpath)}:{problem.line}",
                type="kb",
                subtype="path",
            )
    leave_out(app, found.left_out)
    build_state(app).refused_sources = set(found.left_out)


def _warn_ignored(app: Sphinx) -> None:
    """A Markdown file or notebook the build never reads, because ``include_patterns`` names
    no folder it is in and ``exclude_patterns`` does not leave it out on purpose: a warning that
    names it, on every build (:mod:`kb.checks.ignored`)."""
    config = app.config
    included = config.include_patterns
    if list(included) == ["**"]:
        return  # Sphinx reads every source: none is left out without a pattern saying so
    suffixes = (*DOC_SUFFIXES, *(config.source_suffix or {}))
    matches_included = compile_matchers(included)
    srcdir, outputs = Path(app.srcdir), (Path(app.outdir), Path(app.doctreedir))
    skipped = [
        f"{Path(folder).resolve().relative_to(srcdir.resolve()).as_posix()}"
        for folder in outputs
        if srcdir.resolve() in Path(folder).resolve().parents
    ]
    configured = build_state(app).configured_excludes
    matches_excluded = compile_matchers(
        [*(config.exclude_patterns if configured is None else configured), *EXCLUDE_PATHS]
        + [*config.templates_path, *getattr(config, "html_static_path", []), *skipped]
    )
    shown = ", ".join(included)
    for relpath in ignored_sources(
        srcdir,
        sorted(set(suffixes)),
        lambda path: any(match(path) for match in matches_included),
        lambda path: any(match(path) for match in matches_excluded),
    ):
        logger.warning(
            say("ignored_file", path=relpath, included=shown),
            location=f"{srcdir / relpath}:1",
            type="kb",
            subtype="ignored-file",
        )


#: The first lines of a page that asks to be built though it sits in a post's folder.
_ORPHAN = re.compile(rb"^(?::orphan:|orphan:[ \t]*true\b)", re.MULTILINE)


def companion_sources(srcdir, posts, suffixes) -> list[str]:
    """The files of a post's own folder that are not posts (a notebook, its data, code),
    relative to ``srcdir``: a folder holding exactly one post (``posts/2024/slug/post.md``)
    belongs to it. Each is left out, so Sphinx never writes it as a stray page ("not included
    in any toctree"), unless it asks to be a page of its own with ``orphan: true``."""
    srcdir = Path(srcdir)
    by_folder: dict[str, list[str]] = {}
    for docname in posts:
        # The docnames are PurePath's own spelling (ablog's, and kb.upstream.ablog's when the
        # standby matches again): their folder is the text before the last "/", as
        # str(PurePath(docname).parent) has it, without a path object each (most of this
        # scan's 40-60 ms at 10,000 posts, which kb serve's standby runs before each build).
        by_folder.setdefault(posixpath.dirname(docname) or ".", []).append(docname)
    found = []
    for folder, members in sorted(by_folder.items()):
        if folder == "." or len(members) != 1:
            continue  # the source root, or a folder of many posts: no post owns it
        for path in sorted((srcdir / folder).rglob("*")):
            relpath = path.relative_to(srcdir).as_posix()
            if not path.name.endswith(suffixes) or not path.is_file():
                continue
            if relpath.rsplit(".", 1)[0] in members or _asks_to_be_page(path):
                continue
            found.append(relpath)
    return found


def _asks_to_be_page(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(DEFAULT_LIMIT if path.suffix == ".ipynb" else 4096)
    except OSError:
        return True  # Sphinx says why it cannot read it
    if path.suffix == ".ipynb":
        return re.search(rb'"orphan"\s*:\s*true', head) is not None
    return _ORPHAN.search(head) is not None


def _leave_out_companions(app: Sphinx, config) -> None:
    # The posts as ablog matched them, at its config-inited (500); source_suffix as conf.py
    # wrote it (Sphinx makes it a dict later).
    written = config.source_suffix
    written = (written,) if isinstance(written, str) else tuple(written or ())
    suffixes = tuple(dict.fromkeys((*DOC_SUFFIXES, *written)))

    # The posts as they are when the scan runs: kb serve's standby runs it again after
    # matching the posts again (a post added or removed since it was made).
    def scan() -> list[str]:
        return companion_sources(app.srcdir, ablog.matched_posts(app.config), suffixes)

    found = scanned(app, "companion files", scan)
    if found:
        logger.info("kb: %d file(s) of posts' own folders left out: %s", len(found), found)
        leave_out(app, found)


def _config_inited(app: Sphinx, config) -> None:
    if not has_saved_environment(app):  # Sphinx finds the files before builder-inited
        _exclude(app)


def _builder_inited(app: Sphinx) -> None:
    _exclude(app)
    _warn_ignored(app)


def _files_found(app: Sphinx, env, added, changed, removed) -> list[str]:
    state = build_state(app)
    if state.configured_excludes is not None:
        app.config.exclude_patterns = state.configured_excludes
        state.configured_excludes = None
    return []


def setup_finding(app: Sphinx) -> None:
    # What is left out (build_state(app).left_out) starts empty with the application.
    # Before anything reads a post: the drafts (400) read each post's date, ablog (500)
    # matches the posts, and a build with no saved environment walks the source folder
    # (900, below).
    app.connect("config-inited", _leave_out_unsafe, priority=events.LEAVE_OUT_UNSAFE)
    # After ablog (500) has matched the posts: the files of a post's own folder.
    app.connect("config-inited", _leave_out_companions, priority=events.LEAVE_OUT_COMPANIONS)
    # After every config-inited handler that leaves files out (drafts: 400, validation: 500).
    app.connect("config-inited", _config_inited, priority=events.AFTER_LEAVING_OUT)
    # Sphinx finds the files after builder-inited; the first env-get-outdated handler runs
    # right after, before any handler that might look at the setting.
    app.connect("builder-inited", _builder_inited)
    app.connect("env-get-outdated", _files_found, priority=events.FILES_FOUND)
