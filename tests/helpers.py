"""Small helpers for tests that parse built output."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from bs4 import BeautifulSoup


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(Path(path).read_text(encoding="utf-8"), "lxml")


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


def representative_pages(site: Path) -> dict[str, str]:
    """One page of each kind on a built site (URLs relative to its root), found the way a
    reader finds them: from the home page's newest post and its sidebar."""
    home = soup(site / "index.html")
    sidebar_links = [a["href"] for a in home.select(".kb-sidebar a[href]")]
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
