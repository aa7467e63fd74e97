"""The proof that an imported post holds no markup the importer did not write on purpose.

:mod:`.escape` escapes imported text; this module checks the result the way the build will
read it: the post's Markdown is parsed by MyST's own parser (``create_md_parser``) with the
site's MyST settings and, on top of them, every syntax extension MyST has, so a post stays
inert if the site turns one on later. Every token must be one that plain prose makes
(paragraphs, emphasis, lists, links, code...) or one the converter counted as it wrote it
(:class:`Emitted`: each directive, role, formula and HTML tag, by name and number). Anything
else -- a directive, role, target, comment, block break, raw HTML, math, field or definition
list, footnote or substitution that came from the text -- is refused, with what it was.
Directive bodies that MyST parses as Markdown are proved the same way.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from functools import lru_cache

#: Every MyST extension that adds syntax (linkify needs a library and only makes links).
SYNTAX = (
    "amsmath",
    "attrs_block",
    "attrs_inline",
    "colon_fence",
    "deflist",
    "dollarmath",
    "fieldlist",
    "strikethrough",
    "substitution",
    "tasklist",
)
#: What prose is made of.
PROSE = {
    "paragraph_open",
    "paragraph_close",
    "heading_open",
    "heading_close",
    "bullet_list_open",
    "bullet_list_close",
    "ordered_list_open",
    "ordered_list_close",
    "list_item_open",
    "list_item_close",
    "blockquote_open",
    "blockquote_close",
    "hr",
    "inline",
    "text",
    "text_special",
    "softbreak",
    "hardbreak",
    "em_open",
    "em_close",
    "strong_open",
    "strong_close",
    "link_open",
    "link_close",
    "image",
    "code_inline",
    "table_open",
    "table_close",
    "thead_open",
    "thead_close",
    "tbody_open",
    "tbody_close",
    "tr_open",
    "tr_close",
    "th_open",
    "th_close",
    "td_open",
    "td_close",
}
#: Directives whose body MyST reads as Markdown (their options first).
MARKDOWN_BODIES = {"figure", "table", "list-table", "admonition", "video", "audio", "container"}
#: Of those, the directives whose argument is a path, never Markdown.
PATH_ARGUMENT = {"figure", "video", "audio"}
_DIRECTIVE = re.compile(r"^\{([\w\-+:.]+)\}\s*(.*)$")
_OPTION = re.compile(r"^:[\w-]+:")
_LANGUAGE = re.compile(r"^[\w+#.-]*$")
#: Links that run something or read a local file (markdown-it refuses most of them already).
_UNSAFE_LINK = re.compile(r"^\s*(?:javascript|vbscript|data|file):", re.I)


@dataclasses.dataclass
class Emitted:
    """What the converter wrote on purpose, counted: ("directive", name), ("role", name,
    text), ("math", tex), ("html", tag)."""

    counts: Counter = dataclasses.field(default_factory=Counter)

    def add(self, *key: str) -> None:
        if key[0] == "math":  # as MyST hands it on: lines may lose their trailing spaces
            key = ("math", " ".join(key[1].split()))
        self.counts[key] += 1


class ProofError(Exception):
    """Imported text that MyST would read as markup."""


@lru_cache(maxsize=8)
def _parser(settings: tuple):
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    fields = {field.name for field in dataclasses.fields(MdParserConfig)}
    options = {key: value for key, value in settings if key in fields}
    # linkify only makes links, and needs a library the site may not have installed.
    extensions = (set(options.pop("enable_extensions", None) or ()) - {"linkify"}) | set(SYNTAX)
    try:
        config = MdParserConfig(**options, enable_extensions=extensions)
    except (TypeError, ValueError):  # a setting MyST refuses: the build says so, not us
        config = MdParserConfig(enable_extensions=extensions)
    return create_md_parser(config, RendererHTML)


def site_settings(conf: dict) -> tuple:
    """The site's ``myst_*`` settings, as a key for the parser's cache."""
    settings = []
    for key, value in sorted(conf.items()):
        if key.startswith("myst_") and key != "myst_url_schemes":
            value = tuple(sorted(value)) if isinstance(value, list | set | tuple) else value
            try:
                hash(value)
            except TypeError:
                continue
            settings.append((key.removeprefix("myst_"), value))
    return tuple(settings)


def prove(markdown: str, emitted: Emitted, settings: tuple = ()) -> None:
    """Raise :class:`ProofError` unless every markup token of ``markdown`` was ``emitted``."""
    found: Counter = Counter()
    _walk(markdown, _parser(settings), found, depth=0)
    extra = found - emitted.counts
    if extra:
        key = sorted(extra)[0]
        raise ProofError(f"its text would become MyST markup ({_describe(key)})")
    missing = emitted.counts - found
    if missing:
        key = sorted(missing)[0]
        raise ProofError(f"the converter wrote {_describe(key)}, which MyST does not read back")


def _describe(key: tuple) -> str:
    kind, *rest = key
    shown = " ".join(" ".join(str(part).split())[:60] for part in rest)
    return f"{kind} {shown}".strip()


def _walk(markdown: str, md, found: Counter, depth: int) -> None:
    if depth > 20:
        raise ProofError("its markup is nested too deeply")
    for token in md.parse(markdown):
        _token(token, md, found, depth)
        for child in token.children or ():
            _token(child, md, found, depth)


def _token(token, md, found: Counter, depth: int) -> None:
    kind = token.type
    if kind in PROSE:
        if kind == "link_open" and _UNSAFE_LINK.match(str(token.attrGet("href") or "")):
            found["link", str(token.attrGet("href"))] += 1
        return
    if kind in ("fence", "colon_fence"):
        directive = _DIRECTIVE.match(token.info.strip())
        if directive is None:
            if kind == "colon_fence" or not _LANGUAGE.match(token.info.strip()):
                found["fence", token.info] += 1
            return
        name, argument = directive.groups()
        found["directive", name] += 1
        if name in MARKDOWN_BODIES:
            if argument and name not in PATH_ARGUMENT:
                _walk(argument, md, found, depth + 1)
            body = token.content.split("\n")
            while body and _OPTION.match(body[0]):
                body.pop(0)
            _walk("\n".join(body), md, found, depth + 1)
        return
    if kind in ("math_inline", "math_block", "math_block_label", "math_inline_double"):
        found["math", " ".join(token.content.split())] += 1
    elif kind == "myst_role":
        found["role", token.meta.get("name", ""), token.content] += 1
    elif kind == "html_inline":
        found["html", token.content] += 1
    else:
        found[kind, token.content[:60]] += 1
