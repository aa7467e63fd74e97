"""Old addresses (front matter ``redirect:``): which are safe to write a redirect page at.

ablog wrote ``<output>/<name>.html`` wherever a name pointed, so a name must be a docname: a
path from the site root, without a suffix, of parts made of safe characters. Its folders must
not be named like files (``sitemap.xml/old``, ``posts/x.html/old``): the build writes files of
those names (a page, the sitemap, a notebook's ``.ipynb``), and a redirect folder in their place
broke every later build until the output was deleted.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

#: One part of an old address: letters (any script), digits, ``-``, ``_``, ``.`` and ``~``.
_REDIRECT_PART = re.compile(r"[\w.~-]+")
_URL_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_PAGE_SUFFIXES = (".html", ".htm", ".md", ".rst", ".ipynb")
#: A folder named like a file: a dot, then a letter (``sitemap.xml``; ``v1.2`` is a folder).
_FILE_LIKE = re.compile(r"\.[A-Za-z][A-Za-z0-9]*$")
#: A file name stops at 255 bytes; a redirect page adds ".html".
_MAX_PART_BYTES = 200
REDIRECT_EXAMPLE = "posts/2025/old-slug"


def redirect_problem(name: str) -> str:
    """Why ``name`` cannot be a redirect's old address, or "" when it can.

    An old address is a docname: a path from the site root, without a suffix, made of parts
    of safe characters. ablog writes ``<output>/<name>.html``, so anything else could land
    outside the output folder, in a file name the system refuses, or at an odd URL.
    """
    parts = name.split("/")
    if not name:
        return "is empty (an extra comma?)"
    if _URL_SCHEME.match(name) or name.startswith("//"):
        return "is a full URL, which ablog would write as a file path"
    if "\\" in name:
        return "contains a backslash"
    if name.startswith("/"):
        return "starts with /"
    if ".." in parts:
        return "goes up with .., out of the site"
    if name.endswith("/"):
        return "ends with /"
    if "" in parts or "." in parts:
        return "has an empty part (// or /./)"
    if name.lower().endswith(_PAGE_SUFFIXES):
        return "ends with a file suffix"
    if any(not _REDIRECT_PART.fullmatch(part) for part in parts):
        return "has a character other than letters, digits, -, _, . and ~"
    if any(part.startswith(".") for part in parts):
        return "has a part starting with a dot"
    file_like = next((part for part in parts[:-1] if _FILE_LIKE.search(part)), "")
    if file_like:
        return (
            f'has a folder named like a file ("{file_like}"), where the build writes a file of '
            "that name"
        )
    if any(len(part.encode("utf-8")) > _MAX_PART_BYTES for part in parts):
        return f"has a part longer than {_MAX_PART_BYTES} bytes, too long for a file name"
    return ""


def redirect_instead(name: str) -> str:
    """What to write instead of a bad old address: the same address made valid, if it can be."""
    path = urlsplit(name).path if _URL_SCHEME.match(name) or name.startswith("//") else name
    path = path.replace("\\", "/").strip("/")
    for suffix in _PAGE_SUFFIXES:
        if path.lower().endswith(suffix):
            path = path[: -len(suffix)]
    if ".." in path.split("/"):
        return REDIRECT_EXAMPLE
    path = "/".join(part for part in path.split("/") if part not in ("", "."))
    return path if path and not redirect_problem(path) else REDIRECT_EXAMPLE
