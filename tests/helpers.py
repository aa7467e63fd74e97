"""Small helpers for tests that parse built output."""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath

from bs4 import BeautifulSoup


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(Path(path).read_text(encoding="utf-8"), "lxml")


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write each file of ``files`` (a path relative to ``root``, and its text), with its
    folders."""
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text, encoding="utf-8")


def write_post(
    root: Path,
    relpath: str,
    title: str,
    date: str,
    *,
    category="Article",
    tags=(),
    author="ada",
    extra: str = "",
    body: str = "",
) -> Path:
    """Write a MyST post with complete front matter into a test site."""
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    tag_list = ", ".join(tags)
    path.write_text(
        f"---\nblogpost: true\ndate: {date}\ncategory: {category}\ntags: [{tag_list}]\n"
        f"author: {author}\n{extra}---\n\n# {title}\n\n"
        f"{body or f'First paragraph of {title}, the excerpt.'}\n\nSecond paragraph.\n",
        encoding="utf-8",
    )
    return path


def warning_lines(warning) -> list[str]:
    """The lines of Sphinx's warning stream, without the colour codes around each one."""
    return re.sub(r"\x1b\[[0-9;]*m", "", warning.getvalue()).strip().splitlines()


#: What kb-sidebar.js leaves as it is: a URL with a scheme, from the server's root, or a fragment.
_NOT_RELATIVE = re.compile(r"^([a-z][a-z0-9+.-]*:|/|#)", re.IGNORECASE)


def filled_sidebar(page: Path, site: Path | None = None) -> BeautifulSoup | None:
    """A page's blog sidebar as a reader sees it once ``kb-sidebar.js`` has run: the holder
    filled with the lists of the file it names (``data-kb-sidebar``), each relative link
    prefixed with the way back to the root (``data-kb-root``), as the script does (the browser
    tests check that the two agree). ``site``: the output folder, for a page (the 404 page)
    whose holder names the file from the server's root. None for a page with no sidebar."""
    html = soup(page)
    holder = html.select_one("[data-kb-sidebar]")
    if holder is None:
        return None
    named = holder["data-kb-sidebar"]
    root = holder.get("data-kb-root", "")
    shared = site / named[len(root) :] if named.startswith("/") else page.parent / named
    lists = BeautifulSoup(json.loads(shared.read_text(encoding="utf-8"))["html"], "lxml")
    for attribute in ("href", "src"):
        for element in lists.select(f"[{attribute}]"):
            if not _NOT_RELATIVE.match(element[attribute]):
                element[attribute] = root + element[attribute]
    holder.clear()
    for child in list((lists.body or lists).children):
        holder.append(child)
    return holder


def representative_pages(site: Path) -> dict[str, str]:
    """One page of each kind on a built site (URLs relative to its root), found the way a
    reader finds them: from the home page's newest post and its sidebar."""
    home = soup(site / "index.html")
    sidebar = filled_sidebar(site / "index.html", site)
    sidebar_links = [a["href"] for a in sidebar.select(".kb-sidebar a[href]")] if sidebar else []
    return {
        "home": "index.html",
        "post": home.select_one(".kb-entry-title a[href]")["href"],
        "category": next(href for href in sidebar_links if "/category/" in href),
        "tag": next(href for href in sidebar_links if "/tag/" in href),
    }


def resolve_link(page_docname: str, href: str) -> str:
    """The site path a relative link on a page points at."""
    parts: list[str] = []
    for part in (PurePosixPath(page_docname).parent / href).parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


#: Resolves once the page's blog sidebar holds its lists (kb-sidebar.js marks the holder
#: ``data-kb-filled``), or at once on a page without one: what axe and a screenshot must wait
#: for, so they see what a reader sees and the same every run.
SIDEBAR_FILLED = """() => new Promise(resolve => {
  const check = () => {
    const holder = document.querySelector("[data-kb-sidebar]");
    if (!holder || holder.hasAttribute("data-kb-filled")) resolve(true);
    else setTimeout(check, 10);
  };
  check();
})"""


def sidebar_filled(page) -> None:
    """Wait until ``page``'s blog sidebar holds its lists (see ``SIDEBAR_FILLED``)."""
    page.evaluate(SIDEBAR_FILLED)
