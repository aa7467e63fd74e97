"""WordPress's own markup inside post HTML: shortcodes, math, and paragraphs without ``<p>``.

Before the HTML reaches the converter (:mod:`.convert`) this module

- sets aside ``<pre>``, ``<code>``, ``<script>`` and ``<style>``, so nothing below looks into code;
- turns code shortcodes (``[code lang="cpp"]``, ``[sourcecode]``, ``[cpp]``...) into
  ``<pre><code class="language-cpp">``, ``[caption]`` into ``<figure>`` with a ``<figcaption>``,
  ``[embed]URL[/embed]`` into a link, and reports every other shortcode, which stays as text;
- replaces math (``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``, ``[latex]...[/latex]``,
  Jetpack's ``$latex ...$``) by placeholders that the converter cannot escape, and gives back
  the MyST dollar math that goes in their place (:meth:`Held.restore`);
- makes its placeholders of letters drawn at random for each post and absent from its text, so
  no text can be taken for one, and checks that none is left (:meth:`Held.leftover`);
- adds the paragraphs that WordPress's ``wpautop`` adds when it shows a classic-editor post.
"""

from __future__ import annotations

import html
import re
import secrets
from dataclasses import dataclass, field

_HELD_ELEMENTS = re.compile(
    r"<(pre|code|kbd|samp|tt|script|style|textarea)\b[^>]*>.*?</\1\s*>", re.S | re.I
)
#: SyntaxHighlighter Evolved's shortcodes: [code], [sourcecode] and one per language.
_CODE_LANGUAGES = "cpp c cuda python py bash shell sh text plain js javascript json yaml xml"
_CODE_NAMES = ("code", "sourcecode", *_CODE_LANGUAGES.split())
_CODE_SHORTCODE = re.compile(
    r"\[(" + "|".join(_CODE_NAMES) + r")(\s[^\]]*)?\](.*?)\[/\1\]", re.S | re.I
)
_CAPTION = re.compile(r"\[(caption|wp_caption)(\s[^\]]*)?\](.*?)\[/\1\]", re.S | re.I)
_EMBED = re.compile(r"\[embed(\s[^\]]*)?\]\s*(\S+?)\s*\[/embed\]", re.S | re.I)
_GALLERY = re.compile(r"\[gallery(\s[^\]]*)?\]", re.I)
_PLAYER = re.compile(r"\[(audio|video)(\s[^\]]*)?\](?:(.*?)\[/\1\])?", re.S | re.I)
_LATEX = re.compile(r"\[(latex|math)\](.*?)\[/\1\]", re.S | re.I)
_ATTRIBUTE = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'\]]+))""")
_SHORTCODE = re.compile(r"\[(\[?)([a-z][\w-]*)(\s[^\]\[]*?)?(/?)\](\]?)", re.I)
#: Core shortcodes: reported even without attributes ([gallery] alone is a gallery).
_CORE = {"gallery", "audio", "video", "playlist", "embed", "caption", "wp_caption"}
_BR = r"(?:<br\s*/?>)"
_MATH = re.compile(
    r"(?P<tag><[^>]*>)"
    rf"|\$\$(?P<display>(?:[^$<]|{_BR})+?)\$\$"
    r"|\$latex\s+(?P<jetpack>[^$<]+?)\$"
    rf"|\\\[(?P<bracket>(?:[^<]|{_BR})+?)\\\]"
    r"|\\\((?P<paren>[^<]+?)\\\)"
    r"|(?<![\\$\w])\$(?P<inline>[^\s$<](?:[^$<\n]*?[^\s$<\\])?)\$(?![\w$])",
    re.S,
)
_BLOCK = (
    "table|thead|tfoot|caption|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|"
    "blockquote|address|math|p|h[1-6]|hr|fieldset|legend|section|article|aside|header|"
    "footer|nav|figure|figcaption|details|summary"
)


def _prefix(source: str) -> str:
    """Letters that do not occur in ``source`` (nor does any text the converter makes of it)."""
    while True:
        prefix = "kb" + "".join(secrets.choice("bcdfghjklmnpqrstvwxz") for _ in range(12))
        if prefix not in source.lower():
            return prefix


@dataclass
class Held:
    """What was set aside: HTML to put back before converting, Markdown to put back after."""

    source: str = ""
    html: list[str] = field(default_factory=list)
    markdown: dict[int, tuple[str, bool]] = field(default_factory=dict)  # index -> (TeX, display)
    unknown: list[str] = field(default_factory=list)  # shortcodes we could not convert
    math: list[tuple[str, bool]] = field(default_factory=list)  # (TeX, display)
    restored: list[str] = field(default_factory=list)  # the TeX put back, in order
    inline: set[int] = field(default_factory=set)  # display formulas inside inline markup
    originals: dict[int, str] = field(default_factory=dict)  # each formula as it was written

    def __post_init__(self) -> None:
        self.prefix = _prefix(self.source)
        self.token = re.compile(rf"{self.prefix}(\d+)x")

    def keep(self, text: str) -> str:
        self.html.append(text)
        return f"{self.prefix}{len(self.html) - 1}x"

    def keep_math(self, tex: str, display: bool, original: str = "") -> str:
        tex = html.unescape(re.sub(_BR, "\n", tex)).strip()
        # MyST warns of an empty formula, a "$" would end one early, a backslash at the end
        # would escape the closing "$", and code set aside is no formula: the text stays as it
        # is (and its dollars are escaped as text).
        if not tex or "$" in tex or tex.endswith("\\") or self.token.search(tex):
            return original
        if display:
            tex = re.sub(r"\n\s*\n", "\n", tex)  # a blank line would end MyST's $$ block
        self.math.append((tex, display))
        token = self.keep("")
        self.markdown[len(self.html) - 1] = (tex, display)
        self.originals[len(self.html) - 1] = html.unescape(re.sub(_BR, "\n", original))
        # A display formula may become a block of its own: the text after it then starts a
        # line, and starts a word, so that the converter escapes what a line start would read.
        return f" {token} " if display else token

    def as_written(self, code: str) -> str:
        """``code`` with each formula as it was written: in code, ``$x$`` is no formula."""
        return self.token.sub(lambda m: self.originals.get(int(m.group(1)), m.group(0)), code)

    def leftover(self, markdown: str) -> bool:
        """Is a placeholder left in ``markdown``?"""
        return self.prefix in markdown

    def unhold_html(self, text: str) -> str:
        """The set-aside HTML back in place (math placeholders stay for the converter)."""
        text = re.sub(
            rf"<p>\s*({self.prefix}\d+x)\s*</p>",
            lambda m: m.group(0) if self._is_math(m.group(1)) else m.group(1),
            text,
        )
        for _ in range(3):  # a held <pre> may hold a held <code>
            text = self.token.sub(
                lambda m: (
                    m.group(0) if int(m.group(1)) in self.markdown else self.html[int(m.group(1))]
                ),
                text,
            )
        return text

    def restore(self, markdown: str) -> str:
        """The formulas in place of their placeholders: a display formula alone on its line
        as a ``$$`` block (indented as that line is), any other as inline math."""

        def put_back(match: re.Match) -> str:
            index = int(match.group("index"))
            if index not in self.markdown:
                return match.group(0)
            tex, display = self.markdown[index]
            self.restored.append(tex)
            indent, before, after = (
                match.group("indent"),
                match.group("before"),
                match.group("after"),
            )
            display = display and index not in self.inline
            item = _LIST_MARKERS.match(before)
            if display and item and ">" not in indent:
                # In a list item (a table's cell): the block's lines sit at the item's
                # content column, or they would end the list. First in the item, it opens
                # on the marker's line.
                marker, text = indent + item.group(0).rstrip() + " ", before[item.end() :]
                pad = " " * len(marker)
                lines = [pad + line for line in ["$$", *tex.split("\n"), "$$"]]
                if text.strip():
                    lines = [marker + text.rstrip(), "", *lines]
                else:
                    lines[0] = marker + "$$"
                rest = f"\n\n{pad}{after.lstrip()}" if after.strip() else ""
                return "\n".join(lines) + rest
            if display and not indent:  # a block of its own, as WordPress shows it
                block = "\n".join(["$$", *tex.split("\n"), "$$"])
                return f"{before.rstrip()}\n\n{block}\n\n{after.lstrip()}".strip("\n")
            if display and not before.strip() and not after.strip():
                return "\n".join(indent + line for line in ["$$", *tex.split("\n"), "$$"])
            # Inline, MyST reads only single dollars (dmath_double_inline is off by default).
            return f"{indent}{before}${' '.join(tex.split())}${after}"

        pattern = re.compile(
            rf"^(?P<indent>[ \t>]*)(?P<before>.*?){self.prefix}(?P<index>\d+)x(?P<after>.*)$", re.M
        )
        while True:
            restored = pattern.sub(put_back, markdown)
            if restored == markdown:
                return restored
            markdown = restored

    def _is_math(self, token: str) -> bool:
        found = self.token.fullmatch(token)  # always: the caller's pattern holds a token
        return found is not None and int(found.group(1)) in self.markdown


#: What starts a list item's line: bullets and numbers, nested (``* - `` in a list-table).
_LIST_MARKERS = re.compile(r"(?:(?:[*+-]|\d{1,9}[.)])(?:[ \t]+|$))+")


def prepare(source: str, held: Held, autop: bool, gallery=None) -> str:
    """WordPress HTML ready for the converter, with shortcodes and math dealt with."""
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    # A code block is a block of its own, also where the classic editor's paragraphs go.
    text = _CODE_SHORTCODE.sub(lambda m: "\n\n" + held.keep(_code_block(m)) + "\n\n", text)
    text = _HELD_ELEMENTS.sub(lambda m: _hold_element(m, held), text)
    text = _LATEX.sub(lambda m: held.keep_math(m.group(2), False, m.group(0)), text)
    text = _MATH.sub(lambda m: _math(m, held), text)
    text = _CAPTION.sub(_caption, text)
    text = _EMBED.sub(
        lambda m: f'\n\n<p class="kb-embed">{html.escape(html.unescape(m.group(2)))}</p>\n\n', text
    )
    text = _PLAYER.sub(_player, text)
    if gallery is not None:
        text = _GALLERY.sub(lambda m: _gallery(m, gallery), text)
    text = _SHORTCODE.sub(lambda m: _other_shortcode(m, held), text)
    if autop and "<!-- wp:" not in text:
        text = wpautop(text, held.token)
    return held.unhold_html(text)


def _hold_element(match: re.Match, held: Held) -> str:
    token = held.keep(match.group(0))
    return f"\n\n{token}\n\n" if match.group(1).lower() == "pre" else token


def _math(match: re.Match, held: Held) -> str:
    if match.group("tag"):
        return match.group("tag")
    for name, display in (
        ("display", True),
        ("bracket", True),
        ("paren", False),
        ("inline", False),
    ):
        if match.group(name) is not None:
            return held.keep_math(match.group(name), display, match.group(0))
    tex = re.sub(r"&(amp;)?(bg|fg|s)=[^&\s]*", "", match.group("jetpack"))  # Jetpack's colours
    return held.keep_math(tex, False, match.group(0))


def _attributes(text: str | None) -> dict[str, str]:
    return {
        m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None)
        for m in _ATTRIBUTE.finditer(text or "")
    }


def _code_block(match: re.Match) -> str:
    name, options, code = match.group(1).lower(), _attributes(match.group(2)), match.group(3)
    language = options.get("language") or options.get("lang")
    if not language and name not in ("code", "sourcecode"):
        language = name
    language = re.sub(r"[^\w+-]", "", (language or "").lower())
    code = html.unescape(code).strip("\n")  # SyntaxHighlighter stores code as typed
    attribute = f' class="language-{language}"' if language else ""
    return f"<pre><code{attribute}>{html.escape(code, quote=False)}</code></pre>"


def _gallery(match: re.Match, gallery) -> str:
    found = gallery(_attributes(match.group(1)))
    return f"\n\n{found}\n\n" if found else match.group(0)


def _player(match: re.Match) -> str:
    """``[audio mp3="..."]``, ``[video src="..."]``: the element the shortcode shows."""
    options = _attributes(match.group(2))
    src = next(
        (
            options[k]
            for k in ("src", "mp3", "m4a", "ogg", "wav", "mp4", "webm", "ogv", "mov")
            if options.get(k)
        ),
        (match.group(3) or "").strip(),
    )
    bare = re.search(r"https?://[^\s\]\"']+", match.group(2) or "")
    src = src or (bare.group(0) if bare else "")
    if not src:
        return match.group(0)
    name = match.group(1).lower()
    return f'\n\n<figure><{name} src="{html.escape(src)}"></{name}></figure>\n\n'


def _caption(match: re.Match) -> str:
    options, inner = _attributes(match.group(2)), match.group(3)
    images = re.match(r"\s*((?:<a\b[^>]*>\s*)?<img\b[^>]*>(?:\s*</a>)?)(.*)$", inner, re.S)
    if images is None:
        return inner
    caption = images.group(2).strip() or html.escape(options.get("caption", ""))
    return f"<figure>{images.group(1)}<figcaption>{caption}</figcaption></figure>"


def _other_shortcode(match: re.Match, held: Held) -> str:
    opening, name, options, _, closing = match.groups()
    if opening and closing:  # [[gallery]] is WordPress's way to write "[gallery]" as text
        return held.keep(html.escape(match.group(0)[1:-1]))
    lowered = name.lower()
    closes = bool(re.search(rf"\[/{re.escape(name)}\]", match.string[match.end() :]))
    if lowered in _CORE or (options and "=" in options) or closes:
        held.unknown.append(f"[{name}]")
    return match.group(0)


def wpautop(text: str, token: re.Pattern) -> str:
    """Paragraphs for a classic-editor post, as WordPress adds them when it shows one:
    a blank line ends a paragraph and a single line break is a ``<br />``."""
    text = re.sub(rf"(<(?:{_BLOCK})[\s/>])", r"\n\n\1", text, flags=re.I)
    text = re.sub(rf"(</(?:{_BLOCK})>)", r"\1\n\n", text, flags=re.I)
    chunks = []
    for chunk in re.split(r"\n\s*\n", text):
        chunk = chunk.strip()
        if not chunk:
            continue
        if re.match(rf"</?(?:{_BLOCK})[\s/>]", chunk, re.I) or token.fullmatch(chunk):
            chunks.append(chunk)
        else:
            chunks.append("<p>" + re.sub(r"(?<!<br />)\s*\n", "<br />\n", chunk) + "</p>")
    return "\n".join(chunks)
