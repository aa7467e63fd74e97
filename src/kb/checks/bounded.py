"""Bounded reads: the one way kb reads a file that a post, a notebook or ``kb import`` names.

A file may be read only when it is a regular file (never a FIFO, which blocks the reader
forever, a device such as ``/dev/zero``, which never ends, a socket or a folder), inside the
repository once every symbolic link is followed (when a repository is given), and no larger
than the limit (``kb_max_file_bytes``). The limit is applied while reading: at most
``limit + 1`` bytes are ever read, so a file that grows while it is read is refused too.

:func:`refusal` judges a path without opening it (``os.stat`` only: opening a FIFO blocks and
opening some devices has effects), for readers that are other people's code (MyST's
``{include}``, Sphinx's ``{literalinclude}``, docutils' ``:file:``): they read only what it
passed. :func:`read_bounded` judges and reads, for kb's own reads; ``kb import`` reads its
input with it too. Nothing of Sphinx here: ``kb check`` and the importer use it.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: The default of ``kb_max_file_bytes``: a notebook with many stored figures is a few MB, a
#: benchmark's CSV a few hundred KB; 32 MiB leaves room and keeps a build's memory bounded.
DEFAULT_LIMIT = 32 * 1024 * 1024
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Refusal:
    """Why a file may not be used, and what to write instead."""

    reason: str
    advice: str


class ReadRefused(OSError):
    """A file :func:`read_bounded` will not read; ``refusal`` says why and what to do."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(f"{refusal.reason}; {refusal.advice}")
        self.refusal = refusal


INSIDE = "put the file in the repository, next to the post, and give its path relative to the post"
REGULAR = "name an ordinary file instead"


def human(size: int) -> str:
    """``33554432`` -> ``"32 MiB"``, ``1500`` -> ``"1500 bytes"``."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} bytes"


def too_large(limit: int) -> Refusal:
    return Refusal(
        f"is larger than kb_max_file_bytes ({human(limit)})",
        "make the file smaller, or raise kb_max_file_bytes in conf.py",
    )


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe), whose reading would wait forever"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, whose reading may never end"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not an ordinary file"


def outside(path: str | os.PathLike, root: str | os.PathLike) -> Refusal | None:
    """Whether ``path`` leaves ``root`` once ``..`` and every symbolic link are followed;
    a loop of links counts as leaving (it leads nowhere)."""
    root = Path(os.path.realpath(root))
    lexical = Path(os.path.normpath(Path(root, path)))
    try:
        resolved = Path(root, path).resolve(strict=False)
    except (RuntimeError, OSError):  # a loop of links (Python < 3.13 raises RuntimeError)
        return Refusal("is a symbolic link that leads to itself (a loop)", INSIDE)
    if resolved.is_relative_to(root):
        return None
    if lexical.is_relative_to(root):
        return Refusal("leads outside the repository through a symbolic link", INSIDE)
    return Refusal("is outside the repository", INSIDE)


def refusal(
    path: str | os.PathLike, limit: int, root: str | os.PathLike | None = None
) -> Refusal | None:
    """Why ``path`` may not be read (None when it may): judged by ``os.stat`` alone, before
    anything opens it. A path that does not exist is left to the reader to report."""
    if root is not None:
        refused = outside(path, root)
        if refused is not None:
            return refused
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            return Refusal("is a symbolic link that leads to itself (a loop)", INSIDE)
        return None  # the reader reports it as it always has
    if not stat.S_ISREG(status.st_mode):
        return Refusal(f"is {_kind(status.st_mode)}", REGULAR)
    if status.st_size > limit:
        return too_large(limit)
    return None


def read_bounded(
    path: str | os.PathLike, limit: int = DEFAULT_LIMIT, root: str | os.PathLike | None = None
) -> bytes:
    """The bytes of ``path``, read only if it is a regular file (inside ``root``, when
    given) of at most ``limit`` bytes; :class:`ReadRefused` otherwise. At most ``limit + 1``
    bytes are read, whatever the file claims its size is."""
    refused = refusal(path, limit, root)
    if refused is not None:
        raise ReadRefused(refused)
    # O_NONBLOCK: should the file have become a FIFO since it was judged, opening it does not
    # wait for a writer; fstat then refuses it.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise ReadRefused(Refusal(f"is {_kind(mode)}", REGULAR))
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(descriptor, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(descriptor)
    if size > limit:
        raise ReadRefused(too_large(limit))
    return b"".join(chunks)


def read_text_bounded(
    path: str | os.PathLike,
    limit: int = DEFAULT_LIMIT,
    root: str | os.PathLike | None = None,
    encoding: str = "utf-8",
) -> str:
    """:func:`read_bounded`, decoded (``UnicodeDecodeError`` as ``bytes.decode`` raises it)."""
    return read_bounded(path, limit, root).decode(encoding)
