"""The converter's inline half: text, code, emphasis, links and images (:mod:`.convert`).

Every character of text goes through :func:`kb.importer.escape.text`; code keeps its own
text in a span or fence longer than any backtick run in it; each directive, role and HTML tag
written on purpose is counted in :class:`~kb.importer.proof.Emitted`, for the proof. An
element shown from its own text (code, ``<sub>``...) never has its children converted, so
nothing is counted that is then thrown away.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from bs4 import NavigableString, Tag
from bs4.element import CData, PreformattedString
from markdownify import MarkdownConverter

from . import escape
from .proof import Emitted

if TYPE_CHECKING:
    from .shortcodes import Held

    class _MarkdownConverter(MarkdownConverter):
        """What markdownify's own stub (``__init__.pyi``: ``__init__``, ``convert`` and
        ``convert_soup`` only) leaves out of the converter that kb subclasses: its options
        and the methods kb overrides or calls, as markdownify defines them."""

        options: dict[str, Any]

        def process_tag(self, node: Tag, parent_tags: set[str] | None = None) -> str: ...
        def process_text(self, el: NavigableString, parent_tags: set[str] | None = None) -> str: ...
        def convert_br(self, el: Tag, text: str, parent_tags: set[str]) -> str: ...

        # None for a tag the options strip, or one with no convert_ method.
        def get_conv_fn_cached(
            self, tag_name: str
        ) -> Callable[[Tag, str, set[str]], str] | None: ...
else:
    _MarkdownConverter = MarkdownConverter


class ImageAddress(Protocol):
    """Where the converted post shows an image from: a file next to the post, or the image's
    address. ``note=False`` (an image a link points to, shown only if found): no note for an
    image that is not found, whose address is returned as it is."""

    def __call__(self, src: str, note: bool = True) -> str: ...


def same_address(src: str, note: bool = True) -> str:
    """Every image stays where it is."""
    return src


#: Links that would run something or read a local file: their text, without the link.
_UNSAFE_LINK = re.compile(r"^\s*(?:javascript|vbscript|data|file):", re.I)
IMAGE_FILE = re.compile(r"\.(png|jpe?g|gif|webp|svg|avif|bmp)$", re.I)
#: Where a display formula may stand as a block of its own.
BLOCK_PARENTS = {"[document]", "p", "div", "section", "article", "body", "blockquote", "li",
                 "figure", "figcaption", "header", "footer", "main", "aside"}  # fmt: skip
#: Shown from their own text: their children are never converted.
FROM_TEXT = {"pre", "code", "kbd", "samp", "tt", "sub", "sup", "abbr", "acronym"}
_INLINE_PARENTS = {"td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "a", "dt"}


def is_remote(src: str) -> bool:
    return urlsplit(src).scheme in ("http", "https")


def alt_text(el: Tag) -> str:
    return " ".join(str(el.get("alt") or "").split())


def remote_image_link(src: str, alt: str) -> str:
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


def breaks(line: str) -> bool:
    """Does ``line`` end in a hard line break (an odd run of backslashes)?"""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def unbreak(text: str) -> str:
    """``text`` without the line breaks at its end."""
    while breaks(text.rstrip()):
        text = text.rstrip()[:-1]
    return text.strip()


#: Elements that make blocks of their own: inline markup around them would break them.
_BLOCK_TAGS = {"p", "div", "blockquote", "ul", "ol", "li", "table", "pre", "figure", "hr", "dl",
               "h1", "h2", "h3", "h4", "h5", "h6", "iframe", "video", "audio", "section",
               "article", "aside", "header", "footer", "address", "details", "object"}  # fmt: skip


def has_block(el: Tag, converted: str) -> bool:
    """Does ``el`` hold a block (or did its conversion make one)?"""
    fence = "\n" in converted and "```" in converted
    return "\n\n" in converted or fence or el.find(_BLOCK_TAGS) is not None


class InlineConverter(_MarkdownConverter):
    def __init__(self, image: ImageAddress, link: Callable[[str], str], notes, **options):
        super().__init__(**options)
        self.image, self.link, self.notes = image, link, notes
        self.emitted = Emitted()
        self.held: Held | None = None  # the post's Held, once the conversion starts

    # -- text ---------------------------------------------------------------------------------

    def escape(self, text, parent_tags):
        # Every real formula was set aside: a dollar left in the text is money, not math.
        return escape.text(text) if text else ""

    def process_text(self, el, parent_tags=None):
        if self.held is not None and set(parent_tags or ()) - BLOCK_PARENTS:
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
        if content is None or (self.held is not None and self.held.token.search(text)):
            if self.held is not None:  # a formula in it stays in the line, as inline math
                for found in self.held.token.finditer(text):
                    self.held.inline.add(int(found.group(1)))
            return escape.text(" ".join(text.split()))
        self.emitted.add("role", name, content)
        return f"{{{name}}}`{content}`"

    # -- code -----------------------------------------------------------------------------------

    def code_text(self, el) -> str:
        code = raw_text(el)
        return self.held.as_written(code) if self.held is not None else code

    def convert_pre(self, el, text, parent_tags):
        code = self.code_text(el).strip("\n")
        if not code.strip():
            return ""
        if "_inline" in parent_tags:  # in a heading or a table cell: on one line
            return self._apart(el) + escape.code_span(" ".join(code.split()))
        language = self.options["code_language_callback"](el) or ""
        return f"\n\n{escape.fence(code, language)}\n\n"

    def convert_code(self, el, text, parent_tags):
        code = self.code_text(el)
        inline = "_inline" in parent_tags or _INLINE_PARENTS & set(parent_tags)
        if "\n" in code.strip("\n") and not inline:
            return self.convert_pre(el, text, parent_tags)  # a classic editor's code listing
        code = " ".join(code.split()) if not code.strip(" ") else code.strip("\n")
        if not code.strip():
            return ""
        return self._apart(el) + escape.code_span(code)

    def _apart(self, el) -> str:
        """ " " when code (or a role) just before ``el`` would run its backticks into those of
        ``el``: white space between them is no gap, as a heading or a table cell drops it."""
        before = el.find_previous(string=lambda text: bool(text.strip()))
        return " " if before is not None and before.find_parent(list(FROM_TEXT)) else ""

    convert_kbd = convert_samp = convert_tt = convert_code

    def convert_br(self, el, text, parent_tags):
        if "pre" in parent_tags:
            return "\n"
        return super().convert_br(el, text, parent_tags)

    # -- inline ---------------------------------------------------------------------------------

    def _wrap(self, markup: str, el, text: str, parent_tags) -> str:
        """Inline markup around ``text``: never around a block (a table inside ``<em>``) and
        never ending in a line break, which would escape the closing mark."""
        inner = unbreak(text)
        if has_block(el, inner) or "_noformat" in parent_tags:
            return text
        if not inner:
            return " " if text[:1].isspace() or text[-1:].isspace() else ""
        before = " " if text[:1].isspace() else ""
        after = " " if text[-1:].isspace() else ""
        return f"{before}{markup}{inner}{markup}{after}"

    def convert_em(self, el, text, parent_tags):
        return self._wrap("*", el, text, parent_tags)

    def convert_strong(self, el, text, parent_tags):
        return self._wrap("**", el, text, parent_tags)

    convert_i, convert_b = convert_em, convert_strong

    def _html_around(self, tag: str, el, text: str) -> str:
        inner = unbreak(text)
        if has_block(el, inner):
            return text
        if not inner:
            return ""
        self.emitted.add("html", f"<{tag}>")
        self.emitted.add("html", f"</{tag}>")
        return f"{' ' if text[:1].isspace() else ''}<{tag}>{inner}</{tag}>" + (
            " " if text[-1:].isspace() else ""
        )

    def convert_del(self, el, text, parent_tags):
        return self._html_around("del", el, text)

    convert_s = convert_strike = convert_del

    def convert_sub(self, el, text, parent_tags):
        return self.role("sub", el.get_text()) if el.get_text().strip() else ""

    def convert_sup(self, el, text, parent_tags):
        return self.role("sup", el.get_text()) if el.get_text().strip() else ""

    def convert_abbr(self, el, text, parent_tags):
        title = " ".join(str(el.get("title") or "").split())
        shown = " ".join(el.get_text().split())
        if not title or not shown or "(" in shown or ")" in title:
            return escape.text(shown)
        return self.role("abbr", f"{shown} ({title})")

    convert_acronym = convert_abbr

    def convert_img(self, el, text, parent_tags):
        src = str(el.get("src") or "").strip()
        if "latex.php" in src and el.get("alt"):  # Jetpack's rendered $latex ...$
            tex = alt_text(el)
            if "$" in tex or tex.endswith("\\"):
                return escape.text(tex)
            self.emitted.add("math", tex)
            return f"${tex}$"
        if not src:
            return ""
        local = self.image(src)
        if is_remote(local) or local.startswith("data:"):
            return remote_image_link(local, alt_text(el))
        return f"![{escape.text(alt_text(el))}]({escape.url(local)})"

    def convert_a(self, el, text, parent_tags):
        href = str(el.get("href") or "").strip()
        images = el.find_all("img")
        if href and len(images) == 1 and not el.get_text(strip=True):
            if "_inline" in parent_tags:  # in a heading or a cell: a link, on one line
                return self.convert_img(images[0], "", parent_tags)
            return self._linked_image(images[0], href)
        if not href or href.startswith("#more-") or not text.strip():
            return text
        target = self.link(href)
        if _UNSAFE_LINK.match(target):
            scheme = target.strip().split(":", 1)[0].lower()
            self.notes.append(f"a {scheme}: link was left out (its text kept)")
            return text
        inner = unbreak(text)
        if has_block(el, inner) or el.find("a") is not None:
            return text  # a block or a link inside a link: its text, without the link
        if not inner:
            return ""
        prefix = " " if text[:1].isspace() else ""
        suffix = " " if text[-1:].isspace() else ""
        return f"{prefix}[{inner}]({escape.url(target)}){suffix}"

    def _linked_image(self, img: Tag, href: str, caption: str = "") -> str:
        """An image that links somewhere: to its full size (WordPress's default), or a page."""
        alt, src = alt_text(img), str(img.get("src") or "").strip()
        to_file = bool(IMAGE_FILE.search(urlsplit(href).path))
        full = self.image(href, False) if to_file else ""
        shown = full if full and not is_remote(full) else self.image(src) if src else ""
        if not shown or is_remote(shown):
            target = full or self.link(href)
            picture = f"[Image: {escape.text(alt or 'image')}]({escape.url(target)})"
            return f"\n\n{picture}\n\n{caption}\n\n" if caption else picture
        width = str(img.get("width") or "")
        options = [f":alt: {escape.option(alt)}"] if alt else []
        if full and not is_remote(full) and width.isdigit():
            options.append(f":width: {width}px")  # Sphinx links a scaled image to its full size
        elif not (full and not is_remote(full)):
            options.append(f":target: {escape.url(full or self.link(href))}")
        body = "\n".join(options) + ("\n\n" + caption if caption else "")
        return self.directive("figure", escape.url(shown), body) + "\n\n"

    # -- blocks ---------------------------------------------------------------------------------
