"""Backlinks ("Linked from", tests/roots/test-pages): each post and page ends with the published
posts whose text links to it, newest first, made from the links themselves; and an incremental
build after a link is added, removed or pointed elsewhere equals a clean build, rewriting only
the post that changed (Sphinx) and replacing the list in place on the pages whose list changed.

The site's links: alpha -> beta, about page; beta -> alpha ({doc}); gamma -> alpha (a relative
Markdown link); the about page -> gamma and the setup guide -> beta (pages: never listed).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import resolve_link, soup
from test_incremental import assert_matches_clean, build, clean_build

from kb.core.fileio import BackgroundWrites
from kb.pages.backlinks import TITLE


def linked_from(outdir: Path, name: str) -> list[str]:
    page = soup(outdir / f"{name}.html")
    section = page.select_one(".kb-backlinks")
    if section is None:
        return []
    assert section.select_one("h2").get_text() == TITLE
    return [resolve_link(name, a["href"]).removesuffix(".html") for a in section.select("a")]


@pytest.fixture
def site(tmp_path: Path, rootdir: Path) -> Path:
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-pages", srcdir)
    # The files the build ignores are test_pages.py's: here, a build without warnings.
    (srcdir / "stray.md").unlink()
    shutil.rmtree(srcdir / "notes")
    return srcdir


@pytest.fixture(scope="module")
def built(tmp_path_factory, rootdir: Path) -> Path:
    srcdir = tmp_path_factory.mktemp("backlinks") / "site"
    shutil.copytree(rootdir / "test-pages", srcdir)
    (srcdir / "stray.md").unlink()
    shutil.rmtree(srcdir / "notes")
    return build(srcdir, srcdir / "_build")


def test_each_post_and_page_lists_the_posts_that_link_it(built: Path) -> None:
    assert linked_from(built, "posts/alpha") == ["posts/gamma", "posts/beta"]  # newest first
    assert linked_from(built, "posts/beta") == ["posts/alpha"]
    assert linked_from(built, "pages/about") == ["posts/alpha"]
    # Pages link too, but only posts are listed; nobody links gamma or the glossary.
    assert linked_from(built, "posts/gamma") == []
    assert linked_from(built, "pages/guide/setup") == []
    assert linked_from(built, "pages/glossary") == []


def test_the_list_ends_the_post_after_its_related_posts(built: Path) -> None:
    article = soup(built / "posts" / "alpha.html").select_one("article[role=main]")
    parts = [s.get("class")[0] for s in article.select("section.kb-related, section.kb-backlinks")]
    assert parts[-1] == "kb-backlinks"


def test_no_list_in_feeds(built: Path) -> None:
    for feed in (built / "feeds").rglob("*.*"):
        assert TITLE not in feed.read_text(encoding="utf-8"), feed


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.mark.slow
def test_adding_removing_and_retargeting_links_match_a_clean_build(
    site: Path, tmp_path: Path, monkeypatch
) -> None:
    builddir = site / "_build"
    outdir = build(site, builddir)
    refreshed: list[str] = []
    write = BackgroundWrites.write

    def spy(self, path, data) -> None:
        refreshed.append(Path(path).relative_to(outdir).with_suffix("").as_posix())
        write(self, path, data)

    monkeypatch.setattr(BackgroundWrites, "write", spy)
    untouched = (outdir / "pages" / "guide" / "setup.html").stat().st_mtime_ns

    # 1. Beta links gamma too: gamma's list gains beta, in place; only beta is rendered.
    _replace(site / "posts" / "beta.md", "links back", "links [Gamma](gamma.md) and back")
    rendered: list[str] = []
    assert_matches_clean(build(site, builddir, rendered), clean_build(site, tmp_path / "c1"))
    assert linked_from(outdir, "posts/gamma") == ["posts/beta"]
    assert "posts/gamma" not in rendered and "posts/gamma" in refreshed
    assert "posts/beta" in rendered

    # 2. Alpha no longer links beta: beta's list empties (its markers stay, for next time).
    refreshed.clear()
    _replace(site / "posts" / "alpha.md", "[Beta](/posts/beta.md)", "Beta")
    assert_matches_clean(build(site, builddir, rendered), clean_build(site, tmp_path / "c2"))
    assert linked_from(outdir, "posts/beta") == []
    assert "posts/beta" not in rendered and "posts/beta" in refreshed

    # 3. Gamma's link to alpha points at the about page instead: both lists change.
    refreshed.clear()
    _replace(site / "posts" / "gamma.md", "[Alpha](alpha.md)", "[About](../pages/about.md)")
    assert_matches_clean(build(site, builddir, rendered), clean_build(site, tmp_path / "c3"))
    assert linked_from(outdir, "posts/alpha") == ["posts/beta"]
    assert linked_from(outdir, "pages/about") == ["posts/gamma", "posts/alpha"]
    assert {"posts/alpha", "pages/about"} <= set(refreshed)
    assert not {"posts/alpha", "pages/about"} & set(rendered)

    # 4. A post that links is deleted (and the links to it with it): it leaves every list.
    _replace(site / "posts" / "beta.md", "[Gamma](gamma.md)", "Gamma")
    _replace(site / "pages" / "about.md", "[Gamma](/posts/gamma.md)", "Gamma")
    (site / "posts" / "gamma.md").unlink()
    assert_matches_clean(build(site, builddir), clean_build(site, tmp_path / "c4"))
    assert linked_from(outdir, "pages/about") == ["posts/alpha"]
    assert (outdir / "pages" / "guide" / "setup.html").stat().st_mtime_ns == untouched
