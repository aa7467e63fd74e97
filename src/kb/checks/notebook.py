"""Notebook posts: the checks of :mod:`.frontmatter` on ``.ipynb`` files and MyST text notebooks.

Pure functions over a file's text, like the other checks: ``kb check`` and the build run
:func:`check_source` on every post, whatever it is written in, so the two never disagree.

* An ``.ipynb`` post's front matter is the notebook's metadata (``blogpost``, ``date``,
  ``category``… beside ``kernelspec``), its title the first ``# heading`` of its markdown
  cells, its excerpt their first paragraph. Problems carry the line of the JSON file where
  the key, cell or source line sits. A file that is not JSON, or not an nbformat 4 notebook
  that MyST-NB can render, is reported here as a problem (:func:`read_problems`), and the
  build then renders nothing from it instead of ending in a traceback.
* A MyST text notebook is a ``.md`` whose front matter says ``file_format: mystnb`` (or holds
  jupytext's ``text_representation`` with ``format_name: myst``), as MyST-NB decides: it is
  checked as a Markdown post, and its front matter must also be JSON-like, since Jupyter and
  MyST-NB keep it in the notebook's metadata (a date must be quoted).
* ``kb_execute: cache`` (or ``force``) opts a notebook into running at build time; anything
  else is reported, and so is the key on a Markdown post.
* Only the site decides whether a notebook runs: ``mystnb`` (MyST-NB's settings, which would
  override every ``nb_*`` of ``conf.py``, ``execution_mode`` included) and ``execution``
  (jupyter-cache's timeout and errors) in a notebook's metadata or a text notebook's front
  matter are refused, and such a notebook is never handed to MyST-NB (:func:`read_problems`).

No nbformat here: ``json`` reads the file, and the structure MyST-NB relies on is checked by
hand, so ``kb check`` stays fast on a site with notebooks.
"""

from __future__ import annotations

import bisect
import json
import posixpath
import re
from collections.abc import Callable, Iterator
from datetime import date

from .frontmatter import ALIASED, Field, PostFacts, Problem, Rules, check_fields
from .frontmatter import read_front_matter as read_markdown_front_matter
from .messages import say
from .postbody import BodyFacts, heading_problems, read_body, title_level
from .postforms import check_text_post

#: ``kb_execute`` values, as MyST-NB's ``execution_mode`` of the notebook; "off" is the default.
EXECUTE_MODES = ("cache", "force", "off")
#: Keys of a notebook's metadata that MyST-NB or jupyter-cache read as settings of their own.
OWN_SETTINGS = ("mystnb", "execution")
#: What a cell's ``id`` may be (nbformat 4.5).
_CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_OUTPUT_KEYS = {
    "stream": ("name", "text"),
    "display_data": ("data",),
    "execute_result": ("data",),
    "error": ("ename", "evalue", "traceback"),
}
_WHITESPACE = re.compile(r"[ \t\n\r]*")
#: json.decoder.scanstring(text, end): a JSON string's value and the index past its closing
#: quote. In the json module since Python 2.6, but outside json.decoder.__all__, and so
#: undeclared in typeshed's stub.
_scanstring: Callable[[str, int], tuple[str, int]]
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]
#: How deep the line finder walks the notebook: cells, a cell's keys, its source lines.
_DEPTH = 4
#: How deeply a notebook's JSON may nest: Jupyter writes a dozen levels; MyST-NB's own reading
#: (nbformat's validation, its recursive copies) ends in a RecursionError near a thousand.
MAX_NESTING = 100


# -- What a file is ------------------------------------------------------------------------------


def is_ipynb(path: str) -> bool:
    return posixpath.splitext(str(path))[1] == ".ipynb"


def is_text_notebook(fields: dict[str, Field]) -> bool:
    """MyST-NB's rule for a ``.md`` that is a notebook (``myst_nb.core.read``)."""
    file_format = fields.get("file_format")
    if file_format is not None and file_format.value == "mystnb":
        return True
    jupytext = fields.get("jupytext")
    representation = (jupytext.value if jupytext else None) or {}
    if isinstance(representation, dict):
        representation = representation.get("text_representation") or {}
    return isinstance(representation, dict) and representation.get("format_name") == "myst"


def notebook_kind(path: str, text: str) -> str:
    """``"ipynb"``, ``"text"`` (a MyST text notebook) or ``""`` (a Markdown post)."""
    if is_ipynb(path):
        return "ipynb"
    if not text.startswith("---") or ("file_format" not in text and "jupytext" not in text):
        return ""  # the cheap test first: a thousand Markdown posts are asked on every read
    fields, _, _ = read_markdown_front_matter(text)
    return "text" if is_text_notebook(fields) else ""


# -- Checking any post -------------------------------------------------------------------------


def check_source(path: str, text: str, rules: Rules) -> tuple[PostFacts, list[Problem]]:
    """Check a post of any kind: Markdown, text notebook or ``.ipynb``."""
    if is_ipynb(path):
        return check_ipynb(text, rules)
    facts, problems = check_text_post(path, text, rules)
    if not path.endswith(".rst") and facts.title:  # Markdown: is its first heading a title?
        level = title_level(text, facts.title_line)
        if level > 1:
            problems = sorted(
                problems + heading_problems(level, facts.title_line), key=lambda p: p.line
            )
    if not any(key in text for key in ("file_format", "jupytext", "kb_execute")):
        return facts, problems  # a Markdown post: its front matter is not read twice
    fields, _, _ = read_markdown_front_matter(text)
    if is_text_notebook(fields):
        problems += _unquoted(fields) + _execute_problems(fields, "front matter")
        problems += _own_settings(fields, "front matter")
    elif "kb_execute" in fields:
        line = fields["kb_execute"].line
        problems.append(Problem(line, say("kb_execute_markdown"), "kb_execute"))
    return facts, sorted(problems, key=lambda p: p.line)


def read_problems(path: str, text: str) -> list[Problem]:
    """What keeps MyST-NB from reading a notebook (the build then renders nothing of it)."""
    if is_ipynb(path):
        notebook, problems = read_ipynb(text)
        return problems if notebook is None else _own_settings(_ipynb_fields(notebook), "")
    fields, _, problems = read_markdown_front_matter(text)
    aliased = [
        Problem(item.line, say("yaml_alias", key=key), key)
        for key, item in fields.items()
        if item.error == ALIASED  # never expanded: MyST-NB and jupytext would
    ]
    return problems + aliased + _unquoted(fields) + _own_settings(fields, "front matter")


def _own_settings(fields: dict[str, Field], where: str) -> list[Problem]:
    """A notebook's own MyST-NB or execution settings: only the site's are obeyed."""
    where = where or "notebook's metadata"
    return [
        Problem(fields[key].line, say("nb_own_settings", key=key, where=where), key)
        for key in OWN_SETTINGS
        if key in fields
    ]


def _unquoted(fields: dict[str, Field]) -> list[Problem]:
    """Dates YAML reads inside a list or mapping: MyST-NB and jupytext fail on them (JSON has
    no dates). A date that is a field's whole value is read as text (:func:`dates_as_text`)."""
    return [
        Problem(item.line, say("nb_unquoted", key=key), key)
        for key, item in fields.items()
        if _holds_a_date(item.value) and not _quotable(item)
    ]


def _quotable(item: Field) -> bool:
    return isinstance(item.value, date) and bool(item.raw)


def dates_as_text(text: str) -> str:
    """A MyST text notebook with each field whose whole value YAML reads as a date
    (``date: 2026-05-05``) quoted on its own line (``date: "2026-05-05"``), so that MyST-NB,
    which keeps front matter as JSON, reads it as a Markdown post's date is read; any other
    text is returned as it is. Lines keep their numbers."""
    if not any(key in text for key in ("file_format", "jupytext")):
        return text
    fields, _, _ = read_markdown_front_matter(text)
    if not is_text_notebook(fields):
        return text
    lines = text.split("\n")
    for item in fields.values():
        if not _quotable(item) or not 0 < item.line <= len(lines):
            continue
        key, colon, value = lines[item.line - 1].partition(":")
        if colon and item.raw in value:
            lines[item.line - 1] = key + colon + value.replace(item.raw, json.dumps(item.raw), 1)
    return "\n".join(lines)


def _holds_a_date(value) -> bool:
    if isinstance(value, date):
        return True
    if isinstance(value, dict):
        return any(_holds_a_date(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_a_date(v) for v in value)
    return False


def _execute_problems(fields: dict[str, Field], where: str) -> list[Problem]:
    item = fields.get("kb_execute")
    if item is None:
        return []
    if item.value not in EXECUTE_MODES:
        return [Problem(item.line, say("kb_execute", shown=item.shown), "kb_execute")]
    if item.value != "off" and not isinstance(_value(fields, "kernelspec"), dict):
        return [Problem(item.line, say("kb_execute_kernel", where=where), "kb_execute")]
    return []


def _value(fields: dict[str, Field], key: str):
    item = fields.get(key)
    return None if item is None else item.value


# -- .ipynb files ------------------------------------------------------------------------------


def check_ipynb(text: str, rules: Rules) -> tuple[PostFacts, list[Problem]]:
    """Check an ``.ipynb`` post: its metadata as front matter, its markdown cells as body."""
    notebook, problems = read_ipynb(text)
    if notebook is None:
        return PostFacts(), problems
    fields = _ipynb_fields(notebook)
    body_line = notebook.lines.get(("cells",), 1)
    body = notebook.body()
    facts, found = check_fields(fields, body, body_line, rules, problems)
    found += heading_problems(body.title_level, body.title_line)
    no_title = say("no_title")
    found = [
        Problem(p.line, say("nb_no_title"), p.key, p.level) if p.message == no_title else p
        for p in found
    ]
    found += _execute_problems(fields, "notebook's metadata")
    found += _own_settings(fields, "notebook's metadata")
    return facts, sorted(found, key=lambda p: p.line)


def _ipynb_fields(notebook: Notebook) -> dict[str, Field]:
    """The notebook's metadata as front matter: each key at its line of the file."""
    lines = notebook.lines
    return {
        key: Field(value, lines.get(("metadata", key), 1), value if isinstance(value, str) else "")
        for key, value in notebook.metadata.items()
    }


class Notebook:
    """A notebook read from JSON, with the line of each key, cell and source line."""

    def __init__(self, value: dict, lines: dict[tuple, int]) -> None:
        self.value, self.lines = value, lines

    @property
    def metadata(self) -> dict:
        return self.value.get("metadata", {})

    @property
    def cells(self) -> list[dict]:
        return self.value.get("cells", [])

    def cell_line(self, index: int) -> int:
        return self.lines.get(("cells", index), self.lines.get(("cells",), 1))

    def markdown_cells(self) -> Iterator[tuple[str, Callable[[int], int]]]:
        """Each markdown cell's text, and what gives the line of the file where the text's
        line ``n`` (1-based) is."""
        for index, cell in enumerate(self.cells):
            if cell.get("cell_type") != "markdown":
                continue
            source = cell.get("source", "")
            text = source if isinstance(source, str) else "".join(source)

            def line(number: int, index=index, source=source) -> int:
                if isinstance(source, list):
                    key = ("cells", index, "source", number - 1)
                    return self.lines.get(key, self.cell_line(index))
                return self.lines.get(("cells", index, "source"), self.cell_line(index))

            yield text, line

    def body(self) -> BodyFacts:
        """Title, excerpt and links of the markdown cells, at their lines in the file."""
        facts = BodyFacts()
        for text, line in self.markdown_cells():
            found = read_body(text, 1)
            if found.title and not facts.title:
                facts.title, facts.title_line = found.title, line(found.title_line)
                facts.title_level = found.title_level
            facts.has_paragraph = facts.has_paragraph or found.has_paragraph
            facts.links += [(target, line(number)) for target, number in found.links]
        return facts


def read_ipynb(text: str) -> tuple[Notebook | None, list[Problem]]:
    """The notebook, or None with the problems that make it unreadable."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        problem = say("nb_not_json", problem=error.msg, column=error.colno)
        return None, [Problem(error.lineno, problem)]
    except RecursionError:
        return None, [Problem(1, say("nb_too_deep", most=MAX_NESTING))]
    if not isinstance(value, dict):
        return None, [Problem(1, say("nb_not_notebook", what="the file holds no JSON object"))]
    lines = find_lines(text)
    deep = _too_deep(value)
    if deep is not None:
        at = next((lines[deep[:n]] for n in range(len(deep), 0, -1) if deep[:n] in lines), 1)
        return None, [Problem(at, say("nb_too_deep", most=MAX_NESTING))]
    version = value.get("nbformat")
    if version != 4:
        where = lines.get(("nbformat",), 1)
        if version is None:
            return None, [Problem(1, say("nb_not_notebook", what='no "nbformat" key'))]
        return None, [Problem(where, say("nb_version", version=json.dumps(version)))]
    notebook = Notebook(value, lines)
    problems = _structure_problems(notebook)
    return (None if problems else notebook), problems


def _too_deep(value) -> tuple | None:
    """The path to the first value nested deeper than :data:`MAX_NESTING`, or None; walked
    with a list, not recursion, so no depth can break the walk itself."""
    pending: list[tuple[tuple, object]] = [((), value)]
    while pending:
        path, item = pending.pop()
        if len(path) > MAX_NESTING:
            return path
        if isinstance(item, dict):
            pending.extend(((*path, key), child) for key, child in item.items())
        elif isinstance(item, list):
            pending.extend(((*path, index), child) for index, child in enumerate(item))
    return None


def _structure_problems(notebook: Notebook) -> list[Problem]:
    value, lines = notebook.value, notebook.lines
    for key, kind, name in (
        ("metadata", dict, "an object"),
        ("cells", list, "a list"),
        ("nbformat_minor", int, "a whole number"),
    ):
        if not isinstance(value.get(key), kind) or isinstance(value.get(key), bool):
            what = f'"{key}" is missing' if key not in value else f'"{key}" is not {name}'
            return [Problem(lines.get((key,), 1), say("nb_not_notebook", what=what))]
    problems: list[Problem] = []
    ids: dict[str, int] = {}
    for index, cell in enumerate(notebook.cells):
        line, number = notebook.cell_line(index), index + 1
        what = _cell_problem(cell)
        if what:
            problems.append(Problem(line, say("nb_cell", cell=number, what=what)))
            continue
        if value["nbformat_minor"] >= 5:
            cell_id = cell.get("id")
            if not isinstance(cell_id, str) or not _CELL_ID.match(cell_id):
                what = "none" if cell_id is None else f"{json.dumps(cell_id)} is not one"
            elif cell_id in ids:
                what = f'"{cell_id}" is also the id of cell {ids[cell_id]}'
            else:
                ids[cell_id] = number
                what = ""
            if what:
                problems.append(Problem(line, say("nb_no_id", cell=number, what=what)))
        for position, output in enumerate(cell.get("outputs", ()), start=1):
            what = _output_problem(output)
            if what:
                at = lines.get(("cells", index, "outputs", position - 1), line)
                message = say("nb_output", output=position, cell=number, what=what)
                problems.append(Problem(at, message))
    return problems


def _cell_problem(cell) -> str:
    if not isinstance(cell, dict):
        return "not an object"
    kind = cell.get("cell_type")
    if kind not in ("markdown", "code", "raw"):
        return f'"cell_type" is {json.dumps(kind)}, not "markdown", "code" or "raw"'
    source = cell.get("source")
    if not (isinstance(source, str) or (isinstance(source, list) and _all_text(source))):
        return '"source" is not text or a list of lines'
    if not isinstance(cell.get("metadata"), dict):
        return '"metadata" is missing or not an object'
    if kind == "code" and not isinstance(cell.get("outputs"), list):
        return 'a code cell without an "outputs" list'
    return ""


def _output_problem(output) -> str:
    if not isinstance(output, dict):
        return "not an object"
    kind = output.get("output_type")
    if kind not in _OUTPUT_KEYS:
        return f'"output_type" is {json.dumps(kind)}'
    missing = [key for key in _OUTPUT_KEYS[kind] if key not in output]
    if missing:
        return f'a {kind} output without "{missing[0]}"'
    if "data" in output and not isinstance(output["data"], dict):
        return '"data" is not an object'
    text = output.get("text", output.get("traceback", []))
    if not (isinstance(text, str) or (isinstance(text, list) and _all_text(text))):
        return "its text is not text or a list of lines"
    return ""


def _all_text(items: list) -> bool:
    return all(isinstance(item, str) for item in items)


def find_lines(text: str) -> dict[tuple, int]:
    """The line of each key and list item of a valid JSON text, a few levels deep: keyed by
    its path, ``("metadata", "date")``, ``("cells", 2)``, ``("cells", 2, "source", 0)``."""
    decoder = json.JSONDecoder()
    newlines = [match.start() for match in re.finditer("\n", text)]
    lines: dict[tuple, int] = {}

    def line(index: int) -> int:
        return bisect.bisect_left(newlines, index) + 1

    def skip(index: int) -> int:
        found = _WHITESPACE.match(text, index)  # always: it matches no white space too
        return found.end() if found is not None else index

    def value(index: int, path: tuple, depth: int) -> int:
        index = skip(index)
        opening = text[index]
        if depth >= _DEPTH or opening not in "{[":
            return decoder.raw_decode(text, index)[1]
        closing, position = ("}" if opening == "{" else "]"), 0
        index = skip(index + 1)
        while text[index] != closing:
            if opening == "{":
                key, after = _scanstring(text, index + 1)
                item = (*path, key)
                lines[item] = line(index)
                index = skip(after) + 1  # past the colon
            else:
                item = (*path, position)
                lines[item] = line(skip(index))
                position += 1
            index = skip(value(index, item, depth + 1))
            if text[index] == ",":
                index = skip(index + 1)
        return index + 1

    value(0, (), 0)
    return lines


#: MyST-NB numbers a notebook's lines ``(cell + 1) * 10000`` plus the source line (its
#: ``nb_to_tokens``): ``nb.ipynb:20002`` is the first source line of the second cell.
CELL_LINES = 10000
#: What MyST-NB adds to a 0-based source line (measured: a directive on a cell's first source
#: line is reported at ``(cell + 1) * 10000 + 2``).
CELL_LINE_OFFSET = 2


def file_line(text: str, line: int) -> int | None:
    """The line of the notebook file ``text`` that MyST-NB's ``line`` stands for (the source
    line of its cell, else the cell's own line); None when ``line`` is no such number or the
    file is no notebook with that cell."""
    cell, inner = divmod(line, CELL_LINES)
    cell -= 1
    if cell < 0:
        return None
    try:
        lines = find_lines(text)
    except (ValueError, IndexError, RecursionError):
        return None
    for key in (("cells", cell, "source", inner - CELL_LINE_OFFSET), ("cells", cell, "source"),
                ("cells", cell)):  # fmt: skip
        if key in lines:
            return lines[key]
    return None
