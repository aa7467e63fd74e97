"""The real site, built as `make html` builds it: every page in furo's layout, every post,
every category, and a home page of the newest posts."""

from __future__ import annotations

from helpers import soup
from sitefacts import (
    ALL_POSTS,
    EXPECT,
    POSTS,
    REPO,
    SITE,
    day_of,
    front_matter,
    published,
    require_sample_site,
    skeleton,
    title_of,
)

from kb.checks.slugs import slugify

FURO_ERROR = "inheriting from layout.html"


def test_the_site_has_its_posts():
    assert POSTS, "the site has no Markdown post"
    require_sample_site()
    assert len(POSTS) >= EXPECT["site"]["min_posts"]


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
    for post in filter(published, ALL_POSTS):
        page = built_site / post.relative_to(REPO).with_suffix(".html")
        h1 = soup(page).select("article h1")
        assert len(h1) == 1, post
        assert h1[0].get_text().rstrip("¶").strip() == title_of(post)


def test_a_page_per_category(built_site):
    categories = {
        name.strip()
        for post in filter(published, ALL_POSTS)
        for name in str(front_matter(post)["category"]).split(",")
    }
    assert categories <= set(SITE.categories)
    for name in categories:
        page = soup(built_site / f"blog/category/{slugify(name)}.html")
        assert page.select_one("article h1").get_text() == f"Category: {name}"


def test_home_lists_the_newest_posts_newest_first(built_site):
    home = soup(built_site / "index.html")
    listed = [a.get_text() for a in home.select(".kb-entry-title a")]
    # Newest first; posts of the same day in title order, as the catalog sorts them.
    dated = sorted(
        ((day_of(p), title_of(p)) for p in filter(published, ALL_POSTS)),
        key=lambda item: (-item[0].toordinal(), item[1]),
    )
    newest = [title for _, title in dated][: SITE.conf.get("kb_home_posts", 10)]
    assert listed == newest
    assert all(a.get_text() == "Go to article…" for a in home.select(".kb-entry-more a"))


def test_every_post_is_a_real_technical_post():
    fences = set(EXPECT["site"]["code_languages"])
    written = [post for post in POSTS if not skeleton(post)]
    for post in POSTS:
        meta = front_matter(post)
        assert {"date", "category", "tags", "author"} <= set(meta), post
    if not written:
        require_sample_site()  # a fork's first post, still as kb new wrote it
    for post in written:
        meta = front_matter(post)
        assert {"date", "category", "tags", "author", "description"} <= set(meta), post
        assert isinstance(meta["category"], str) and isinstance(meta["author"], str), post
        body = post.read_text(encoding="utf-8").split("---", 2)[2]
        assert len(body.split()) >= EXPECT["site"]["min_words"], post
        assert any(line.startswith("## ") for line in body.splitlines()), post
        languages = {
            line[3:].strip().split()[0]
            for line in body.splitlines()
            if line.startswith("```") and len(line) > 3 and line[3] not in "{`"
        }
        assert languages & fences, post
