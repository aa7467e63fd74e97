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

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import CData, PreformattedString
from markdownify import BACKSLASH, MarkdownConverter

from . import escape, media
from .proof import Emitted
from .shortcodes import Held, prepare

_IMAGE_FILE = re.compile(r"\.(png|jpe?g|gif|webp|svg|avif|bmp)$", re.I)
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang)[-:]([\w+#.-]+)$", re.I)
_ALIASES = {"plain": "text", "plaintext": "text", "c++": "cpp", "sh": "bash", "none": ""}
_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")
#: Where a display formula may stand as a block of its own.
_BLOCK_PARENTS = {"[document]", "p", "div", "section", "article", "body", "blockquote", "li",
                  "figure", "figcaption", "header", "footer", "main", "aside"}  # fmt: skip
_INLINE_PARENTS = {"td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "a", "dt"}


class ConversionError(Exception):
    """HTML the converter cannot turn into a post that shows it as text."""


@dataclass
class Conversion:
    markdown: str
    notes: list[str] = field(default_factory=list)
    math: list[tuple[str, bool]] = field(default_factory=list)
    emitted: Emitted = field(default_factory=Emitted)


def _is_remote(src: str) -> bool:
    return urlsplit(src).scheme in ("http", "https")


def _alt(el: Tag) -> str:
    return " ".join(str(el.get("alt") or "").split())


def _remote_image_link(src: str, alt: str) -> str:
    """An image that stays on the old site: a link to it, not a picture that the page would
    load from another host (which the site never does, and the build refuses)."""
    return f"[Image: {escape.text(alt or 'image')}]({escape.url(src)})"


def raw_text(el: Tag) -> str:
    """The text of ``el`` as a browser shows it in ``<pre>``: ``<br>`` is a line break."""
    parts = []
    for node in el.descendants:
        if isinstance(node, NavigableString) and (
            isinstance(node, CData) or not isinstance(node, PreformattedString)
        ):
            if node.parent is not None and node.parent.name in ("script", "style"):
                continue
            parts.append(str(node))
        elif isinstance(node, Tag) and node.name == "br":
            parts.append("\n")
    return "".join(parts)


class _Converter(MarkdownConverter):
    def __init__(self, image: Callable[[str], str], link: Callable[[str], str], notes, **options):
        super().__init__(**options)
        self.image, self.link, self.notes = image, link, notes
        self.emitted = Emitted()
        self.held: Held | None = None

    # -- text ---------------------------------------------------------------------------------

    def escape(self, text, parent_tags):
        # Every real formula was set aside: a dollar left in the text is money, not math.
        return escape.text(text) if text else ""

    def process_text(self, el, parent_tags=None):
        if self.held is not None and set(parent_tags or ()) - _BLOCK_PARENTS:
            for found in self.held.token.finditer(str(el)):
                self.held.inline.add(int(found.group(1)))  # a formula inside a link, ...
        text = super().process_text(el, parent_tags)
        after = el.previous_sibling
        return text.lstrip(" ") if isinstance(after, Tag) and after.name == "br" else text

    def directive(self, name: str, argument: str, body: str) -> str:
        self.emitted.add("directive", name)
        return "\n\n" + escape.fence(body, f"{{{name}}}" + (f" {argument}" if argument else ""))

    def role(self, name: str, text: str) -> str:
        content = escape.role_text(text)
        if content is None:
            return escape.text(" ".join(text.split()))
        self.emitted.add("role", name, content)
        return f"{{{name}}}`{content}`"

    # -- code -----------------------------------------------------------------------------------

    def convert_pre(self, el, text, parent_tags):
        code = raw_text(el).strip("\n")
        if not code.strip():
            return ""
        language = self.options["code_language_callback"](el) or ""
        return f"\n\n{escape.fence(code, language)}\n\n"

    def convert_code(self, el, text, parent_tags):
        if "_noformat" in parent_tags:
            return text
        code = raw_text(el)
        if "\n" in code.strip("\n") and not (_INLINE_PARENTS & set(parent_tags)):
            return self.convert_pre(el, text, parent_tags)  # a classic editor's code listing
        code = " ".join(code.split()) if not code.strip(" ") else code.strip("\n")
        return escape.code_span(code) if code.strip() else ""

    convert_kbd = convert_samp = convert_tt = convert_code

    def convert_br(self, el, text, parent_tags):
        if "pre" in parent_tags:
            return "\n"
        return super().convert_br(el, text, parent_tags)

    # -- inline ---------------------------------------------------------------------------------

    def _html_around(self, tag: str, text: str) -> str:
        inner = text.strip()
        if not inner:
            return ""
        self.emitted.add("html", f"<{tag}>")
        self.emitted.add("html", f"</{tag}>")
        return f"{' ' if text[:1].isspace() else ''}<{tag}>{inner}</{tag}>" + (
            " " if text[-1:].isspace() else ""
        )

    def convert_del(self, el, text, parent_tags):
        return self._html_around("del", text)

    convert_s = convert_strike = convert_del

    def convert_sub(self, el, text, parent_tags):
        return self.role("sub", el.get_text()) if el.get_text().strip() else ""

    def convert_sup(self, el, text, parent_tags):
        return self.role("sup", el.get_text()) if el.get_text().strip() else ""

    def convert_abbr(self, el, text, parent_tags):
        title = " ".join(str(el.get("title") or "").split())
        shown = " ".join(el.get_text().split())
        if not title or not shown or "(" in shown or ")" in title:
            return text
        return self.role("abbr", f"{shown} ({title})")

    convert_acronym = convert_abbr

    def convert_img(self, el, text, parent_tags):
        src = str(el.get("src") or "").strip()
        if "latex.php" in src and el.get("alt"):  # Jetpack's rendered $latex ...$
            tex = _alt(el)
            if "$" in tex or tex.endswith("\\"):
                return escape.text(tex)
            self.emitted.add("math", tex)
            return f"${tex}$"
        if not src:
            return ""
        local = self.image(src)
        if _is_remote(local) or local.startswith("data:"):
            return _remote_image_link(local, _alt(el))
        return f"![{escape.text(_alt(el))}]({escape.url(local)})"

    def convert_a(self, el, text, parent_tags):
        href = str(el.get("href") or "").strip()
        if not href or href.startswith("#more-") or not text.strip():
            return text
        images = el.find_all("img")
        if len(images) == 1 and not el.get_text(strip=True):
            return self._linked_image(images[0], href)
        target = self.link(href)
        prefix = " " if text[:1].isspace() else ""
        suffix = " " if text[-1:].isspace() else ""
        return f"{prefix}[{text.strip()}]({escape.url(target)}){suffix}"

    def _linked_image(self, img: Tag, href: str, caption: str = "") -> str:
        """An image that links somewhere: to its full size (WordPress's default), or a page."""
        alt, src = _alt(img), str(img.get("src") or "").strip()
        to_file = bool(_IMAGE_FILE.search(urlsplit(href).path))
        full = self.image(href, False) if to_file else ""
        shown = full if full and not _is_remote(full) else self.image(src) if src else ""
        if not shown or _is_remote(shown):
            target = full or self.link(href)
            picture = f"[Image: {escape.text(alt or 'image')}]({escape.url(target)})"
            return f"\n\n{picture}\n\n{caption}\n\n" if caption else picture
        width = str(img.get("width") or "")
        options = [f":alt: {escape.option(alt)}"] if alt else []
        if full and not _is_remote(full) and width.isdigit():
            options.append(f":width: {width}px")  # Sphinx links a scaled image to its full size
        elif not (full and not _is_remote(full)):
            options.append(f":target: {escape.url(full or self.link(href))}")
        body = "\n".join(options) + ("\n\n" + caption if caption else "")
        return self.directive("figure", escape.url(shown), body) + "\n\n"

    # -- blocks ---------------------------------------------------------------------------------

    def process_tag(self, node, parent_tags=None):
        parent_tags = parent_tags or set()
        classes = node.get("class") or []
        if node.name in ("figure",) or "wp-caption" in classes:
            return self._figure(node, parent_tags)
        if node.name == "table":
            return self._table(node, parent_tags)
        if node.name == "div" and "wp-block-cover" in classes:
            return self._cover(node, parent_tags)
        if node.name == "p" and "kb-embed" in classes:
            return self._card(node.get_text().strip(), "")
        if (
            node.name == "p"
            and media.embed_host(node.get_text().strip())
            and not node.find(lambda tag: tag.name not in ("a", "br"))
        ):
            return self._card(node.get_text().strip(), "")
        return super().process_tag(node, parent_tags)

    def _caption(self, el: Tag, parent_tags) -> str:
        caption = el.find(["figcaption"]) or el.find(class_="wp-caption-text")
        if caption is None:
            return ""
        caption.name, caption.attrs = "p", {}
        text = _unbreak(super().process_tag(caption, parent_tags))
        caption.decompose()
        return text

    def _figure(self, el, parent_tags):
        classes = el.get("class") or []
        if "wp-block-embed" in classes or el.find("iframe"):
            wrapper = el.find(class_="wp-block-embed__wrapper")
            frame = el.find("iframe")
            address = (wrapper.get_text().strip() if wrapper else "") or (
                str(frame.get("src") or "") if frame else ""
            )
            caption = self._caption(el, parent_tags)
            return self._card(address, caption) if address else f"\n\n{caption}\n\n"
        caption_md = self._caption(el, parent_tags)
        table, images = el.find("table"), el.find_all("img")
        if table is not None:
            return self._table(table, parent_tags, caption_md)
        player = el.find(["video", "audio"])
        if player is not None:
            return self._player(player, caption_md)
        if len(images) != 1 or not images[0].get("src"):
            el.name, el.attrs = "div", {}
            inner = super().process_tag(el, parent_tags).strip()
            return f"\n\n{inner}\n\n{caption_md}\n\n"
        image = images[0]
        if "latex.php" in str(image.get("src")):
            return f"\n\n{self.convert_img(image, '', parent_tags)}\n\n{caption_md}\n\n"
        anchor = image.find_parent("a")
        if anchor is not None and el not in list(anchor.parents):
            anchor = None  # a figure inside a link: the link is the page's, not the image's
        if anchor is not None and str(anchor.get("href") or "").strip():
            return self._linked_image(image, str(anchor["href"]).strip(), caption_md)
        src = self.image(str(image.get("src")))
        alt = _alt(image)
        if _is_remote(src) or src.startswith("data:"):
            return f"\n\n{_remote_image_link(src, alt)}\n\n{caption_md}\n\n"
        if not caption_md:
            return f"\n\n![{escape.text(alt)}]({escape.url(src)})\n\n"
        options = f":alt: {escape.option(alt)}\n\n" if alt else ""
        return self.directive("figure", escape.url(src), options + caption_md) + "\n\n"

    def _cover(self, el, parent_tags):
        """A cover block: its background image, then its text."""
        image = el.find("img")
        background = media.background_image(el)
        picture = ""
        if image is not None:
            picture = self.convert_img(image, "", parent_tags)
            image.decompose()
        elif background:
            picture = self.convert_img(Tag(name="img", attrs={"src": background}), "", parent_tags)
        el.name, el.attrs = "section", {}
        inner = super().process_tag(el, parent_tags).strip()
        return f"\n\n{picture}\n\n{inner}\n\n"

    def _card(self, address: str, caption: str) -> str:
        """Something embedded from another site: a visible link to it, loading nothing."""
        address = address.strip()
        if not _is_remote(address):
            return f"\n\n{caption}\n\n" if caption else ""
        host = urlsplit(address).hostname or address
        self.notes.append(f"an embed from {host} became a link card")
        title = caption or f"Embedded from {escape.text(host)}"
        link = f"[{escape.text(address)}]({escape.url(address)}) ({escape.text(host)})"
        return self.directive("admonition", title, f":class: kb-embed\n\n{link}") + "\n\n"

    def _player(self, el, caption: str) -> str:
        src = str(el.get("src") or "")
        source = el.find("source")
        if not src and source is not None:
            src = str(source.get("src") or "")
        if not src.strip():
            return f"\n\n{caption}\n\n" if caption else ""
        kind = "Video" if el.name == "video" else "Audio"
        local = self.image(src) if not _IMAGE_FILE.search(src) else src
        name = urlsplit(src).path.rsplit("/", 1)[-1] or src
        if not _is_remote(local):
            self.emitted.add("role", "download", f"{kind}: {name} <{local}>")
            line = f"{{download}}`{kind}: {name} <{local}>`"
        else:
            line = f"[{kind}: {escape.text(name)}]({escape.url(local)})"
        return f"\n\n{line}\n\n{caption}\n\n"

    def convert_video(self, el, text, parent_tags):
        return self._player(el, "")

    convert_audio = convert_video

    def convert_iframe(self, el, text, parent_tags):
        return self._card(str(el.get("src") or ""), "")

    convert_embed = convert_iframe

    def convert_object(self, el, text, parent_tags):
        return self._card(str(el.get("data") or ""), "")

    def _table(self, el, parent_tags, caption: str = ""):
        """Any table as a ``{list-table}``: each cell is Markdown of its own (no ``|`` to
        escape), and a table without header cells keeps no header row."""
        if not caption and el.find("caption") is not None:
            found = el.find("caption")
            found.name, found.attrs = "span", {}
            caption = super().process_tag(found, parent_tags | {"_inline"}).strip()
            found.decompose()
        rows = [row for row in el.find_all("tr") if row.find_parent("table") is el]
        grid = []
        for row in rows:
            found = row.find_all(["td", "th"], recursive=False)
            head = row.find_parent("thead") is not None or all(c.name == "th" for c in found)
            cells = []
            for cell in found:
                cell.name, cell.attrs = "div", {}
                cells.append(super().process_tag(cell, parent_tags).strip())
            if cells:
                grid.append((cells, head))
        if not grid:
            return ""
        width = max(len(cells) for cells, _ in grid)
        header = 0
        for _, head in grid:
            if not head:
                break
            header += 1
        header = header if header < len(grid) else 0
        if header == 1 and all("\n" not in cell for cells, _ in grid for cell in cells):
            return self._pipe_table(
                [cells + [""] * (width - len(cells)) for cells, _ in grid], caption
            )
        lines = [f":header-rows: {header}", ""]
        for cells, _ in grid:
            for index, cell in enumerate(cells + [""] * (width - len(cells))):
                marker = "* - " if index == 0 else "  - "
                cell_lines = cell.split("\n") if cell else [""]
                lines.append((marker + cell_lines[0]).rstrip())
                lines += [("    " + line).rstrip() for line in cell_lines[1:]]
        caption = " ".join(caption.split())
        return self.directive("list-table", caption, "\n".join(lines)) + "\n\n"

    def _pipe_table(self, rows: list[list[str]], caption: str) -> str:
        lines = ["| " + " | ".join(escape.table_cell(c) or " " for c in row) + " |" for row in rows]
        lines.insert(1, "| " + " | ".join("---" for _ in rows[0]) + " |")
        table = "\n".join(lines)
        if caption and "\n" not in caption:
            return self.directive("table", caption, table) + "\n\n"
        return f"\n\n{table}\n\n{caption}\n\n"

    def convert_dt(self, el, text, parent_tags):
        return f"\n\n**{text.strip()}**\n\n" if text.strip() else ""

    def convert_dd(self, el, text, parent_tags):
        return f"\n\n{text.strip()}\n\n" if text.strip() else ""

    def convert_hr(self, el, text, parent_tags):
        return "\n\n---\n\n"

    def convert_form(self, el, text, parent_tags):
        self.notes.append("a form was left out")
        return ""


def to_myst(
    source: str,
    *,
    raw: bool,
    image: Callable[[str], str] = lambda src: src,
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
    converter = _Converter(
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


def _breaks(line: str) -> bool:
    """Does ``line`` end in a hard line break (an odd run of backslashes)?"""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _unbreak(text: str) -> str:
    """``text`` without the line breaks at its end."""
    while _breaks(text.rstrip()):
        text = text.rstrip()[:-1]
    return text.strip()


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
        if ends and _breaks(line):
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
