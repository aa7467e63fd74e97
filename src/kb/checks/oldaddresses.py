"""The site's old addresses (``redirects.toml``, ``kb_old_addresses``): what each one says.

An imported site's readers still follow the old blog's archive links: ``/category/cuda/``,
``/tag/fp8/``, ``/author/mira/``. ``kb import`` writes those addresses, with the page each now
leads to, into one TOML table the author may edit::

    [redirects]
    "/category/cuda/" = "/blog/category/cuda.html"

and the build writes a redirect page at each old address (:mod:`kb.pages.redirects`). This
module reads the table and judges each pair on its own (the parts a page can be written at:
the docname rules of :mod:`.redirects`); whether the old address is already a page and the
new one exists is the build's and ``kb check``'s business, as they know the site.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from .bounded import ReadRefused, read_bounded
from .messages import say
from .model import Problem
from .redirects import redirect_problem

FILE_EXAMPLE = '"/category/cuda/" = "/blog/category/cuda.html"'
_TOML_LINE = re.compile(r"at line (\d+)")
#: A line's quoted key: a basic string (escapes allowed) or a literal one.
_KEY = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\'[^\']*\')\s*=')


@dataclass(frozen=True)
class OldAddress:
    line: int
    old: str  # as written: "/category/cuda/"
    new: str  # as written: "/blog/category/cuda.html"
    docname: str  # where the redirect page is written: "category/cuda/index"
    target: str  # the page it leads to: "blog/category/cuda"


def address_docname(path: str) -> str | None:
    """The docname of a site path: ``/a/b/`` is ``a/b/index``, ``/a/b.html`` is ``a/b``;
    None for anything else (a URL, a path without a leading /, a query, a fragment)."""
    if not path.startswith("/") or path.startswith("//") or any(c in path for c in "?#\\"):
        return None
    inner = path[1:]
    if not inner:
        return "index"
    if inner.endswith("/"):
        return inner + "index"
    if inner.endswith(".html"):
        return inner.removesuffix(".html")
    return None


def _lines(text: str) -> dict[str, int]:
    """The line each quoted key of the table is written on (tomllib gives no lines)."""
    found: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        match = _KEY.match(line)
        if match:
            try:  # the key as TOML reads it: escapes (\u03c0) and all
                key = next(iter(tomllib.loads(f"{match.group(1)} = 0")))
            except tomllib.TOMLDecodeError:
                continue
            found.setdefault(key, number)
    return found


def read_old_addresses(text: str) -> tuple[list[OldAddress], list[Problem]]:
    """The pairs of the table, and a problem (at its line) for each one that cannot be."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        where = _TOML_LINE.search(str(error))
        reason = str(error).split(" (at ", 1)[0]
        line = int(where.group(1)) if where else 1
        return [], [Problem(line, say("old_addresses_unreadable", reason=reason))]
    table = data.get("redirects", {})
    if not isinstance(table, dict) or set(data) - {"redirects"}:
        return [], [Problem(1, say("old_addresses_unreadable", reason="no [redirects] table"))]
    lines = _lines(text)
    found: list[OldAddress] = []
    problems: list[Problem] = []
    for old, new in table.items():
        line = lines.get(old, 1)
        docname = address_docname(old)
        reason = "is not a path from the site root, ending in / or .html"
        if docname is not None:
            reason = redirect_problem(docname)
        if reason:
            problems.append(Problem(line, say("old_address_bad", old=old, reason=reason)))
            continue
        target = address_docname(new) if isinstance(new, str) else None
        if target is None or redirect_problem(target):
            problems.append(Problem(line, say("old_address_target_bad", old=old, new=new)))
            continue
        found.append(OldAddress(line, old, new, str(docname), target))
    return found, problems


def read_old_addresses_file(path, limit: int, root) -> tuple[list[OldAddress], list[Problem]]:
    """:func:`read_old_addresses` of a file, read as every file a source names is (a regular
    file inside ``root``, at most ``limit`` bytes)."""
    try:
        text = read_bounded(path, limit, root=root).decode("utf-8")
    except (ReadRefused, UnicodeDecodeError) as error:
        reason = f"it {error.refusal.reason}" if isinstance(error, ReadRefused) else "not UTF-8"
        return [], [Problem(1, say("old_addresses_unreadable", reason=reason))]
    return read_old_addresses(text)


def site_problems(addresses: list[OldAddress], is_page, is_built) -> list[Problem]:
    """What the site says of each pair: an old address where a page of the site is
    (``is_page(docname)``) would replace it; a new one must be a page the build writes
    (``is_built(docname)``)."""
    problems = []
    for address in addresses:
        if is_page(address.docname):
            problems.append(Problem(address.line, say("old_address_taken", old=address.old)))
        elif not is_built(address.target):
            problems.append(
                Problem(
                    address.line,
                    say("old_address_unknown", old=address.old, new=address.new),
                )
            )
    return problems
