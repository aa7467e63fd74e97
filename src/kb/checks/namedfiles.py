"""Which files a post may name: the rule itself, pure, for ``kb check`` and the build alike.

A file may be used only when

* it is inside the repository (the Sphinx source folder) once every ``..`` and symbolic link
  is followed: a link that leads out counts as out;
* no part of its path is hidden (``.git``, ``.venv``, ``.env``, …) or a ``__pycache__``;
* it is not in the build output (``_build``, or wherever this build writes);
* it is not the site's configuration (``conf.py``), whose settings may hold secrets;
* it has a type the place accepts (an image for images and ``og:image``, a CSV for data);
* it is a regular file (no FIFO, device or folder) no larger than ``kb_max_file_bytes``
  (:mod:`.bounded`, judged by ``os.stat`` alone, so nothing blocks or reads to find out);
* it is there, where it must be (an image, a file that raw HTML shows).

:func:`refusal` says why a file is refused (or None) and :func:`message` words it; the build
reports it through :mod:`kb.core.paths`, which adds what only a build knows (its output
folder, the files it generates). :class:`NamedFiles` judges the images and the files of raw
HTML that one source names, for ``kb check``: the same rule, at the lines the build reports.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TypedDict
from urllib.parse import unquote, urlsplit

from . import bounded
from .bounded import Refusal
from .messages import say
from .model import Problem
from .sanitize import host_of, local_files, shorten

#: What a browser shows as an image (and what link previews accept).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".avif")


class FileRules(TypedDict, total=False):
    """The options of :func:`refusal` that say what a place may show."""

    suffixes: tuple[str, ...]
    kind: str


#: The options of :func:`refusal` for a place that shows an image.
IMAGE: FileRules = {"suffixes": IMAGE_SUFFIXES, "kind": "an image"}
#: The site's own machinery: never shown, whatever the place.
CONFIG_FILES = ("conf.py",)
#: Never published, whatever the place: Python's caches of compiled code.
COMPILED = (".pyc", ".pyo")
BUILD_FOLDER = "_build"
GLOB_CHARACTERS = frozenset("*?[")

NOT_A_FILE = Refusal(
    "is not a file of the repository", "put the file next to the post, or correct the path"
)
WILDCARDS = Refusal("has wildcards", "name one file, or end the name with .* to let Sphinx pick")


def refusal(
    path: str | os.PathLike,
    root: str | os.PathLike,
    *,
    blocked: tuple[str | os.PathLike, ...] = (),
    suffixes: tuple[str, ...] | None = None,
    kind: str = "",
    limit: int | None = None,
) -> Refusal | None:
    """Why ``path`` (absolute, or relative to ``root``) may not be used; None when it may.

    ``root`` is the repository; ``blocked`` are folders whose files are never used (the build
    output); ``suffixes`` the file types the place accepts (None: any type), named ``kind``
    in the message ("an image"); ``limit`` the largest size in bytes (None: no limit). A path
    that names nothing is not refused here: :func:`missing` says so where a file must be.
    """
    root = Path(root).resolve()
    lexical = Path(os.path.normpath(Path(root, path)))
    leaves = bounded.outside(path, root)
    if leaves is not None:
        return leaves
    resolved = Path(root, path).resolve()
    for candidate in (lexical, resolved):
        if not candidate.is_relative_to(root):
            continue  # a symbolic link from outside into the repository: judge where it leads
        parts = candidate.relative_to(root).parts
        hidden = next((part for part in parts if part.startswith(".") or part == "__pycache__"), "")
        if hidden:
            where = "the hidden file" if hidden == parts[-1] else "inside the hidden folder"
            return Refusal(
                f"is {where} {hidden}, which is never published",
                "name a file of the site (posts/…, _static/…) instead",
            )
        if parts and parts[0] == BUILD_FOLDER:
            return Refusal(
                f"is inside the build output ({BUILD_FOLDER}/)",
                "name the source file that the build copies there instead",
            )
        if candidate.name in CONFIG_FILES:
            return Refusal(
                f"is the site's configuration ({candidate.name}), which may hold secrets and "
                "is never published",
                "copy what the post needs into a file next to the post",
            )
        if candidate.suffix.lower() in COMPILED:
            return Refusal(
                f"is compiled Python ({candidate.name}), which is never published",
                "name the .py source instead",
            )
    for folder in blocked:
        folder = Path(folder).resolve()
        if resolved.is_relative_to(folder) and folder.is_relative_to(root):
            return Refusal(
                f"is inside the build output ({folder.relative_to(root).as_posix()}/)",
                "name the source file that the build copies there instead",
            )
    if suffixes is not None and resolved.suffix.lower() not in suffixes:
        names = [suffix.lstrip(".") for suffix in suffixes]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
        return Refusal(f"is not {kind}", f"give a {listed} file next to the post")
    if limit is not None:
        return bounded.refusal(resolved, limit)
    return None


def missing(path: str | os.PathLike) -> Refusal | None:
    """:data:`NOT_A_FILE` when ``path`` names nothing (no file there, or a broken link)."""
    return None if os.path.exists(path) else NOT_A_FILE


def message(label: str, shown: str, refused: Refusal, option: str = "") -> str:
    """``include: '../../x' is outside the repository; put the file …``: ``label`` names the
    place, ``option`` the directive's option if the path is in one (``:metadata:``), ``shown``
    is the path as the post wrote it."""
    place = f"{label}: {option}" if option else f"{label}:"
    return say(
        "path_refused",
        place=place,
        path=repr(shorten(shown)),
        reason=refused.reason,
        advice=refused.advice,
    )


def has_glob(path: str) -> bool:
    """Whether a path has wildcards (``*``, ``?``, ``[``) beyond Sphinx's ``image.*``."""
    return bool(GLOB_CHARACTERS & set(path.removesuffix(".*")))


def is_remote(uri: str) -> bool:
    """An image from another host or a ``data:`` URL: no file of the repository."""
    return "://" in uri or uri.startswith("data:") or bool(host_of(uri))


def image_files(uri: str, path_of: Callable[[str], Path]) -> tuple[Refusal | None, list[Path]]:
    """The files an image's ``uri`` may show, each to be judged and to be there
    (``path_of`` gives the path of a target as the post names it), or the refusal of the
    ``uri`` itself (wildcards). ``x.*`` lets Sphinx pick among ``x.png``, ``x.svg``, …: every
    one that is there is judged, and ``x.png`` stands for them when none is."""
    if has_glob(uri):
        return WILDCARDS, []
    if not uri.endswith(".*"):
        return None, [path_of(uri)]
    stem = uri.removesuffix(".*")
    candidates = [path_of(stem + suffix) for suffix in IMAGE_SUFFIXES]
    return None, [path for path in candidates if os.path.lexists(path)] or candidates[:1]


def html_file(tag: str, attribute: str, url: str) -> tuple[str, str, FileRules]:
    """How a file that raw HTML shows is judged: the label of the message, the path as the
    post wrote it ("" for none) and the options of :func:`refusal` (an image for ``<img>``
    and a ``poster``)."""
    shown = unquote(urlsplit(url).path)
    picture = tag == "img" or attribute == "poster"
    return ("image" if picture else tag), shown, (IMAGE if picture else {})


def named(root: str | os.PathLike, source: str | os.PathLike, target: str) -> Path:
    """Where Sphinx looks for a file that ``source`` (relative to ``root``) names (``/x``:
    from ``root``), before any symbolic link is followed."""
    if target.startswith(("/", os.sep)):
        return Path(root, target.lstrip("/" + os.sep))
    return Path(root, PurePosixPath(Path(source).as_posix()).parent, target)


# -- kb check: the images and raw HTML files of one source -----------------------------------


@dataclass
class NamedFiles:
    """The files one source (``relpath``, in the site ``root``) names, judged as the build
    judges them (:mod:`kb.core.paths`): each refusal a problem at the line the build warns."""

    root: Path
    relpath: str
    limit: int = bounded.DEFAULT_LIMIT
    problems: list[Problem] = field(default_factory=list)
    #: Files not there yet that a command will write with the source (``kb import`` copies a
    #: post's images beside it): judged by every rule but being there.
    arriving: frozenset[Path] = frozenset()

    def judge(self, label: str, shown: str, path: Path, line: int, **rules) -> bool:
        """Judge ``path``, which must be there; True when it may be used, else a problem at
        ``line``."""
        refused = refusal(path, self.root, limit=self.limit, **rules)
        if refused is None and Path(os.path.normpath(path)) not in self.arriving:
            refused = missing(path)
        if refused is not None:
            self.problems.append(Problem(line, message(label, shown, refused), "body"))
        return refused is None

    def image(self, uri: str, line: int) -> None:
        """A Markdown image, an ``{image}`` or ``{figure}``, an rst ``image`` or ``figure``."""
        if is_remote(uri):
            return  # reported as an image from another host (kb.checks.rawhtml)
        refused, files = image_files(uri, lambda target: named(self.root, self.relpath, target))
        if refused is not None:
            self.problems.append(Problem(line, message("image", uri, refused), "body"))
        for path in files:
            if not self.judge("image", uri, path, line, **IMAGE):
                break

    def html(self, html: str, line: int) -> None:
        """The files raw HTML shows (``html`` as the sanitizer leaves it), which starts at
        ``line``: as :mod:`kb.markup.rawhtml` judges them, each URL once if it passes."""
        passed = set()
        for tag, attribute, url, at in local_files(html):
            label, shown, rules = html_file(tag, attribute, url)
            if shown and url not in passed:
                path = named(self.root, self.relpath, shown)
                if self.judge(label, shown, path, line + at - 1, **rules):
                    passed.add(url)

    def rst(self, text: str, offset: int = 0) -> None:
        """The images and figures of reStructuredText (an rst post, an ``{eval-rst}`` block
        whose first line is ``offset + 1``), outside literal blocks."""
        literal = None  # the indent of the line that opened a literal block, if in one
        for number, line in enumerate(text.split("\n"), start=offset + 1):
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            if literal is not None and indent > literal:
                continue
            literal = None
            found = _RST_IMAGE.match(line)
            if found:
                self.image("".join(found["uri"].split()), number)
            elif _RST_LITERAL.match(line) or (
                line.rstrip().endswith("::") and not _RST_DIRECTIVE.match(line)
            ):
                literal = indent


_RST_IMAGE = re.compile(r"^\s*\.\.\s+(?:\|[^|]+\|\s+)?(?:image|figure)::\s*(?P<uri>\S.*?)\s*$")
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:\|[^|]+\|\s+)?[\w:-]+::")
_RST_LITERAL = re.compile(r"^\s*\.\.\s+(?:code|code-block|sourcecode|raw|math)::")
