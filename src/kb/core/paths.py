"""Which files a post may name: the one rule for every directive, role and field that reads a
file into a page or publishes it.

A post names files in many places: ``{include}``, ``{literalinclude}`` (and its ``:diff:``),
``{benchmark}`` and its ``:metadata:``, ``{csv-table}`` and ``{raw}`` with ``:file:``,
images and figures, ``{download}`` and links to files, front matter ``og:image``. Each of them
would copy or quote whatever the path leads to. A file may be used only when

* it is inside the repository (the Sphinx source folder) once every ``..`` and symbolic link
  is followed: a link that leads out counts as out;
* no part of its path is hidden (``.git``, ``.venv``, ``.env``, …) or a ``__pycache__``;
* it is not in the build output (``_build``, or wherever this build writes);
* it is not the site's configuration (``conf.py``), whose settings may hold secrets;
* it has a type the place accepts (an image for images and ``og:image``, a CSV for data);
* it is a regular file (no FIFO, device or folder) no larger than ``kb_max_file_bytes``
  (:mod:`.bounded`, judged by ``os.stat`` alone, so nothing blocks or reads to find out).

:func:`refusal` says why a file is refused (or None), :func:`check` also reports it at the
post's line. Both decide before anything is read, so a refused file is neither read, nor
published, nor quoted in the log; the message shows only the path as the post wrote it. The
rule itself is pure (:mod:`kb.checks.namedfiles`), so that ``kb check`` judges a post's images
and raw HTML files by it too; this module adds what only a build knows: its output folders,
the files it generates, the document being read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from docutils.utils import DependencyList
from sphinx.util import logging

from ..checks import bounded
from ..checks.bounded import INSIDE as INSIDE  # the rule's words, for every place that refuses
from ..checks.bounded import Refusal as Refusal
from ..checks.namedfiles import IMAGE_SUFFIXES as IMAGE_SUFFIXES  # the rule's, for its places
from ..checks.namedfiles import message, missing, named, refusal
from ..checks.sanitize import shorten as shorten  # the rule's, for messages of its places
from .collectors import DocumentTables
from .state import env_state

logger = logging.getLogger(__name__)


OUTPUT_FOLDERS = "kb_output_folders"


def note_output_folders(app) -> None:
    """Remember where this build writes (``builder-inited``): directives and transforms see
    only the environment, which knows the doctree folder but not the output folder."""
    setattr(app.env, OUTPUT_FOLDERS, (str(app.outdir), str(app.doctreedir)))


GENERATED_FOLDERS = "kb_generated_folders"


def note_generated_folder(env, folder: str | os.PathLike) -> None:
    """Allow the files of ``folder``, in the build output, that this build makes from the
    sources before it reads them (MyST-NB writes a notebook's stored images there, and the
    notebook's page names them)."""
    folders = set(getattr(env, GENERATED_FOLDERS, ())) | {str(Path(folder).resolve())}
    setattr(env, GENERATED_FOLDERS, tuple(sorted(folders)))


def site_refusal(env, path: str | os.PathLike, **options) -> Refusal | None:
    """:func:`refusal` for this build: the source folder is the repository, and the build's
    output and doctree folders are never read, except the folders of generated files."""
    options.setdefault("limit", max_bytes(env))
    refused = bounded.outside(Path(env.srcdir, path), env.srcdir)
    if refused is not None and "loop" in refused.reason:
        return refused
    resolved = Path(env.srcdir, path).resolve()
    for folder in getattr(env, GENERATED_FOLDERS, ()):
        if resolved.is_relative_to(folder):
            path = resolved.relative_to(folder)  # its type is still checked
            return refusal(path, folder, **options)
    blocked = getattr(env, OUTPUT_FOLDERS, (str(env.doctreedir),))
    return refusal(path, env.srcdir, blocked=blocked, **options)


def max_bytes(env) -> int:
    """This build's ``kb_max_file_bytes``."""
    return getattr(env.config, "kb_max_file_bytes", bounded.DEFAULT_LIMIT)


def named_path(env, target: str, docname: str | None = None) -> Path:
    """Where Sphinx looks for a file that ``docname`` names (``/x``: from the source folder),
    as an absolute path before any symbolic link is followed (``env.relfn2path`` follows
    them, and then cannot tell a link that leads out from a path that does)."""
    if target.startswith(("/", os.sep)):
        return named(env.srcdir, "", target)
    return named(env.srcdir, env.doc2path(docname or env.docname, base=False), target)


def warn(
    label: str, shown: str, refused: Refusal, location, option: str = "", reading=None
) -> None:
    """Report a refused path at ``location`` (a node, ``(docname, line)`` or ``"path:line"``).

    ``reading``: the environment, when the refusal is found while a document is read; that
    document is then read again on every build (:func:`read_again`), so that the warning,
    and the failing ``-W`` build, stay until the post is fixed.
    """
    text = message(label, shown, refused, option)
    logger.warning(text, location=location, type="kb", subtype="path")
    if reading is not None:
        read_again(reading)


def check(
    env,
    label: str,
    shown: str,
    path: str | os.PathLike,
    location,
    option: str = "",
    must_exist: bool = False,
    **options,
) -> bool:
    """True when ``path``, named by the document being read, may be used; otherwise report
    why at ``location`` and return False. ``must_exist``: a path that names nothing is
    refused too (:data:`NOT_A_FILE`), for places whose reader would not say so in kb's words
    (an image: Sphinx's "image file not readable")."""
    refused = site_refusal(env, path, **options)
    if refused is None and must_exist:
        refused = missing(path)
    if refused is not None:
        warn(label, shown, refused, location, option, reading=env)
    return refused is None


# -- Documents with a refusal are read again on every build ----------------------------------


def read_again(env) -> None:
    """Read the document being read again on every build, until it refuses nothing."""
    env_state(env).read_again.add(env.docname)


def setup_read_again(app) -> None:
    """Sphinx reads a document again only when it changes, and only a read reports its
    warnings: without this, the second build after a refusal would pass with no warning."""
    app.add_env_collector(ReadAgainCollector)


class ReadAgainCollector(DocumentTables):
    """The documents to read again (:func:`read_again`): forgotten with a document, merged
    from a parallel reader, and handed to Sphinx as outdated."""

    purged = ("read_again",)

    def get_outdated_docs(self, app, env, added, changed, removed) -> list[str]:
        return sorted(env_state(env).read_again - set(removed))


# -- Markdown's {include}: judged before MyST reads the file ---------------------------------


class GuardedDependencies(DependencyList):
    """The document's ``record_dependencies`` (a docutils setting), judging each file as it
    is added. MyST's ``{include}`` (``myst_parser.mocking.MockIncludeDirective``, in MyST
    and MyST-NB alike) adds the file it names just before it reads it, so a refused file, a
    FIFO, ``/dev/zero``, a file over ``kb_max_file_bytes`` or a file already being included
    (a self-include, a cycle) is never read: the directive ends with nothing.

    docutils' rST ``include`` adds its file after reading it: its directive
    (:class:`kb.markup.files.CheckedInclude`) asks :meth:`before_read` first. Other readers
    (``:file:``) are judged before by their own directives, and pass here after.
    """

    def __init__(self, env, document, recorded: list) -> None:
        super().__init__()
        self.list = list(recorded)
        self.env, self.document = env, document
        self.parents: dict[Path, Path] = {}  # included file -> the file that includes it
        self.judged: set[Path] = set()  # judged by their directive before it read them

    def add(self, *paths: str | os.PathLike) -> None:
        # docutils' directives name their file relative to the working directory (its
        # utils.relative_path(None, ...)), not to the source folder: judged as the file it is.
        paths = tuple(os.path.abspath(path) for path in paths)
        for path in paths:
            if Path(path).resolve() in self.judged:
                self.judged.discard(Path(path).resolve())  # judged by its directive, before
                continue
            document = self.document
            source = Path(document.get("source") or self.env.doc2path(self.env.docname))
            line = document.current_line
            argument = _include_argument(source, line)
            location = f"{source}:{line}" if line else (self.env.docname, None)
            if argument is None:
                # No {include} at that line: a file docutils has read already (`:file:`, judged
                # by its directive before), or an {include} in a notebook's cell, judged here.
                refused = site_refusal(self.env, path)
                shown = os.path.relpath(path, source.parent)
                if refused is not None:
                    warn("include", shown, refused, location, reading=self.env)
                    from docutils.parsers.rst import DirectiveError

                    raise DirectiveError(1, "refused by kb")
                continue
            # Judged as written: MyST's path has its links followed.
            refused = site_refusal(self.env, named_path(self.env, argument))
            if not self.judge(Path(path), source, argument, location, refused):
                from docutils.parsers.rst import DirectiveError

                # MyST turns this into a message node of level 1 (info), which Sphinx drops:
                # the warning is kb's own.
                raise DirectiveError(1, "refused by kb")
        super().add(*paths)

    def before_read(self, path: Path, source: Path, shown: str, location) -> bool:
        """For a directive that adds its file only after reading it (docutils' ``include``):
        judge it now, as :meth:`add` would; False (reported) when it may not be read."""
        if not self.judge(path, source, shown, location):
            return False
        self.judged.add(path.resolve())
        return True

    def judge(self, path: Path, source: Path, shown: str, location, refused=None) -> bool:
        """Whether ``source`` may include ``path``; reported at ``location`` when not."""
        refused = refused or site_refusal(self.env, path)
        chain = self._chain(source)
        if refused is None and path.resolve() in [p.resolve() for p in chain]:
            files = [self._shown(p) for p in (*reversed(chain), path)]
            refused = Refusal(
                f"includes a file that is already being included ({' → '.join(files)})",
                "remove the {include} that closes the circle",
            )
        if refused is not None:
            warn("include", shown, refused, location, reading=self.env)
            return False
        self.parents[path.resolve()] = source
        return True

    def _chain(self, source: Path) -> list[Path]:
        """``source`` and the files that include it, up to the document."""
        chain, seen = [source], {source.resolve()}
        while (parent := self.parents.get(chain[-1].resolve())) is not None:
            if parent.resolve() in seen:
                break
            chain.append(parent)
            seen.add(parent.resolve())
        return chain

    def _shown(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(Path(self.env.srcdir).resolve()).as_posix()
        except ValueError:
            return path.as_posix()


_INCLUDE = re.compile(r"^\s*(?:`{3,}|~{3,}|:{3,})\s*\{include\}\s*(?P<target>\S.*?)\s*$")


def _include_argument(source: Path, line: int | None) -> str | None:
    """The path as the ``{include}`` at ``line`` of ``source`` wrote it, if it is there."""
    if not line:
        return None
    try:
        lines = bounded.read_bounded(source).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    found = _INCLUDE.match(lines[line - 1]) if line <= len(lines) else None
    return found["target"] if found else None


def guard_includes(document) -> None:
    """Judge every file MyST's ``{include}`` reads into ``document`` before it reads it;
    call when the document's parse starts."""
    settings = document.settings
    current = settings.record_dependencies
    if getattr(settings, "env", None) is None:
        return
    # A guard left by another document or build (docutils settings can outlive them) would
    # judge against that build's repository: only this document's own guard is kept.
    if isinstance(current, GuardedDependencies) and (
        current.env is settings.env and current.document is document
    ):
        return
    recorded = getattr(current, "list", [])
    settings.record_dependencies = GuardedDependencies(settings.env, document, recorded)
