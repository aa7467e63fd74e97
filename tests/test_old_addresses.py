"""The site's old addresses (``redirects.toml``, tests/roots/test-pages): a page at each old
address sends the reader to the new one; a pair that cannot be is a warning at its line, in
the same words from ``kb check``; an incremental build after the file changes equals a clean
build (a removed pair's page is gone)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from authoring import build as build_with_warnings
from authoring import run_check
from helpers import soup
from test_incremental import assert_matches_clean, build, clean_build

from kb.checks.messages import say
from kb.checks.oldaddresses import address_docname, read_old_addresses

GOOD = """\
[redirects]
"/category/article/" = "/blog/category/article.html"
"/about-us.html" = "/pages/about.html"
"""
BAD = """\
[redirects]
"/category/article/" = "/blog/category/article.html"
"category/nope" = "/blog.html"
"/author/bob/" = "https://elsewhere.example.org/bob"
"/pages/about.html" = "/index.html"
"/tag/gone/" = "/blog/tag/gone.html"
"""


def site_copy(root: Path, rootdir: Path, table: str) -> Path:
    srcdir = root / "site"
    shutil.copytree(rootdir / "test-pages", srcdir)
    (srcdir / "stray.md").unlink()  # the files the build ignores are test_pages.py's
    shutil.rmtree(srcdir / "notes")
    (srcdir / "redirects.toml").write_text(table, encoding="utf-8")
    return srcdir


@pytest.fixture(scope="module")
def built(tmp_path_factory, rootdir: Path) -> Path:
    srcdir = site_copy(tmp_path_factory.mktemp("old-addresses"), rootdir, GOOD)
    return build(srcdir, srcdir / "_build")


def test_each_old_address_is_a_page_that_sends_the_reader_on(built: Path) -> None:
    page = soup(built / "category/article/index.html")
    refresh = page.select_one('meta[http-equiv="refresh"]')["content"]
    assert refresh == "0; url=../../blog/category/article.html"
    assert page.select_one('meta[name="robots"]')["content"] == "noindex"
    link = page.select_one(".kb-redirect a")
    assert link["href"] == "../../blog/category/article.html"
    assert link.get_text() == "Category: Article"  # the archive's own title
    assert page.select_one(".kb-redirect h1").get_text() == "This page has moved"
    moved = soup(built / "about-us.html").select_one(".kb-redirect a")
    assert moved["href"] == "pages/about.html" and moved.get_text() == "About this site"
    sitemap = (built / "sitemap.xml").read_text(encoding="utf-8")
    assert "category/article/index.html" not in sitemap and "about-us.html" not in sitemap


def test_a_bad_pair_is_a_warning_at_its_line_in_kb_checks_words(tmp_path, rootdir) -> None:
    srcdir = site_copy(tmp_path, rootdir, BAD)
    app, warnings = build_with_warnings(srcdir)
    found = [(Path(path).name, line, message) for path, line, message, _ in warnings]
    expected = [
        ("redirects.toml", 3, say("old_address_bad", old="category/nope",
                                  reason="is not a path from the site root, ending in / or .html")),
        ("redirects.toml", 4, say("old_address_target_bad", old="/author/bob/",
                                  new="https://elsewhere.example.org/bob")),
        ("redirects.toml", 5, say("old_address_taken", old="/pages/about.html")),
        ("redirects.toml", 6, say("old_address_unknown", old="/tag/gone/",
                                  new="/blog/tag/gone.html")),
    ]  # fmt: skip
    assert found == expected
    outdir = Path(app.outdir)
    assert (outdir / "category/article/index.html").is_file()  # the good pair still has its page
    assert not (outdir / "author/bob/index.html").exists()
    assert "This page has moved" not in (outdir / "pages/about.html").read_text("utf-8")
    status, problems, _ = run_check(srcdir)
    assert status == 1
    # kb check cannot know the blog's archives; the build does (line 6 is the build's alone).
    assert problems == [(path, line, message) for path, line, message in expected[:3]]


def test_an_unreadable_file_is_one_warning_at_its_line(tmp_path, rootdir) -> None:
    srcdir = site_copy(tmp_path, rootdir, '[redirects]\n"/a/" "/b.html"\n')
    _, warnings = build_with_warnings(srcdir)
    assert [(line, message.split(" (")[0]) for _, line, message, _ in warnings] == [
        (2, "the old addresses cannot be read")
    ]
    assert run_check(srcdir)[1][0][:2] == ("redirects.toml", 2)


@pytest.mark.slow  # three builds
def test_a_changed_file_rebuilds_as_a_clean_build(tmp_path, rootdir) -> None:
    srcdir = site_copy(tmp_path, rootdir, GOOD)
    build(srcdir, srcdir / "_build")
    table = GOOD.replace('"/about-us.html" = "/pages/about.html"\n', "")
    table += '"/who/" = "/pages/about.html"\n'
    (srcdir / "redirects.toml").write_text(table, encoding="utf-8")
    incremental = build(srcdir, srcdir / "_build")
    assert not (incremental / "about-us.html").exists()
    assert (incremental / "who/index.html").is_file()
    assert_matches_clean(incremental, clean_build(srcdir, tmp_path / "clean"))


@pytest.mark.parametrize(
    ("path", "docname"),
    [("/", "index"), ("/a/b/", "a/b/index"), ("/a/b.html", "a/b"), ("a/b/", None),
     ("//host/x/", None), ("/a/?p=1", None), ("/a/b", None), ("/a\\b/", None)],
)  # fmt: skip
def test_addresses_are_site_paths_ending_in_a_slash_or_html(path, docname) -> None:
    assert address_docname(path) == docname


def test_every_pair_of_a_table_is_read_with_its_line() -> None:
    addresses, problems = read_old_addresses(GOOD)
    assert problems == []
    assert [(a.line, a.docname, a.target) for a in addresses] == [
        (2, "category/article/index", "blog/category/article"),
        (3, "about-us", "pages/about"),
    ]
    _, problems = read_old_addresses('[other]\n"/a/" = "/b.html"\n')
    assert [p.line for p in problems] == [1]


def test_a_key_is_found_on_its_line_however_it_is_quoted() -> None:
    table = '[redirects]\n"/tag/\\u03c0/" = "/x.html"\n\'/a/\' = "/b/"\n"/tag/π-2/" = "x"\n'
    addresses, problems = read_old_addresses(table)
    assert [(a.line, a.old) for a in addresses] == [(2, "/tag/π/"), (3, "/a/")]
    assert [p.line for p in problems] == [4]  # "x": not a path of the site


def test_an_archive_leads_from_wordpress_slug_to_the_builds() -> None:
    from kb.importer.model import Category, Item
    from kb.importer.oldaddresses import archive_redirects
    from kb.importer.posts import Names

    item = Item(line=1, title="t", kind="post", status="publish", authors=["mira"])
    item.categories = [Category("GPU Kernels", "gpu-kernels")]
    item.tags, item.tag_slugs = ["content περιεχόμενο"], {"content περιεχόμενο": "content-2"}
    names = Names(("Article",), {"mira": "Mira"}, category_map={"gpu kernels": "Article"})
    pairs = archive_redirects(
        names, [item], "blog", {"mira": ("Mira Chen", None)}, lambda tag: "content"
    )
    assert pairs == [
        ("/author/mira/", "/blog/author/mira-chen.html", "author"),  # the full name's slug
        ("/category/gpu-kernels/", "/blog/category/article.html", "category"),
        ("/tag/content-2/", "/blog/tag/content.html", "tag"),  # WordPress's slug, the post's tag
    ]
