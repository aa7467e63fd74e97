"""The schema of a post's front matter, and its checks: pure functions over a file's text.

No Sphinx and no build: ``kb check`` runs :func:`check_post` on files on disk, and the build
(:mod:`kb.core.validation`) runs the very same function on each post it reads, so the two never
disagree. Every problem carries the line of the key at fault (``posts/2025/x.md:3: ...``);
the wording lives in :mod:`kb.checks.messages`.

ablog 0.11 is lenient where it should not be (each seen in ablog 0.11.13): it reads
``category`` and ``author`` as comma strings and makes a bogus collection of a YAML list, crashes
on a date with a time zone or one it cannot parse, and crashes on ``nocomments: true``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from datetime import date
from difflib import get_close_matches
from urllib.parse import urlsplit

import yaml

from .dates import date_errors, day_of
from .messages import say
from .model import Field, PostFacts, Problem, Rules
from .postbody import BodyFacts, read_body
from .redirects import redirect_instead, redirect_problem
from .slugs import slugify

#: Keys a post may use: ablog's, ours, Sphinx's and MyST's. An unknown key close to one of
#: these is reported as a likely typo; any other key is left alone.
KNOWN_KEYS = (
    *("blogpost", "date", "updated", "category", "tags", "author", "description", "series"),
    *("part", "external_link", "image", "language", "location", "redirect", "canonical_link"),
    *("excerpt", "exclude", "nocomments", "title", "orphan", "nosearch", "tocdepth", "myst"),
    "source_id",  # where kb import found the post (a WordPress guid), so it never imports it twice
    # Notebooks (checks/notebook.py): Jupyter's and jupytext's keys, MyST-NB's, kb's opt-in run.
    *("kernelspec", "language_info", "jupytext", "file_format", "mystnb", "widgets", "kb_execute"),
)
#: Keys whose bad values ablog misreads or crashes on (or, for ``redirect``, writes a page
#: anywhere with): the build drops them after reporting.
ABLOG_KEYS = frozenset(
    {"date", "category", "author", "tags", "nocomments", "external_link", "redirect"}
    | {"excerpt", "image"}
)

#: MyST reads front matter with PyYAML's own parser (``yaml.safe_load``). libyaml's is ten times
#: faster and reads the same text the same way, except around tabs and Unicode line breaks,
#: which libyaml accepts where MyST does not: front matter with one of those takes MyST's
#: parser, so that kb check and the build reach the same verdict.
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FAST_DIFFERS = re.compile("[\t\x85\u2028\u2029\ud800-\udfff]")


# -- Reading --------------------------------------------------------------------------------------


def decode_source(data: bytes) -> tuple[str, list[Problem]]:
    """A file's text as Sphinx reads it (UTF-8, with or without a byte-order mark), or why not."""
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        byte = f"0x{data[error.start]:02X}"
        return "", [Problem(1, say("not_utf8", byte=byte, line=line))]


def read_front_matter(text: str) -> tuple[dict[str, Field], int, list[Problem]]:
    """The fields with their lines, the line the body starts on, and reading problems."""
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, 1, [Problem(1, say("no_front_matter"))]
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, 1, [Problem(1, say("unclosed"))]
    fields, problems = parse_yaml("\n".join(lines[1:end]), first_line=2)
    return fields, end + 2, problems


def unreadable_front_matter(text: str) -> range | None:
    """The lines (0-based) of a front matter that MyST cannot read as ``key: value`` pairs,
    None when it can (or there is none).

    MyST then drops the whole front matter with a vague "Malformed YAML" (or "YAML is not a
    dict") at line 1; :func:`check_post` says what is wrong at the line at fault.
    """
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return None
    fields, _ = parse_yaml("\n".join(lines[1:end]), first_line=2)
    if fields and not any(item.error for item in fields.values()):
        return None
    return range(1, end)


def parse_yaml(
    source: str, first_line: int, loader_class=None
) -> tuple[dict[str, Field], list[Problem]]:
    if loader_class is None:
        loader_class = yaml.SafeLoader if _FAST_DIFFERS.search(source) else _FAST_LOADER
    deep = _too_deep(source, first_line, loader_class)
    if deep is not None:
        return {}, [Problem(deep, say("yaml_deep", most=MAX_NESTING))]
    loader = loader_class(source)
    try:
        root = loader.get_single_node()
        if root is not None and not isinstance(root, yaml.MappingNode):
            return {}, [Problem(first_line, say("not_mapping"))]
        fields: dict[str, Field] = {}
        problems = []
        seen: set[int] = set()  # the nodes of the values so far: an alias repeats one
        for key_node, value_node in root.value if root else ():
            line = first_line + key_node.start_mark.line
            if not isinstance(key_node, yaml.ScalarNode):
                # A list or mapping as a key (`? [a, b]`): MyST's YAML cannot make a dict of
                # it and drops the whole front matter.
                return {}, [Problem(line, say("key_not_name"))]
            key = str(key_node.value)
            if key in fields:
                problems.append(
                    Problem(line, say("twice", key=key, first=fields[key].line, line=line), key)
                )
            raw = value_node.value if isinstance(value_node, yaml.ScalarNode) else ""
            if _repeats(value_node, seen):
                fields[key] = Field(None, line, raw, ALIASED)
                continue
            try:
                fields[key] = Field(loader.construct_object(value_node, deep=True), line, raw)
            except (ValueError, yaml.YAMLError) as error:
                fields[key] = Field(None, line, raw, str(error).split("\n")[0])
        return fields, problems
    except yaml.YAMLError as error:
        if loader_class is not yaml.SafeLoader:
            # libyaml words its errors its own way: PyYAML's parser says the same everywhere.
            return parse_yaml(source, first_line, yaml.SafeLoader)
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        line = first_line + (mark.line if mark else 0)
        if "\t" in problem or "'\\t'" in problem or " tab " in problem:
            return {}, [Problem(line, say("yaml_tab"))]
        return {}, [Problem(line, say("bad_yaml", problem=problem))]
    finally:
        loader.dispose()


#: How deeply front matter may nest: a post needs two or three levels. PyYAML builds values
#: by recursion, which a few hundred levels end in a RecursionError at a depth that depends on
#: the caller's stack: refused well before, by a walk of the parser's events, which is flat.
MAX_NESTING = 50
_NESTING_CHARACTERS = re.compile(r"[\[{\-\n]")


def _too_deep(source: str, first_line: int, loader_class) -> int | None:
    """The line of the top-level key whose value nests deeper than :data:`MAX_NESTING`."""
    if len(_NESTING_CHARACTERS.findall(source)) <= MAX_NESTING:
        return None  # fewer brackets, dashes and lines than levels: cannot be that deep
    depth, key_line = 0, first_line
    try:
        for event in yaml.parse(source, Loader=loader_class):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_NESTING + 1:  # the front matter itself is one level
                    return key_line
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif depth == 1 and isinstance(event, yaml.ScalarEvent):
                key_line = first_line + event.start_mark.line
    except yaml.YAMLError:
        return None  # reported by the reading itself
    return None


#: A value that repeats another through a YAML alias (``*name``): never built, never expanded.
#: Ten lines of aliases make a value of billions of items ("billion laughs"), which MyST
#: refuses at the build (without a line), so kb refuses every alias, at its line, everywhere.
ALIASED = "repeats another value with a YAML alias"


def _repeats(node, seen: set[int]) -> bool:
    """Whether ``node`` holds a node met before (what an alias ``*name`` is to the parser);
    walked with a list, so neither depth nor size can break the walk."""
    pending = [node]
    while pending:
        item = pending.pop()
        if id(item) in seen:
            return True
        seen.add(id(item))
        if isinstance(item, yaml.SequenceNode):
            pending.extend(item.value)
        elif isinstance(item, yaml.MappingNode):
            pending.extend(part for pair in item.value for part in pair)
    return False


# -- Checking one post ----------------------------------------------------------------------------


def check_post(text: str, rules: Rules) -> tuple[PostFacts, list[Problem]]:
    """Check one post's source: what the checks across posts need, and the problems found."""
    fields, body_line, problems = read_front_matter(text)
    return check_fields(fields, read_body(text, body_line), body_line, rules, problems)


def check_fields(
    fields: dict[str, Field], body: BodyFacts, body_line: int, rules: Rules, problems=()
) -> tuple[PostFacts, list[Problem]]:
    """The checks of :func:`check_post` on front matter already read, and its body's facts
    (a notebook's metadata and markdown cells: :mod:`.notebook`)."""
    problems = list(problems)
    unreadable = bool(problems) and not fields  # no front matter, or none that YAML can read
    facts = PostFacts(title=body.title, title_line=body.title_line or body_line, links=body.links)
    if not body.title:
        problems.append(Problem(body_line, say("no_title")))
    elif "description" not in fields and not body.has_paragraph:
        problems.append(Problem(body.title_line, say("no_excerpt")))
    if unreadable:
        return facts, problems
    for key, item in fields.items():
        if item.error == ALIASED:
            problems.append(Problem(item.line, say("yaml_alias", key=key), key))
            continue
        if item.error and key not in ("date", "updated"):
            # A value YAML cannot build (say `!!binary x`): MyST drops the whole front matter.
            problems.append(Problem(item.line, say("bad_yaml", problem=item.error), key))
            continue
        check = _KEY_CHECKS.get(key, _check_typo)
        problems += [Problem(item.line, message, key) for message in check(item, rules, key)]
    problems += _check_date(fields.get("date"), rules, facts)
    problems += _check_updated(fields, rules, facts)
    problems += _check_series(fields, facts)
    tags = fields.get("tags")
    if tags is not None and not any(p.key == "tags" for p in problems):
        facts.tags, facts.tags_line = _names(tags.value), tags.line
    redirect = fields.get("redirect")
    if redirect is not None and not any(p.key == "redirect" for p in problems):
        facts.redirects, facts.redirect_line = _names(redirect.value), redirect.line
    return facts, sorted(problems, key=lambda p: p.line)


def _names(value) -> list[str]:
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    return [str(name) for name in value]


def _check_names(item: Field, rules: Rules, key: str) -> list[str]:
    """``category`` and ``author``: comma strings of names the site knows."""
    if isinstance(item.value, list):
        names = ", ".join(str(v) for v in item.value)
        return [say("yaml_list", key=key, shown=json.dumps(item.value), names=names)]
    if item.is_empty or not isinstance(item.value, str):
        return [say("empty_names", key=key)]
    allowed = rules.categories if key == "category" else rules.authors
    unknown = [n for n in _names(item.value) if allowed and n not in allowed]
    kind = f"unknown_{key}"
    return [say(kind, name=n, hint=_hint(n, allowed), allowed=", ".join(allowed)) for n in unknown]


def _hint(name: str, choices) -> str:
    folded = {c.casefold(): c for c in choices}
    guess = folded.get(name.casefold()) or next(iter(get_close_matches(name, choices, 1, 0.6)), "")
    return f' (did you mean "{guess}"?)' if guess else ""


def _mangled_by_ablog(tag: str, listed: bool) -> bool:
    """Would ablog split or strip this tag? A YAML list reaches ablog as MyST's JSON text,
    which escapes quotes and non-ASCII; a comma string is split on commas and each tag
    loses the quotes and brackets at its ends."""
    if "," in tag or tag[:1] in "\"'[" or tag[-1:] in "\"']":
        return True
    return listed and ('"' in tag or "\\" in tag or not tag.isascii())


def _check_tags(item: Field, rules: Rules, key: str) -> list[str]:

    value = _names(item.value) if isinstance(item.value, str) and item.value.strip() else item.value
    if not isinstance(value, list):
        return [say("tags_not_list")]
    problems = []
    for position, tag in enumerate(value, start=1):
        if tag is None:
            problems.append(say("tag_empty", position=position))
        elif isinstance(tag, bool):
            problems.append(say("tag_value", position=position, shown=json.dumps(tag)))
        elif isinstance(tag, (list, dict)):
            problems.append(say("tag_nested", position=position))
        elif _mangled_by_ablog(str(tag), listed=not isinstance(item.value, str)):
            problems.append(say("tag_marks", tag=tag))
        elif not has_slug(str(tag)):
            problems.append(say("tag_no_slug", tag=tag))
    return problems


def has_slug(name: str) -> bool:
    """Whether ``name`` gives a page a real name: a slug of more than hyphens and underscores."""
    return bool(slugify(name).strip("-_"))


def _check_external_link(item: Field, rules: Rules, key: str) -> list[str]:
    value = item.value if isinstance(item.value, str) else ""
    if value.strip() and value != value.strip():
        return [say("external_spaces", shown=value, stripped=value.strip())]
    parts = urlsplit(value)
    ok = parts.scheme in ("http", "https") and parts.netloc and not _has_space_or_control(value)
    return [] if ok else [say("external_link", shown=item.shown)]


def _has_space_or_control(text: str) -> bool:
    return any(c.isspace() or unicodedata.category(c) == "Cc" for c in text)


def _check_redirect(item: Field, rules: Rules, key: str) -> list[str]:
    """ablog reads ``redirect`` as a comma-separated string of old addresses."""
    if item.is_empty:
        return [say("redirect_empty")]
    if not isinstance(item.value, str):
        return [say("redirect_not_text")]
    problems = []
    for name in (name.strip() for name in item.value.split(",")):
        reason = redirect_problem(name)
        if reason:
            instead = redirect_instead(name)
            problems.append(say("redirect_bad", name=name, reason=reason, instead=instead))
    return problems


def _check_description(item: Field, rules: Rules, key: str) -> list[str]:
    if item.is_empty:
        return [say("empty_description")]
    return [] if isinstance(item.value, (str, int, float)) else [say("description_not_text")]


def _check_blogpost(item: Field, rules: Rules, key: str) -> list[str]:
    return [] if item.value is True else [say("blogpost", shown=item.shown)]


def _check_nocomments(item: Field, rules: Rules, key: str) -> list[str]:
    return [say("nocomments")]


def _check_typo(item: Field, rules: Rules, key: str) -> list[str]:
    if key in KNOWN_KEYS:
        return []
    return [
        say("typo", key=key, guess=guess) for guess in get_close_matches(key, KNOWN_KEYS, 1, 0.8)
    ]


def _check_date(item: Field | None, rules: Rules, facts: PostFacts) -> list[Problem]:
    if item is None:
        facts.undated = True
        return [Problem(1, say("no_date"), "date", "draft")]
    errors = date_errors(item, date_format=rules.date_format)
    if errors:
        return [Problem(item.line, errors[0], "date")]
    day = day_of(item, rules.date_format)
    facts.date = day.isoformat()
    if rules.today and day > rules.today:
        message = say("scheduled", day=day.isoformat(), today=rules.today.isoformat())
        return [Problem(item.line, message, "date", "scheduled")]
    return []


def _check_updated(fields: dict[str, Field], rules: Rules, facts: PostFacts) -> list[Problem]:
    """An ``updated`` before the post's date is a mistake; one after today is not true yet.

    The build ignores an ``updated`` after its day (the same rule as a future ``date``), so
    no feed is dated 2099; kb check says so, as a warning.
    """
    item = fields.get("updated")
    if item is None or date_errors(item, "updated", rules.date_format):
        return []
    day, shown = day_of(item, rules.date_format), item.shown.strip()
    if facts.date and day < date.fromisoformat(facts.date):
        return [Problem(item.line, say("updated_early", shown=shown, day=facts.date), "updated")]
    if rules.today and day > rules.today:
        message = say("updated_future", shown=shown, today=rules.today.isoformat())
        return [Problem(item.line, message, "updated", "warning")]
    return []


def _check_series(fields: dict[str, Field], facts: PostFacts) -> list[Problem]:
    series, part = fields.get("series"), fields.get("part")
    problems = []
    if series is not None and isinstance(series.value, str) and series.value.strip():
        if has_slug(series.value):
            facts.series, facts.series_line = series.value.strip(), series.line
        else:
            message = say("series_no_slug", series=series.value.strip())
            problems.append(Problem(series.line, message, "series"))
    elif series is not None:
        problems.append(Problem(series.line, say("series_not_name"), "series"))
    if part is None:
        return problems
    value = part.value
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if value == "supplement" or (type(value) is int and value > 0):
        facts.part, facts.part_line = str(value), part.line
    else:
        problems.append(Problem(part.line, say("bad_part", shown=part.shown), "part"))
    if series is None:
        problems.append(Problem(part.line, say("part_alone"), "part"))
    return problems


def _check_count(item: Field, rules: Rules, key: str) -> list[str]:
    """ablog's ``excerpt`` and ``image`` are numbers (paragraphs, which picture): it crashes
    on anything else, such as the path that ``image`` means on other blogs."""
    value = item.value
    if (type(value) is int and value >= 0) or (isinstance(value, str) and value.strip().isdigit()):
        return []
    return [say(f"{key}_not_count", shown=item.shown.strip())]


_KEY_CHECKS = {
    "blogpost": _check_blogpost,
    "category": _check_names,
    "author": _check_names,
    "tags": _check_tags,
    "external_link": _check_external_link,
    "redirect": _check_redirect,
    "description": _check_description,
    "nocomments": _check_nocomments,
    "excerpt": _check_count,
    "image": _check_count,
    "updated": lambda item, rules, key: date_errors(item, key, rules.date_format),
    "date": lambda item, rules, key: [],  # with the scheduled test, in _check_date
}
