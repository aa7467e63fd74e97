"""The search bundle in the output folder: published whole, checked before it is reused.

Two rules make the bundle safe to read at any moment and safe to reuse after anything:

* **Never half-written.** A reader (a browser, ``kb serve``, the next build) sees the old
  bundle or the new one. Pagefind writes into a folder of its own in the doctree folder; a
  merge of shards writes files under names made from their bytes. Then the new files are put
  into the bundle beside the old ones (each renamed into place), ``pagefind-entry.json``
  last; the search page, which carries the entry, is filled; only then are the files the new
  bundle does not name removed (:func:`prune`). Until that moment the old entry and every
  file it names are still there.
* **Never trusted blindly.** What the bundle was made from is recorded with every file it
  holds and its size (:func:`write_state`), after the last file; the record is removed
  before the first file is touched (:func:`invalidate`). A build reuses the bundle only when
  the record says it was made from the same pages and the folder holds exactly the files of
  the record, each of its size (:func:`is_intact`): a bundle that a stopped build left, or
  whose files were deleted, emptied or cut short since, is made again.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

from ..core.fileio import crash_point, write_atomically

ENTRY = "pagefind-entry.json"
#: Pagefind's bundle: files at its top and in these folders, no deeper.
FOLDERS = ("", "index", "filter", "fragment")


def manifest(bundle: Path) -> dict[str, int]:
    """Every file of ``bundle`` (as ``folder/name``) and its size."""
    found: dict[str, int] = {}
    for folder in FOLDERS:
        path = os.path.join(bundle, folder) if folder else os.fspath(bundle)
        prefix = f"{folder}/" if folder else ""
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    if entry.is_file(follow_symlinks=False):
                        found[prefix + entry.name] = entry.stat().st_size
        except OSError:
            continue
    return found


def read_state(path: Path) -> tuple[str | None, dict]:
    """The fingerprint and the manifest of a state file; ``(None, {})`` when unreadable."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        fingerprint, files = state["fingerprint"], state["files"]
    except (OSError, ValueError, TypeError, KeyError):
        return None, {}
    if not isinstance(fingerprint, str) or not isinstance(files, dict):
        return None, {}
    return fingerprint, files


def write_state(path: Path, fingerprint: str, bundle: Path) -> None:
    """Record that ``bundle``, as it is now, was made from ``fingerprint``."""
    state = {"fingerprint": fingerprint, "files": manifest(bundle)}
    write_atomically(path, json.dumps(state, sort_keys=True))


def invalidate(path: Path) -> None:
    """Before the bundle's first file is touched: no record vouches for it any more."""
    path.unlink(missing_ok=True)


def is_intact(path: Path, fingerprint: str, bundle: Path) -> bool:
    """Whether ``bundle`` is the one recorded in ``path`` for ``fingerprint``, every file
    there and of its size, and no other file."""
    recorded, files = read_state(path)
    return recorded == fingerprint and bool(files) and manifest(bundle) == files


def link_into_place(source: str | Path, target: str | Path) -> None:
    """``target`` becomes the file ``source`` (a hard link, or a copy across file systems),
    replacing what was there in one rename."""
    try:
        if os.path.samefile(source, target):
            return
    except OSError:
        pass
    partial = f"{target}.{os.getpid()}.partial"
    try:
        os.link(source, partial)
    except FileExistsError:
        os.unlink(partial)
        os.link(source, partial)
    except OSError:  # another file system
        shutil.copyfile(source, partial)
    os.replace(partial, target)


def publish(staged: Path, bundle: Path) -> set[str]:
    """Put the files of the bundle in ``staged`` into ``bundle``, the entry last; the names of
    the new bundle's files (:func:`prune` removes the others once the search page is filled).
    """
    files = manifest(staged)
    for folder in FOLDERS[1:]:
        (bundle / folder).mkdir(parents=True, exist_ok=True)
    for name in sorted(files, key=lambda name: name == ENTRY):  # the entry last
        target = bundle / name
        try:
            same = target.stat().st_size == files[name] and _same_bytes(staged / name, target)
        except OSError:
            same = False
        if not same:
            crash_point("publish")
            link_into_place(staged / name, target)
    return set(files)


def _same_bytes(a: Path, b: Path) -> bool:
    return a.read_bytes() == b.read_bytes()


def prune(bundle: Path, keep: set[str]) -> None:
    """Remove every file of ``bundle`` but ``keep`` (leftovers of another bundle, files a
    stopped writer left)."""
    for name in manifest(bundle):
        if name not in keep:
            crash_point("prune")
            with contextlib.suppress(OSError):
                os.unlink(bundle / name)
