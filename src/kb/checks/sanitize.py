"""One allow-list sanitizer for every piece of HTML that comes from content.

Raw HTML in posts (Markdown's HTML blocks and inline HTML, ``{raw} html``), a notebook's HTML
and SVG outputs and imported HTML all pass :func:`sanitize` (or :func:`sanitize_svg`), and what
it returns is what goes into the page: an element, attribute or URL that the policy does not
allow can never reach a page, whatever the input's tricks, by construction.

The cleaning is nh3's (the binding of Rust's ammonia, on html5ever, the HTML5 parser of
Servo): an allow-list of elements and attributes applied to the tree a browser would build,
serialized anew. Our policy on top of it (:func:`_url_allowed`, nh3's ``attribute_filter``)
lets loading attributes name only the site's own host and ``kb_allow_raw_html_hosts``, links
use only http(s), mailto and tel, and ``data:`` only for raster images.

What the policy dropped is told to the author (:class:`Drop`, :func:`describe`): the input and
the output are both parsed by justhtml (an HTML5 parser in Python, with source lines), and each
element and attribute of the input that is not in the output is a drop at its line. The report
explains; it decides nothing, so it can never let something through.

Pure: no Sphinx. ``kb check``, the build, the notebooks and the importer call the same
functions, so they give the same verdict at the same lines.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from urllib.parse import unquote

import nh3


def shorten(text: str, limit: int = 80) -> str:
    """``text`` as a message may quote it: on one line, without control characters (which a
    terminal would obey), cut to ``limit`` characters."""
    text = "".join(c if c.isprintable() else " " for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- The policy --------------------------------------------------------------------------------

#: Elements raw HTML may use: text, lists, tables, figures, media from allowed places.
TAGS = frozenset((
    "a", "abbr", "acronym", "address", "article", "aside", "audio", "b", "bdi", "bdo",
    "blockquote", "br", "caption", "center", "cite", "code", "col", "colgroup", "data", "dd",
    "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "footer", "h1",
    "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "i", "img", "input", "ins", "kbd",
    "li", "mark", "ol", "p", "picture", "pre", "q", "rp", "rt", "rtc", "ruby", "s", "samp",
    "section", "small", "source", "span", "strike", "strong", "sub", "summary", "sup", "table",
    "tbody", "td", "tfoot", "th", "thead", "time", "tr", "track", "tt", "u", "ul", "var",
    "video", "wbr",
))  # fmt: skip
#: Elements removed with all they hold (their text is code, style or fallback, not prose).
CONTENT_DROPPED = frozenset((
    "script", "style", "template", "noscript", "noembed", "noframes", "xmp", "iframe",
    "object", "embed", "applet", "textarea", "title", "select", "plaintext", "frameset",
))  # fmt: skip
#: Attributes any allowed element may carry.
GLOBAL_ATTRIBUTES = frozenset(("class", "id", "title", "lang", "dir", "style", "role"))
ATTRIBUTES = {
    "a": {"href", "hreflang", "target", "rel", "type"},
    "img": {"src", "srcset", "sizes", "alt", "width", "height", "loading", "decoding", "align"},
    "source": {"src", "srcset", "sizes", "type", "media", "width", "height"},
    "video": {"src", "poster", "controls", "autoplay", "loop", "muted", "playsinline",
              "preload", "width", "height"},
    "audio": {"src", "controls", "autoplay", "loop", "muted", "preload"},
    "track": {"src", "kind", "srclang", "label", "default"},
    "iframe": {"src", "width", "height", "allow", "allowfullscreen", "loading",
               "referrerpolicy", "frameborder"},
    "input": {"checked"},
    "details": {"open"},
    "ol": {"start", "reversed", "type"},
    "ul": {"type"},
    "li": {"value"},
    "table": {"border", "summary", "align", "cellpadding", "cellspacing"},
    "td": {"colspan", "rowspan", "headers", "align", "valign"},
    "th": {"colspan", "rowspan", "headers", "scope", "align", "valign"},
    "tr": {"align", "valign"},
    "col": {"span", "align"},
    "colgroup": {"span", "align"},
    "blockquote": {"cite"},
    "q": {"cite"},
    "ins": {"cite", "datetime"},
    "del": {"cite", "datetime"},
    "time": {"datetime"},
    "data": {"value"},
    "bdo": {"dir"},
    "hr": {"align", "size", "width"},
}  # fmt: skip
#: Attributes allowed with these values only.
#: Attributes set on these elements whatever the input says: a form field is only ever a
#: ticked or unticked box of a task list.
SET_ATTRIBUTES = {"input": {"type": "checkbox", "disabled": ""}}
#: CSS properties a ``style`` attribute may set: none of them takes a URL.
STYLE_PROPERTIES = frozenset((
    "color", "background-color", "text-align", "text-decoration", "text-transform",
    "font-weight", "font-style", "font-size", "font-family", "font-variant", "line-height",
    "letter-spacing", "word-spacing", "white-space", "vertical-align", "width", "height",
    "max-width", "max-height", "min-width", "min-height", "margin", "margin-top",
    "margin-right", "margin-bottom", "margin-left", "padding", "padding-top", "padding-right",
    "padding-bottom", "padding-left", "border", "border-top", "border-right", "border-bottom",
    "border-left", "border-color", "border-style", "border-width", "border-radius",
    "border-collapse", "border-spacing", "display", "float", "clear", "overflow", "opacity",
    "list-style-type", "table-layout", "caption-side", "text-indent", "gap", "flex",
    "flex-direction", "flex-wrap", "justify-content", "align-items", "object-fit",
    "aspect-ratio",
))  # fmt: skip
#: Attributes that hold URLs the browser loads by itself (``href`` of ``a`` is a link a reader
#: follows; ``cite`` is never loaded).
LOADING = frozenset(("src", "srcset", "poster"))
URL_ATTRIBUTES = LOADING | {"href", "cite"}
#: Schemes a link may use (relative URLs are this site's).
LINK_SCHEMES = frozenset(("http", "https", "mailto", "tel"))
#: ``data:`` URLs an image may hold: pixels, nothing that runs.
DATA_IMAGES = re.compile(r"data:image/(?:png|jpeg|jpg|gif|webp|avif)[;,]", re.I)
#: CSS that loads or runs, refused in a ``style`` attribute whatever its property.
CSS_LOADS = re.compile(r"url\s*\(|@import|expression\s*\(|image-set|-moz-binding|behavior|\\", re.I)
#: The kinds of sanitizing: raw HTML a post writes (whose elements may open in one fragment and
#: close in another), a notebook's output and imported HTML (each whole in itself).
CONTEXTS = ("post", "output", "import")


@dataclass(frozen=True)
class Policy:
    """What content may hold: ``hosts`` that loading attributes may name (the site's own and
    ``kb_allow_raw_html_hosts``), ``frame_hosts`` whose pages an ``<iframe>`` may show (only
    the setting: never this site's own files), and ``scripts`` (``kb_allow_raw_scripts``:
    scripts, ``on…`` attributes and ``javascript:`` URLs pass through, the dangerous opt-in)."""

    hosts: frozenset[str] = frozenset()
    frame_hosts: frozenset[str] = frozenset()
    scripts: bool = False
    context: str = "post"

    @classmethod
    def make(cls, allowed_hosts=(), own_host: str | None = None, scripts=False, context="post"):
        explicit = frozenset(host.lower() for host in allowed_hosts if host)
        own = frozenset([own_host.lower()]) if own_host else frozenset()
        return cls(explicit | own, explicit - own, bool(scripts), context)

    @property
    def tags(self) -> frozenset[str]:
        tags = set(TAGS)
        if self.frame_hosts:
            tags.add("iframe")
        if self.scripts:
            tags.add("script")
        return frozenset(tags)


def _clean_url(url: str) -> str:
    # As a browser reads a URL: no surrounding blanks or controls, no tabs or newlines inside.
    return re.sub(r"[\t\n\r]", "", url.strip(" \t\n\r\f\v\x00"))


def scheme_of(url: str) -> str:
    """The scheme of ``url`` in lower case ("" for a relative URL)."""
    match = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", _clean_url(url))
    return match.group(1).lower() if match else ""


def host_of(url: str) -> str:
    """The host ``url`` loads from, or "" for a URL of this site (relative, ``data:``…)."""
    url = _clean_url(url)
    if url.startswith(("//", "\\\\", "/\\", "\\/")):
        rest = url
    else:
        scheme = scheme_of(url)
        if scheme in ("", "data", "blob", "about", "mailto", "tel", "javascript", "vbscript"):
            return ""
        if len(scheme) == 1:  # a Windows drive letter, not a scheme
            return ""
        if scheme not in ("http", "https", "ftp", "ws", "wss"):
            return f"{scheme}:"  # file:, gopher:, … : not this site either
        rest = url[len(scheme) + 1 :]
    # Browsers read "https:/x", "https:\\x" and "//x" alike: the host follows the slashes.
    authority = re.split(r"[/\\?#]", rest.lstrip("/\\"), maxsplit=1)[0]
    host = unquote(authority).rpartition("@")[2]
    host = host[1:].partition("]")[0] if host.startswith("[") else host.partition(":")[0]
    return host.lower() or "another host"


#: Attributes of elements raw HTML may not use that name a URL: for the message only.
ELSEWHERE = frozenset((
    "data", "action", "formaction", "xlink:href", "ping", "background", "codebase", "archive",
    "manifest", "lowsrc", "dynsrc", "imagesrcset", "longdesc",
))  # fmt: skip
REFRESH_URL = re.compile(r"url\s*=\s*['\"]?([^'\"\s]+)", re.I)


def _urls(attribute: str, value: str) -> list[str] | None:
    """The URLs of an attribute's value, or None where it is not well formed."""
    if attribute in ("ping", "archive"):
        return value.split()
    if attribute in ("srcset", "imagesrcset"):
        return srcset_urls(value)
    return [value]


#: ASCII whitespace, as HTML's parsers of attribute values mean it.
_BLANK = " \t\n\f\r"
#: A descriptor of an image candidate: a width, a density or (obsolete) a height.
_DESCRIPTOR = re.compile(r"[0-9]+w|[0-9]+h|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?x")


def srcset_urls(value: str) -> list[str] | None:
    """The URLs of a ``srcset``, read as HTML's "parse a srcset attribute" reads them (a URL
    runs to the next whitespace and may hold commas; descriptors follow it), or None where a
    candidate's descriptors are not a width or a density: what a browser would drop, this
    refuses whole, rather than guess what the rest of the value means."""
    urls: list[str] = []
    position, end = 0, len(value)
    while True:
        while position < end and value[position] in _BLANK + ",":
            position += 1
        if position >= end:
            return urls
        start = position
        while position < end and value[position] not in _BLANK:
            position += 1
        url = value[start:position]
        descriptors: list[str] = []
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            position = _descriptors(value, position, descriptors)
        if len(descriptors) > 1 or not all(_DESCRIPTOR.fullmatch(d) for d in descriptors):
            return None
        urls.append(url)


def _descriptors(value: str, position: int, found: list[str]) -> int:
    """HTML's descriptor tokenizer, from ``position``: the descriptors into ``found``, and
    where the next candidate starts."""
    end, current, in_parens = len(value), "", False
    while position < end and value[position] in _BLANK:
        position += 1
    while position < end:
        char = value[position]
        position += 1
        if in_parens:
            current += char
            in_parens = char != ")"
        elif char in _BLANK:
            if current:
                found.append(current)
            current = ""
        elif char == ",":
            break
        else:
            current += char
            in_parens = char == "("
    if current:
        found.append(current)
    return position


def _url_allowed(policy: Policy, tag: str, attribute: str, url: str) -> bool:
    scheme = scheme_of(url)
    if scheme in ("javascript", "vbscript"):
        return policy.scripts and attribute == "href"
    if scheme == "data":
        return (
            tag in ("img", "source")
            and attribute in ("src", "srcset")
            and bool(DATA_IMAGES.match(_clean_url(url)))
        )
    if tag == "iframe":  # another site's page, never one of this site's files
        return scheme in ("http", "https") and host_of(url) in policy.frame_hosts
    if attribute in LOADING:
        host = host_of(url)
        return not host or host in policy.hosts
    return scheme in LINK_SCHEMES or not scheme


def _attribute_filter(policy: Policy, tag: str, attribute: str, value: str) -> str | None:
    if attribute in URL_ATTRIBUTES:
        urls = _urls(attribute, value)
        if urls is None or not all(_url_allowed(policy, tag, attribute, url) for url in urls):
            return None
    if attribute == "style" and CSS_LOADS.search(value):
        return None
    return value


@functools.lru_cache(maxsize=32)
def _cleaner(policy: Policy) -> nh3.Cleaner:
    tags = policy.tags
    attributes = {tag: set(names) for tag, names in ATTRIBUTES.items() if tag in tags}
    attributes["*"] = set(GLOBAL_ATTRIBUTES)
    schemes = set(LINK_SCHEMES) | {"data"}
    prefixes = {"aria-"}
    if policy.scripts:
        schemes |= {"javascript"}
        prefixes |= {"on"}
        attributes["script"] = {"src", "type", "async", "defer"}
    return nh3.Cleaner(
        tags=set(tags),
        clean_content_tags=set(CONTENT_DROPPED - tags),
        attributes=attributes,
        attribute_filter=functools.partial(_attribute_filter, policy),
        strip_comments=True,
        link_rel=None,
        generic_attribute_prefixes=prefixes,
        set_tag_attribute_values={tag: dict(values) for tag, values in SET_ATTRIBUTES.items()},
        url_schemes=schemes,
        filter_style_properties=set(STYLE_PROPERTIES),
    )


# -- Sanitizing --------------------------------------------------------------------------------


@dataclass
class Drop:
    """Something of the input that the page does not get."""

    line: int  # within the input, from 1
    shown: str  # the element as the message quotes it: <iframe src="data:…">
    kind: str  # script, host, scheme, element, attribute, style, marker
    how: str = ""  # how it runs a script ("its onerror attribute"), or the scheme
    attribute: str = ""  # the attribute dropped ("" when the whole element is)
    hosts: list[str] = field(default_factory=list)

    @property
    def script(self) -> str:
        """How it runs a script ("" when it does not)."""
        return self.how if self.kind == "script" else ""

    @property
    def marker(self) -> bool:
        return self.kind == "marker"


#: Set on a docutils raw node whose text is already the sanitizer's output (a notebook's).
SANITIZED = "kb_sanitized"


@dataclass
class Sanitized:
    html: str  # what goes into the page
    drops: list[Drop]


VOID = frozenset((
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr",
))  # fmt: skip
_LEADING_END_TAGS = re.compile(r"(?:\s*</([A-Za-z][A-Za-z0-9-]*)\s*>)+")
_END_TAG = re.compile(r"</([A-Za-z][A-Za-z0-9-]*)\s*>")
_END_TAGS_ONLY = re.compile(r"(?:</[a-z][a-z0-9-]*>)*")


def sanitize(html: str, policy: Policy) -> Sanitized:
    """``html`` as the page may hold it, and what the policy dropped from it.

    In a post (``policy.context == "post"``) raw HTML is often a part of an element: an
    opening ``<details>`` in one block and ``</details>`` in another, ``<kbd>`` and ``</kbd>``
    around Markdown text. There the elements the fragment leaves open stay open, and end tags
    it starts with are kept (of allowed elements only), as the author wrote them: none of the
    allowed elements changes how a browser reads what follows (no raw text, no SVG or MathML).
    A notebook's output and imported HTML are closed where they end."""
    lead, rest = "", html
    if policy.context == "post":
        match = _LEADING_END_TAGS.match(html)
        if match:
            tags = policy.tags
            names = [name.lower() for name in _END_TAG.findall(match.group(0))]
            lead = "".join(f"</{name}>" for name in names if name in tags and name not in VOID)
            rest = html[match.end() :]
    cleaner = _cleaner(policy)
    if policy.context == "post":
        out = _until_stable(functools.partial(_keep_open, cleaner), rest)
    else:
        out = _until_stable(cleaner.clean, rest)
    drops = [] if out == rest else _drops(rest, out, policy)
    return Sanitized(lead + out, drops)


#: Cleanings of one fragment at most; two are needed where an element with an element of the
#: same kind inside it was taken away, and a third has never been.
_MOST_CLEANINGS = 4


def _until_stable(clean, html: str) -> str:
    """``clean(html)``, cleaned again until the output is what its own text cleans to. ammonia
    takes an element that is not allowed away and keeps its children where it stood, and the
    tree left can be one no parser builds: ``<p><button><p>`` leaves a ``<p>`` inside a
    ``<p>``, which a browser reads as two paragraphs after each other (and three once it sees
    the ``</p>`` closing the outer one). Cleaned again, the output is the tree its text
    parses to: what the page holds is what the checks saw."""
    if not html:
        return ""
    before, out = html, clean(html)
    for _ in range(_MOST_CLEANINGS - 1):
        if out == before:
            break
        before, out = out, clean(out)
    return out


def _keep_open(cleaner: nh3.Cleaner, html: str) -> str:
    """Clean ``html`` without the end tags the parser adds for elements left open: a mark
    after the last character lands inside the innermost open element, so what follows it in
    the output is those end tags. Anything else (text moved out of a table) keeps them."""
    mark = "\ue000kb\ue001"
    while mark in html:
        mark += "\ue001"
    out = cleaner.clean(html + mark)
    at = out.rfind(mark)
    if at >= 0 and out.count(mark) == 1 and _END_TAGS_ONLY.fullmatch(out, at + len(mark)):
        return out[:at]
    return out.replace(mark, "")


# -- What was dropped --------------------------------------------------------------------------


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str]
    line: int
    parent: int  # the index of the parent element, -1 at the top
    text: str = ""  # a <style>'s CSS, for the message


def _parse(html: str) -> tuple[list[_Element], list[tuple[str, int]]]:
    """The elements of ``html`` in document order, as a browser builds them, and its comments.
    Walked without recursion: nesting has no limit here."""
    from justhtml import JustHTML

    root = JustHTML(html, fragment=True, track_node_locations=True, sanitize=False).root
    elements: list[_Element] = []
    comments: list[tuple[str, int]] = []
    stack = [(iter(_children(root)), -1)]
    while stack:
        child = next(stack[-1][0], None)
        if child is None:
            stack.pop()
            continue
        name = getattr(child, "name", "") or ""
        if name == "#comment":
            comments.append((str(child.data or ""), child.origin_line or 1))
        elif name and not name.startswith("#"):
            attrs = {key: value or "" for key, value in (child.attrs or {}).items()}
            element = _Element(name.lower(), attrs, child.origin_line or 1, stack[-1][1])
            if element.tag == "style":
                element.text = "".join(str(getattr(t, "data", "") or "") for t in _children(child))
            elements.append(element)
            stack.append((iter(_children(child)), len(elements) - 1))
    return elements, comments


#: The attributes whose URL a browser loads as the element's own content.
LOADED_URLS = {
    "img": ("src",),
    "source": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
}


def local_files(html: str) -> list[tuple[str, str, str, int]]:
    """``(tag, attribute, url, line)`` of each URL in ``html`` that a browser would load as
    content from beside the page: no scheme, no host, not only a fragment."""
    found = []
    for element in _parse(html)[0]:
        for attribute in LOADED_URLS.get(element.tag, ()):
            url = element.attrs.get(attribute, "").strip()
            if url and not url.startswith(("#", "/")) and not scheme_of(url) and not host_of(url):
                found.append((element.tag, attribute, url, element.line))
    return found


def _children(node) -> list:
    content = getattr(node, "template_content", None)
    inside = list(content.children or ()) if content is not None else []
    return inside + list(getattr(node, "children", None) or ())


def _drops(before: str, after: str, policy: Policy) -> list[Drop]:
    """What of ``before`` is not in ``after``: each element of the input is matched, in
    document order, with the next element of the output of the same name. Inside an element
    left out, only what runs a script or loads is reported again."""
    old, comments = _parse(before)
    new, _ = _parse(after)
    drops: list[Drop] = []
    for text, line in comments:
        if text.strip().lstrip("/").startswith("kb-"):
            drops.append(Drop(line, f"<!--{shorten(text)}-->", "marker"))
    at = 0
    dropped: set[int] = set()
    for index, element in enumerate(old):
        if at < len(new) and new[at].tag == element.tag:
            kept = new[at]
            at += 1
            for name, value in element.attrs.items():
                if name not in kept.attrs:
                    drops.append(_attribute_drop(element, name, value, policy))
                elif name == "style" and (lost := _style_lost(value, kept.attrs[name])):
                    drops.append(Drop(element.line, _shown(element, name), "style", lost, name))
            continue
        dropped.add(index)
        drop = _element_drop(element, policy)
        inside = element.parent in dropped
        if not inside or drop.kind in ("script", "host", "scheme"):
            drops.append(drop)
    return sorted(drops, key=lambda drop: drop.line)


def _style_lost(before: str, after: str) -> str:
    """The properties of a style attribute that the page does not get, as the message lists
    them ("" when none)."""

    def properties(css: str) -> list[str]:
        return [part.split(":", 1)[0].strip().lower() for part in css.split(";") if ":" in part]

    kept = set(properties(after))
    return ", ".join(_unique(name for name in properties(before) if name not in kept))


def _why(tag: str, name: str, value: str, policy: Policy) -> tuple[str, str, list[str]]:
    """Why an attribute is not allowed: (kind, how, hosts)."""
    if name.startswith("on"):
        return "script", f"its {name} attribute", []
    values = value.split(";") if tag in ("animate", "set") and name == "values" else [value]
    if any(scheme_of(v) in ("javascript", "vbscript") for v in values):
        return "script", f"a {scheme_of(value) or 'javascript'}: URL", []
    if name in URL_ATTRIBUTES or name in ELSEWHERE:
        urls = _urls(name, value)
        if urls is None:  # a srcset whose candidates are not URLs with a width or density
            return "attribute", "", []
        hosts = [host for url in urls if (host := host_of(url)) and host not in policy.hosts]
        if any(scheme_of(url) == "data" for url in urls):
            return "scheme", "data:", []
        if hosts and not all(host.endswith(":") for host in hosts):
            return "host", "", _unique(h for h in hosts if not h.endswith(":"))
        if tag == "iframe" and name == "src":
            return "host", "", [host_of(value) or "this site"]
        if hosts:
            return "scheme", hosts[0], hosts
    if name == "srcdoc":
        inner = sanitize(value, replace(policy, context="import")).drops
        if any(drop.kind == "script" for drop in inner):
            return "script", "in its srcdoc", []
        hosts = _unique(host for drop in inner for host in drop.hosts)
        return ("host", "", hosts) if hosts else ("attribute", "", [])
    if name == "style" or (tag == "meta" and name == "content"):
        found = _css_urls(value) if name == "style" else REFRESH_URL.findall(value)
        hosts = [host for url in found if (host := host_of(url)) and host not in policy.hosts]
        if hosts:
            return "host", "", _unique(hosts)
        return ("style", "", []) if name == "style" else ("attribute", "", [])
    return "attribute", "", []


def _attribute_drop(element: _Element, name: str, value: str, policy: Policy) -> Drop:
    kind, how, hosts = _why(element.tag, name, value, policy)
    return Drop(element.line, _shown(element, name), kind, how, name, hosts)


def _element_drop(element: _Element, policy: Policy) -> Drop:
    tag = element.tag
    if tag == "script":
        hosts = [h for h in [host_of(element.attrs.get("src", ""))] if h]
        return Drop(element.line, _shown(element, "src" if hosts else ""), "script", "itself",
                    hosts=hosts)  # fmt: skip
    if tag == "style":
        hosts = [
            h for url in _css_urls(element.text) if (h := host_of(url)) and h not in policy.hosts
        ]
        if hosts:
            return Drop(element.line, "<style>", "host", "", "", _unique(hosts))
    found = [(name, *_why(tag, name, value, policy)) for name, value in element.attrs.items()]
    for wanted in ("script", "host", "scheme"):
        for name, kind, how, hosts in found:
            if kind == wanted:
                return Drop(element.line, _shown(element, name), kind, how, "", hosts)
    return Drop(element.line, f"<{tag}>", "element")


_CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)|@import\s+(['"])(.*?)\3""", re.I | re.S)


def _css_urls(css: str) -> list[str]:
    return [match.group(2) or match.group(4) or "" for match in _CSS_URL.finditer(css)]


def _shown(element: _Element, name: str) -> str:
    if not name:
        return f"<{element.tag}>"
    value = "".join(c if c.isprintable() else " " for c in element.attrs.get(name, ""))
    return f'<{element.tag} {name}="{shorten(value, 60).replace(chr(34), "%22")}">'


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))


# -- Messages ----------------------------------------------------------------------------------

SCRIPT_ADVICE = "remove it, or set kb_allow_raw_scripts = True in conf.py"
HOST_ADVICE = "link to it instead, or add the host to kb_allow_raw_html_hosts in conf.py"
ELEMENT_ADVICE = {
    "<svg>": "save the drawing as an .svg file next to the post and show it as an image",
    "<math>": "write the formula as $…$ or a {math} block",
    "<style>": "a <style> restyles the whole page: give the element a style attribute instead",
    "<iframe>": "link to the page instead, or add its host to kb_allow_raw_html_hosts in conf.py",
}


def describe(drop: Drop, subject: str = "raw HTML", advice: str = "") -> str:
    """The warning for one drop: what the input did, what the page keeps, what to do."""
    it = f"its {drop.attribute} attribute" if drop.attribute else "it"
    if drop.kind == "marker":
        return (
            f"{subject}: the comment {drop.shown} looks like those kb writes around parts of "
            "pages that later builds replace; it is left out of the page: remove it, or name it "
            "without the kb- prefix"
        )
    if drop.kind == "script":
        how = "" if drop.how == "itself" else f" ({drop.how})"
        does, todo = f"runs a script{how}", SCRIPT_ADVICE
    elif drop.kind == "host":
        does, todo = f"loads from another host ({', '.join(drop.hosts)})", HOST_ADVICE
    elif drop.kind == "scheme":
        does = f"uses a {drop.how} URL"
        todo = "give a file next to the post, or an http(s) address"
    elif drop.kind == "style":
        todo = advice or "keep to colours, fonts, sizes, spacing and borders, without url()"
        if drop.how:
            return (
                f"{subject}: {drop.shown} sets {drop.how}, which raw HTML may not set; the "
                f"property is left out of the page: {todo}"
            )
        return (
            f"{subject}: {drop.shown} sets a style that loads or runs, which no page of the "
            f"site may do; its style attribute is left out of the page: {todo}"
        )
    else:
        what = f"the attribute {drop.attribute}" if drop.attribute else "the element"
        todo = advice or ELEMENT_ADVICE.get(drop.shown, "remove it, or write it in Markdown")
        return (
            f"{subject}: {drop.shown}: {what} is not among those raw HTML may use; {it} is "
            f"left out of the page: {todo}"
        )
    return (
        f"{subject}: {drop.shown} {does}, which no page of the site may do; {it} is left out "
        f"of the page: {advice or todo}"
    )


# -- SVG files ---------------------------------------------------------------------------------

SVG_TAGS = frozenset((
    "svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text",
    "tspan", "textPath", "defs", "clipPath", "mask", "use", "symbol", "linearGradient",
    "radialGradient", "stop", "pattern", "marker", "title", "desc", "metadata", "image",
))  # fmt: skip
SVG_ATTRIBUTES = frozenset((
    "xmlns", "version", "width", "height", "viewBox", "preserveAspectRatio", "id", "class",
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "d", "points", "dx", "dy",
    "transform", "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width",
    "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "stroke-dasharray",
    "stroke-dashoffset", "stroke-opacity", "opacity", "clip-path", "clip-rule", "mask",
    "font-family", "font-size", "font-weight", "font-style", "text-anchor",
    "dominant-baseline", "alignment-baseline", "letter-spacing", "offset", "stop-color",
    "stop-opacity", "gradientUnits", "gradientTransform", "patternUnits", "patternTransform",
    "markerWidth", "markerHeight", "refX", "refY", "orient", "markerUnits", "marker-start",
    "marker-mid", "marker-end", "style", "href", "xlink:href", "overflow", "display",
    "visibility", "color", "vector-effect", "shape-rendering", "text-rendering",
    "image-rendering", "clipPathUnits", "maskUnits", "spreadMethod", "fx", "fy",
    "textLength", "lengthAdjust", "startOffset",
))  # fmt: skip


def sanitize_svg(svg: str, policy: Policy) -> Sanitized:
    """An SVG file's text (a notebook's figure) as an SVG file the site may publish: drawing
    elements only, ``href`` only to ``#fragments`` of itself or raster ``data:`` images, no
    script, animation, foreign HTML or CSS; well-formed XML. Its ``<style>`` (matplotlib's
    line joins) is dropped without a report: it is not the author's."""
    cleaner = _svg_cleaner()
    out = cleaner.clean(_svg_body(svg))
    quiet = ("xmlns", "xmlns:xlink")  # written again by _as_xml
    drops = [
        drop
        for drop in _drops(_svg_body(svg), out, policy)
        if drop.shown != "<style>" and drop.attribute not in quiet
    ]
    for drop in drops:
        if drop.kind == "attribute" and drop.attribute in ("href", "xlink:href"):
            drop.kind, drop.how = "scheme", scheme_of(_unquoted(drop.shown)) or "this"
    return Sanitized(_as_xml(out), drops)


def _unquoted(shown: str) -> str:
    return shown.partition('="')[2].rstrip('">')


def _svg_body(svg: str) -> str:
    # The prolog and doctype are not HTML: a fragment parser would keep them as text.
    return re.sub(r"^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE[^>]*>\s*)?", "", svg, flags=re.I)


def _svg_href(tag: str, attribute: str, value: str) -> str | None:
    if attribute in ("href", "xlink:href"):
        url = _clean_url(value)
        if not (url.startswith("#") or (tag == "image" and DATA_IMAGES.match(url))):
            return None
    if attribute == "style" and CSS_LOADS.search(value):
        return None
    return value


@functools.lru_cache(maxsize=1)
def _svg_cleaner() -> nh3.Cleaner:
    return nh3.Cleaner(
        tags=set(SVG_TAGS),
        clean_content_tags={"script", "style", "foreignObject"},
        attributes={"*": set(SVG_ATTRIBUTES)},
        attribute_filter=_svg_href,
        strip_comments=True,
        link_rel=None,
        url_schemes={"data"},
    )


SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"


def _as_xml(html: str) -> str:
    """nh3's HTML serialization of an SVG as XML: every element closed, every entity a
    character reference, the SVG and XLink namespaces declared on the root."""
    from xml.sax.saxutils import escape, quoteattr

    from justhtml import JustHTML

    root = JustHTML(html, fragment=True, sanitize=False).root
    parts: list[str] = []

    def write(node, top: bool) -> None:
        for child in node.children or ():
            name = getattr(child, "name", "")
            if name == "#text":
                parts.append(escape(child.data or ""))
            elif name and not name.startswith("#"):
                attrs = dict(child.attrs or {})
                attrs.pop("xmlns", None)
                attrs.pop("xmlns:xlink", None)
                if top and name == "svg":
                    attrs = {"xmlns": SVG_NS, "xmlns:xlink": XLINK_NS, **attrs}
                written = "".join(f" {k}={quoteattr(v or '')}" for k, v in attrs.items())
                parts.append(f"<{name}{written}>")
                write(child, False)
                parts.append(f"</{name}>")

    write(root, True)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + "".join(parts) + "\n"


# -- Imported HTML ---------------------------------------------------------------------------


def sanitize_imported_html(html: str, allowed_hosts=(), own_host: str | None = None) -> Sanitized:
    """HTML from a feed or an export (``kb import``), as a post may hold it: the policy of
    raw HTML in posts, each piece closed where it ends, without scripts whatever the site
    allows. ``drops`` says what was left out, at lines of ``html``."""
    return sanitize(html, Policy.make(allowed_hosts, own_host, False, "import"))
