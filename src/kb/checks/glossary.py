"""The glossary's terms and the ``{term}`` links to them: pure functions over a file's text.

``kb check`` and the build agree on what a glossary defines and what a ``{term}`` names: the
terms of a page's ``{glossary}`` directive (each line of its content that is not indented, as
Sphinx reads it), and the targets of ``{term}`text``` and ``{term}`text <target>``` roles
outside code. Sphinx matches a term without regard to case; so do these.

:func:`unlinked_uses` finds the glossary entries a post's prose uses but never links, for the
test that keeps every post linked to the glossary (prose: outside code, math, headings, links,
roles, directive options and front matter).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import get_close_matches

from .frontmatter import read_front_matter
from .messages import say
from .model import Problem
from .postbody import _ATX, _FENCE, _INLINE_CODE, _OPAQUE

_TERM_ROLE = re.compile(r"\{term\}`([^`]*)`")
_TARGET = re.compile(r"^(?:.*?)\s*<([^<>]+)>$", re.DOTALL)
_ANY_ROLE = re.compile(r"\{[\w:.-]+\}`[^`]*`")
_LINK = re.compile(r"!?\[[^\]]*\]\([^)]*\)|<https?://[^>]*>|https?://\S+")
_MATH = re.compile(r"\$[^$\n]+\$")
_COMMENT = re.compile(r"<!--.*?-->|^\s*%.*$")
_OPTION = re.compile(r"^\s*:[\w-]+:")


@dataclass(frozen=True)
class Entry:
    """One glossary entry: its terms as written (one or more lines), at the first one's line."""

    terms: tuple[str, ...]
    line: int

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(term.casefold() for term in self.terms)


def _body_start(text: str) -> int:
    if not text.startswith("---"):
        return 1
    _, body_line, problems = read_front_matter(text)
    return 1 if problems and body_line == 1 else body_line


def _lines(text: str, first: int) -> Iterator[tuple[int, str, str]]:
    """``(line number, line, directive)`` for each line outside opaque (code) fences, where
    ``directive`` is the name of the innermost directive fence the line is in ("" outside)."""
    stack: list[tuple[str, str]] = []  # (fence marker, directive name)
    fence = ""
    in_math = False
    for number, line in enumerate(text.split("\n")[first - 1 :], start=first):
        stripped = line.strip()
        if (
            not fence
            and stripped.startswith("$$")
            and (stripped == "$$" or not stripped.endswith("$$"))
        ):
            in_math = not in_math  # a display-math block opens or closes ("$$ (label)")
            continue
        if in_math:
            continue
        if fence:
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                fence = ""
            continue
        closes = stack and stripped and set(stripped) == {stack[-1][0][0]}
        if closes and len(stripped) >= len(stack[-1][0]):
            stack.pop()
            continue
        opening = _FENCE.match(line)
        if opening:
            marker, directive = opening.group(1), opening.group(3)
            if marker[0] != ":" and (directive is None or directive in _OPAQUE):
                fence = marker
            else:
                stack.append((marker, directive or ""))
            continue
        yield number, line, stack[-1][1] if stack else ""


def glossary_entries(text: str) -> list[Entry]:
    """The entries of every ``{glossary}`` directive in a MyST page."""
    entries: list[Entry] = []
    current: list[str] = []
    start = 0
    for number, line, directive in _lines(text, _body_start(text)):
        if directive != "glossary" or _OPTION.match(line):
            if current:
                entries.append(Entry(tuple(current), start))
                current = []
            continue
        if line.strip() and not line[0].isspace():
            if not current:
                start = number
            current.append(line.strip())
        elif current:
            entries.append(Entry(tuple(current), start))
            current = []
    if current:
        entries.append(Entry(tuple(current), start))
    return entries


def term_target(role_text: str) -> str:
    """What ``{term}`role_text``` links to: the text, or the target in ``<...>``."""
    match = _TARGET.match(role_text.strip())
    return " ".join((match.group(1) if match else role_text).split())


def term_references(text: str) -> list[tuple[str, int]]:
    """``(target, line)`` of every ``{term}`` role outside code."""
    found = []
    for number, line, _ in _lines(text, _body_start(text)):
        for match in _TERM_ROLE.finditer(line):
            found.append((term_target(match.group(1)), number))
    return found


def unknown_terms(text: str, defined: set[str]) -> list[Problem]:
    """A problem at each ``{term}`` whose target no glossary defines (``defined``: casefolded
    terms)."""
    problems = []
    for target, line in term_references(text):
        if target.casefold() in defined:
            continue
        guess = get_close_matches(target.casefold(), sorted(defined), 1, 0.6)
        hint = f" (did you mean {guess[0]!r}?)" if guess else ""
        problems.append(Problem(line, say("unknown_term", term=target, hint=hint), "term"))
    return problems


def prose(line: str) -> str:
    """A line with what is not prose (code, roles, links, math, comments) blanked out, each
    character by one NUL, so that a match in it is at the same place in the line."""
    for pattern in (_COMMENT, _INLINE_CODE, _ANY_ROLE, _LINK, _MATH):
        line = pattern.sub(lambda match: "\0" * len(match.group()), line)
    return line


def term_pattern(term: str) -> re.Pattern:
    """A term as prose writes it: any case, a space or a hyphen between words, a plural."""
    words = r"[\s-]+".join(re.escape(word) for word in term.split())
    return re.compile(rf"(?<![\w-]){words}(?:s|es)?(?![\w-])", re.IGNORECASE)


def prose_lines(text: str) -> Iterator[tuple[int, str, str]]:
    """``(line number, line, prose)`` for each line of prose of a Markdown page: not in code,
    math or a glossary, not a heading or a directive's option."""
    for number, line, directive in _lines(text, _body_start(text)):
        if directive == "glossary" or _ATX.match(line) or _OPTION.match(line):
            continue
        yield number, line, prose(line)


def uses_in(masked: str, entries: list[Entry]) -> list[tuple[int, int, Entry, str]]:
    """``(start, end, entry, term)`` of each term used in a line of prose (masked by
    :func:`prose`), in order; the longest term wins where two overlap ("Tensor Memory
    Accelerator" is no use of "Tensor Memory")."""
    terms = sorted(
        ((term, entry) for entry in entries for term in entry.terms),
        key=lambda item: (-len(item[0]), item[0]),
    )
    found = []
    for term, entry in terms:
        for match in term_pattern(term).finditer(masked):
            found.append((match.start(), match.end(), entry, term))
            masked = masked[: match.start()] + "\0" * len(match.group()) + masked[match.end() :]
    return sorted(found, key=lambda item: item[0])


def unlinked_uses(text: str, entries: list[Entry]) -> list[tuple[Entry, int]]:
    """The entries a page's prose uses and never links, each with the line of its first use."""
    linked = {target.casefold() for target, _ in term_references(text)}
    wanted = [entry for entry in entries if not entry.keys & linked]
    first_use: dict[Entry, int] = {}
    for number, _, masked in prose_lines(text):
        for _, _, entry, _ in uses_in(masked, wanted):
            first_use.setdefault(entry, number)
    return sorted(first_use.items(), key=lambda item: item[1])
