"""Link previews, sitemap.xml, the 404 page, redirects, "updated on" and reading time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import filled_sidebar, soup, write_post
from helpers import resolve_link as resolve
from lxml import etree
from sitebuild import build, copy_root

SITE = "https://meta.example.org/"
SITEMAP_NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


@pytest.fixture
def built(make_app, tmp_path):
    app = build(make_app, copy_root("meta", tmp_path / "site"))
    assert app.warning.getvalue() == ""
    return app


def head_meta(page) -> dict[str, list[str]]:
    """Meta tags of a page's head, by property or name, each with every value in order."""
    tags: dict[str, list[str]] = {}
    for tag in page.head.select("meta[content]"):
        key = tag.get("property") or tag.get("name")
        if key:
            tags.setdefault(key, []).append(tag["content"])
    return tags


# -- Open Graph and Twitter ------------------------------------------------------------------


def test_post_with_its_own_image(built):
    tags = head_meta(soup(built.outdir / "posts/with-image.html"))
    assert tags["og:image"] == [f"{SITE}posts/cover.png"]
    assert tags["twitter:card"] == ["summary_large_image"]
    assert tags["og:image:alt"] == ["A post with an image"]
    copied = built.outdir / "posts/cover.png"
    assert copied.read_bytes() == (built.srcdir / "posts/cover.png").read_bytes()
    assert tags["og:type"] == ["article"]
    assert tags["og:url"] == [f"{SITE}posts/with-image.html"]
    assert tags["og:title"] == ["A post with an image"]
    # The front matter's description, once, not a second one derived from the page.
    assert tags["og:description"] == ["A post with its own card & an update."]
    assert tags["description"] == ["A post with its own card & an update."]
    assert tags["article:published_time"] == ["2024-01-10"]
    assert tags["article:modified_time"] == ["2024-03-01"]
    assert tags["article:author"] == ["Ada Lovelace"]
    assert tags["article:tag"] == ["gemm", "c++"]
    # X falls back to og:title, og:description and og:image: only the card type is its own.
    assert [key for key in tags if key.startswith("twitter:")] == ["twitter:card"]
    # One viewport tag, the theme's: not a second one from docutils.
    assert tags["viewport"] == ["width=device-width,initial-scale=1"]


def test_image_from_the_site_root_and_the_site_default(built):
    root_image = head_meta(soup(built.outdir / "posts/root-image.html"))
    assert root_image["og:image"] == [f"{SITE}images/shared.png"]
    assert (built.outdir / "images/shared.png").is_file()
    plain = head_meta(soup(built.outdir / "posts/plain.html"))
    assert plain["og:image"] == [f"{SITE}_static/card.png"]
    assert plain["og:image:alt"] == ["The test site's card"]
    assert (built.outdir / "_static/card.png").is_file()
    assert "article:modified_time" not in plain
    # Without a description, the excerpt (first paragraph) describes the post.
    assert root_image["og:description"] == ["Its excerpt is the first paragraph."]


def test_a_long_description_is_cut_as_previews_show_it(make_app, tmp_path):
    srcdir = copy_root("meta", tmp_path / "site")
    sentences = [f"Sentence {n} says how the kernel overlaps copies with math." for n in range(8)]
    description = " ".join(sentences)
    write_post(
        srcdir,
        "posts/long.md",
        "A long description",
        "2024-04-01",
        author="ada",
        extra=f'description: "{description}"\n',
    )
    app = build(make_app, srcdir)
    assert app.warning.getvalue() == ""
    tags = head_meta(soup(app.outdir / "posts/long.html"))
    cut = tags["description"][0]
    assert tags["og:description"] == [cut]
    # Whole words, then an ellipsis; about what a search result or a card shows.
    assert cut.endswith("…") and 150 < len(cut) <= 201
    assert description.startswith(cut[:-1]) and description[len(cut) - 1] == " "
    # Listings and feeds keep the whole description.
    assert soup(app.outdir / "blog.html").find(string=lambda text: description in text)


def test_a_byline_in_raw_html_is_plain_text_and_an_authors_description_is_the_only_one(
    make_app, tmp_path
):
    """A migrated blog's habits: a first paragraph that is a styled byline, and
    ``html_meta`` descriptions of its own. Excerpts carry no markup, and a page has one
    ``<meta name="description">``."""
    srcdir = copy_root("meta", tmp_path / "site")
    byline = '<span style="color: gray">By Ada, GPU team</span>'
    write_post(srcdir, "posts/byline.md", "A byline", "2024-04-02", body=byline)
    own = 'myst:\n  html_meta:\n    description: "The author\'s own words."\n'
    write_post(srcdir, "posts/own.md", "Own words", "2024-04-03", extra=own)
    app = build(make_app, srcdir)
    assert app.warning.getvalue() == ""
    tags = head_meta(soup(app.outdir / "posts/byline.html"))
    assert tags["description"] == tags["og:description"] == ["By Ada, GPU team"]
    feed = (app.outdir / "feeds/feed.json").read_text(encoding="utf-8")
    item = next(i for i in json.loads(feed)["items"] if i["title"] == "A byline")
    assert item["summary"] == "By Ada, GPU team"
    tags = head_meta(soup(app.outdir / "posts/own.html"))
    assert tags["description"] == ["The author's own words."]
    assert tags["og:description"] == ["First paragraph of Own words, the excerpt."]


def test_generated_pages_get_basic_tags(built):
    tags = head_meta(soup(built.outdir / "blog/tag/gemm.html"))
    assert tags["og:type"] == ["website"]
    assert tags["og:url"] == [f"{SITE}blog/tag/gemm.html"]
    assert tags["og:title"] == ["Tag: gemm"]
    assert tags["og:image"] == [f"{SITE}_static/card.png"]
    assert tags["twitter:card"] == ["summary_large_image"]


def test_missing_image_is_reported_at_its_line(make_app, tmp_path):
    srcdir = copy_root("meta", tmp_path / "site")
    post = write_post(
        srcdir,
        "posts/lost.md",
        "Lost image",
        "2024-04-01",
        author="ada",
        tags=("gemm",),
        extra="og:image: nowhere.png\n",
    )
    before = post.read_text(encoding="utf-8")
    app = build(make_app, srcdir)
    warnings = app.warning.getvalue().strip().splitlines()
    assert len(warnings) == 1
    assert "posts/lost.md:7: WARNING: og:image 'nowhere.png' not found" in warnings[0]
    assert "[kb.image]" in warnings[0]
    assert post.read_text(encoding="utf-8") == before


# -- sitemap.xml -----------------------------------------------------------------------------


def sitemap(outdir: Path) -> list[tuple[str, str | None]]:
    tree = etree.parse(str(outdir / "sitemap.xml"))
    urls = tree.getroot().findall("s:url", SITEMAP_NS)
    return [
        (
            url.findtext("s:loc", namespaces=SITEMAP_NS),
            url.findtext("s:lastmod", namespaces=SITEMAP_NS),
        )
        for url in urls
    ]


def test_sitemap_lists_every_page_with_absolute_urls(make_app, tmp_path):
    app = build(make_app, copy_root("meta", tmp_path / "site"), confoverrides={"kb_page_size": 2})
    assert app.warning.getvalue() == ""
    entries = sitemap(app.outdir)
    locs = [loc for loc, _ in entries]
    assert locs == sorted(locs)
    assert all(loc.startswith(SITE) for loc in locs)
    paths = {loc[len(SITE) :] for loc in locs}
    assert all((app.outdir / path).is_file() for path in paths)
    written = {str(p.relative_to(app.outdir)) for p in app.outdir.rglob("*.html")}
    left_out = {
        "404.html",  # served for missing pages, never a destination
        "search.html",
        "genindex.html",
        "posts/old-name.html",  # the redirect of a renamed post
    }
    assert written - paths == left_out
    assert {"blog/page/1.html", "blog/tag/gemm/page/1.html", "posts/new-name.html"} <= paths
    lastmod = dict(entries)
    assert lastmod[f"{SITE}posts/with-image.html"] == "2024-03-01"
    assert lastmod[f"{SITE}posts/plain.html"] == "2024-02-15"
    assert lastmod[f"{SITE}blog.html"] is None


def test_sitemap_leaves_out_pages_matching_any_exclusion_pattern(make_app, tmp_path):
    excludes = ["blog/tag/*", "posts/with-?mage.html", "404.html", "search.html"]
    overrides = {"kb_page_size": 2, "kb_sitemap_excludes": excludes}
    app = build(make_app, copy_root("meta", tmp_path / "site"), confoverrides=overrides)
    paths = {loc[len(SITE) :] for loc, _ in sitemap(app.outdir)}
    assert not any(path.startswith("blog/tag/") for path in paths)
    assert (app.outdir / "blog/tag/gemm/page/1.html").is_file()  # written, only not listed
    assert "posts/with-image.html" not in paths
    assert {"blog.html", "blog/page/1.html", "posts/plain.html", "genindex.html"} <= paths


def test_sitemap_after_an_incremental_build_is_complete(make_app, tmp_path):
    srcdir = copy_root("meta", tmp_path / "site")
    first = sitemap(build(make_app, srcdir, confoverrides={"kb_page_size": 2}).outdir)
    post = srcdir / "posts/plain.md"
    post.write_text(post.read_text().replace("Nothing special", "Still nothing special"))
    again = build(make_app, srcdir, confoverrides={"kb_page_size": 2})
    assert "0 added, 1 changed" in again.status.getvalue()
    assert sitemap(again.outdir) == first


# -- The 404 page ----------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/", "/en/latest/"])
def test_404_page_links_work_at_any_depth(make_app, tmp_path, prefix):
    app = build(
        make_app,
        copy_root("meta", tmp_path / "site"),
        confoverrides={"notfound_urls_prefix": prefix},
    )
    assert app.warning.getvalue() == ""
    page = soup(app.outdir / "404.html")
    assert page.select_one("article h1").get_text() == "Page not found"
    urls = [tag.get("href") or tag.get("src") for tag in page.select("[href], [src]")]
    local = [u for u in urls if not u.startswith(("#", "https://", "http://"))]
    assert len(local) > 10
    for url in local:
        assert url.startswith(prefix), url
        path = url[len(prefix) :].split("?")[0].split("#")[0]
        assert (app.outdir / (path or "index.html")).is_file(), url
    body_links = [a["href"] for a in page.select("article a")]
    assert f"{prefix}index.html" in body_links
    sidebar = [a["href"] for a in filled_sidebar(app.outdir / "404.html", app.outdir).select("a")]
    assert f"{prefix}posts/plain.html" in sidebar


# -- Redirects, updates, reading time ----------------------------------------------------------


def test_renamed_post_redirects_from_its_old_address(built):
    page = soup(built.outdir / "posts/old-name.html")
    refresh = page.select_one('meta[http-equiv="refresh"]')["content"]
    assert refresh.startswith("0; url=")
    target = resolve("posts/old-name", refresh[len("0; url=") :])
    assert target == "posts/new-name.html"
    assert (built.outdir / target).is_file()
    canonical = [link["href"] for link in page.select('link[rel="canonical"]')]
    assert canonical == [f"{SITE}posts/new-name.html"]
    assert page.select_one('meta[name="robots"]')["content"] == "noindex"
    link = page.select_one("article a")
    assert link.get_text() == "A renamed post"
    assert resolve("posts/old-name", link["href"]) == "posts/new-name.html"


def test_updated_on_and_reading_time(built):
    header = soup(built.outdir / "posts/with-image.html").select_one(".kb-post-meta")
    updated = header.select_one(".kb-updated time")
    assert updated["datetime"] == "2024-03-01"
    assert updated.get_text() == "1 March 2024"
    # 680 words of body plus title and first paragraph: 3 minutes at 230 words a minute.
    assert header.select_one(".kb-reading-time").get_text() == "3 min read"
    plain = soup(built.outdir / "posts/plain.html").select_one(".kb-post-meta")
    assert plain.select_one(".kb-updated") is None
    assert plain.select_one(".kb-reading-time").get_text() == "1 min read"
