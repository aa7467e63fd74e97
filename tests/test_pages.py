"""Evergreen pages beside posts (tests/roots/test-pages): built, in the navigation, searchable,
in the sitemap, with Open Graph tags, never listed or in a feed; checked like posts by the build
and ``kb check`` alike; the hardware reference made from the registry; and a source the build
would ignore is a warning that names it."""

from __future__ import annotations

import contextlib
import io
import shutil
import zlib
from pathlib import Path
from types import SimpleNamespace

import feedparser
import pytest
from authoring import ROOTS, build, run_check, snapshot
from helpers import soup

from kb.benchmark.hardware import format_number, load_registry
from kb.checks.messages import say
from kb.cli.main import main
from kb.core.urls import is_notfound_page, link_folder

PAGES = ["pages/about", "pages/glossary", "pages/hardware", "pages/guide/index"]
INCLUDED = "index.md, posts/**, pages/**"


#: The function that made each page's stylesheet tags, by page: Sphinx's own, kb's
#: (kb.pages.assettags) or sphinx-notfound-page's.
TAG_MAKERS: dict[str, str] = {}


def _note_tag_maker(app, pagename, templatename, context, doctree) -> None:
    TAG_MAKERS[pagename] = context["css_tag"].__qualname__


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages") / "site"
    shutil.copytree(ROOTS / "test-pages", root)
    before = snapshot(root)
    TAG_MAKERS.clear()
    app, warnings = build(root, listeners=[("html-page-context", _note_tag_maker, 1000)])
    return root, Path(app.outdir), warnings, before


def test_the_only_warnings_name_the_files_the_build_ignores(site):
    _, _, warnings, _ = site
    assert warnings == [
        (name, 1, say("ignored_file", path=name, included=INCLUDED), "kb.ignored-file")
        for name in ("notes/idea.md", "stray.md")
    ]


def test_no_source_is_touched(site):
    root, _, _, before = site
    assert snapshot(root) == before


@pytest.mark.parametrize("name", PAGES)
def test_each_page_is_built_in_the_navigation_and_searchable(site, name):
    _, out, _, _ = site
    page = soup(out / f"{name}.html")
    assert page.select_one("[data-pagefind-body] h1") is not None
    home = soup(out / "index.html")
    assert f"{name}.html" in {a["href"] for a in home.select(".sidebar-tree a")}
    assert page.select_one('meta[property="og:type"]')["content"] == "website"
    assert page.select_one('meta[property="og:url"]')["content"].endswith(f"/{name}.html")
    assert f"https://pages.example.org/{name}.html" in (out / "sitemap.xml").read_text("utf-8")


def test_a_nested_section_lists_its_pages(site):
    _, out, _, _ = site
    guides = soup(out / "pages" / "guide" / "index.html")
    assert [a["href"] for a in guides.select("article .toctree-wrapper a")] == ["setup.html"]
    home = soup(out / "index.html")
    assert "pages/guide/setup.html" in {a["href"] for a in home.select(".sidebar-tree a")}


def test_every_page_of_every_depth_links_the_navigation_right(site):
    # kb.pages.navigation renders the tree once per folder for pages it does not hold: each
    # page's links must still lead to the pages, and only a page of the tree is marked current.
    _, out, _, _ = site
    pages = [p for p in out.rglob("*.html") if not p.relative_to(out).parts[0].startswith("_")]
    folders = {page.parent for page in pages}
    assert {out, out / "posts", out / "blog" / "author", out / "pages" / "guide"} <= folders
    for page in pages:
        tree = soup(page).select_one(".sidebar-tree")
        if tree is None or page.name == "404.html":  # absolute links, served at any depth
            continue
        here = page.relative_to(out).as_posix()
        hrefs = [a["href"] for a in tree.select("a")]
        assert {f"{name}.html" for name in PAGES} <= {
            here
            if href == "#"
            else (page.parent / href).resolve().relative_to(out.resolve()).as_posix()
            for href in hrefs
        }, page
        current = [a["href"] for a in tree.select("a.current")]
        name = page.relative_to(out).with_suffix("").as_posix()
        assert current == (["#"] if name in PAGES or name == "pages/guide/setup" else []), page


def test_every_page_of_every_depth_links_its_stylesheets_and_scripts_right(site):
    # kb.pages.assettags makes each tag once per folder: on every page each one must still
    # lead to its file, with the checksum of that file (Sphinx's ?v=).
    _, out, _, _ = site
    pages = [p for p in out.rglob("*.html") if not p.relative_to(out).parts[0].startswith("_")]
    assert len({page.parent for page in pages}) >= 4
    for page in pages:
        html = soup(page)
        addresses = [link["href"] for link in html.select('link[rel="stylesheet"]')]
        addresses += [script["src"] for script in html.select("script[src]")]
        assert len(addresses) >= 6, page
        for address in addresses:
            path, _, version = address.partition("?v=")
            if page.name == "404.html":  # absolute: it is served at any depth
                assert path.startswith("/"), address
                path = path.removeprefix("/")
                file = out / path
            else:
                file = page.parent / path
            assert file.resolve().is_relative_to(out.resolve()), (page, address)
            assert file.is_file(), (page, address)
            if not version or file.name == "pygments.css":
                # (pygments.css: furo writes its own over Sphinx's once every page is
                # written, and the address carries the checksum of Sphinx's, in any furo site.)
                continue
            content = file.read_bytes().translate(None, b"\r")
            assert version == f"{zlib.crc32(content):08x}", (page, address)
    # Sphinx's own tag makers are the ones kb shares, on every page. (The 404 page keeps
    # sphinx-notfound-page's, whose addresses are absolute: tests/test_meta.py.)
    assert len(TAG_MAKERS) == len(pages)
    assert set(TAG_MAKERS.values()) == {"_once_per_folder.<locals>.tag"}


#: The folder each page's links start from, by builder: with dirhtml a page's address is a
#: folder of its own, except a section's index.
LINK_FOLDERS = {
    "html": {"index": "", "pages/guide/index": "pages/guide", "pages/guide/setup": "pages/guide"},
    "dirhtml": {
        "index": "",
        "pages/guide/index": "pages/guide",
        "pages/guide/setup": "pages/guide/setup",
    },
}


@pytest.mark.parametrize(("builder", "folders"), LINK_FOLDERS.items())
def test_what_is_made_once_per_folder_is_by_the_folder_of_the_pages_address(
    make_app, tmp_path, builder, folders
):
    # kb.pages.navigation and kb.pages.assettags share what they make between the pages of a
    # folder: with dirhtml, pages/guide/index and pages/guide/setup link from different folders.
    root = tmp_path / "site"
    shutil.copytree(ROOTS / "test-pages", root)
    app = make_app(builder, srcdir=root)
    try:
        assert {name: link_folder(app, name) for name in folders} == folders
        assert is_notfound_page(SimpleNamespace(notfound_pagename="404"), "404")
        assert not is_notfound_page(app.config, "404")  # no sphinx-notfound-page here
    finally:
        app.cleanup()


def test_pages_are_never_listed_or_in_feeds(site):
    _, out, _, _ = site
    listing = soup(out / "blog.html")
    listed = {a["href"] for a in listing.select(".kb-entry-title a")}
    assert listed == {"posts/alpha.html", "posts/beta.html", "posts/gamma.html"}
    for feed in (out / "feeds").rglob("*.xml"):
        links = {entry.link for entry in feedparser.parse(feed.read_bytes()).entries}
        assert not any("/pages/" in link for link in links), feed


def test_the_ignored_and_excluded_files_are_not_pages(site):
    _, out, _, _ = site
    for name in ("stray", "notes/idea", "README", "CONTRIBUTING", "docs/guide", ".hidden/secret"):
        assert not (out / f"{name}.html").exists(), name


def test_the_hardware_reference_shows_the_registry(site):
    _, out, _, _ = site
    page = soup(out / "pages" / "hardware.html")
    registry = load_registry()
    rows = page.select("table.kb-gpu-peaks tbody tr")
    assert len(rows) == len(registry.gpus)
    for row, gpu in zip(rows, registry.gpus.values(), strict=True):
        cells = [td.get_text(strip=True) for td in row.select("td")]
        assert cells[0] == gpu.name
        for cell, metric in zip(cells[1:], registry.metrics, strict=False):
            assert cell == (format_number(gpu.peaks[metric]) if metric in gpu.peaks else "–")
        assert cells[-1] == (format_number(gpu.clock_mhz) if gpu.clock_mhz else "not stated")
        source = page.select_one(f"#gpu-{gpu.key}")
        assert " ".join(gpu.source.split())[:60] in " ".join(source.get_text().split())
        assert source.select_one("a[href^='https://']") is not None


def test_kb_check_checks_pages_as_the_build_does(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(ROOTS / "test-pages", root)
    status, problems, _ = run_check(root, "pages")
    assert (status, problems) == (0, [])
    (root / "pages" / "untitled.md").write_text(
        "---\ndescription: [unclosed\n---\n\nNo heading here, and [a link](/posts/nope.md).\n",
        encoding="utf-8",
    )
    (root / "pages" / "titled.md").write_text(
        "# Titled\n\nA {term}`gizmos <gizmo>` and,\non its second line, a {term}`sprocket`.\n"
        '\n<img src="https://tracker.example/pixel.gif" alt="">\n',
        encoding="utf-8",
    )
    status, problems, _ = run_check(root, "pages/untitled.md", "pages/titled.md")
    assert status == 1
    messages = {(path, line): message for path, line, message in problems}
    assert messages[("pages/titled.md", 4)] == say("unknown_term", term="sprocket", hint="")
    assert ("pages/untitled.md", 2) in messages  # YAML that cannot be read, at its line
    assert messages[("pages/untitled.md", 5)].startswith("links to /posts/nope.md")
    assert any(m == say("page_no_title") for (p, _), m in messages.items() if p.endswith("led.md"))
    app, warnings = build(root)
    built = {(path, line, message) for path, line, message, _ in warnings}
    assert ("pages/titled.md", 4, say("unknown_term", term="sprocket", hint="")) in built
    safety = [(p, line, m) for p, line, m in problems if "tracker.example" in m]
    assert [p[:2] for p in safety] == [("pages/titled.md", 6)]
    assert set(safety) <= built  # the same words at the same line
    page_no_title = [
        w for w in built if w[0] == "pages/untitled.md" and w[2] == say("page_no_title")
    ]
    assert [(p, line) for p, line, _ in page_no_title] == [
        (p, line) for p, line, m in problems if m == say("page_no_title")
    ]


def _kb(root: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def test_kb_new_page_writes_a_page_that_checks_and_builds(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(ROOTS / "test-pages", root)
    status, out, _ = _kb(root, "new", "--page", "Our Lab: setup & tools")
    assert (status, out.strip()) == (0, "pages/our-lab-setup-tools.md")
    text = (root / "pages" / "our-lab-setup-tools.md").read_text(encoding="utf-8")
    assert text.startswith("# Our Lab: setup & tools\n")
    assert run_check(root, "pages/our-lab-setup-tools.md")[:2] == (0, [])
    app, warnings = build(root)
    assert [w for w in warnings if w[3] != "kb.ignored-file"] == []
    home = soup(Path(app.outdir) / "index.html")
    assert "pages/our-lab-setup-tools.html" in {a["href"] for a in home.select(".sidebar-tree a")}


def test_kb_new_page_refuses_as_kb_new_does(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(ROOTS / "test-pages", root)
    before = snapshot(root)
    status, _, err = _kb(root, "new", "--page", "About")
    assert status == 2
    assert err.strip() == (
        "kb new: pages/about.md already exists and kb new never overwrites: edit that file, "
        "or choose another title"
    )
    status, _, err = _kb(root, "new", "--page", "Lab", "--category", "Article", "--tag", "x")
    assert status == 2
    assert "a page has no --category, --tag (only posts do)" in err
    (root / "pages" / "gone.md").symlink_to(tmp_path / "nowhere.md")
    status, _, err = _kb(root, "new", "--page", "Gone")
    assert status == 2 and "kb new never writes through a link" in err
    assert not (tmp_path / "nowhere.md").exists()
    (root / "pages" / "gone.md").unlink()
    assert snapshot(root) == before
    status, _, err = _kb(root, "new", "A post")
    assert status == 2 and "--category is missing" in err


def test_links_after_a_directive_are_read():
    """The closing line of a note is no opening of a code block: what follows is read."""
    from kb.checks.pages import check_page

    facts, problems = check_page("# T\n\n```{note}\nA note.\n```\n\nSee [x](/posts/a.md).\n")
    assert (facts.links, problems) == ([("/posts/a.md", 7)], [])


def test_kb_check_names_the_files_the_build_ignores(site):
    root, _, warnings, _ = site
    status, problems, summary = run_check(root)
    assert status == 0 and summary.endswith("no errors, 2 warning(s)\n")
    assert problems == [(path, line, message) for path, line, message, _ in warnings]
