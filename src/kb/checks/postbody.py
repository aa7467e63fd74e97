"""What the checks need from a post's Markdown body, read line by line without a parser.

The title (the first heading) and its level, whether there is a paragraph that can serve as
the excerpt, and the links to other documents. A scan of lines is enough for these and keeps
``kb check`` fast; code blocks and math are skipped, so a ``#`` comment in a shell snippet is
never a title.

A Markdown document's first heading is its title, a ``#`` heading: one that starts at ``##``
is a problem (:func:`heading_problems`) at that heading's line, in ``kb check`` and the build
alike, which also quiets MyST's own warning at every ``##`` of it (:mod:`kb.markup.headings`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .messages import say
from .model import Problem

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}|:{3,})\s*(\{([\w:-]+)\})?")
_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(\s+#+)?\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_SKIP = re.compile(r"^\s*(%|\(.+\)=|<!--|-->|\+\+\+|\$\$|!\[[^\]]*\]\([^)]*\)\s*$|:\w[\w-]*:)")
_INLINE_CODE = re.compile(r"(`+)[^`].*?\1")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^)]*)?\)")
_LINK_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)")
_DOC_ROLE = re.compile(r"\{doc\}`(?:[^`<]*<([^`>]+)>|([^`]+))`")
#: Directives whose content is code or data, not Markdown paragraphs.
_OPAQUE = {
    "code",
    "code-block",
    "code-cell",
    "sourcecode",
    "literalinclude",
    "math",
    "raw",
    "csv-table",
    "mermaid",
    "graphviz",
}


@dataclass
class BodyFacts:
    title: str = ""
    title_line: int = 0
    title_level: int = 0  # 1 for `# Title`, 2 for `## Title` or a title underlined with ---
    has_paragraph: bool = False
    links: list[tuple[str, int]] = field(default_factory=list)  # (target as written, line)


def read_body(text: str, first_line: int) -> BodyFacts:
    """Scan the body, which starts at ``first_line`` (1-based) of ``text``."""
    facts = BodyFacts()
    lines = text.split("\n")[first_line - 1 :]
    fence = ""  # the marker of the code block we are in, if any
    # The markers of the directives we are in whose content is Markdown (a note, a figure):
    # their closing line is no opening of a code block.
    open_directives: list[str] = []
    in_math = False
    previous = ""
    for number, line in enumerate(lines, start=first_line):
        closing = line.strip()
        if fence:
            if closing and set(closing) == {fence[0]} and len(closing) >= len(fence):
                fence = ""
            continue
        inner = open_directives[-1] if open_directives else ""
        if inner and closing and set(closing) == {inner[0]} and len(closing) >= len(inner):
            open_directives.pop()
            continue
        opening = _FENCE.match(line)
        if opening:
            marker, directive = opening.group(1), opening.group(3)
            if marker[0] != ":" and (directive is None or directive in _OPAQUE):
                fence = marker
            else:
                open_directives.append(marker)
            continue
        if line.strip() == "$$" or (
            line.strip().startswith("$$") and not line.strip().endswith("$$")
        ):
            in_math = not in_math
            continue
        if in_math:
            continue
        _read_line(facts, line, previous, number)
        previous = line
    return facts


def _read_line(facts: BodyFacts, line: str, previous: str, number: int) -> None:
    atx = _ATX.match(line)
    underline = None if atx else _SETEXT.match(line)
    heading: str | None = None
    if underline and previous.strip() and not _is_special(previous):
        heading, level = previous.strip(), 1 if underline.group(1)[0] == "=" else 2
        number -= 1
    elif atx is not None:
        heading, level = atx.group(2).strip(), len(atx.group(1))
    if heading is not None:
        if not facts.title and heading:
            facts.title, facts.title_line, facts.title_level = heading, number, level
        return
    if not line.strip() or _SKIP.match(line):
        return
    facts.has_paragraph = True
    facts.links += [(target, number) for target in _links(line)]


def title_level(text: str, line: int) -> int:
    """The level of the heading :func:`read_body` found at ``line`` (1-based) of ``text``
    (``## x``: 2; a line underlined with ``---``: 2), or 0 when that line holds none (a title
    given as a directive's ``:title:``). For the checks that have only the title's line."""
    lines = text.split("\n", line + 1)
    if not 0 < line <= len(lines):
        return 0
    heading = _ATX.match(lines[line - 1])
    if heading is not None:
        return len(heading.group(1))
    underline = _SETEXT.match(lines[line]) if line < len(lines) else None
    if underline is None or not lines[line - 1].strip():
        return 0
    return 1 if underline.group(1)[0] == "=" else 2


def heading_problems(level: int, line: int) -> list[Problem]:
    """A Markdown document whose first heading, at ``line``, is of ``level`` 2 or more: its
    title is missing, and MyST warns at every heading of that level (not at deeper ones)."""
    if level < 2:
        return []
    shift = level - 1
    message = say(
        "heading_start",
        marks="#" * level,
        level=level,
        levels="one level" if shift == 1 else f"{shift} levels",
        deeper="#" * (level + 1),
    )
    return [Problem(line, message, "heading")]


def _is_special(line: str) -> bool:
    return bool(
        _ATX.match(line) or _SKIP.match(line) or line.lstrip().startswith(("-", "*", ">", "|"))
    )


def _links(line: str) -> list[str]:
    roles = [m.group(1) or m.group(2) for m in _DOC_ROLE.finditer(line)]
    plain = _INLINE_CODE.sub("", _DOC_ROLE.sub("", line))
    definition = _LINK_DEF.match(plain)
    found = [m.group(1) for m in _LINK.finditer(plain)]
    if definition:
        found.append(definition.group(1))
    return [*(f"{{doc}}{target.strip()}" for target in roles), *found]
