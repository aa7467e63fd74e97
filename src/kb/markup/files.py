"""Every file a post names is checked by :mod:`kb.core.paths` before it is read or published.

Each place that reads a file is checked where it can be, through public Sphinx API:

* ``{literalinclude}`` (and ``:diff:``), ``{csv-table}`` and ``{raw}`` (``:file:``; ``:url:``
  is refused: it reads another host at build time) are our subclasses of Sphinx's and
  docutils' directives, registered with ``add_directive(..., override=True)``: the path is
  checked, then the original ``run()`` reads it. rST's ``include`` (in ``{eval-rst}``) too.
* ``{include}`` in Markdown (and in notebooks) is MyST's own code. It names the file in the
  document's ``record_dependencies`` (a docutils setting) just before it reads it, and kb's
  parser puts :class:`kb.core.paths.GuardedDependencies` there: the file is judged at that
  moment, at the directive's line, and a refused one is never read (a FIFO, ``/dev/zero``, a
  file over ``kb_max_file_bytes``, a file already being included: a self-include or a cycle,
  named with its chain of files). The ``include-read`` event, after the read, drops a refused
  file's text too, should another parser read one.
* Images, figures, ``{download}`` and links to files are nodes that Sphinx's collectors copy
  to ``_images/`` and ``_downloads/`` when the page is read; a transform runs before them and
  removes a refused image, a missing one too, in the words ``kb check`` prints for it (a
  refused download keeps its text, without the link).
* ``{benchmark}`` (kb.benchmark) and ``og:image`` (kb.meta.previews) call the rule themselves.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import cast

from docutils import nodes
from docutils.parsers.rst.directives.misc import Raw
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.directives.code import LiteralInclude
from sphinx.directives.other import Include
from sphinx.directives.patches import CSVTable
from sphinx.transforms import SphinxTransform

from ..checks.namedfiles import IMAGE, FileRules, image_files, is_remote
from ..core import paths

URL_REFUSED = paths.Refusal(
    "reads a file from another host at build time",
    "copy the file into the repository, next to the post, and use :file: instead",
)


def docutils_relative(directive, target: str) -> Path:
    """Where docutils' ``:file:`` options look for ``target``: beside the current source."""
    source = (
        directive.state.document.current_source
        or directive.state_machine.get_source_and_line(directive.lineno)[0]
    )
    return Path(os.path.dirname(os.path.abspath(source)), target)


class CheckedLiteralInclude(LiteralInclude):
    def run(self) -> list[nodes.Node]:
        targets = [("", self.arguments[0])]
        if "diff" in self.options:
            targets.append((":diff:", self.options["diff"]))
        for option, target in targets:
            path = paths.named_path(self.env, target)
            location = self.get_location()
            if not paths.check(self.env, self.name, target, path, location, option):
                return []
        return super().run()


def _where(directive) -> tuple[object, str]:
    """The environment and ``source:line`` of a docutils directive (not a SphinxDirective)."""
    source, line = directive.state_machine.get_source_and_line(directive.lineno)
    return directive.state.document.settings.env, f"{source}:{line}"


class CheckedCSVTable(CSVTable):
    def run(self) -> list[nodes.Node]:
        env, location = _where(self)
        if "url" in self.options:
            paths.warn(self.name, self.options["url"], URL_REFUSED, location, ":url:", env)
            return []
        if "file" in self.options:
            target = self.options["file"]
            if target.startswith(("/", os.sep)) and not Path(target).exists():
                path = paths.named_path(env, target)  # Sphinx reads /x from the source folder
            else:
                path = docutils_relative(self, target)
            table: FileRules = {"suffixes": (".csv", ".tsv", ".txt"), "kind": "a table of values"}
            if not paths.check(env, self.name, target, path, location, ":file:", **table):
                return []
        return super().run()


class CheckedRaw(Raw):
    """``{raw}``: ``:file:`` checked like every other file; the HTML it holds is then checked
    like any raw HTML of a post (kb.markup.rawhtml)."""

    def run(self) -> list[nodes.Node]:
        env, location = _where(self)
        if "url" in self.options:
            paths.warn(self.name, self.options["url"], URL_REFUSED, location, ":url:", env)
            return []
        if "file" in self.options:
            target = self.options["file"]
            path = docutils_relative(self, target)
            if not paths.check(env, self.name, target, path, location, ":file:"):
                return []
        return super().run()


class CheckedInclude(Include):
    """rST's ``include`` (in ``{eval-rst}`` blocks); Markdown's is checked at include-read."""

    def run(self):
        target = self.arguments[0]
        if target.startswith("<") and target.endswith(">"):
            refused = paths.Refusal("is outside the repository", paths.INSIDE)
            paths.warn(self.name, target, refused, self.get_location(), reading=self.env)
            return []
        location = self.get_location()
        if not paths.check(
            self.env, self.name, target, paths.named_path(self.env, target), location
        ):
            return []
        guard = self.state.document.settings.record_dependencies
        if isinstance(guard, paths.GuardedDependencies):  # a self-include, a cycle
            source = Path(self.state_machine.get_source_and_line(self.lineno)[0])
            read = paths.named_path(self.env, target)
            if not target.startswith(("/", os.sep)):
                read = docutils_relative(self, target)  # beside the file being read, as docutils
            if not guard.before_read(read, source, target, location):
                return []
        return super().run()


# -- Markdown's {include}: at include-read ----------------------------------------------------

INCLUDE_LINE = re.compile(
    r"^\s*(?:(?:`{3,}|~{3,}|:{3,})\s*\{include\}|\.\.\s+include::)\s*(?P<target>\S.*?)\s*$"
)
INCLUDED = "kb_included"  # in env.current_document: files this document included so far
REPORTED = "kb_refused_includes"  # and the include lines already reported


def _include_read(app: Sphinx, relative_path, parent_docname: str, content: list[str]) -> None:
    env = app.env
    docname = env.docname  # MyST passes the file's stem, not the docname
    path = Path(env.srcdir, relative_path)
    refused = paths.site_refusal(env, path)
    if refused is None:
        # Sphinx types what setdefault returns as Optional; here it is the list.
        cast("list[Path]", env.current_document.setdefault(INCLUDED, [])).append(path)
        return
    content[0] = ""
    target, location = _include_directive(env, docname, path)
    paths.warn("include", target, refused, location, reading=env)


def _include_directive(env, docname: str, path: Path) -> tuple[str, object]:
    """The argument and location of the ``{include}`` that names ``path``: MyST does not
    pass them on, so look for it in the post and in the files it has included so far (the
    next such line each time, when two include the same file)."""
    wanted = path.resolve()
    sources = [env.doc2path(docname), *env.current_document.get(INCLUDED, [])]
    reported = env.current_document.setdefault(REPORTED, set())
    for source in sources:
        try:
            lines = Path(source).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(lines, 1):
            match = INCLUDE_LINE.match(line)
            if not match or (str(source), number) in reported:
                continue
            if paths.named_path(env, match["target"], docname).resolve() == wanted:
                reported.add((str(source), number))
                location = (docname, number) if source == sources[0] else f"{source}:{number}"
                return match["target"], location
    return os.path.relpath(path, env.srcdir), (docname, None)


# -- Images and downloads: before Sphinx's collectors copy them ------------------------------


class CheckLinkedFiles(SphinxTransform):
    """Refused images are removed; a refused download keeps its text, without the link."""

    default_priority = 870  # before doctree-read (880), where Sphinx collects the files

    def apply(self, **kwargs) -> None:
        for image in list(self.document.findall(nodes.image)):
            uri = image.get("uri", "")
            if is_remote(uri):
                continue  # another host's: kb.markup.rawhtml says so, and leaves it out
            # As kb check judges it (kb.checks.namedfiles). A missing file is refused here, so
            # that Sphinx's collector never sees it: its "image file not readable" would say
            # less, in other words than kb check's.
            refused, files = image_files(uri, lambda target: paths.named_path(self.env, target))
            if refused is not None:
                paths.warn("image", uri, refused, image, reading=self.env)
            elif all(
                paths.check(self.env, "image", uri, path, image, must_exist=True, **IMAGE)
                for path in files
            ):
                continue
            image.parent.remove(image)
        for reference in list(self.document.findall(addnodes.download_reference)):
            target = reference.get("reftarget", "")
            if "://" in target or target.startswith("data:"):
                continue
            path = paths.named_path(self.env, target, reference.get("refdoc") or self.env.docname)
            if not paths.check(self.env, "download", target, path, reference):
                reference.replace_self(nodes.inline("", "", *reference.children))


def setup_files(app: Sphinx) -> None:
    app.add_directive("literalinclude", CheckedLiteralInclude, override=True)
    app.add_directive("csv-table", CheckedCSVTable, override=True)
    app.add_directive("raw", CheckedRaw, override=True)
    app.add_directive("include", CheckedInclude, override=True)
    app.connect("builder-inited", paths.note_output_folders)
    paths.setup_read_again(app)
    app.connect("include-read", _include_read)
    app.add_transform(CheckLinkedFiles)
