"""Raw HTML and images of a post: what the page keeps of them, found in text.

Every piece of raw HTML passes the one sanitizer of :mod:`.sanitize` (an allow-list on nh3, a
browser-grade HTML5 parser); the build (:mod:`kb.markup.rawhtml`, on the doctree's raw nodes)
puts its output into the page and ``kb check`` (:func:`markdown_problems`, on the post's
Markdown, tokenized as MyST tokenizes it) reports the same drops at the same lines.
"""

from __future__ import annotations

import functools

from .model import Problem
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

_IMAGE_DIRECTIVES = ("{image}", "{figure}")


def markdown_problems(
    text: str,
    allowed_hosts=(),
    allow_scripts: bool = False,
    myst_extensions=(),
    own_host: str | None = None,
) -> list[Problem]:
    """What the build drops of a post's raw HTML and images, at their lines.

    Tokenized with MyST's own markdown-it set-up and the site's ``myst_enable_extensions``, so
    that what MyST reads as math (``$<script>$``), a code span or a directive is not taken for
    HTML: HTML blocks and inline HTML, ``{raw} html`` blocks, Markdown images and
    ``{image}``/``{figure}`` directives. The front matter's lines are blanked, so lines count
    from the top of the file.
    """
    policy = Policy.make(allowed_hosts, own_host, allow_scripts)
    allowed = policy.hosts
    found: list[Problem] = []

    def html(fragment: str, line: int) -> None:
        for drop in sanitize(fragment, policy).drops:
            found.append(Problem(line + drop.line - 1, describe(drop), "body"))

    def image(uri: str, line: int) -> None:
        host = host_of(uri)
        if host and host not in allowed:
            found.append(Problem(line, remote_image_message(uri, host), "body"))

    for token in _parser(tuple(myst_extensions)).parse(_blank_front_matter(text)):
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
