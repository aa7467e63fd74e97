"""A post's excerpt, when WordPress gave none and its text does not open with a paragraph.

kb takes a post's first paragraph as its excerpt in listings and feeds. A WordPress post
often opens with a heading, an image, a gallery or an embed, and its listing would read
"Headings" or "Image: ...". For such a post the importer writes ``description:``: the first
real paragraph (a few words of prose, not a lone link or image), else a figure's caption or an
image's alt text, else the title. A post that opens with prose needs none.
"""

from __future__ import annotations

import re

from .proof import MARKDOWN_BODIES, _parser

_DIRECTIVE = re.compile(r"^\{([\w\-+:.]+)\}")
_OPTION = re.compile(r"^:([\w-]+):\s*(.*)$")
_LIMIT = 300


def _text(inline) -> str:
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "math_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join("".join(parts).split())


def _is_prose(inline) -> bool:
    """A few words of text, not a lone link or image (the link card, "Image: ..." links)."""
    children = [c for c in inline.children or () if c.type not in ("softbreak", "hardbreak")]
    if not children or children[0].type in ("image", "link_open"):
        inside = 0
        for child in children:
            inside += {"link_open": 1, "link_close": -1}.get(child.type, 0)
            if child.type == "text" and child.content.strip() and inside == 0:
                break
        else:
            return False
    return len(_text(inline).split()) >= 3


def _cut(text: str) -> str:
    if len(text) <= _LIMIT:
        return text
    return text[:_LIMIT].rsplit(" ", 1)[0].rstrip(",;:") + " …"


def describe(markdown: str, title: str, settings: tuple = ()) -> str:
    """The description to write, or "" when the post opens with a paragraph of prose."""
    md = _parser(settings)
    tokens = md.parse(markdown)
    blocks = [t for t in tokens if t.level == 0 and t.nesting != -1]
    if blocks and blocks[0].type == "paragraph_open" and _is_prose(tokens[1]):
        return ""
    captions: list[str] = []
    for index, token in enumerate(tokens):
        paragraph = index > 0 and tokens[index - 1].type == "paragraph_open"
        if token.type == "inline" and paragraph and _is_prose(token):
            return _cut(_text(token))
        if token.type == "fence":
            found = _DIRECTIVE.match(token.info.strip())
            if found and found.group(1) in MARKDOWN_BODIES:
                captions += _captions(md, token.content)
        elif token.type == "inline":
            captions += [c.content for c in token.children or () if c.type == "image"]
            shown = _text(token)  # an image left on the old host: "Image: alt"
            captions += [shown.removeprefix("Image: ")] if shown.startswith("Image: ") else []
    captions = [" ".join(c.split()) for c in captions if c.strip()]
    return _cut(captions[0]) if captions else " ".join(title.split())


def _captions(md, body: str) -> list[str]:
    lines = body.split("\n")
    found = []
    while lines and (option := _OPTION.match(lines[0])):
        lines.pop(0)
        key, value = option.groups()
        if key == "alt":
            found.append(value.strip().strip('"'))
    inner = md.parse("\n".join(lines))
    text = [_text(t) for t in inner if t.type == "inline" and _text(t)]
    return text + found
