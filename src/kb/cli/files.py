"""What ``kb new`` shares between posts and pages: the file name a title makes, the values
it refuses, and a new file written without ever replacing anything (a file, a folder, a link).
"""

from __future__ import annotations

import errno
import os
import re
import unicodedata
from pathlib import Path

from ..site import Site

OK, PROBLEMS, USAGE = 0, 1, 2


class Refusal(Exception):
    """A request ``kb`` will not carry out; the message says why and what to do."""


#: The longest slug kb new makes from a title: a file name stops at 255 bytes, and a URL
#: reads better short. A longer one is cut at a hyphen.
MAX_SLUG = 80


def slug_for(title: str) -> str:
    """The file name for a title: ``"FP8 on Hopper: Part 2"`` -> ``fp8-on-hopper-part-2``."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")
    if len(slug) > MAX_SLUG:
        cut = slug[: MAX_SLUG + 1]
        slug = cut[: cut.rfind("-")] if "-" in cut else cut[:MAX_SLUG]
    return slug.strip("-")


def one_line(label: str, text: str | None) -> None:
    """Refuse a value with a line break or another control character: it would end up in
    the front matter as a line of its own (a title with a newline writes `---` into the body)."""
    for char in text or "":
        if char in "\n\r\x85\u2028\u2029":
            raise Refusal(f"{label} contains a line break: write it on one line")
        if unicodedata.category(char) == "Cc":
            raise Refusal(
                f"{label} contains the control character U+{ord(char):04X}: remove it "
                "(a tab too: use spaces)"
            )


def refuse_what_is_there(site: Site, path: Path) -> None:
    """Refuse a target that exists in any form: a file, a folder, or a link (even a broken
    one, which open() would follow and write through)."""
    relpath = site_relpath(site, path)
    if path.is_symlink():
        target = os.readlink(path)
        state = "a symbolic link" if path.exists() else "a broken symbolic link"
        raise Refusal(
            f"{relpath} is {state} (to {target}); kb new never writes through a link: "
            "remove the link, or choose another title"
        )
    if path.exists():
        raise Refusal(
            f"{relpath} already exists and kb new never overwrites: edit that file, "
            "or choose another title"
        )
    for folder in (path.parent, path.parent.parent):
        if folder.is_symlink() and not folder.exists():
            raise Refusal(
                f"{site_relpath(site, folder)} is a broken symbolic link "
                f"(to {os.readlink(folder)}): kb new writes posts into posts/<year>/; "
                "remove the link, or make it a folder"
            )
        if folder.exists() and not folder.is_dir():
            raise Refusal(
                f"{site_relpath(site, folder)} is a file, not a folder: kb new writes posts into "
                "posts/<year>/; move that file away"
            )


def site_relpath(site: Site, path: Path) -> str:
    """``path`` from the site root, its last part as it is (a link is not followed)."""
    folder = site.relpath(path.parent)
    return path.name if folder == "." else f"{folder}/{path.name}"


def write_new(site: Site, path: Path, text: str) -> None:
    """Write a new file, never replacing anything, or refuse with the system's reason."""
    relpath = site_relpath(site, path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL: fails if anything is there, a link included, rather than overwrite.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(path, flags, 0o666)
    except FileExistsError as error:
        refuse_what_is_there(site, path)  # says what it is
        raise Refusal(f"{relpath} appeared meanwhile; kb new never overwrites") from error
    except OSError as error:
        raise Refusal(write_refusal(site, path, error)) from error
    try:
        with open(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as error:
        path.unlink(missing_ok=True)  # the file kb new just made, never an author's
        raise Refusal(write_refusal(site, path, error)) from error


def write_refusal(site: Site, path: Path, error: OSError) -> str:
    relpath = site_relpath(site, path)
    folder = site_relpath(site, path.parent)
    reason = error.strerror or str(error)
    if isinstance(error, PermissionError):
        return f"cannot write {relpath}: {reason}; make {folder} writable, or write elsewhere"
    if error.errno == errno.ENAMETOOLONG:
        return f"cannot write {relpath}: the file name is too long; choose a shorter title"
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        return f"cannot write {relpath}: a part of {folder} is a file, not a folder; move it away"
    return f"cannot write {relpath}: {reason}"


def shown(path: Path) -> str:
    """A path as the user can click it: relative to where kb runs, when it is below it."""
    path = path.parent.resolve() / path.name  # a post that is a link is named as the link
    relative = os.path.relpath(path, Path.cwd())
    return str(path) if relative.startswith("..") else relative
