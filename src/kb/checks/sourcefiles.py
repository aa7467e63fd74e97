"""The post folders as files: what ``kb check`` and the build leave unread, and why.

Sphinx walks the source folder following every symbolic link (``os.walk(followlinks=True)``)
and reads every source it finds whole. So a post that is a link to a file outside the
repository would be published, a link to a folder above it (``posts/up -> ..``) makes the walk
go round for minutes, and a post that is a FIFO blocks the build forever. This walk goes
first, never following a link it has not judged, over the folders that hold posts (the fixed
start of each ``blog_post_pattern``, ``posts/``), and names what must stay unread:

* a source (``.md``, ``.ipynb``, …) that is a link leading outside the repository, a loop of
  links, not a regular file (FIFO, device), or larger than ``kb_max_file_bytes``;
* a folder that is a link leading outside the repository, or to a folder that holds it.

Each is a problem at the file's line 1; the build leaves it out of what Sphinx finds
(:mod:`kb.core.finding`), ``kb check`` reports the same words. Pure: no Sphinx.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .bounded import DEFAULT_LIMIT, human
from .messages import say
from .model import Problem

GLOB = frozenset("*?[")


@dataclass
class Unsafe:
    """What the walk found: paths to leave unread (relative, with ``/``) and their problems."""

    left_out: list[str] = field(default_factory=list)
    problems: dict[str, list[Problem]] = field(default_factory=dict)

    def refuse(self, relpath: str, message: str, **values) -> None:
        self.left_out.append(relpath)
        self.problems.setdefault(relpath, []).append(Problem(1, say(message, **values), "file"))


def is_left_out(relpath: str, left_out: Iterable[str]) -> bool:
    """Whether ``relpath`` is a path the walk left unread, or lies in a folder it left."""
    return any(relpath == left or relpath.startswith(f"{left}/") for left in left_out)


def post_folders(patterns) -> list[str]:
    """The fixed start of each pattern: ``posts/**/*.md`` -> ``posts``; ``*.md`` -> ``""``."""
    patterns = [patterns] if isinstance(patterns, str) else list(patterns or ())
    folders = set()
    for pattern in patterns:
        parts = []
        for part in pattern.replace(os.sep, "/").split("/")[:-1]:
            if GLOB & set(part):
                break
            parts.append(part)
        folders.add("/".join(parts))
    return sorted(folders)


def excluded_by(patterns: list[str]) -> Callable[[str], bool]:
    """Whether Sphinx's ``exclude_patterns`` match a path, the patterns compiled on first use."""
    matchers: list[Callable[[str], object]] = []

    def excluded(relpath: str) -> bool:
        if not matchers:
            from sphinx.util.matching import compile_matchers  # Sphinx's own pattern rules

            matchers.extend(compile_matchers(patterns) or [lambda relpath: False])
        return any(match(relpath) for match in matchers)

    return excluded


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe), whose reading waits forever"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def unsafe_sources(
    root: str | os.PathLike,
    patterns,
    suffixes: tuple[str, ...],
    limit: int = DEFAULT_LIMIT,
    excluded: Callable[[str], bool] = lambda relpath: False,
) -> Unsafe:
    """Walk the post folders of the site in ``root``; see the module's docstring.
    ``excluded`` says which paths (relative, with ``/``) Sphinx never reads
    (``exclude_patterns``): nothing in them is refused. It is asked only about what would be
    refused, and about the folders above it (matching every path of a thousand posts against
    a site's patterns cost more than the walk)."""
    return UnsafeScan(root, patterns, suffixes, limit, excluded)()


@dataclass(frozen=True)
class UnsafeScan:
    """:func:`unsafe_sources` as a scan that can also be run again knowing what was saved since
    (``kb serve``'s standby: :func:`kb.core.finding.found_again`)."""

    root: str | os.PathLike
    patterns: object
    suffixes: tuple[str, ...]
    limit: int = DEFAULT_LIMIT
    excluded: Callable[[str], bool] = lambda relpath: False

    @property
    def folders(self) -> list[str]:
        """The folders whose files the walk looks at (and their folders, all the way down)."""
        return post_folders(self.patterns)

    def __call__(self) -> Unsafe:
        root = Path(os.path.realpath(self.root))
        found = Unsafe()
        seen: set[str] = set()
        pending: list[tuple[Path, str]] = []
        for name in self.folders:  # a folder's path relative to the root
            if name and os.path.islink(root / name):
                self._judge_link(root, root / name, name, found, pending)
            else:
                pending.append((root / name, name))
        while pending:
            folder, relative = pending.pop()
            real = os.path.realpath(folder)
            if real in seen or not os.path.isdir(folder):
                continue
            seen.add(real)
            self._walk_folder(root, folder, relative, found, pending)
        return self._without_excluded(found)

    def again(self, found: Unsafe, saved: Iterable[str]) -> Unsafe:
        """What a walk finds now, from what it ``found`` when, since, no file under
        :attr:`folders` came or went, none of them is a link to a folder, and only the files
        ``saved`` (relative paths, with ``/``) changed: each folder holding a saved file is
        walked again, on its own, and its entries judged again."""
        root = Path(os.path.realpath(self.root))
        # Any entry may be judged (a link of any name): the folder of each saved file.
        folders = {
            relpath.rpartition("/")[0]
            for relpath in saved
            if any(inside(relpath, folder) for folder in self.folders)
        }
        if not folders:
            return found
        # The folder's own entries are judged again (a file within a folder it holds stays).
        kept = [path for path in found.left_out if path.rpartition("/")[0] not in folders]
        now = Unsafe(kept, {path: list(found.problems[path]) for path in kept})
        pending: list[tuple[Path, str]] = []
        for relative in sorted(folders):
            self._walk_folder(root, root / relative, relative, now, pending)
        if any(os.path.islink(folder) for folder, _ in pending):
            return self()  # a folder became a link: the stamps did not see into it
        return self._without_excluded(now)

    def _walk_folder(
        self, root: Path, folder: Path, relative: str, found: Unsafe, pending: list
    ) -> None:
        """Judge the entries of one folder; the folders in it are left in ``pending``."""
        suffixes = self.suffixes
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            return
        stems: dict[str, str] = {}  # a page's name in this folder -> the file Sphinx reads
        for entry in entries:
            relpath = f"{relative}/{entry.name}" if relative else entry.name
            suffix = next((x for x in suffixes if entry.name.endswith(x)), None)
            if suffix is not None and not entry.is_dir(follow_symlinks=False):
                stem = entry.name[: -len(suffix)]
                if stem in stems:  # Sphinx reads the first name in sorted order, and warns
                    found.refuse(relpath, "same_page", other=stems[stem])
                    continue
                stems[stem] = relpath
            if entry.is_symlink():
                self._judge_link(root, Path(entry.path), relpath, found, pending)
            elif entry.is_dir(follow_symlinks=False):
                pending.append((Path(entry.path), relpath))
            elif entry.name.endswith(suffixes):
                _judge_file(entry.stat(follow_symlinks=False), relpath, self.limit, found)

    def _judge_link(self, root: Path, path: Path, relpath: str, found, pending) -> None:
        _judge_link(root, path, relpath, self.suffixes, self.limit, found, pending)

    def _without_excluded(self, found: Unsafe) -> Unsafe:
        excluded = self.excluded
        for relpath in list(found.left_out):
            parts = relpath.split("/")
            if any(excluded("/".join(parts[:n])) for n in range(1, len(parts) + 1)):
                found.left_out.remove(relpath)  # Sphinx never reads it anyway
                del found.problems[relpath]
        found.left_out.sort()
        return found


def inside(relpath: str, folder: str) -> bool:
    """Whether ``relpath`` is ``folder`` or lies in it (both relative, with ``/``; ``""`` the
    root)."""
    return not folder or relpath == folder or relpath.startswith(f"{folder}/")


def _judge_link(root: Path, path: Path, relpath: str, suffixes, limit, found, pending) -> None:
    try:
        target = Path(path).resolve(strict=True)
    except FileNotFoundError:
        return  # a broken link: Sphinx cannot read it and says so
    except (OSError, RuntimeError):  # a loop of links
        if path.name.endswith(suffixes):
            found.refuse(relpath, "source_link_loop")
        else:
            found.refuse(relpath, "folder_link_loop")
        return
    if target.is_dir():
        if not target.is_relative_to(root):
            found.refuse(relpath, "folder_link_out")
        elif path.parent.resolve().is_relative_to(target):
            found.refuse(relpath, "folder_link_loop")
        else:
            pending.append((path, relpath))
        return
    if not path.name.endswith(suffixes):
        return  # a data file or an image: judged where a post names it (kb.core.paths)
    if not target.is_relative_to(root):
        found.refuse(relpath, "source_link_out")
        return
    _judge_file(os.stat(path), relpath, limit, found)


def _judge_file(status: os.stat_result, relpath: str, limit: int, found: Unsafe) -> None:
    if not stat.S_ISREG(status.st_mode):
        found.refuse(relpath, "source_not_regular", what=_kind(status.st_mode))
    elif status.st_size > limit:
        found.refuse(relpath, "source_too_large", limit=human(limit))
