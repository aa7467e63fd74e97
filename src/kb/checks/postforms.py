"""The other forms in which ablog lets a file say it is a post: an rst field list at the top
(``:blogpost: true``, ``:date: ...``) and ablog's ``post`` directive, in rst (``.. post::``)
and in MyST (```` ```{post} ````), read into the same fields as YAML front matter so that
every check of :mod:`.frontmatter` applies to them unchanged, at their own lines.

A line scan, as :mod:`.postbody` is: ``kb check`` parses no file. The scan follows what
docutils and MyST read: a field list counts only before the title or right after it (where
docutils makes it the document's docinfo); a directive's options are its indented ``:key:``
lines (rst) or the ``:key:`` lines or ``---`` block that open it (MyST); its date is its
argument; its content is the excerpt.
"""

from __future__ import annotations

import re
from dataclasses import replace

from docutils.parsers.rst.states import Body
from docutils.statemachine import StringList, string2lines

from ..upstream.myst_parser import option_comment_line
from .frontmatter import check_fields, check_post, parse_yaml
from .messages import say
from .model import Field, PostFacts, Problem, Rules
from .postbody import BodyFacts, read_body

_RST_FIELD = re.compile(r"^:(?P<key>[^:\s][^:]*):(?:[ \t]+(?P<value>.*))?$")
_RST_COMMENT = re.compile(r"^\.\.(?:\s|$)(?!.*::)")
_RST_DIRECTIVE = re.compile(r"^\.\. (?P<name>[\w:-]+)::[ \t]*(?P<argument>.*)$")
#: docutils' own pattern of a field marker (``:name:``), which begins a directive's options.
_FIELD_MARKER = re.compile(Body.patterns["field_marker"])
_MYST_POST = re.compile(r"^ {0,3}(?P<fence>`{3,}|:{3,})\{post\}[ \t]*(?P<argument>.*)$")
_MYST_OPTION = re.compile(r"^:(?P<key>[\w-]+):(?:[ \t]+(?P<value>.*))?$")
_FENCE = re.compile(r"^(`{3,}|~{3,}|:{3,})")
_UNDERLINE = re.compile(r"""^([=\-`:'"~^_*+#<>.])\1*\s*$""")
#: The post directive's flags: present means true.
FLAGS = frozenset({"exclude", "nocomments"})
#: Values that rst field lists write for a YAML ``true``.
_TRUE = frozenset({"true", "yes", "on", "1"})


def _field(key: str, value: str | None, line: int) -> Field:
    text = (value or "").strip()
    if key == "blogpost":
        return Field(text.casefold() in _TRUE, line, text)
    if key in FLAGS:
        return Field(True, line, text)
    return Field(text, line, text)


# -- rst ------------------------------------------------------------------------------------------


def rst_title(lines: list[str], start: int = 0) -> tuple[str, int]:
    """The first section title at or after ``start`` (0-based) and its 0-based line, or
    ("", -1): a line of text under (and maybe over) a line of one punctuation character."""
    for number in range(start, len(lines) - 1):
        text, under = lines[number].rstrip(), lines[number + 1].rstrip()
        if not text.strip() or text[:1].isspace() or _UNDERLINE.match(text):
            continue
        if _UNDERLINE.match(under) and len(under) >= len(text.strip()):
            return text.strip(), number
    return "", -1


def _skip_blank_and_comments(lines: list[str], number: int) -> int:
    while number < len(lines):
        line = lines[number]
        if not line.strip():
            number += 1
        elif _RST_COMMENT.match(line):
            number += 1
            while number < len(lines) and (
                not lines[number].strip() or lines[number][:1].isspace()
            ):
                number += 1
        else:
            break
    return number


def _rst_field_list(lines: list[str], number: int) -> tuple[dict[str, Field], int]:
    """The field list that starts at ``number``, and the line after it."""
    fields: dict[str, Field] = {}
    while number < len(lines):
        found = _RST_FIELD.match(lines[number])
        if found is None:
            break
        key, value, line = found["key"].strip(), found["value"] or "", number + 1
        number += 1
        while number < len(lines) and lines[number][:1] in (" ", "\t") and lines[number].strip():
            value += " " + lines[number].strip()  # a value continued on indented lines
            number += 1
        fields[key] = _field(key, value, line)
    return fields, number


def read_rst_fields(text: str) -> tuple[dict[str, Field], int]:
    """The docinfo field list of an rst file (before its title, or right after it) and the
    line (1-based) its body starts on."""
    fields, _, after = _docinfo_field_list(text.split("\n"))
    return (fields, after + 1) if fields else ({}, 1)


def _docinfo_field_list(lines: list[str]) -> tuple[dict[str, Field], int, int]:
    """The docinfo field list: its fields, its first line and the line after it (0-based);
    no fields where there is none."""
    first = _skip_blank_and_comments(lines, 0)
    fields, after = _rst_field_list(lines, first)
    if fields:
        return fields, first, after
    title, at = rst_title(lines, first)
    if title and at == first or (at == first + 1 and _UNDERLINE.match(lines[first])):
        below = _skip_blank_and_comments(lines, at + 2)
        fields, after = _rst_field_list(lines, below)
        if fields:
            return fields, below, after
    return {}, 0, 0


#: What reStructuredText may read as markup in a field's value (a line of ``????`` is a
#: transition, ``a_`` a reference, ``*x`` emphasis never closed): every ASCII punctuation.
_RST_MARKUP = re.compile(r"""([!-/:-@\[-`{-~])""")


def fields_as_text(text: str) -> str:
    """An rst post whose docinfo field list (:func:`read_rst_fields`) has each value's
    punctuation escaped, line for line: ablog's fields are text, as ``kb check`` reads them,
    never reStructuredText markup that docutils would refuse or read as something else
    (``:redirect: ????`` is a transition there). docutils gives the same text back. Every
    line of the list, a key given twice included (its first value is docutils' too)."""
    lines = text.split("\n")
    _, first, after = _docinfo_field_list(lines)
    for number in range(first, after):
        found = _RST_FIELD.match(lines[number])
        if found is not None:
            if found["value"] is not None:
                start = found.start("value")
                lines[number] = lines[number][:start] + _RST_MARKUP.sub(r"\\\1", found["value"])
            continue
        body = lines[number].lstrip()  # a value continued on an indented line
        indent = lines[number][: len(lines[number]) - len(body)]
        lines[number] = indent + _RST_MARKUP.sub(r"\\\1", body)
    return "\n".join(lines)


def rst_options_read_as_date(text: str) -> list[Problem]:
    """The option lines of the first ``.. post::`` directive that docutils reads as part of
    its date (they are indented more than the directive's content), each at its line."""
    lines = string2lines(text, tab_width=8, convert_whitespace=True)
    for number, line in enumerate(lines):
        found = _RST_DIRECTIVE.match(line)
        if found is not None and found["name"] == "post":
            arguments, _, _ = _rst_directive_block(lines, number, found.start("argument"))
            return [
                Problem(offset + 1, say("option_in_date", text=part.strip()), "date")
                for part, offset in arguments[1:]
                if _FIELD_MARKER.match(part.strip())
            ]
    return []


def read_rst_post_directive(text: str, start: int = 1) -> tuple[dict[str, Field], str, int] | None:
    """The first ``.. post::`` directive at or after line ``start`` (1-based): its fields (its
    argument as ``date``), its content, and the line (1-based) it starts on; None without one.

    The directive's block is split as docutils splits it (``parse_directive_block``), with its
    own helpers: the block is the lines indented below it, stripped of their least
    indentation; its argument runs to the first blank line or the first line that starts
    with a field marker, which begins the options; the content follows the blank line. So
    options indented more than the content are the argument's, as docutils reads them (and
    ablog then finds no date in it), and a date on the line below the directive is its
    argument."""
    lines = string2lines(text, tab_width=8, convert_whitespace=True)
    for number, line in enumerate(lines):
        if number + 1 < start:
            continue
        found = _RST_DIRECTIVE.match(line)
        if found is None or found["name"] != "post":
            continue
        arguments, options, content = _rst_directive_block(lines, number, found.start("argument"))
        fields = {}
        if arguments:
            value = " ".join(text.strip() for text, _ in arguments)
            fields["date"] = _field("date", value, arguments[0][1] + 1)
        for key, value, offset in _rst_options(options):
            fields[key] = _field(key, value, offset + 1)
        body = "\n".join(text.strip() for text, _ in content).strip()
        return fields, body, number + 1
    return None


#: A block's lines: each line's text, without the block's indentation, and its 0-based offset.
_Lines = list[tuple[str, int]]


def _rst_directive_block(
    lines: list[str], number: int, first: int
) -> tuple[_Lines, _Lines, _Lines]:
    """The argument, option and content lines of the directive at line ``number`` (0-based),
    whose argument starts at column ``first``: docutils' ``parse_directive_block`` for a
    directive with an optional argument and options (ablog's ``post``)."""
    block, _, _ = StringList(lines).get_indented(number, first_indent=first)
    entries = [(text, offset) for text, (_, offset) in zip(block.data, block.items, strict=True)]
    if entries and not entries[0][0].strip():
        entries = entries[1:]
    while entries and not entries[-1][0].strip():
        entries.pop()
    blank = next((i for i, (text, _) in enumerate(entries) if not text.strip()), len(entries))
    arguments, content = entries[:blank], entries[blank + 1 :]
    marker = next(
        (i for i, (text, _) in enumerate(arguments) if _FIELD_MARKER.match(text)), len(arguments)
    )
    return arguments[:marker], arguments[marker:], content


def _rst_options(options: _Lines) -> list[tuple[str, str, int]]:
    """Each option of an option block: its name, its value (continuation lines joined) and
    the offset of its first line."""
    read: list[tuple[str, str, int]] = []
    for text, offset in options:
        marker = _FIELD_MARKER.match(text)
        if marker is not None:
            read.append((marker.group().rstrip()[1:-1], text[marker.end() :], offset))
        elif read:
            key, value, first = read[-1]
            read[-1] = (key, f"{value} {text.strip()}", first)
    return read


def read_rst_body(text: str, fields: dict[str, Field]) -> BodyFacts:
    """The title of an rst post, and whether it has a paragraph for the excerpt."""
    lines = text.split("\n")
    title, at = rst_title(lines)
    facts = BodyFacts(title=title, title_line=at + 1 if title else 0)
    field_lines = {item.line for item in fields.values()}
    for number in range(max(at + 2, 0), len(lines)):
        line = lines[number]
        if number + 1 in field_lines or not line.strip() or line[:1].isspace():
            continue
        if line.startswith(".. ") or _RST_FIELD.match(line) or _UNDERLINE.match(line):
            continue
        if number + 1 < len(lines) and _UNDERLINE.match(lines[number + 1]):
            continue  # a later section's title
        facts.has_paragraph = True
        break
    return facts


# -- MyST -----------------------------------------------------------------------------------------


def read_myst_post_directive(text: str, start: int = 1):
    """The first ```` ```{post} ```` directive at or after line ``start`` (1-based): its
    ``:key:`` options (its argument as ``date``), whether it has content (the excerpt), the
    line (1-based) it starts on, and the 1-based lines of a ``---`` block of YAML options
    between its first and last line (or None); None without one."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if number + 1 < start:
            continue
        found = _MYST_POST.match(line)
        if found is None:
            continue
        fence = found["fence"]
        fields = {}
        if found["argument"].strip():
            fields["date"] = _field("date", found["argument"], number + 1)
        position, block = number + 1, None
        if position < len(lines) and lines[position].strip() == "---":
            end = next(
                (i for i in range(position + 1, len(lines)) if lines[i].strip() == "---"), None
            )
            if end is not None:
                block, position = (position + 2, end + 1), end + 1
        while position < len(lines):
            option = _MYST_OPTION.match(lines[position].strip())
            if option is None:
                break
            fields[option["key"]] = _field(option["key"], option["value"], position + 1)
            position += 1
        content = False
        while position < len(lines):
            closing = lines[position].strip()
            if closing and set(closing) == {fence[0]} and len(closing) >= len(fence):
                break
            content = content or bool(closing)
            position += 1
        return fields, content, number + 1, block
    return None


def with_title(body: BodyFacts, fields: dict[str, Field]) -> BodyFacts:
    """The directive's ``:title:``, when it gives one, is the post's title."""
    title = fields.get("title")
    if title is None or not str(title.value).strip():
        return body
    return replace(body, title=str(title.value).strip(), title_line=title.line)


def post_directive_lines(text: str, rst: bool) -> list[int]:
    """The 1-based lines on which a ``post`` directive starts (``.. post::`` in rst,
    ```` ```{post} ```` or ``:::{post}`` in MyST), outside MyST code fences."""
    if rst:
        return [
            number
            for number, line in enumerate(text.split("\n"), 1)
            if (match := _RST_DIRECTIVE.match(line)) is not None and match["name"] == "post"
        ]
    return [number for number, nested in _myst_post_openings(text.split("\n")) if not nested]


#: Directives whose content is text, never markup: a ``post`` directive written inside one is
#: an example shown to the reader, not a post (ablog never sees it).
LITERAL_DIRECTIVES = frozenset(
    {"code", "code-block", "code-cell", "sourcecode", "literalinclude", "raw", "math"}
    | {"parsed-literal", "highlight", "csv-table", "mermaid", "graphviz", "eval-rst"}
)
_MYST_DIRECTIVE_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}")
_RST_NESTED_POST = re.compile(r"^(?P<indent>[ \t]+)\.\. post::")


def nested_post_directive_lines(text: str, rst: bool) -> list[int]:
    """The 1-based lines of the ``post`` directives that stand inside another block whose
    content is markup (a note, a list item, a quote, a tab): the build reads them as posts
    nested in that block, which ablog cannot post. Those inside code, or inside a directive of
    :data:`LITERAL_DIRECTIVES`, are text and are left out."""
    if rst:
        return _rst_nested(text.split("\n"))
    return [number for number, nested in _myst_post_openings(text.split("\n")) if nested]


def _myst_post_openings(lines: list[str]) -> list[tuple[int, bool]]:
    """Each MyST ``post`` directive's opening line, and whether it stands inside another
    directive whose content is markup; none inside code."""
    found: list[tuple[int, bool]] = []
    open_fences: list[tuple[str, bool]] = []  # (fence, is its content markup), innermost last
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if open_fences:
            fence, markup = open_fences[-1]
            if stripped.startswith(fence) and not stripped.lstrip(fence[0]).strip():
                open_fences.pop()
                continue
            if not markup:
                continue
        directive = _MYST_DIRECTIVE_FENCE.match(line)
        if directive is not None:
            if directive["name"] == "post":
                found.append((number, bool(open_fences)))
            markup = directive["name"] not in LITERAL_DIRECTIVES
            open_fences.append((directive["fence"], markup))
        elif (marker := _FENCE.match(stripped)) is not None:
            open_fences.append((marker[1], False))  # a code block
    return found


def _rst_nested(lines: list[str]) -> list[int]:
    found: list[int] = []
    for index, line in enumerate(lines):
        match = _RST_NESTED_POST.match(line)
        if match is not None and not _in_rst_literal(lines, index, len(match["indent"])):
            found.append(index + 1)
    return found


def _in_rst_literal(lines: list[str], index: int, indent: int) -> bool:
    """Is the line ``index``, indented by ``indent``, text inside a literal block, a comment
    or a directive of :data:`LITERAL_DIRECTIVES`? Each block it stands in is the nearest line
    above that is indented less."""
    for above in reversed(lines[:index]):
        if not above.strip():
            continue
        depth = len(above) - len(above.lstrip())
        if depth >= indent:
            continue
        text = above.strip()
        directive = _RST_DIRECTIVE.match(text)
        if directive is not None and directive["name"] in LITERAL_DIRECTIVES:
            return True
        if directive is None and (text.endswith("::") or _RST_COMMENT.match(text)):
            return True
        indent = depth
        if depth == 0:
            return False
    return False


#: The options of ablog's ``post`` directive that belong to a file's post (its page's old
#: addresses), never to a section posted on its own.
FILE_ONLY_KEYS = ("redirect",)


def _headings(text: str, start: int, end: int, rst: bool) -> list[tuple[str, int]]:
    """The section titles between lines ``start`` and ``end`` (1-based, ``end`` excluded),
    with their lines, as the checks read headings (outside code blocks)."""
    lines = text.split("\n")
    found: list[tuple[str, int]] = []
    if rst:
        at = start - 1
        while True:
            title, at = rst_title(lines[: end - 1], at)
            if not title:
                return found
            found.append((title, at + 1))
            at += 2
    # From the top: only there is it known which lines are inside a code block. A heading is
    # never inside one, so each scan starts again right below the last heading found.
    first = 1
    while first < end:
        body = read_body("\n".join(lines[first - 1 : end - 1]), first)
        if not body.title:
            break
        found.append((body.title, body.title_line))
        first = body.title_line + 1
    return [(title, line) for title, line in found if line >= start]


def section_post_fields(text: str, line: int, rst: bool) -> dict[str, Field]:
    """The fields of the ``post`` directive that starts at ``line`` (a YAML block of options
    included)."""
    if rst:
        directive = read_rst_post_directive(text, line)
        return directive[0] if directive is not None else {}
    found = read_myst_post_directive(text, line)
    if found is None:
        return {}
    fields, _, _, block = found
    if block is not None:
        lines = text.split("\n")
        parsed, _ = parse_yaml("\n".join(lines[block[0] - 1 : block[1] - 1]), block[0])
        fields = {**fields, **parsed}
    return fields


def _section_posts(text: str, rst: bool, rules: Rules) -> list[Problem]:
    """Every ``post`` directive after a file's first: ablog posts the section it stands in on
    its own (listed, archived and in the feeds, leading to that section of the file's page).
    It must stand in a section of its own, below a heading after the directive before it,
    and not inside another block (a note, a list); else it is refused at its line with the
    fix. Its fields get every check a post's get,
    but those that belong to the file's page (:data:`FILE_ONLY_KEYS`)."""
    problems: list[Problem] = []
    directive_lines = post_directive_lines(text, rst)
    nested = nested_post_directive_lines(text, rst)
    # The file's first directive is its own post wherever it stands, as ablog takes it.
    first = min([*directive_lines, *nested], default=0)
    problems += [Problem(line, say("section_post_nested")) for line in nested if line > first]
    for previous, line in zip(directive_lines, directive_lines[1:], strict=False):
        headings = _headings(text, previous + 1, line, rst)
        if not headings:
            problems.append(Problem(line, say("section_post")))
            continue
        fields = section_post_fields(text, line, rst)
        for key in FILE_ONLY_KEYS:
            if key in fields:
                problems.append(Problem(fields[key].line, say("section_post_key", key=key), key))
        fields = {key: item for key, item in fields.items() if key not in FILE_ONLY_KEYS}
        title, title_line = headings[-1]
        body = with_title(BodyFacts(title=title, title_line=title_line, has_paragraph=True), fields)
        _, found = check_fields(fields, body, line, rules)
        problems += found
    return problems


# -- One entry for every text form -----------------------------------------------------------


def check_text_post(path: str, text: str, rules: Rules) -> tuple[PostFacts, list[Problem]]:
    """Check a post written as text, in whichever form ablog would read it."""
    rst = path.endswith(".rst")
    facts, problems = _check_text_post(rst, text, rules)
    problems = [*problems, *_section_posts(text, rst, rules)]
    if not rst:
        problems += myst_option_comments(text)
    return facts, sorted(problems, key=lambda p: p.line)


def myst_option_comments(text: str) -> list[Problem]:
    """Each MyST ``post`` directive whose options hold a ``#`` comment, at the line where
    MyST warns of it (the build leaves MyST's warning out there, :mod:`kb.markup.mystquiet`)."""
    lines = text.split("\n")
    problems = []
    for number, _ in _myst_post_openings(lines):
        opening = _MYST_DIRECTIVE_FENCE.match(lines[number - 1])
        if opening is None:
            continue
        fence = opening["fence"]
        content = []
        for line in lines[number:]:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.lstrip(fence[0]).strip():
                break
            content.append(line)
        index = option_comment_line(content)
        if index is not None:
            problems.append(Problem(number + 1 + index, say("option_comment")))
    return problems


def _check_text_post(rst: bool, text: str, rules: Rules) -> tuple[PostFacts, list[Problem]]:
    if rst:
        return _check_rst(text, rules)
    if not text.lstrip("\ufeff").startswith("---"):
        directive = read_myst_post_directive(text)
        if directive is not None:
            return _check_myst_directive(text, directive, rules)
    return check_post(text, rules)


def _check_rst(text: str, rules: Rules) -> tuple[PostFacts, list[Problem]]:
    fields, body_line = read_rst_fields(text)
    excerpt = ""
    directive = read_rst_post_directive(text)
    if directive is not None:
        # ablog prefers the directive when a file has both: so do the checks.
        fields, excerpt, body_line = directive
    if not fields:
        return PostFacts(), [Problem(1, say("no_front_matter_rst"))]
    body = read_rst_body(text, fields)
    if excerpt:
        body = replace(body, has_paragraph=True)
    facts, problems = check_fields(fields, with_title(body, fields), body_line, rules)
    if directive is not None:
        problems = sorted(problems + rst_options_read_as_date(text), key=lambda p: p.line)
    return facts, problems


def _check_myst_directive(text: str, directive, rules: Rules) -> tuple[PostFacts, list[Problem]]:
    fields, has_content, line, block = directive
    problems: list[Problem] = []
    lines = text.split("\n")
    if block is not None:  # options as a --- block of YAML: read as front matter is
        first, last = block
        parsed, problems = parse_yaml("\n".join(lines[first - 1 : last - 1]), first_line=first)
        fields = {**fields, **parsed}
        lines[first - 2 : last] = [""] * (last - first + 2)  # never a heading or a paragraph
    body = read_body("\n".join(lines), 1)
    if has_content:
        body = replace(body, has_paragraph=True)
    return check_fields(fields, with_title(body, fields), line, rules, problems)
