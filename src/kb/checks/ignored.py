"""Sources the build would leave unread without a word: a page outside ``include_patterns``.

Sphinx reads only what ``include_patterns`` names (the home page, ``posts/``, ``pages/``), and
quietly skips every other Markdown or notebook file: a page written at the root or in a folder
of its own would never be published, and nobody would be told. This walk names each such file,
so the build and ``kb check`` can say so. A file is left alone when it is excluded on purpose:
matched by ``exclude_patterns`` (the README, ``src``, ``tests``, ``docs``…), inside a hidden
folder, or itself hidden. Links are not followed (a link to a folder above would go round).
Pure: the caller passes how its patterns match (``is_included``, ``is_excluded``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable


def ignored_sources(
    root: str | os.PathLike,
    suffixes: Iterable[str],
    is_included: Callable[[str], bool],
    is_excluded: Callable[[str], bool],
) -> list[str]:
    """Every source file under ``root`` (paths relative to it, with ``/``) whose suffix is in
    ``suffixes`` that is neither included nor excluded on purpose, sorted."""
    suffixes = tuple(suffixes)
    found = []
    root = os.fspath(root)
    for folder, subfolders, files in os.walk(root):
        relfolder = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if relfolder == "." else relfolder + "/"
        subfolders[:] = sorted(
            name
            for name in subfolders
            if not name.startswith(".")
            and not is_excluded(prefix + name)
            and not _all_included(prefix + name, suffixes, is_included)
        )
        for name in sorted(files):
            relpath = prefix + name
            if name.startswith(".") or not name.endswith(suffixes):
                continue
            if not is_included(relpath) and not is_excluded(relpath):
                found.append(relpath)
    return sorted(found)


#: A name no real file has: a folder whose every source is included ("posts/**") matches any
#: file and folder name, this one too, and is not walked (10,000 posts cost 60 ms more).
_ANY = "\0"


def _all_included(folder: str, suffixes: tuple[str, ...], is_included) -> bool:
    probes = [f"{folder}/{_ANY}{suffix}" for suffix in suffixes]
    probes += [f"{folder}/{_ANY}/{_ANY}{suffix}" for suffix in suffixes]
    return bool(suffixes) and all(is_included(probe) for probe in probes)
