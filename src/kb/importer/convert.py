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
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from bs4 import BeautifulSoup, Tag
from markdownify import BACKSLASH, MarkdownConverter

from .shortcodes import Held, prepare

_IMAGE_FILE = re.compile(r"\.(png|jpe?g|gif|webp|svg|avif|bmp)$", re.I)
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang)[-:]([\w+#.-]+)$", re.I)
_ALIASES = {"plain": "text", "plaintext": "text", "c++": "cpp", "sh": "bash", "none": ""}
_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass
class Conversion:
    markdown: str
    notes: list[str] = field(default_factory=list)
    math: list[tuple[str, bool]] = field(default_factory=list)


def _is_remote(src: str) -> bool:
    return urlsplit(src).scheme in ("http", "https")


def _remote_image_link(src: str, alt: str) -> str:
    """An image that stays on the old site: a link to it, not a picture that the page would
    load from another host (which the site never does, and the build refuses)."""
    label = " ".join(alt.split()) or "image"
    return f"[Image: {label.replace(']', ')')}]({src})"


class _Converter(MarkdownConverter):
    def __init__(self, image: Callable[[str], str], link: Callable[[str], str], notes, **options):
        super().__init__(**options)
        self.image, self.link, self.notes = image, link, notes

    def escape(self, text, parent_tags):
        text = super().escape(text, parent_tags)
        # Every real formula was set aside: a dollar left in the text is money, not math.
        return re.sub(r"<(?=[A-Za-z/!?])", r"\\<", text.replace("$", r"\$"))

    def convert_img(self, el, text, parent_tags):
        src = el.get("src") or ""
        if "latex.php" in src and el.get("alt"):  # Jetpack's rendered $latex ...$
            return f"${el['alt'].strip()}$"
        if not src.strip():
            return ""
        el["src"] = self.image(src)
        if _is_remote(el["src"]):
            return _remote_image_link(el["src"], el.get("alt") or "")
        return super().convert_img(el, text, parent_tags)

    def convert_a(self, el, text, parent_tags):
        href = (el.get("href") or "").strip()
        if not href or href.startswith("#more-") or not text.strip():
            return text
        if text.strip().startswith("![") and el.find("img") and _IMAGE_FILE.search(href):
            return text  # a thumbnail linked to its full size: keep the image, drop the link
        el["href"] = self.link(href)
        return super().convert_a(el, text, parent_tags)

    def process_tag(self, node, parent_tags=None):
        # A figure is converted as a whole, before its children are (each image once).
        if node.name == "figure" or "wp-caption" in (node.get("class") or []):
            return self._figure(node, parent_tags or set())
        return super().process_tag(node, parent_tags)

    def _figure(self, el, parent_tags):
        caption = el.find(["figcaption"]) or el.find(class_="wp-caption-text")
        table, image = el.find("table"), el.find("img")
        caption_md = self.process_tag(caption, parent_tags).strip() if caption else ""
        if caption is not None:
            caption.decompose()
        if table is not None:
            body = self.process_tag(table, parent_tags).strip()
            if caption_md and "\n" not in caption_md:
                return f"\n\n```{{table}} {caption_md}\n\n{body}\n```\n\n"
            return f"\n\n{body}\n\n{caption_md}\n\n"
        if image is None or not image.get("src") or len(el.find_all("img")) > 1:
            el.name, el.attrs = "div", {}
            return f"\n\n{super().process_tag(el, parent_tags).strip()}\n\n{caption_md}\n\n"
        src = image.get("src", "")
        if "latex.php" in src:
            return f"\n\n{self.convert_img(image, '', parent_tags)}\n\n{caption_md}\n\n"
        src = self.image(src)
        alt = " ".join((image.get("alt") or "").split())
        if _is_remote(src):
            return f"\n\n{_remote_image_link(src, alt)}\n\n{caption_md}\n\n"
        options = f":alt: {alt}\n" if alt else ""
        if not caption_md:
            return f"\n\n![{alt}]({src})\n\n"
        return f"\n\n```{{figure}} {src}\n{options}\n{caption_md}\n```\n\n"

    def convert_iframe(self, el, text, parent_tags):
        src = el.get("src") or ""
        if not src:
            return ""
        self.notes.append(f"an embedded frame from {urlsplit(src).netloc or src} became a link")
        return f"\n\n<{src}>\n\n" if src.startswith("http") else ""

    def convert_td(self, el, text, parent_tags):
        return super().convert_td(el, text.replace("|", r"\|"), parent_tags)

    convert_th = convert_td

    def convert_sub(self, el, text, parent_tags):
        return f"{{sub}}`{text.strip()}`" if text.strip() else ""

    def convert_sup(self, el, text, parent_tags):
        return f"{{sup}}`{text.strip()}`" if text.strip() else ""

    def convert_form(self, el, text, parent_tags):
        self.notes.append("a form was left out")
        return ""


def to_myst(
    source: str,
    *,
    raw: bool,
    image: Callable[[str], str] = lambda src: src,
    link: Callable[[str], str] = lambda href: href,
) -> Conversion:
    """MyST Markdown for a post body. ``raw``: the HTML is as WordPress stores it (add the
    classic editor's paragraphs); ``image`` and ``link`` give each image and link its address."""
    held = Held()
    prepared = prepare(source, held, autop=raw)
    notes: list[str] = [f"unknown shortcode {name} kept as text" for name in held.unknown]
    soup = BeautifulSoup(prepared, "html.parser")
    _tidy(soup, notes)
    converter = _Converter(
        image,
        link,
        notes,
        heading_style="ATX",
        bullets="-",
        newline_style=BACKSLASH,
        table_infer_header=True,
        code_language_callback=lambda pre: _language(pre, notes),
        escape_misc=False,
    )
    markdown = held.restore(converter.convert_soup(soup))
    return Conversion(_clean(markdown), list(dict.fromkeys(notes)), held.math)


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
    """No trailing spaces, at most one blank line in a row (outside code), no % line starts
    (a MyST comment), and no transition where docutils refuses one (first or last in a
    section, or two in a row)."""
    lines, fence, blank, rules = [], "", False, []
    for line in markdown.split("\n"):
        opening = _FENCE_LINE.match(line)
        if fence:
            lines.append(line)
            if opening and opening.group(1).startswith(fence) and not line.strip()[len(fence) :]:
                fence = ""
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
        lines.append("\\" + line if line.startswith("%") else line)
    for index in reversed(rules):
        before = next((x for x in reversed(lines[:index]) if x), "")
        after = next((x for x in lines[index + 1 :] if x), "")
        if not before or not after or "#" in (before[:1], after[:1]) or "---" in (before, after):
            del lines[index]
    text = "\n".join(lines).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text) + "\n"
