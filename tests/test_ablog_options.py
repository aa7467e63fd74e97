"""ablog's post options, each doing what ablog's documentation says (tests/roots/test-ablogoptions):
``:excerpt: N`` and ``:image: N`` (in the directive and in front matter), ``:location:`` and
``:language:`` with their archives and feeds, ``:redirect:``, ``:title:``, ``:exclude:``,
``:canonical_link:``; undated posts kept as drafts (previewed with ``kb_drafts``); a post's own
folder never built as pages; a second ``post`` directive refused in the same words by
``kb check`` and the build. A last test goes through every option ablog's directive takes."""

from __future__ import annotations

from pathlib import Path

import feedparser
import pytest
from authoring import build, build_output, run_check, snapshot
from helpers import soup, write_files
from sitebuild import copy_root

from kb.checks.messages import say
from kb.core.finding import companion_sources

UNDATED = (
    "undated: a post without a date is a draft (as in ablog), kept off the site and previewed "
    "by kb serve --drafts; add a line `date: YYYY-MM-DD` to publish it"
)
SECTION_POST = say("section_post")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return copy_root("ablogoptions", tmp_path_factory.mktemp("ablogoptions") / "site")


@pytest.fixture(scope="module")
def built(site: Path) -> tuple[Path, list]:
    before = snapshot(site)
    app, warnings = build(site)
    assert snapshot(site) == before
    return Path(app.outdir), warnings


def _entry_excerpts(outdir: Path) -> dict[str, list]:
    page = soup(outdir / "blog.html")
    return {
        entry.select_one(".kb-entry-title").get_text(strip=True): entry.select_one(
            ".kb-entry-excerpt"
        )
        for entry in page.select("article.kb-entry")
    }


def test_builds_clean(built) -> None:
    _, warnings = built
    assert warnings == []


def test_excerpt_and_image_numbers(built) -> None:
    outdir, _ = built
    excerpts = _entry_excerpts(outdir)
    rst = excerpts["Options in rst"]
    assert [p.get_text() for p in rst.select("p:not(.kb-excerpt-image)")] == [
        "First paragraph of the options post.",
        "Second paragraph of the options post.",
    ]
    image = rst.select_one("p.kb-excerpt-image img")
    assert image["alt"] == "The second picture"  # :image: 2
    assert (outdir / image["src"]).read_bytes() == (outdir / "_images/second.png").read_bytes()
    card = soup(outdir / "posts/options.html").select_one('meta[property="og:image"]')
    assert card["content"] == "https://options.example.org/posts/second.png"
    assert (outdir / "posts/second.png").is_file()
    front = excerpts["Counts in Front Matter"]
    assert len(front.select("p:not(.kb-excerpt-image)")) == 2  # excerpt: 2
    assert front.select_one("img")["alt"] == "The only picture"  # image: 1
    # ablog's default, post_auto_excerpt = 1: one paragraph, no picture.
    myst = excerpts["The MyST Options Post"]
    assert [p.get_text() for p in myst.select("p")] == ["Only paragraph of the MyST options post."]
    feed = feedparser.parse((outdir / "feeds/atom.xml").read_bytes())
    summary = next(e for e in feed.entries if e.title == "Options in rst").summary
    assert "Second paragraph of the options post." in summary
    assert "Third paragraph" not in summary


def test_title_exclude_and_canonical_link(built) -> None:
    outdir, _ = built
    excerpts = _entry_excerpts(outdir)
    assert "The MyST Options Post" in excerpts  # :title: wins over the heading
    hidden = "Only in listings: the directive’s content, kept off the page."
    assert excerpts["Excluded Directive Content"].get_text(strip=True) == hidden
    assert hidden not in soup(outdir / "posts/excluded-content.html").select_one("article").text
    canonical = soup(outdir / "posts/options.html").select_one('link[rel="canonical"]')
    assert canonical["href"] == "https://elsewhere.example.org/options/"


def test_update_directive_dates_the_change(built) -> None:
    outdir, _ = built
    page = soup(outdir / "posts/options.html")
    assert page.select_one(".kb-updated time")["datetime"] == "2021-11-01"
    assert "The second picture was redrawn." in page.select_one("article").get_text()
    feed = feedparser.parse((outdir / "feeds/atom.xml").read_bytes())
    entry = next(e for e in feed.entries if e.title == "Options in rst")
    assert (entry.published[:10], entry.updated[:10]) == ("2021-10-03", "2021-11-01")


def test_locations_and_languages_have_archives_and_feeds(built) -> None:
    outdir, _ = built
    for page, titles in {
        "blog/location/istanbul.html": ["Options in rst"],
        "blog/location/ankara.html": ["The MyST Options Post"],
        "blog/language/english.html": ["The MyST Options Post", "Options in rst"],
        "blog/language/turkish.html": ["The MyST Options Post"],
    }.items():
        listed = soup(outdir / page).select("h2.kb-entry-title a")
        assert [a.get_text() for a in listed] == titles, page
    catalog = soup(outdir / "blog/location.html").select("article a")
    assert {a.get_text(strip=True) for a in catalog} >= {"Istanbul", "Ankara"}
    feed = feedparser.parse((outdir / "feeds/location/istanbul/atom.xml").read_bytes())
    assert [e.title for e in feed.entries] == ["Options in rst"]
    place = soup(outdir / "posts/options.html").select_one("p.kb-post-place")
    assert place.get_text(" ", strip=True) == "Location: Istanbul · Language: English"
    links = soup(outdir / "links.html").select("article a.reference")
    assert [(a.get_text(), a["href"]) for a in links] == [
        ("Locations", "blog/location.html"),
        ("Istanbul", "blog/location/istanbul.html"),
        ("Turkish", "blog/language/turkish.html"),
    ]


def test_redirects_from_the_directive(built) -> None:
    outdir, _ = built
    for old, new in (("old/options", "posts/options"), ("old/myst-options", "posts/myst-options")):
        page = soup(outdir / f"{old}.html")
        refresh = page.select_one('meta[http-equiv="refresh"]')["content"]
        assert refresh.endswith(f"../{new}.html"), refresh


def test_drafts_stay_off_the_site(built) -> None:
    outdir, _ = built
    for name in ("undated", "undated-fields", "future"):
        assert not (outdir / f"posts/{name}.html").exists()
    sitemap = (outdir / "sitemap.xml").read_text()
    assert "undated" not in sitemap and "future" not in sitemap


def test_kb_check_calls_the_same_posts_drafts(site: Path) -> None:
    status, problems, summary = run_check(site)
    assert status == 0
    assert problems == [
        ("posts/future.rst", 4, "scheduled: dated 2099-01-01, after today "
         f"({_today()}); it stays off the site until then"),
        ("posts/undated-fields.rst", 1, UNDATED),
        ("posts/undated.md", 1, UNDATED),
    ]  # fmt: skip
    assert summary.endswith("no errors, 1 scheduled post(s), 2 undated draft(s)\n")


def _today() -> str:
    from kb.checks.schedule import today

    return today().isoformat()


def test_undated_drafts_are_previewed(site: Path, tmp_path: Path) -> None:
    outdir, _ = build_output(site, builddir=tmp_path / "drafts", confoverrides={"kb_drafts": True})
    drafts = soup(outdir / "blog/drafts.html").select("article.kb-entry")
    shown = {e.select_one(".kb-entry-title").get_text(strip=True): e for e in drafts}
    assert set(shown) == {"An Undated MyST Post", "An Undated rst Post", "A Post for Later"}
    assert shown["An Undated MyST Post"].select_one(".kb-undated").get_text() == "Undated draft"
    assert (outdir / "posts/undated.html").is_file()


def test_a_posts_own_folder_is_not_pages(built) -> None:
    outdir, warnings = built
    assert not (outdir / "posts/bundle/analysis.html").exists()
    assert (outdir / "posts/bundle/notes.html").is_file()  # asks to be a page: orphan: true
    link = soup(outdir / "posts/bundle/post.html").select_one("a.download")
    assert (outdir / "posts/bundle" / link["href"]).is_file()


def test_only_a_folder_of_one_post_owns_its_files(tmp_path: Path) -> None:
    # The folder of each post, told from its docname: the source root and a folder of several
    # posts own nothing; a folder of one post owns its other sources, nested ones too, but not
    # one that asks to be a page.
    files = {
        "root-post.md": "",
        "root-page.md": "",
        "posts/a.md": "",
        "posts/b.md": "",
        "posts/loose.md": "",
        "posts/bundle/post.md": "",
        "posts/bundle/notes.md": "",
        "posts/bundle/deep/more.md": "",
        "posts/bundle/page.md": "---\norphan: true\n---\n",
        "posts/bundle/data.csv": "",
    }
    write_files(tmp_path, files)
    posts = ["root-post", "posts/a", "posts/b", "posts/bundle/post"]
    assert companion_sources(tmp_path, posts, (".md",)) == [
        "posts/bundle/deep/more.md",
        "posts/bundle/notes.md",
    ]


def test_a_second_post_directive_in_the_same_section_is_refused_at_its_line(
    tmp_path: Path,
) -> None:
    site = copy_root("ablogoptions", tmp_path / "site")
    post = site / "posts/options.rst"
    post.write_text(
        post.read_text()
        + "\n.. post:: 2021-10-08\n   :category: Manual\n   :author: ahmet\n\nIts text.\n"
    )
    line = post.read_text().split("\n").index(".. post:: 2021-10-08") + 1
    status, problems, _ = run_check(site, "posts/options.rst")
    assert (status, problems) == (1, [("posts/options.rst", line, SECTION_POST)])
    _, warnings = build(site)
    assert [w[:3] for w in warnings] == [("posts/options.rst", line, SECTION_POST)]


def _check_and_build(tmp_path: Path, path: str, text: str) -> tuple[list, list]:
    """Write ``text`` at ``path`` in a copy of the root; what ``kb check`` of the whole site
    (as the author runs it) and the build then say of it, each as (path, line, message)."""
    site = copy_root("ablogoptions", tmp_path / "site")
    (site / path).parent.mkdir(parents=True, exist_ok=True)
    (site / path).write_text(text, encoding="utf-8")
    _, problems, _ = run_check(site)
    _, warnings = build(site)
    return [p for p in problems if p[0] == path], [w[:3] for w in warnings if w[0] == path]


def test_options_indented_more_than_the_content_are_the_date_in_both(tmp_path: Path) -> None:
    """docutils takes a directive's options only at its block's indentation: with content
    indented by one space, ``   :category:`` lines are part of the date. ablog raised on that
    date (a traceback from the build, found by tests/test_agreement.py); both now report it."""
    problems, warnings = _check_and_build(
        tmp_path,
        "posts/indented.rst",
        "Indented\n========\n\n.. post:: 2021-10-08\n   :category: Manual\n   :author: ahmet\n"
        "\n Its text.\n",
    )
    date = 'date "2021-10-08 :category: Manual :author: ahmet" is not a date with a day'
    assert [(path, line) for path, line, _ in problems] == [
        ("posts/indented.rst", 4),
        ("posts/indented.rst", 5),
        ("posts/indented.rst", 6),
    ]
    assert problems[0][2].startswith(date)
    assert problems[1][2] == say("option_in_date", text=":category: Manual")
    assert warnings == problems


def test_a_date_on_the_line_below_the_directive_is_its_argument(tmp_path: Path) -> None:
    """As docutils reads it: the directive's block starts on the next line, its argument
    first, then its options (one of them wrong here, reported at its own line)."""
    problems, warnings = _check_and_build(
        tmp_path,
        "posts/below.rst",
        "Below\n=====\n\n.. post::\n   2021-10-08\n   :category: Nope\n   :author: ahmet\n"
        "\n   Its text.\n",
    )
    assert [(path, line) for path, line, _ in problems] == [("posts/below.rst", 6)]
    assert problems[0][2].startswith('unknown category "Nope"')
    assert warnings == problems


def test_kb_check_checks_a_post_directive_outside_the_pattern(tmp_path: Path) -> None:
    """ablog takes a ``post`` directive in any document; the build checks it as a post, and
    so does ``kb check`` of the whole site."""
    problems, warnings = _check_and_build(
        tmp_path,
        "elsewhere.rst",
        "Elsewhere\n=========\n\n.. post:: 2021-13-08\n   :category: Manual\n\nIts text.\n",
    )
    assert [(path, line) for path, line, _ in problems] == [("elsewhere.rst", 4)]
    assert "is not a real day" in problems[0][2]
    assert warnings == problems


def test_a_myst_post_outside_the_pattern_is_checked_once_as_a_post(tmp_path: Path) -> None:
    """Not also as a page (kb.pages.evergreen): a problem both checks find (headings that
    start at ``##``) is one warning, as in ``kb check``."""
    problems, warnings = _check_and_build(
        tmp_path,
        "notes/elsewhere.md",
        "## Elsewhere\n\n```{post} 2021-10-08\n:category: Manual\n:author: ahmet\n```\n\n"
        "Its text.\n",
    )
    assert [(path, line) for path, line, _ in problems] == [("notes/elsewhere.md", 1)]
    assert warnings == problems


def test_a_comment_in_a_myst_post_directives_options_is_reported_once_in_kbs_words(
    tmp_path: Path,
) -> None:
    """MyST cuts an option's value at `` #`` and warns in words that say nothing of it; the
    checks report it at MyST's line with the fix, in both, and MyST's warning is left out
    there (kb.markup.optioncomments). Another directive's comment keeps MyST's warning."""
    site = copy_root("ablogoptions", tmp_path / "site")
    (site / "posts/commented.md").write_text(
        "# Commented\n\n```{post} 2021-10-08\n:category: Manual\n:author: ahmet\n"
        ":tags: fp8 #gemm\n```\n\nIts text.\n\n```{note}\n:class: tip #c\nA note.\n```\n",
        encoding="utf-8",
    )
    _, problems, _ = run_check(site, "posts/commented.md")
    app, warnings = build(site)
    assert problems == [("posts/commented.md", 6, say("option_comment"))]
    assert [w[:3] for w in warnings if w[3] != "myst.directive_comments"] == problems
    assert [w[:2] for w in warnings if w[3] == "myst.directive_comments"] == [
        ("posts/commented.md", 12)  # the note's, which is MyST's alone
    ]
    page = (Path(app.outdir) / "posts/commented.html").read_text(encoding="utf-8")
    assert "Directive options has" not in page


#: What each option of ablog's ``post`` directive does here, and the test that shows it.
OPTION_EFFECTS = {
    "tags": "test_locations_and_languages_have_archives_and_feeds (tag archives: test_ablog_forms)",
    "author": "checked against blog_authors: test_ablog_forms",
    "category": "checked against kb_categories: test_ablog_forms",
    "location": "test_locations_and_languages_have_archives_and_feeds",
    "language": "test_locations_and_languages_have_archives_and_feeds",
    "redirect": "test_redirects_from_the_directive",
    "title": "test_title_exclude_and_canonical_link",
    "image": "test_excerpt_and_image_numbers",
    "excerpt": "test_excerpt_and_image_numbers",
    "exclude": "test_title_exclude_and_canonical_link",
    "nocomments": "refused with the fix (the site has no comments): test_frontmatter",
    "canonical_link": "test_title_exclude_and_canonical_link",
    "external_link": "listed with its mark, leading elsewhere: test_listings",
}


def test_every_option_of_ablogs_directive_is_covered() -> None:
    # A new ablog option fails here until it does what ablog says, or is refused with a fix.
    from ablog.post import PostDirective

    assert set(PostDirective.option_spec) == set(OPTION_EFFECTS)
