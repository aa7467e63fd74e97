"""Each kind of bad post, reported by `kb check` and by the build: same message, same line.

The messages are the product: every test here asserts one word for word, with its location.
Both runs use tests/roots/test-badinput/, one post per kind of mistake.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from authoring import BAD, GOOD, build, run_check, snapshot

from kb.checks.frontmatter import Rules, check_post

TODAY = datetime.now(UTC).date().isoformat()

#: Every error in the bad site: (file, line, message), exactly as `kb check` prints them, and
#: as the build warns about them.
ERRORS = [
    (
        "posts/2025/author-list.md",
        6,
        '`author` is a YAML list, which ablog turns into one bogus author named ["mira", '
        '"tomas"]: write a comma-separated string, `author: mira, tomas`',
    ),
    (
        "posts/2025/author-unknown.md",
        6,
        'unknown author "bob"; known authors are mira, tomas (keys of blog_authors in conf.py)',
    ),
    (
        "posts/2025/blogpost-false.md",
        2,
        "`blogpost: false` still makes this a post (ablog only checks that the key exists): "
        "write `blogpost: true`, or move the file out of the posts folder",
    ),
    (
        "posts/2025/category-list.md",
        4,
        "`category` is a YAML list, which ablog turns into one bogus category named "
        '["Article", "Benchmarks"]: write a comma-separated string, `category: Article, '
        "Benchmarks`",
    ),
    (
        "posts/2025/category-unknown.md",
        4,
        'unknown category "Artcle" (did you mean "Article"?); allowed are Article, Benchmarks'
        " (kb_categories in conf.py)",
    ),
    (
        "posts/2025/date-impossible.md",
        3,
        "date 2025-02-30 is not a real day (day is out of range for month): write a date that"
        " exists, e.g. `date: 2025-03-14`",
    ),
    (
        "posts/2025/date-malformed.md",
        3,
        'date "next week" is not a date with a day, month and year: write it as YYYY-MM-DD, '
        "e.g. `date: 2025-03-14`",
    ),
    (
        "posts/2025/date-timezone.md",
        3,
        "date 2025-03-14T09:30:00+01:00 has a time zone, which crashes ablog: dates are UTC "
        "and carry no zone, write `date: 2025-03-14`",
    ),
    (
        "posts/2025/date-updated.md",
        7,
        'updated "March 2025" is not a date with a day, month and year: write it as '
        "YYYY-MM-DD, e.g. `updated: 2025-03-14`",
    ),
    (
        "posts/2025/excerpt-empty.md",
        7,
        "`description` is empty: write one or two sentences for listings and feeds, or remove"
        " the line to use the first paragraph",
    ),
    (
        "posts/2025/excerpt-missing.md",
        9,
        "no excerpt: add `description: ...` (one or two sentences) to the front matter, or a "
        "paragraph after the title; listings and feeds show it",
    ),
    (
        "posts/2025/external-link.md",
        7,
        'external_link "www.example.org/article" is not an http(s) URL: write the full '
        "address, e.g. `external_link: https://example.org/article`",
    ),
    (
        "posts/2025/front-matter-missing.md",
        1,
        "no front matter: a post starts with a line `---`, then `blogpost: true`, `date: "
        "YYYY-MM-DD` and the other keys, then `---` (kb new writes one)",
    ),
    (
        "posts/2025/front-matter-unclosed.md",
        1,
        "the front matter is never closed: add a line `---` after its last key",
    ),
    (
        "posts/2025/key-twice.md",
        7,
        "`date` is given twice (lines 3 and 7); YAML keeps only the last: delete one",
    ),
    (
        "posts/2025/key-typo.md",
        7,
        'unknown key "catgory": did you mean "category"? ablog ignores keys it does not know',
    ),
    (
        "posts/2025/no-title.md",
        8,
        "no title: add a `# Title` heading after the front matter; without one ablog silently"
        " leaves the post out",
    ),
    (
        "posts/2025/nocomments.md",
        7,
        "`nocomments` crashes ablog 0.11 (it accepts no value), and this site has no "
        "comments: remove the line",
    ),
    (
        "posts/2025/series-part-alone.md",
        7,
        "`part` without a series: add `series: NAME` or remove the line",
    ),
    (
        "posts/2025/series-part-invalid.md",
        8,
        "part 0 is not a positive whole number: write `part: 1`, `part: 2`, ... or `part: "
        "supplement`",
    ),
    (
        "posts/2025/series-part-repeated.md",
        8,
        'part 1 of series "Kernel tutorial" is also posts/2025/series-part-one.md:8: give '
        "each part its own number",
    ),
    (
        "posts/2025/tag-csharp.md",
        5,
        'tag "C#" and tag "C++" (posts/2025/tag-cpp.md:5) both get the page blog/tag/c, so '
        'one overwrites the other: write "C++" if they mean the same, or rename this one',
    ),
    (
        "posts/2025/tags-malformed.md",
        5,
        'tag 1 is read by YAML as true, not as a name: quote it, e.g. `"yes"`',
    ),
    (
        "posts/2025/tags-malformed.md",
        5,
        'tag "a, b" would be split or changed by ablog (a comma, a quote or bracket at its ends, '
        "or, in a YAML list, a quote or non-ASCII letter): write it plainly, or write the tags "
        "as one comma-separated string",
    ),
    (
        "posts/2025/tags-malformed.md",
        5,
        'tag "++" has no letters or digits, so its page would have no name: spell it out '
        "(e.g. `cpp` for C++)",
    ),
    (
        "posts/2025/tags-malformed.md",
        5,
        "tag 4 is a list or mapping, not a name: write each tag as plain text, e.g. "
        "`tags: [gemm, hopper]`",
    ),
    ("posts/2025/tags-malformed.md", 5, "tag 5 is empty: remove the extra comma, or write the tag"),
    (
        "posts/2025/tags-mapping.md",
        5,
        "`tags` must be a list: write `tags: [gemm, hopper]` (or `tags: []` for none)",
    ),
    (
        "posts/2025/title-second.md",
        9,
        'the title "A Shared  Title" is also the title of posts/2025/title-first.md:9: '
        "readers cannot tell the two apart; make this one distinct",
    ),
    (
        "posts/2025/yaml-invalid.md",
        7,
        "the front matter is not valid YAML (mapping values are not allowed here): write one "
        "`key: value` per line, and quote a value that contains a colon, e.g. `description: "
        '"Part 2: the mainloop"`',
    ),
    (
        "posts/2026/same-slug.md",
        1,
        'the slug "same-slug" is taken by posts/2025/same-slug.md: ablog gives both posts one'
        " label, so references to one reach the other; rename this file",
    ),
]
#: Found by `kb check` without a build, and by the build at the same line, in the same words.
LINK_ERRORS = [
    (
        "posts/2025/missing-reference.md",
        11,
        "links to {doc}`/posts/2024/gone`, which does not exist: fix the path; a path "
        "starting with / starts at the site root",
    ),
    (
        "posts/2025/missing-reference.md",
        11,
        "links to /posts/2025/tiling.md, which does not exist: fix the path; a path starting "
        "with / starts at the site root",
    ),
]
#: Reported, but not an error (unless --strict); the build says nothing.
SCHEDULED = (
    "posts/2099/date-future.md",
    3,
    f"scheduled: dated 2099-01-01, after today ({TODAY}); it stays off the site until then",
)
#: A post without a date is a draft, as ablog keeps one: said, no error; the build leaves it out.
UNDATED = (
    "posts/2025/date-missing.md",
    1,
    "undated: a post without a date is a draft (as in ablog), kept off the site and previewed "
    "by kb serve --drafts; add a line `date: YYYY-MM-DD` to publish it",
)
#: What MyST, docutils and Sphinx themselves add to the build's warnings on the same posts:
#: nothing. (Not MyST's "Malformed YAML" at line 1: a post's unreadable front matter reaches
#: MyST as {}; nor docutils' "may not begin with a transition" for a front matter never closed:
#: its opening line reaches MyST blank; nor MyST's and Sphinx's own warnings for the broken
#: links, which kb reports at the link's line and turns into text.)
OTHER_BUILD_WARNINGS: set = set()


@pytest.fixture(scope="module")
def checked():
    before = snapshot(BAD)
    status, problems, summary = run_check(BAD)
    return status, problems, summary, before, snapshot(BAD)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    srcdir = tmp_path_factory.mktemp("badinput") / "site"
    shutil.copytree(BAD, srcdir)
    before = snapshot(srcdir)
    app, warnings = build(srcdir)
    return app, warnings, before, snapshot(srcdir)


def _id(case) -> str:
    return f"{Path(case[0]).stem}:{case[1]}"


# -- kb check -----------------------------------------------------------------------------------


@pytest.mark.parametrize("expected", [*ERRORS, *LINK_ERRORS, SCHEDULED, UNDATED], ids=_id)
def test_check_reports(checked, expected):
    status, problems, _, _, _ = checked
    assert expected in problems


def test_check_reports_nothing_else_and_fails(checked):
    status, problems, summary, _, _ = checked
    assert sorted(problems) == sorted([*ERRORS, *LINK_ERRORS, SCHEDULED, UNDATED])
    assert status == 1
    errors = len(ERRORS) + len(LINK_ERRORS)
    assert summary == (
        f"kb check: 34 post(s), {errors} error(s), 1 scheduled post(s), 1 undated draft(s)\n"
    )


def test_check_touches_no_source(checked):
    *_, before, after = checked
    assert before == after


def test_scheduled_alone_passes_unless_strict():
    assert run_check(BAD, "posts/2099/date-future.md")[:2] == (0, [SCHEDULED])
    assert run_check(BAD, "--strict", "posts/2099/date-future.md")[:2] == (1, [SCHEDULED])
    assert run_check(BAD, "posts/2025/date-missing.md")[:2] == (0, [UNDATED])


def test_undated_draft_is_left_out_of_the_build(built):
    app, warnings, _, _ = built
    assert not (Path(app.outdir) / "posts/2025/date-missing.html").exists()
    assert not any(w[0] == UNDATED[0] for w in warnings)


def test_check_of_one_file_still_sees_the_other_posts():
    # A clash needs the other post: checking one file compares it with the whole site.
    status, problems, _ = run_check(BAD, "posts/2025/tag-csharp.md")
    assert status == 1
    assert problems == [p for p in ERRORS if p[0] == "posts/2025/tag-csharp.md"]


def test_real_site_passes_check():
    status, problems, _ = run_check(Path(__file__).parent.parent)
    assert (status, problems) == (0, [])


def test_good_site_passes_check():
    assert run_check(GOOD) == (0, [], "kb check: 3 post(s), no errors\n")


# -- The build ----------------------------------------------------------------------------------


@pytest.mark.parametrize("expected", [*ERRORS, *LINK_ERRORS], ids=_id)
def test_build_warns(built, expected):
    _, warnings, _, _ = built
    assert (*expected, "kb.frontmatter") in warnings


def test_build_warns_nothing_else(built):
    _, warnings, _, _ = built
    ours = sorted(w[:3] for w in warnings if w[3] == "kb.frontmatter")
    assert ours == sorted([*ERRORS, *LINK_ERRORS])
    assert {w for w in warnings if w[3] != "kb.frontmatter"} == OTHER_BUILD_WARNINGS


def test_build_survives_what_crashes_ablog(built):
    # A time zone, an unparseable date and `nocomments` crash a stock ablog build; a YAML list
    # as category makes a bogus category page. Here the build ends with every page written.
    app, _, _, _ = built
    outdir = Path(app.outdir)
    for name in ("date-timezone", "date-malformed", "nocomments", "category-list"):
        assert (outdir / "posts" / "2025" / f"{name}.html").is_file()
    categories = sorted(p.name for p in (outdir / "blog" / "category").glob("*.html"))
    assert categories == ["article.html"]


def test_build_touches_no_source(built):
    *_, before, after = built
    assert before == after


def test_good_site_builds_without_warnings(tmp_path):
    srcdir = tmp_path / "site"
    shutil.copytree(GOOD, srcdir)
    _, warnings = build(srcdir)
    assert warnings == []


# -- What the body scan sees ----------------------------------------------------------------------

RULES = Rules(categories=("Article",))
HEAD = "---\nblogpost: true\ndate: 2025-01-02\ncategory: Article\n---\n"


def problems_of(body: str) -> list[tuple[int, str]]:
    facts, problems = check_post(HEAD + body, RULES)
    return [(p.line, p.message.split(":")[0]) for p in problems]


def test_a_comment_in_a_code_block_is_no_title():
    assert problems_of("\n```shell\n# install\n```\n") == [(6, "no title")]


def test_a_setext_heading_is_a_title():
    facts, problems = check_post(HEAD + "\nThe title\n=========\n\nText.\n", RULES)
    assert (facts.title, facts.title_line, problems) == ("The title", 7, [])


def test_comments_and_images_are_no_excerpt_but_directive_text_is():
    assert problems_of("\n# T\n\n% a comment\n![x](a.png)\n") == [(7, "no excerpt")]
    assert problems_of("\n# T\n\n```{note}\nA note is text.\n```\n") == []


def test_links_in_inline_code_are_not_links():
    facts, _ = check_post(HEAD + "\n# T\n\nSee `[x](/posts/nope.md)` and [y](../a.md#s).\n", RULES)
    assert facts.links == [("../a.md#s", 9)]


@pytest.mark.unit
def test_every_line_of_an_rst_field_list_reaches_docutils_as_text():
    """A key given twice: docutils reads both lines (kb check reads the last), so both are
    escaped; each value comes back from docutils as the text written, never a reference."""
    from docutils.core import publish_doctree
    from docutils.nodes import Text, field

    from kb.checks.postforms import fields_as_text

    text = ":tags: a_\n:tags: ????\n:category: *x\n   b_\n\nTitle\n=====\n\nSee a_.\n"
    doctree = publish_doctree(
        fields_as_text(text), settings_overrides={"report_level": 5, "halt_level": 5}
    )
    fields = list(doctree.findall(field))
    assert [node.astext() for node in fields] == [
        "tags\n\na_",
        "tags\n\n????",
        "category\n\n*x\nb_",
    ]
    # Plain text in a paragraph, nothing else: no reference, no "problematic" unknown target.
    kinds = {type(node).__name__ for f in fields for node in f[1].findall(include_self=False)}
    assert kinds == {"paragraph", Text.__name__}
    assert fields_as_text(text).endswith("See a_.\n")  # the body is left as written
