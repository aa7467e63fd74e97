"""Raw HTML and images of a post: what the page keeps of them, found in text.

Every piece of raw HTML passes the one sanitizer of :mod:`.sanitize` (an allow-list on nh3, a
browser-grade HTML5 parser); the build (:mod:`kb.markup.rawhtml`, on the doctree's raw nodes)
puts its output into the page and ``kb check`` (:func:`markdown_problems`, on the post's
Markdown, tokenized as MyST tokenizes it) reports the same drops at the same lines.
"""

from __future__ import annotations

import functools

from .model import Problem
from .namedfiles import NamedFiles
from .postbody import _OPAQUE
from .sanitize import Drop, Policy, describe, host_of, sanitize, shorten

__all__ = [
    "Drop",
    "Policy",
    "describe",
    "host_of",
    "markdown_problems",
    "problems",
    "remote_image_message",
    "sanitize",
    "shorten",
]


def problems(html: str, allowed_hosts=(), allow_scripts: bool = False) -> list[Drop]:
    """What the page does not get of ``html``: each element, attribute or URL the policy
    drops (loading from a host not in ``allowed_hosts``, running a script, …)."""
    return sanitize(html, Policy.make(allowed_hosts, None, allow_scripts)).drops


def remote_image_message(uri: str, host: str) -> str:
    return (
        f"image: {shorten(uri)!r} loads from another host ({host}), which no page of the site "
        "may do; it is left out of the page: copy the image next to the post, or add the host "
        "to kb_allow_raw_html_hosts in conf.py"
    )


# -- kb check: the same, on a post's Markdown -------------------------------------------------

_IMAGE_DIRECTIVES = ("image", "figure")
#: Directives whose content is no Markdown (code, data, math, HTML: judged above, or never
#: HTML); every other directive's content is read as Markdown, as MyST reads a note's.
_NOT_MARKDOWN = frozenset(_OPAQUE) | {"eval-rst"}


def markdown_problems(
    text: str,
    allowed_hosts=(),
    allow_scripts: bool = False,
    myst_extensions=(),
    own_host: str | None = None,
    files: NamedFiles | None = None,
) -> list[Problem]:
    """What the build drops of a post's raw HTML and images, at their lines.

    Tokenized with MyST's own markdown-it set-up and the site's ``myst_enable_extensions``, so
    that what MyST reads as math (``$<script>$``), a code span or a directive is not taken for
    HTML: HTML blocks and inline HTML, ``{raw} html`` blocks, Markdown images and
    ``{image}``/``{figure}`` directives, in the post and in the content of its directives (a
    note, a figure's caption). The front matter's lines are blanked, so lines count from the
    top of the file. ``files``: the files the post's images and raw HTML name are judged too,
    as the build judges them (:class:`.namedfiles.NamedFiles` keeps their problems).
    """
    policy = Policy.make(allowed_hosts, own_host, allow_scripts)
    allowed = policy.hosts
    found: list[Problem] = []
    parser = _parser(tuple(myst_extensions))

    def html(fragment: str, line: int) -> None:
        result = sanitize(fragment, policy)
        for drop in result.drops:
            found.append(Problem(line + drop.line - 1, describe(drop), "body"))
        if files is not None:
            files.html(result.html, line)  # what the page keeps, as the build judges it

    def image(uri: str, line: int) -> None:
        host = host_of(uri)
        if host and host not in allowed:
            found.append(Problem(line, remote_image_message(uri, host), "body"))
        elif files is not None:
            files.image(uri, line)

    def read(source: str, offset: int) -> None:
        for token in parser.parse(source):
            line = offset + (token.map[0] + 1 if token.map else 1)
            if token.type == "html_block":
                html(token.content, line)
            elif token.type in ("fence", "colon_fence"):
                info = token.info.strip()
                name = info[1 : info.index("}")] if info.startswith("{") and "}" in info else ""
                argument = info.split(maxsplit=1)[1] if " " in info else ""
                if name == "raw" and "html" in argument.split():
                    html(token.content, line)  # the build reports at the directive
                elif name in _IMAGE_DIRECTIVES:
                    image("".join(argument.split()), line)  # as docutils reads the argument
                elif name == "eval-rst" and files is not None:
                    files.rst(token.content, line)
                if name and name not in _NOT_MARKDOWN:
                    read(token.content, line)  # its first line is the one after the fence
            for child in token.children or ():
                if child.type == "html_inline":
                    html(child.content, line)
                elif child.type == "image":
                    image(child.attrs.get("src", ""), line)

    read(_blank_front_matter(text), 0)
    return found


@functools.lru_cache(maxsize=8)
def _parser(extensions: tuple[str, ...]):
    """MyST's markdown-it parser with the site's extensions (as the build makes it)."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    try:
        config = MdParserConfig(enable_extensions=set(extensions))
    except Exception:  # an extension MyST does not know: the build reports it
        config = MdParserConfig()
    return create_md_parser(config, RendererHTML)


def _blank_front_matter(text: str) -> str:
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        if end is not None:
            lines[: end + 1] = [""] * (end + 1)
    return "\n".join(lines)
