"""The real site, built as `make html` builds it: every page in furo's layout, every post,
every category, and a home page of the newest posts."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import yaml
from helpers import soup

REPO = Path(__file__).resolve().parent.parent
POSTS = sorted((REPO / "posts").glob("*/*.md"))
#: Every post, the Jupyter notebooks too (their front matter is the notebook's metadata).
ALL_POSTS = sorted([*POSTS, *(REPO / "posts").glob("*/*.ipynb")])
FURO_ERROR = "inheriting from layout.html"


def front_matter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        metadata = json.loads(text)["metadata"]
        return {**metadata, "date": date.fromisoformat(metadata["date"])}
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


def test_thirteen_or_more_posts_exist():
    assert len(POSTS) >= 13


def test_every_page_has_furos_layout(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > len(POSTS)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert FURO_ERROR not in text, page
        html = soup(page)
        if html.select_one('meta[http-equiv="refresh"]') and not html.select_one(".page"):
            continue
        where = page.relative_to(built_site)
        assert html.select_one("header.mobile-header"), f"{where}: no furo header"
        assert html.select_one(".sidebar-drawer form.sidebar-search-container"), (
            f"{where}: no search"
        )
        assert html.select_one("footer"), f"{where}: no footer"


def test_every_post_has_a_page_titled_with_its_title(built_site):
    for post in ALL_POSTS:
        page = built_site / post.relative_to(REPO).with_suffix(".html")
        h1 = soup(page).select("article h1")
        assert len(h1) == 1, post
        assert h1[0].get_text().rstrip("¶").strip() == title_of(post)


def test_a_page_per_category(built_site):
    categories = {
        name.strip()
        for post in ALL_POSTS
        for name in str(front_matter(post)["category"]).split(",")
    }
    assert categories == {"Article", "Benchmarks"}
    for name in categories:
        page = soup(built_site / f"blog/category/{name.lower()}.html")
        assert page.select_one("article h1").get_text() == f"Category: {name}"


def test_home_lists_the_newest_posts_newest_first(built_site):
    home = soup(built_site / "index.html")
    listed = [a.get_text() for a in home.select(".kb-entry-title a")]
    # Newest first; posts of the same day in title order, as the catalog sorts them.
    dated = sorted(
        ((front_matter(p)["date"], title_of(p)) for p in ALL_POSTS),
        key=lambda item: (-item[0].toordinal(), item[1]),
    )
    today = date.today()
    newest = [title for when, title in dated if when <= today][: len(listed)]
    assert listed == newest
    assert len(listed) == 10
    assert all(a.get_text() == "Go to article…" for a in home.select(".kb-entry-more a"))


def test_every_post_is_a_real_technical_post():
    fences = {"cuda", "ptx", "python", "shell", "console", "bash", "cpp"}
    for post in POSTS:
        meta = front_matter(post)
        assert {"date", "category", "tags", "author", "description"} <= set(meta), post
        assert isinstance(meta["category"], str) and isinstance(meta["author"], str), post
        body = post.read_text(encoding="utf-8").split("---", 2)[2]
        assert len(body.split()) >= 400, post
        assert any(line.startswith("## ") for line in body.splitlines()), post
        languages = {
            line[3:].strip().split()[0]
            for line in body.splitlines()
            if line.startswith("```") and len(line) > 3 and line[3] not in "{`"
        }
        assert languages & fences, post
