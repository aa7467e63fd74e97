"""A Markdown document whose headings start at `##` (no `#` title) is one problem at its first
heading, in the same words from `kb check` and the build, saying what to write; MyST's own
"Document headings start at H2, not H1", which it gave at every `##` with no fix, is gone for
that document, and MyST's other header warnings (an H2 to H4 jump) stay everywhere."""

from __future__ import annotations

from pathlib import Path

import feedparser
import pytest
from authoring import build, run_check, snapshot
from sitebuild import copy_root

from kb.checks.postbody import heading_problems, read_body, title_level
from kb.markup.headings import QuietHeadingsStart
from kb.upstream.myst_parser import myst_warning_logger

START = (
    "headings start at `##` (H2), not `#`: the title of a post or page is its `#` heading, and "
    "MyST warns at every `##` until there is one; write the first heading as `# Title` and "
    "raise the others one level (`###` becomes `##`)"
)
#: (file, line of its first heading): a post (after a code block holding `# a comment`), a
#: notebook (the line of its first markdown cell's first source line) and a page.
EXPECTED = [
    ("pages/about.md", 1, START),
    ("posts/notebook.ipynb", 8, START),
    ("posts/starts-at-two.md", 12, START),
]
JUMP = "Non-consecutive header level increase; H2 to H4"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return copy_root("headings", tmp_path_factory.mktemp("headings") / "site")


@pytest.fixture(scope="module")
def results(site: Path):
    before = snapshot(site)
    checked = run_check(site)
    app, warnings = build(site)
    return before, checked, Path(app.outdir), warnings


def test_kb_check_says_it_once_at_the_first_heading(results) -> None:
    _, (status, problems, summary), _, _ = results
    assert (status, problems) == (1, EXPECTED)
    assert summary == "kb check: 3 post(s), 2 page(s), 3 error(s)\n"


def test_the_build_says_the_same_and_myst_no_longer_does(results) -> None:
    _, (_, problems, _), _, warnings = results
    ours = [
        (path, line, message) for path, line, message, kind in warnings if kind != "myst.header"
    ]
    assert sorted(ours) == problems
    assert not [w for w in warnings if "Document headings start at" in w[2]]


def test_myst_still_warns_about_a_jump_elsewhere(results) -> None:
    *_, warnings = results
    jumps = [warning for warning in warnings if JUMP in warning[2]]
    assert jumps == [
        ("pages/jump.md", 5, JUMP, "myst.header"),
        ("posts/jump.md", 14, JUMP, "myst.header"),
    ]


def test_mysts_warning_is_not_the_excerpt(results) -> None:
    _, _, outdir, _ = results
    feed = feedparser.parse((outdir / "feeds/atom.xml").read_bytes())
    summaries = {entry.title: entry.summary for entry in feed.entries}
    assert "The first paragraph." in summaries["Starts at two"]
    assert "Document headings" not in "".join(summaries.values())
    page = (outdir / "posts/starts-at-two.html").read_text(encoding="utf-8")
    assert "Document headings" not in page


def test_the_filter_lasts_only_as_long_as_the_build(results) -> None:
    assert not [f for f in myst_warning_logger().filters if isinstance(f, QuietHeadingsStart)]


def test_an_application_never_built_leaves_no_filter_behind(tmp_path) -> None:
    # Made (its builder-inited added the filter), then never built: no build-finished.
    from sphinx.testing.util import SphinxTestApp

    idle = SphinxTestApp("html", srcdir=copy_root("headings", tmp_path / "idle"))
    idle.cleanup()
    build(copy_root("headings", tmp_path / "built"))
    assert not [f for f in myst_warning_logger().filters if isinstance(f, QuietHeadingsStart)]


def test_the_sources_are_untouched(site, results) -> None:
    before, *_ = results
    assert snapshot(site) == before


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("# Title\n\n## Two\n", 1),
        ("## Two\n", 2),
        ("Two\n---\n\ntext\n", 2),
        ("Title\n=====\n", 1),
        ("```\n# not a heading\n```\n\n### Three\n", 3),
        ("Only a paragraph.\n", 0),
    ],
)
def test_the_level_of_the_first_heading(text, level) -> None:
    body = read_body(text, 1)
    assert body.title_level == level
    assert title_level(text, body.title_line) == level  # from the title's line alone


def test_headings_that_start_deeper_say_how_far_to_raise(tmp_path) -> None:
    (problem,) = heading_problems(3, 9)
    assert problem.line == 9
    assert problem.message.startswith("headings start at `###` (H3), not `#`:")
    assert problem.message.endswith("raise the others 2 levels (`####` becomes `##`)")
    assert heading_problems(1, 9) == heading_problems(0, 9) == []
