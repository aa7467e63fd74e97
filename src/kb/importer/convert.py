"""WordPress HTML to MyST Markdown.

The converter is markdownify (1.2), chosen by measuring three converters on WordPress HTML
(block-editor and classic posts: headings, emphasis, links, inline code, ``<pre><code
class="language-x">``, tables with and without ``<thead>``, nested and ordered lists, images
with captions, quotes, line breaks, math): each output was rendered back to HTML with
markdown-it (CommonMark + tables + dollar math, as MyST reads it) and 32 features checked.
With math set aside as :mod:`.shortcodes` does, markdownify kept 32/32, pandoc 3.9 (through
pypandoc-binary, a 155 MB binary) 31/32 -- it takes ``wp-block-code`` for the language of a
block-editor code block -- and html2text 29/32 -- no language on code blocks (indented
blocks instead of fences) and no header row for a table with a caption. Without math set
aside every converter mangled it (markdownify escapes ``_`` and ``*`` inside ``$...$``), which
is why math never reaches the converter. markdownify is pure Python on BeautifulSoup, and
its per-element methods let us write MyST's own constructs: ``{figure}`` for an image with a
caption, ``{table}`` for a captioned table, ``{sub}``/``{sup}``.

The converter itself is in :mod:`.inline` and :mod:`.blocks`; this module runs it on a post
(:func:`to_myst`), with WordPress's markup set aside first (:mod:`.shortcodes`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from bs4 import BeautifulSoup, Tag
from markdownify import BACKSLASH

from .blocks import Converter
from .inline import ImageAddress, breaks, raw_text, same_address
from .proof import Emitted
from .shortcodes import Held, prepare

__all__ = ["Conversion", "ConversionError", "raw_text", "to_myst"]

_LANGUAGE_CLASS = re.compile(r"^(?:language|lang)[-:]([\w+#.-]+)$", re.I)
_ALIASES = {"plain": "text", "plaintext": "text", "c++": "cpp", "sh": "bash", "none": ""}
_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")


class ConversionError(Exception):
    """HTML the converter cannot turn into a post that shows it as text."""


@dataclass
class Conversion:
    markdown: str
    notes: list[str] = field(default_factory=list)
    math: list[tuple[str, bool]] = field(default_factory=list)
    emitted: Emitted = field(default_factory=Emitted)


def to_myst(
    source: str,
    *,
    raw: bool,
    image: ImageAddress = same_address,
    link: Callable[[str], str] = lambda href: href,
    gallery: Callable[[dict], str] | None = None,
) -> Conversion:
    """MyST Markdown for a post body. ``raw``: the HTML is as WordPress stores it (add the
    classic editor's paragraphs); ``image`` and ``link`` give each image and link its address;
    ``gallery`` gives the HTML of a ``[gallery]`` from its attributes."""
    held = Held(source)
    prepared = prepare(source, held, autop=raw, gallery=gallery)
    notes: list[str] = [f"unknown shortcode {name} kept as text" for name in held.unknown]
    soup = BeautifulSoup(prepared, "html.parser")
    _tidy(soup, notes)
    converter = Converter(
        image,
        link,
        notes,
        heading_style="ATX",
        bullets="-",
        newline_style=BACKSLASH,
        code_language_callback=lambda pre: _language(pre, notes),
        escape_misc=False,
    )
    converter.held = held
    markdown = held.restore(converter.convert_soup(soup))
    if held.leftover(markdown):
        raise ConversionError("a placeholder of the converter was left in the text")
    for tex in held.restored:
        converter.emitted.add("math", tex)
    return Conversion(_clean(markdown), list(dict.fromkeys(notes)), held.math, converter.emitted)


def _tidy(soup: BeautifulSoup, notes: list[str]) -> None:
    """Headings start at ``##`` and never skip a level (the ``#`` title is the post's);
    scripts and styles go, and are reported."""
    for element in soup.find_all(["script", "style", "noscript"]):
        notes.append(f"a <{element.name}> was left out")
        element.decompose()
    previous = 1
    for heading in soup.find_all(re.compile(r"^h[1-6]$")):
        if not heading.get_text(strip=True):
            heading.decompose()  # an empty heading: MyST would make an empty section
            continue
        level = min(
            int(heading.name[1]) + 1 if heading.name == "h1" else int(heading.name[1]), previous + 1
        )
        heading.name, previous = f"h{max(level, 2)}", max(level, 2)


def _language(pre: Tag, notes: list[str]) -> str:
    classes = [*(pre.get("class") or [])]
    code = pre.find("code")
    if code is not None:
        classes += code.get("class") or []
    raw = " ".join(pre.get("class") or [])
    language = ""
    brush = re.search(r"(?:brush|lang)\s*:\s*([\w+#.-]+)", raw)
    for name in classes:
        found = _LANGUAGE_CLASS.match(name)
        if found:
            language = found.group(1)
    language = (language or (brush.group(1) if brush else "")).lower()
    language = _ALIASES.get(language, language)
    if language and not _lexes(language, pre.get_text()):
        notes.append(f"code in {language} that Pygments cannot highlight kept without a language")
        return ""
    return language


def _lexes(language: str, code: str) -> bool:
    """Would Sphinx highlight this code without a warning? (It warns on a lexing error.)"""
    # The site's own lexer (kb.markup.highlighting) takes what Pygments' refuses.
    if language == "ptx":
        return True
    from pygments.filters import ErrorToken
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:
        return False
    lexer.add_filter("raiseonerror")
    try:
        for _ in lexer.get_tokens(code):
            pass
    except ErrorToken:
        return False
    return True


def _clean(markdown: str) -> str:
    """No trailing spaces, at most one blank line in a row (outside code and math), and no
    transition where docutils refuses one (first or last in a section, or two in a row)."""
    lines, fence, math, blank, rules, prose = [], "", False, False, [], set()
    for line in markdown.split("\n"):
        opening = _FENCE_LINE.match(line)
        if fence:
            lines.append(line)
            if opening and opening.group(1).startswith(fence) and not line.strip()[len(fence) :]:
                fence = ""
            continue
        if math or line.strip() == "$$":
            math = math != (line.strip() == "$$")
            lines.append(line.rstrip() if line.strip() == "$$" else line)
            continue
        if opening:
            fence = opening.group(1)
        line = line.rstrip()
        if not line:
            if not blank:
                lines.append("")
            blank = True
            continue
        blank = False
        if line == "---":
            rules.append(len(lines))
        prose.add(len(lines))
        lines.append(line)
    for index in sorted(prose):  # a line break that ends a block shows as a "\\"
        line = lines[index]
        ends = index + 1 == len(lines) or index + 1 not in prose
        if ends and breaks(line):
            lines[index] = line[:-1].rstrip()
            if not lines[index].strip(" >"):
                lines[index] = ""
    for index in reversed(rules):
        before = next((x for x in reversed(lines[:index]) if x), "")
        after = next((x for x in lines[index + 1 :] if x), "")
        if not before or not after or "#" in (before[:1], after[:1]) or "---" in (before, after):
            del lines[index]
    text = "\n".join(lines).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text) + "\n"
