"""Raw HTML and images that would load from another host or run a script: found in text.

Pure functions, shared by the build (:mod:`kb.markup.rawhtml`, on the doctree's raw nodes and
images) and ``kb check`` (:func:`markdown_problems`, on a post's Markdown), so both give the
same message for the same element. Each HTML fragment is parsed with ``html.parser``, the
way a browser splits tags and attributes, entities decoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urlsplit

from .model import Problem


def shorten(text: str, limit: int = 80) -> str:
    """``text`` as a message may quote it: on one line, without control characters (which a
    terminal would obey), cut to ``limit`` characters."""
    text = "".join(c if c.isprintable() else " " for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Attributes whose URL the browser fetches by itself, on any element.
LOADING_ATTRIBUTES = {
    "src",
    "srcset",
    "imagesrcset",
    "data",
    "poster",
    "background",
    "action",
    "formaction",
    "codebase",
    "archive",
    "manifest",
    "lowsrc",
    "dynsrc",
}
#: ``href`` loads only on these elements (on ``<a>`` it is a link a reader follows).
LOADING_HREF = {"link", "base", "image", "use", "feimage", "script"}
#: Several URLs in one attribute.
URL_LISTS = {"srcset", "imagesrcset", "ping", "archive"}
#: Attributes that hold a URL and so may hold ``javascript:``.
URL_ATTRIBUTES = LOADING_ATTRIBUTES | {"href", "xlink:href", "ping", "cite", "longdesc"}
SCRIPT_SCHEMES = ("javascript:", "vbscript:")
#: Schemes that never name a host (``data:`` images are part of the page).
LOCAL_SCHEMES = {"", "data", "blob", "about", "mailto", "tel"}
CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)|@import\s+(['"])(.*?)\3""", re.I | re.S)
REFRESH_URL = re.compile(r"url\s*=\s*['\"]?([^'\"]+)", re.I)


@dataclass
class Finding:
    """One element of raw HTML that breaks the promise."""

    line: int  # within the raw HTML, from 1
    element: str  # the element as the message shows it: <iframe src="https://…">
    hosts: list[str]
    script: str  # how it runs a script ("" if it does not)
    marker: bool = False  # a comment kb writes around parts of pages (<!--kb-listing-->)


class _Scanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.findings: list[Finding] = []
        self._style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(tag, attrs)
        self._style = tag == "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self._style = False

    def handle_comment(self, data: str) -> None:
        # Builds replace the part of a written page between such comments (the list of a
        # listing, a post's related posts): one in a post would be taken for the real one.
        if data.strip().lstrip("/").startswith("kb-"):
            self.findings.append(Finding(self.getpos()[0], f"<!--{shorten(data)}-->", [], "", True))

    def handle_data(self, data: str) -> None:
        if self._style:
            hosts = _unique(host for url in _css_urls(data) if (host := _host(url)))
            if hosts:
                self.findings.append(Finding(self.getpos()[0], "<style>", hosts, ""))

    def _element(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        hosts: list[str] = []
        script = "itself" if tag == "script" else ""
        shown = ""
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                script = script or f"its {name} attribute"
                shown = shown or f"{name}={_quoted(value)}"
            if name in URL_ATTRIBUTES and _is_script_url(value):
                script = script or "a javascript: URL"
                shown = shown or f"{name}={_quoted(value)}"
            for url in _loaded_urls(tag, name, value, attrs):
                host = _host(url)
                if host:
                    hosts.append(host)
                    shown = shown or f"{name}={_quoted(value)}"
            if tag == "iframe" and name == "srcdoc":
                inner = scan(value)
                hosts += [host for finding in inner for host in finding.hosts]
                if any(finding.script for finding in inner):
                    script = script or "in its srcdoc"
                if inner:
                    shown = shown or "srcdoc=…"
        if hosts or script:
            element = f"<{tag} {shown}>" if shown else f"<{tag}>"
            self.findings.append(Finding(self.getpos()[0], element, _unique(hosts), script))


def _loaded_urls(tag: str, name: str, value: str, attrs) -> list[str]:
    if name == "style":
        return _css_urls(value)
    if name in ("href", "xlink:href") and tag in LOADING_HREF:
        return [value]
    if tag == "meta" and name == "content":
        refresh = any(k == "http-equiv" and (v or "").lower() == "refresh" for k, v in attrs)
        match = REFRESH_URL.search(value) if refresh else None
        return [match.group(1)] if match else []
    if name not in LOADING_ATTRIBUTES and name != "ping":
        return []
    if name in URL_LISTS:
        if name == "ping" or name == "archive":
            return value.split()
        return [candidate.split()[0] for candidate in value.split(",") if candidate.split()]
    return [value]


def _css_urls(css: str) -> list[str]:
    return [match.group(2) or match.group(4) or "" for match in CSS_URL.finditer(css)]


def _clean(url: str) -> str:
    # As a browser reads a URL: no surrounding blanks or controls, no tabs or newlines inside.
    return re.sub(r"[\t\n\r]", "", url.strip(" \t\n\r\f\v\x00"))


def _is_script_url(url: str) -> bool:
    return _clean(url).lower().startswith(SCRIPT_SCHEMES)


def _host(url: str) -> str:
    """The host ``url`` loads from, or "" for a URL of this site (relative, ``data:``…)."""
    url = _clean(url)
    if url.startswith(("//", "\\\\", "/\\", "\\/")):
        rest = url
    else:
        scheme = urlsplit(url).scheme.lower() if ":" in url else ""
        if scheme in LOCAL_SCHEMES or scheme in ("javascript", "vbscript"):
            return ""
        if len(scheme) == 1:  # a Windows drive letter, not a scheme
            return ""
        if scheme not in ("http", "https", "ftp", "ws", "wss"):
            return f"{scheme}:"  # file:, gopher:, … : not this site either
        rest = url[len(scheme) + 1 :]
    # Browsers read "https:/x", "https:\\x" and "//x" alike: the host follows the slashes.
    authority = re.split(r"[/\\?#]", rest.lstrip("/\\"), maxsplit=1)[0]
    host = authority.rpartition("@")[2]
    host = host[1:].partition("]")[0] if host.startswith("[") else host.partition(":")[0]
    return host.lower() or "another host"


def _quoted(value: str) -> str:
    printable = "".join(c if c.isprintable() else " " for c in value)
    return '"' + shorten(printable, 60).replace('"', "%22") + '"'


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))


def scan(html: str) -> list[Finding]:
    scanner = _Scanner()
    scanner.feed(html)
    scanner.close()
    return scanner.findings


def problems(html: str, allowed_hosts=(), allow_scripts: bool = False) -> list[Finding]:
    """What in ``html`` loads from a host not in ``allowed_hosts`` or runs a script."""
    allowed = {host.lower() for host in allowed_hosts}
    result = []
    for finding in scan(html):
        finding.hosts = [host for host in finding.hosts if host not in allowed]
        if allow_scripts:
            finding.script = ""
        if finding.hosts or finding.script or finding.marker:
            result.append(finding)
    return result


def describe(finding: Finding) -> str:
    """The warning for one finding: what the element does and what to write instead."""
    if finding.marker:
        return (
            f"raw HTML: the comment {finding.element} looks like those kb writes around parts of "
            "pages that later builds replace; it is left out of the page: remove it, or name it "
            "without the kb- prefix"
        )
    what, advice = [], []
    if finding.script:
        how = "" if finding.script == "itself" else f" ({finding.script})"
        what.append(f"runs a script{how}")
        advice.append("remove it, or set kb_allow_raw_scripts = True in conf.py")
    if finding.hosts:
        what.append(f"loads from another host ({', '.join(finding.hosts)})")
        advice.append("link to it instead, or add the host to kb_allow_raw_html_hosts in conf.py")
    return (
        f"raw HTML: {finding.element} {' and '.join(what)}, which no page of the site may do; "
        f"it is left out of the page: {'; '.join(advice)}"
    )


def remote_image_message(uri: str, host: str) -> str:
    return (
        f"image: {shorten(uri)!r} loads from another host ({host}), which no page of the site "
        "may do; it is left out of the page: copy the image next to the post, or add the host "
        "to kb_allow_raw_html_hosts in conf.py"
    )


def host_of(url: str) -> str:
    """The host ``url`` loads from, or "" for a URL of this site (relative, ``data:``…)."""
    return _host(url)


# -- kb check: the same, on a post's Markdown -------------------------------------------------

_IMAGE_DIRECTIVES = ("{image}", "{figure}")


def markdown_problems(text: str, allowed_hosts=(), allow_scripts: bool = False) -> list[Problem]:
    """Raw HTML and images of a post's Markdown that the build refuses, at their lines.

    Parsed with markdown-it, the parser MyST uses: HTML blocks and inline HTML, ``{raw} html``
    blocks, Markdown images and ``{image}``/``{figure}`` directives. The front matter's lines
    are blanked, so lines count from the top of the file.
    """
    from markdown_it import MarkdownIt
    from mdit_py_plugins.colon_fence import colon_fence_plugin

    allowed = {host.lower() for host in allowed_hosts}
    found: list[Problem] = []

    def html(fragment: str, line: int) -> None:
        for finding in problems(fragment, allowed, allow_scripts):
            found.append(Problem(line + finding.line - 1, describe(finding), "body"))

    def image(uri: str, line: int) -> None:
        host = host_of(uri)
        if host and host not in allowed:
            found.append(Problem(line, remote_image_message(uri, host), "body"))

    parser = MarkdownIt("commonmark").use(colon_fence_plugin)
    for token in parser.parse(_blank_front_matter(text)):
        line = token.map[0] + 1 if token.map else 1
        if token.type == "html_block":
            html(token.content, line)
        elif token.type in ("fence", "colon_fence"):
            info = token.info.strip()
            if info.startswith("{raw}") and "html" in info.split()[1:]:
                html(token.content, line)  # the build reports at the directive
            elif info.startswith(_IMAGE_DIRECTIVES):
                image(info.split(maxsplit=1)[1] if " " in info else "", line)
        for child in token.children or ():
            if child.type == "html_inline":
                html(child.content, line)
            elif child.type == "image":
                image(child.attrs.get("src", ""), line)
    return found


def _blank_front_matter(text: str) -> str:
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        if end is not None:
            lines[: end + 1] = [""] * (end + 1)
    return "\n".join(lines)
