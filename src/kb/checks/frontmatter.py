"""The schema of a post's front matter, and its checks: pure functions over a file's text.

No Sphinx and no build: ``kb check`` runs :func:`check_post` on files on disk, and the build
(:mod:`kb.validation`) runs the very same function on each post it reads, so the two never
disagree. Every problem carries the line of the key at fault (``posts/2025/x.md:3: ...``);
the wording lives in :mod:`kb.messages`.

ablog 0.11 is lenient where it should not be (``shared/research/ablog.md``): it reads
``category`` and ``author`` as comma strings and makes a bogus collection of a YAML list, crashes
on a date with a time zone or one it cannot parse, and crashes on ``nocomments: true``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from difflib import get_close_matches
from urllib.parse import urlsplit

import yaml

from .messages import say
from .postbody import BodyFacts, read_body
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
#: Keys whose bad values ablog misreads or crashes on: the build drops them after reporting.
ABLOG_KEYS = frozenset({"date", "category", "author", "tags", "nocomments", "external_link"})

#: libyaml's parser when PyYAML has it: faster, with the same line marks.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{1,2}:\d{2}(:\d{2})?)?")
_ZONE = re.compile(r"\d[T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)$", re.I)


@dataclass(frozen=True)
class Rules:
    """What the site allows, from its conf.py (``kb_categories``, ``blog_authors``)."""

    categories: tuple[str, ...]
    authors: tuple[str, ...] = ()  # empty: the site names no authors, so any name goes
    today: date | None = None  # posts dated later are scheduled; None skips that test


@dataclass(frozen=True)
class Problem:
    line: int
    message: str
    key: str = ""  # the front-matter key at fault, if any
    level: str = "error"  # or "scheduled": a future date, reported but no error

    @property
    def is_error(self) -> bool:
        return self.level == "error"


@dataclass
class Field:
    value: object
    line: int
    raw: str = ""  # the text as written, for a scalar
    error: str = ""  # why YAML could not build the value (an impossible date)

    @property
    def shown(self) -> str:
        return self.raw or json.dumps(self.value, default=str)

    @property
    def is_empty(self) -> bool:
        return self.value is None or (isinstance(self.value, str) and not self.value.strip())


@dataclass
class PostFacts:
    """What the checks across posts (:mod:`kb.sitechecks`) need to know about one post."""

    title: str = ""
    title_line: int = 1
    date: str = ""  # YYYY-MM-DD when valid: of two clashing posts, the older keeps its claim
    tags: list[str] = field(default_factory=list)
    tags_line: int = 1
    series: str = ""
    part: str = ""
    part_line: int = 1
    links: list[tuple[str, int]] = field(default_factory=list)


# -- Reading --------------------------------------------------------------------------------------


def read_front_matter(text: str) -> tuple[dict[str, Field], int, list[Problem]]:
    """The fields with their lines, the line the body starts on, and reading problems."""
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, 1, [Problem(1, say("no_front_matter"))]
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, 1, [Problem(1, say("unclosed"))]
    fields, problems = _parse_yaml("\n".join(lines[1:end]), first_line=2)
    return fields, end + 2, problems


def _parse_yaml(
    source: str, first_line: int, loader_class=_LOADER
) -> tuple[dict[str, Field], list[Problem]]:
    loader = loader_class(source)
    try:
        root = loader.get_single_node()
        if root is not None and not isinstance(root, yaml.MappingNode):
            return {}, [Problem(first_line, say("not_mapping"))]
        fields: dict[str, Field] = {}
        problems = []
        for key_node, value_node in root.value if root else ():
            key, line = str(key_node.value), first_line + key_node.start_mark.line
            if key in fields:
                problems.append(
                    Problem(line, say("twice", key=key, first=fields[key].line, line=line), key)
                )
            raw = value_node.value if isinstance(value_node, yaml.ScalarNode) else ""
            try:
                fields[key] = Field(loader.construct_object(value_node, deep=True), line, raw)
            except (ValueError, yaml.YAMLError) as error:
                fields[key] = Field(None, line, raw, str(error).split("\n")[0])
        return fields, problems
    except yaml.YAMLError as error:
        if loader_class is not yaml.SafeLoader:
            # libyaml words its errors its own way: PyYAML's parser says the same everywhere.
            return _parse_yaml(source, first_line, yaml.SafeLoader)
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        return {}, [
            Problem(first_line + (mark.line if mark else 0), say("bad_yaml", problem=problem))
        ]
    finally:
        loader.dispose()


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
    facts = PostFacts(title=body.title, title_line=body.title_line or body_line, links=body.links)
    if not body.title:
        problems.append(Problem(body_line, say("no_title")))
    elif "description" not in fields and not body.has_paragraph:
        problems.append(Problem(body.title_line, say("no_excerpt")))
    if not fields:
        return facts, problems
    for key, item in fields.items():
        check = _KEY_CHECKS.get(key, _check_typo)
        problems += [Problem(item.line, message, key) for message in check(item, rules, key)]
    problems += _check_date(fields.get("date"), rules, facts)
    problems += _check_series(fields, facts)
    tags = fields.get("tags")
    if tags is not None and not any(p.key == "tags" for p in problems):
        facts.tags, facts.tags_line = _names(tags.value), tags.line
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
        elif not slugify(str(tag)):
            problems.append(say("tag_no_slug", tag=tag))
    return problems


def _check_external_link(item: Field, rules: Rules, key: str) -> list[str]:
    parts = urlsplit(item.value.strip() if isinstance(item.value, str) else "")
    ok = parts.scheme in ("http", "https") and parts.netloc
    return [] if ok else [say("external_link", shown=item.shown)]


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


def date_errors(item: Field, key: str = "date") -> list[str]:
    """Why a ``date`` or ``updated`` value would not work, if it would not."""
    if item.error:
        return [say("not_a_day", key=key, shown=item.shown, reason=item.error)]
    value, shown = item.value, item.shown.strip()
    if (isinstance(value, datetime) and value.tzinfo is not None) or _ZONE.search(shown):
        return [say("zone", key=key, shown=shown, day=shown[:10])]
    if isinstance(value, date):
        return []
    if item.is_empty:
        return [say("empty_date", key=key)]
    if not _ISO_DAY.fullmatch(str(value).strip()):
        return [say("not_a_date", key=key, shown=str(value).strip())]
    try:
        date.fromisoformat(shown[:10])
    except ValueError as error:
        return [say("not_a_day", key=key, shown=shown, reason=error)]
    return []


def _check_date(item: Field | None, rules: Rules, facts: PostFacts) -> list[Problem]:
    if item is None:
        return [Problem(1, say("no_date"), "date")]
    errors = date_errors(item)
    if errors:
        return [Problem(item.line, errors[0], "date")]
    value = item.value
    day = value.date() if isinstance(value, datetime) else value
    day = day if isinstance(day, date) else date.fromisoformat(str(value).strip()[:10])
    facts.date = day.isoformat()
    if rules.today and day > rules.today:
        message = say("scheduled", day=day.isoformat(), today=rules.today.isoformat())
        return [Problem(item.line, message, "date", "scheduled")]
    return []


def _check_series(fields: dict[str, Field], facts: PostFacts) -> list[Problem]:
    series, part = fields.get("series"), fields.get("part")
    problems = []
    if series is not None and isinstance(series.value, str) and series.value.strip():
        facts.series = series.value.strip()
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


_KEY_CHECKS = {
    "blogpost": _check_blogpost,
    "category": _check_names,
    "author": _check_names,
    "tags": _check_tags,
    "external_link": _check_external_link,
    "description": _check_description,
    "nocomments": _check_nocomments,
    "updated": lambda item, rules, key: date_errors(item, key),
    "date": lambda item, rules, key: [],  # with the scheduled test, in _check_date
}
