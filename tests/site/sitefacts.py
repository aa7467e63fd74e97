"""What the tests of the real site know about it: its posts and conf.py, read from the files,
and ``expectations.toml`` for what only a person can say (which query finds which post).

A fork that replaces the posts edits ``expectations.toml``; everything else follows the posts.
"""

from __future__ import annotations

import json
import tomllib
from datetime import date
from pathlib import Path

import yaml

from kb.checks.schedule import today
from kb.site import open_site

REPO = Path(__file__).resolve().parents[2]
EXPECT = tomllib.loads((Path(__file__).parent / "expectations.toml").read_text(encoding="utf-8"))
SITE = open_site(REPO)
SITE_URL = str(SITE.conf["html_baseurl"])
POSTS = sorted(path for path in (REPO / "posts").glob("*/*.md"))
#: Every post, the Jupyter notebooks too (their front matter is the notebook's metadata).
ALL_POSTS = sorted([*POSTS, *(REPO / "posts").glob("*/*.ipynb")])


def docname(path: Path) -> str:
    return path.relative_to(REPO).with_suffix("").as_posix()


def front_matter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        return json.loads(text)["metadata"]
    return yaml.safe_load(text.split("---", 2)[1])


def title_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        cells = json.loads(text)["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise AssertionError(f"{path} has no title")


def day_of(path: Path) -> date:
    value = front_matter(path)["date"]
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def published(path: Path) -> bool:
    return day_of(path) <= today()


def series() -> dict[str, list[Path]]:
    """Each series of the published posts, its members in reading order: numbered parts
    ascending, then supplements and unnumbered posts, oldest first."""
    members: dict[str, list[Path]] = {}
    for path in ALL_POSTS:
        name = str(front_matter(path).get("series") or "").strip()
        if name and published(path):
            members.setdefault(name, []).append(path)

    def order(path: Path):
        part = str(front_matter(path).get("part") or "").strip()
        number = int(part) if part.isdigit() and int(part) > 0 else None
        return (
            (0, number, day_of(path), docname(path))
            if number
            else (1, 0, day_of(path), docname(path))
        )

    return {name: sorted(paths, key=order) for name, paths in sorted(members.items())}


def position_text(path: Path, series_name: str) -> str:
    """What a member's series box says of it: "Part 2 of …", "Supplement to …"."""
    part = str(front_matter(path).get("part") or "").strip()
    if part.isdigit() and int(part) > 0:
        return f"Part {int(part)} of {series_name}"
    if part.casefold() == "supplement":
        return f"Supplement to {series_name}"
    return f"Part of {series_name}"


# -- A fork deletes the sample posts -----------------------------------------------------------
#
# expectations.toml names some of this group's own posts (the post with a chart, the first part
# of a series, the post a query must find). A fork that deletes them keeps a green suite: a test
# that needs one of them skips, and its reason names the post, so the fork knows what to edit.

DOCNAMES = {docname(path) for path in ALL_POSTS}


def missing(*names: str) -> list[str]:
    """Which of these docnames no source of this site has."""
    return [name for name in names if name not in DOCNAMES]


def require_posts(*names: str) -> None:
    """Skip the test when a post it needs is not on this site (a fork removed it)."""
    if gone := missing(*names):
        import pytest

        pytest.skip(
            f"{', '.join(gone)}: not on this site; tests/site/expectations.toml names it "
            "(a fork edits that file to name its own posts)"
        )


def sample_posts() -> list[str]:
    """Every post expectations.toml names."""
    names = [*EXPECT.get("pages", {}).values(), *EXPECT.get("citations", {})]
    names += [post for _, post in EXPECT.get("search", {}).get("queries", [])]
    return sorted(set(names))


def require_sample_site() -> None:
    """Skip a test of how rich the group's own site is (how many posts, how many with math)
    when the posts it describes are gone: a fork that starts from one post is not wrong."""
    require_posts(*sample_posts())


def skeleton(path: Path) -> bool:
    """A post still as ``kb new`` wrote it: no text under its title but ``%`` comments."""
    if path.suffix != ".md":
        return False
    body = path.read_text(encoding="utf-8").split("---", 2)[2]
    lines = [line for line in body.splitlines() if line.strip()]
    return all(line.startswith(("# ", "%")) for line in lines)


def has_text(needle: str) -> bool:
    """Whether any published post's source holds ``needle`` (``\\frac``: a post with math)."""
    return any(needle in path.read_text(encoding="utf-8") for path in filter(published, ALL_POSTS))


def categories_in_use() -> list[str]:
    """The categories the published posts are in, most posts first (then by name)."""
    counts: dict[str, int] = {}
    for path in filter(published, ALL_POSTS):
        for name in str(front_matter(path).get("category") or "").split(","):
            if name.strip():
                counts[name.strip()] = counts.get(name.strip(), 0) + 1
    return sorted(counts, key=lambda name: (-counts[name], name))
