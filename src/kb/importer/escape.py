"""Text, code and addresses from an imported post, written so that MyST reads them as text.

Imported text is never markup (issue 31): every character that MyST, with any of its extensions,
could read as syntax is escaped with a backslash (CommonMark lets any ASCII punctuation be
escaped, and the escaped character is always literal). Some characters are syntax anywhere in a
line (backticks, ``*``, ``_``, brackets, ``<``, ``$``, braces, ``|``, ``~``, ``\\``); others only
where a line or word starts (``#`` headings, ``>`` quotes, ``-``/``+``/``1.`` lists, ``=`` and
``-`` underlines, ``%`` comments, ``:`` fences, field and definition lists, ``(label)=``
targets): those are escaped at the start of every word, since the converter cannot know where
its lines will break. What is left over is caught by :mod:`.proof`, which parses each post
with the site's own MyST parser.

Code is never escaped: it goes in a fence (or a code span) longer than any run of backticks in
it (:func:`fence`, :func:`code_span`). Addresses are percent-encoded so that no character of
theirs can end a link or start markup (:func:`url`).
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

#: Syntax wherever it stands.
_ANYWHERE = re.compile(r"([\\`*_\[\]<>{}$|~])")
#: Syntax at the start of a line; escaped at the start of every word (and of every text run).
_WORD_START = re.compile(r"(^|(?<=\s))([#+\-=%:(])")
#: An ordered list item: "1." or "1)" at the start of a word.
_ORDERED = re.compile(r"(^|(?<=\s))(\d{1,9})([.)])(?=\s|$)")
#: A character reference, which MyST would decode: "&amp;" in the text is "&amp;" on the page.
_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_ANYWHERE_OR_ENTITY = re.compile(rf"{_ANYWHERE.pattern}|{_ENTITY.pattern}")
#: A run of whitespace that holds a line break (HTML shows it as a space).
_BREAKING_SPACE = re.compile(r"[ \t\r\n\f\v]*[\r\n\f\v][ \t\r\n\f\v]*")
_BACKTICKS = re.compile(r"`+")
#: Kept as they are in an address; "$" is encoded, so no address can hold a formula.
_URL_SAFE = "/:?#[]@!&'*+,;=%-._~"


def text(value: str) -> str:
    """``value`` (text from HTML, on one line) as MyST text that shows exactly ``value``."""
    value = _BREAKING_SPACE.sub(" ", value)
    value = _ANYWHERE_OR_ENTITY.sub(_escaped, value)
    value = _ORDERED.sub(r"\1\2\\\3", value)
    value = _WORD_START.sub(r"\1\\\2", value)
    # "!" before a link is an image: an "!" that ends a run of text might meet one.
    return value[:-1] + "\\!" if value.endswith("!") and not value.endswith("\\!") else value


def _escaped(match: re.Match) -> str:
    """A backslash as a character reference, any other syntax character escaped.

    A backslash of the text never becomes one of a run of backslashes: markdown-it's dollar
    math counts the backslashes before a ``$`` from the end of the line when the ``$`` opens
    it (``is_escaped`` looks at ``src[-1]``), so a formula that opens a paragraph ending in
    ``\\\\`` would not be read (mdit-py-plugins 0.5)."""
    found = match.group(0)
    if found == "\\":
        return "&#92;"
    return "\\&" if found == "&" else "\\" + found


def longest_backticks(value: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(value)), default=0)


def fence(body: str, info: str = "", minimum: int = 3) -> str:
    """A fenced block of ``body`` whose fence no line of ``body`` can close."""
    marks = "`" * max(minimum, longest_backticks(body) + 1)
    return f"{marks}{info}\n{body}\n{marks}"


def table_cell(cell: str) -> str:
    """A cell of a pipe table: every ``|`` that is not escaped yet (a code span's) escaped."""
    out, backslashes = [], 0
    for char in cell:
        if char == "|" and backslashes % 2 == 0:
            out.append("\\")
        out.append(char)
        backslashes = backslashes + 1 if char == "\\" else 0
    return "".join(out)


def code_span(code: str) -> str:
    """Inline code showing ``code`` (on one line) exactly, whatever backticks it holds."""
    code = " ".join(code.split("\n"))
    marks = "`" * (longest_backticks(code) + 1)
    pad = " " if code.startswith(("`", " ")) or code.endswith(("`", " ")) else ""
    return f"{marks}{pad}{code}{pad}{marks}"


def url(address: str) -> str:
    """An address that no character can end early or turn into markup."""
    return quote(address.strip(), safe=_URL_SAFE)


def option(value: str) -> str:
    """A directive option's value on one line, quoted when it holds more than plain words."""
    value = " ".join(value.split())
    return value if re.fullmatch(r"[\w ,.()-]*", value) else json.dumps(value, ensure_ascii=False)


def role_text(value: str) -> str | None:
    """The text of a role (``{sub}``, ``{abbr}``...) when it can hold it, else None."""
    value = " ".join(value.split())
    return value if value and "`" not in value and "<" not in value else None
