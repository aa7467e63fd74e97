"""Small helpers for tests that parse built output."""

from __future__ import annotations

import re
from pathlib import Path

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
