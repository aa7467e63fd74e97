"""Nothing a post says can break out (issue 14): each hostile input, reported by `kb check` and by
the build at the same file:line, word for word; the build goes on, writes nothing outside its
output folder and no redirect over a page; no command changes a source.

Both runs use tests/roots/test-hardinput/, plus two posts a repository should not hold as files
(written by :func:`make_site`): one saved as Latin-1, and one whose name is not in Unicode NFC.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import unicodedata
from datetime import UTC, date, datetime
from pathlib import Path

import feedparser
import pytest
from authoring import GOOD, ROOTS, build, run_check, snapshot
from bs4 import BeautifulSoup
from helpers import warning_lines
from sphinx.testing.util import SphinxTestApp

from kb.checks.frontmatter import (
    Field,
    Rules,
    check_post,
    date_errors,
    decode_source,
    redirect_problem,
    unreadable_front_matter,
)
from kb.checks.sitechecks import unicode_names

HARD = ROOTS / "test-hardinput"
SRC = Path(__file__).parent.parent / "src"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
TODAY = datetime.now(UTC).date().isoformat()
LATIN = "posts/2025/not-utf8.md"
NFD = unicodedata.normalize("NFD", "posts/2025/crème.md")


def make_site(folder: Path) -> Path:
    """A copy of the hard-input site in ``folder``, with the two posts made here."""
    root = folder / "site"
    shutil.copytree(HARD, root)
    text = '---\nblogpost: true\ndate: 2025-03-01\ncategory: Article\ndescription: "Café crème."\n'
    (root / LATIN).write_bytes(f"{text}---\n\n# Latin-1\n\nCafé.\n".encode("latin-1"))
    (root / NFD).write_text(
        "---\nblogpost: true\ndate: 2025-03-01\ncategory: Article\ndescription: Crème.\n---\n\n"
        "# Crème\n\nText.\n",
        encoding="utf-8",
    )
    return root


def _redirect(name: str, reason: str, instead: str) -> str:
    return (
        f'redirect "{name}" {reason}: write the old address from the site root, without .html, '
        f"e.g. `redirect: {instead}`"
    )


EXAMPLE = "posts/2025/old-slug"
LINK_GONE = (
    "links to /posts/2025/tiling-basics.md, which does not exist: fix the path; a path starting "
    "with / starts at the site root"
)
NO_NAME = "has no letters or digits, so its page would have no name: spell it out"

#: Every error of the site: (file, line, message), exactly as `kb check` prints them and as the
#: build warns about them.
ERRORS = [
    (
        NFD,
        1,
        "this file name is not in Unicode NFC form (an accented letter is written as a letter "
        "and an accent): Sphinx looks for the NFC name and never reads this file; rename it, "
        "typing the accented letters again",
    ),
    (
        "posts/2025/date-hour.md",
        3,
        "date 2025-03-01 25:00 is not a real time of day (hour must be in 0..23): hours go from "
        "0 to 23, minutes and seconds from 0 to 59; write e.g. `date: 2025-03-01 09:30`, or only "
        "the day",
    ),
    (
        "posts/2025/date-second.md",
        3,
        "date 2025-03-01 10:00:61 is not a real time of day (second must be in 0..59): hours go "
        "from 0 to 23, minutes and seconds from 0 to 59; write e.g. `date: 2025-03-01 09:30`, or "
        "only the day",
    ),
    (
        "posts/2025/empty.md",
        1,
        "no front matter: a post starts with a line `---`, then `blogpost: true`, `date: "
        "YYYY-MM-DD` and the other keys, then `---` (kb new writes one)",
    ),
    (
        "posts/2025/empty.md",
        1,
        "no title: add a `# Title` heading after the front matter; without one ablog silently "
        "leaves the post out",
    ),
    (
        "posts/2025/external-spaces.md",
        6,
        'external_link " https://example.org/article " has spaces around the address, which '
        "would go into the feeds: remove the spaces, `external_link: https://example.org/article`",
    ),
    (
        LATIN,
        1,
        "this file is not UTF-8 text (byte 0xE9 on line 5 is not UTF-8): save it as UTF-8 (in "
        "most editors: Save with Encoding, UTF-8)",
    ),
    (
        "posts/2025/redirect-backslash.md",
        6,
        _redirect("posts\\2024\\old-name", "contains a backslash", "posts/2024/old-name"),
    ),
    (
        "posts/2025/redirect-chars.md",
        6,
        _redirect(
            "posts/2024/old name?",
            "has a character other than letters, digits, -, _, . and ~",
            EXAMPLE,
        ),
    ),
    (
        "posts/2025/redirect-empty-part.md",
        6,
        _redirect("posts//old-name", "has an empty part (// or /./)", "posts/old-name"),
    ),
    (
        "posts/2025/redirect-empty-part.md",
        6,
        _redirect("posts/2024/", "ends with /", "posts/2024"),
    ),
    (
        "posts/2025/redirect-empty.md",
        6,
        "`redirect` is empty: write the post's old address, e.g. `redirect: "
        "posts/2025/old-slug`, or remove the line",
    ),
    (
        "posts/2025/redirect-far.md",
        6,
        _redirect("../../../../../../../../escaped", "goes up with .., out of the site", EXAMPLE),
    ),
    (
        "posts/2025/redirect-generated.md",
        6,
        'redirect "blog/tag/gemm" is an address the build writes itself (blog/…): remove '
        '"blog/tag/gemm" from `redirect`',
    ),
    (
        "posts/2025/redirect-generated.md",
        6,
        'redirect "feeds/rss" is an address the build writes itself (feeds/…): remove '
        '"feeds/rss" from `redirect`',
    ),
    (
        "posts/2025/redirect-generated.md",
        6,
        'redirect "search" is an address the build writes itself (search): remove "search" '
        "from `redirect`",
    ),
    (
        "posts/2025/redirect-list.md",
        6,
        "`redirect` must be the old address as text, several separated by commas: write "
        "`redirect: posts/2025/old-slug`",
    ),
    (
        "posts/2025/redirect-page.md",
        6,
        'redirect "index" is the address of the page index: a redirect page there would '
        'replace it; remove "index" from `redirect`',
    ),
    (
        "posts/2025/redirect-post.md",
        6,
        'redirect "posts/2025/Target" is the address of posts/2025/target.md: a redirect page '
        'there would replace it; remove "posts/2025/Target" from `redirect`',
    ),
    (
        "posts/2025/redirect-root.md",
        6,
        _redirect("/posts/2024/old-name", "starts with /", "posts/2024/old-name"),
    ),
    (
        "posts/2025/redirect-self.md",
        6,
        'redirect "posts/2025/redirect-self" is this post\'s own address: its page would '
        'refresh to itself forever; remove "posts/2025/redirect-self" from `redirect`',
    ),
    (
        "posts/2025/redirect-slash.md",
        6,
        _redirect("posts/2024/old-name/", "ends with /", "posts/2024/old-name"),
    ),
    (
        "posts/2025/redirect-suffix.md",
        6,
        _redirect("posts/2024/old-name.html", "ends with a file suffix", "posts/2024/old-name"),
    ),
    (
        "posts/2025/redirect-twice-second.md",
        6,
        'redirect "posts/2024/shared-old" is also a redirect of '
        "posts/2025/redirect-twice-first.md:6: one old address can lead to one post only; "
        'remove "posts/2024/shared-old" from one of them',
    ),
    (
        "posts/2025/redirect-up.md",
        6,
        _redirect("../../src/kb/templates/kb/series", "goes up with .., out of the site", EXAMPLE),
    ),
    (
        "posts/2025/redirect-url.md",
        6,
        _redirect(
            "https://example.org/old.html",
            "is a full URL, which ablog would write as a file path",
            "old",
        ),
    ),
    (
        "posts/2025/series-case.md",
        6,
        'series "kernel Tutorial!" and series "Kernel tutorial" (posts/2025/series-first.md:6) '
        "both get the page blog/series/kernel-tutorial, so they become one series: write "
        '"Kernel tutorial" if they mean the same, or rename this one',
    ),
    (
        "posts/2025/series-punctuation.md",
        6,
        f'series "+++" {NO_NAME}, e.g. `series: CUTLASS GEMM tutorial`',
    ),
    ("posts/2025/tag-punctuation.md", 6, f'tag "---" {NO_NAME} (e.g. `cpp` for C++)'),
    ("posts/2025/tag-punctuation.md", 6, f'tag "_" {NO_NAME} (e.g. `cpp` for C++)'),
    (
        "posts/2025/updated-early.md",
        6,
        "updated 2025-02-01 is before the post's date 2025-03-01: write the day of the last "
        "real change, on or after 2025-03-01, or remove the line",
    ),
    (
        "posts/2025/yaml-tab.md",
        4,
        "a tab in the front matter, which YAML as MyST reads it does not accept: replace the "
        "tab with spaces",
    ),
]
#: Reported by `kb check`, no error (unless --strict); the build ignores the date instead.
WARNING = (
    "posts/2025/updated-future.md",
    6,
    f"updated 2099-01-01 is after today ({TODAY}): the site ignores it until then, and the post "
    "keeps its last real date; write the day of the last change",
)


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    root = make_site(tmp_path_factory.mktemp("hard-check"))
    before = snapshot(root)
    status, problems, summary = run_check(root)
    return status, problems, summary, before, snapshot(root)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hard-build")
    root = make_site(folder)
    before, around = snapshot(root), snapshot(folder)
    app, warnings = build(root)
    return app, warnings, before, snapshot(root), around


def _id(case) -> str:
    return f"{Path(case[0]).stem}:{case[1]}"


# -- kb check -----------------------------------------------------------------------------------


@pytest.mark.parametrize("expected", [*ERRORS, WARNING], ids=_id)
def test_check_reports(checked, expected):
    _, problems, *_ = checked
    assert expected in problems


def test_check_reports_nothing_else_and_fails(checked):
    status, problems, summary, *_ = checked
    assert sorted(problems) == sorted([*ERRORS, WARNING])
    assert (status, summary) == (1, f"kb check: 33 post(s), {len(ERRORS)} error(s), 1 warning(s)\n")


def test_check_touches_no_source(checked):
    *_, before, after = checked
    assert before == after


def test_check_of_one_file_that_is_not_utf8(tmp_path):
    root = make_site(tmp_path)
    assert run_check(root, LATIN) == (
        1,
        [e for e in ERRORS if e[0] == LATIN],
        "kb check: 1 post(s), 1 error(s)\n",
    )


def test_future_update_alone_passes_unless_strict(tmp_path):
    root = make_site(tmp_path)
    path = "posts/2025/updated-future.md"
    assert run_check(root, path) == (
        0,
        [WARNING],
        "kb check: 1 post(s), no errors, 1 warning(s)\n",
    )
    assert run_check(root, "--strict", path)[:2] == (1, [WARNING])


# -- The build ----------------------------------------------------------------------------------


@pytest.mark.parametrize("expected", ERRORS, ids=_id)
def test_build_warns(built, expected):
    _, warnings, *_ = built
    assert (*expected, "kb.frontmatter") in warnings


def test_build_warns_nothing_else(built):
    # No "Malformed YAML" for the tab, no "check the templates" for the empty post, no
    # located-nowhere warning for the series, no "unreadable document" for the NFD name.
    _, warnings, *_ = built
    assert sorted(warnings) == sorted((*error, "kb.frontmatter") for error in ERRORS)


def test_build_touches_no_source_and_writes_nowhere_else(built):
    app, _, before, after, around = built
    assert before == after
    # Nothing new beside the site either (its parent folder, less the site's _build).
    folder = Path(app.srcdir).parent
    assert snapshot(folder) == around
    outdir = Path(app.outdir)
    assert not (outdir / "../../../../../../../../escaped.html").resolve().exists()
    assert not (Path(app.srcdir) / "src").exists()
    assert not (outdir / "https:").exists()


def _refresh_target(page: Path) -> str | None:
    meta = BeautifulSoup(page.read_text(encoding="utf-8"), "lxml").find(
        "meta", attrs={"http-equiv": "refresh"}
    )
    return meta["content"].split("url=")[1] if meta else None


def test_build_writes_only_the_redirects_it_accepts(built):
    app, *_ = built
    outdir = Path(app.outdir)
    redirects = sorted(
        p.relative_to(outdir).as_posix()
        for p in outdir.rglob("*.html")
        if _refresh_target(p) is not None
    )
    assert redirects == [
        "posts/2024/old-good.html",
        "posts/2024/older-good.html",
        "posts/2024/shared-old.html",
    ]
    assert _refresh_target(outdir / "posts/2024/old-good.html") == "../2025/redirect-good.html"
    shared = _refresh_target(outdir / "posts/2024/shared-old.html")
    assert shared == "../2025/redirect-twice-first.html"
    # The pages a redirect named are still themselves.
    for page in ("posts/2025/target.html", "posts/2025/redirect-self.html", "index.html"):
        assert _refresh_target(outdir / page) is None, page


def test_build_goes_on_past_what_crashed_it(built):
    # An impossible time crashed ablog; a file not in UTF-8 ended the build in a traceback.
    app, *_ = built
    outdir = Path(app.outdir)
    for name in ("date-hour", "date-second", "date-time", "yaml-tab"):
        assert (outdir / f"posts/2025/{name}.html").is_file(), name
    assert not (outdir / "posts/2025/not-utf8.html").exists()


def test_build_trusts_no_update_after_today(built):
    app, *_ = built
    feed = feedparser.parse((Path(app.outdir) / "feeds/atom.xml").read_bytes())
    assert not feed.bozo
    assert feed.feed.updated.startswith("2025-")
    entry = next(e for e in feed.entries if e.title == "Updated future")
    assert (entry.published[:10], entry.updated[:10]) == ("2025-03-01", "2025-03-01")


def test_sphinx_build_fails_without_a_traceback(tmp_path):
    root = make_site(tmp_path)
    before = snapshot(root)
    command = [sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-q", "-b", "html", "."]
    result = subprocess.run(
        [*command, "_build/html"], cwd=root, env=ENV, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "Exception occurred" not in result.stderr
    assert f"{root / LATIN}:1: WARNING: {ERRORS[6][2]} [kb.frontmatter]" in result.stderr
    assert snapshot(root) == before


def test_build_keeps_failing_until_fixed(tmp_path):
    # A problem between posts and a file Sphinx cannot read fail every build, not only the
    # one that read them; and an incremental build writes no redirect over a page either.
    root = tmp_path / "site"
    shutil.copytree(GOOD, root)
    (root / LATIN).write_bytes("---\nblogpost: true\n---\n\n# Caf\xe9\n".encode("latin-1"))
    (root / "posts/2025/mover.md").write_text(
        "---\nblogpost: true\ndate: 2025-06-01\ncategory: Article\ndescription: Moved.\n"
        "redirect: posts/2025/tiling-basics\n---\n\n# Mover\n\nText.\n",
        encoding="utf-8",
    )
    expected = {
        (LATIN, 1, ERRORS[6][2], "kb.frontmatter"),
        (
            "posts/2025/mover.md",
            6,
            'redirect "posts/2025/tiling-basics" is the address of posts/2025/tiling-basics.md: '
            'a redirect page there would replace it; remove "posts/2025/tiling-basics" from '
            "`redirect`",
            "kb.frontmatter",
        ),
    }
    for attempt in range(2):
        app, warnings = build(root)
        assert set(warnings) == expected, attempt
        page = Path(app.outdir) / "posts/2025/tiling-basics.html"
        assert _refresh_target(page) is None, attempt


def test_a_post_saved_in_another_encoding_leaves_the_site(tmp_path):
    # What an earlier build read of it is forgotten: no stale copy in the listings.
    root = tmp_path / "site"
    shutil.copytree(GOOD, root)
    app, warnings = build(root)
    assert warnings == []

    def listed() -> list[str]:
        page = BeautifulSoup((Path(app.outdir) / "blog.html").read_text(encoding="utf-8"), "lxml")
        return sorted(a.get_text(strip=True) for a in page.select(".kb-entry-title a"))

    assert "Tiling basics" in listed()
    path = root / "posts/2025/tiling-basics.md"
    text = path.read_text(encoding="utf-8").replace("one per thread block", "one per bloc ÿ")
    path.write_bytes(text.encode("latin-1"))
    app, warnings = build(root)
    assert warnings == [
        (
            "posts/2025/tiling-basics.md",
            1,
            "this file is not UTF-8 text (byte 0xFF on line 14 is not UTF-8): save it as UTF-8 "
            "(in most editors: Save with Encoding, UTF-8)",
            "kb.frontmatter",
        ),
        # The post linking to it now links to nothing, and the build says so as kb check does.
        ("posts/2025/pipelining.md", 13, LINK_GONE, "kb.frontmatter"),
    ]
    assert listed() == ["Notes on FP8 training", "Pipelining loads and math"]
    assert run_check(root)[1] == [
        ("posts/2025/pipelining.md", 13, LINK_GONE),
        ("posts/2025/tiling-basics.md", 1, warnings[0][2]),
    ]


# -- Two names for one post ----------------------------------------------------------------------


def test_names_that_differ_only_in_normalisation(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(GOOD, root)
    nfc = unicodedata.normalize("NFC", "posts/2025/café.md")
    nfd = unicodedata.normalize("NFD", nfc)
    for name, day in ((nfc, "2025-03-01"), (nfd, "2025-04-01")):
        (root / name).write_text(
            f"---\nblogpost: true\ndate: {day}\ncategory: Article\ndescription: Café.\n---\n\n"
            f"# Café {day}\n\nText.\n",
            encoding="utf-8",
        )
    message = (
        f"this file name differs from {nfc} only in how its accented letters are written "
        f"(Unicode NFD, not NFC): Sphinx reads only {nfc}, and on macOS the two are one file; "
        "delete this one, or rename it"
    )
    before = snapshot(root)
    assert run_check(root) == (1, [(nfd, 1, message)], "kb check: 5 post(s), 1 error(s)\n")
    app = SphinxTestApp("html", srcdir=root, warning=io.StringIO())
    try:
        app.build()
    finally:
        app.cleanup()
    lines = warning_lines(app.warning)
    assert f"{root / nfd}:1: WARNING: {message} [kb.frontmatter]" in lines
    # Sphinx's own warning (no line; it names the file it reads) comes before any event kb can
    # act on; it is the only other one.
    others = [line for line in lines if "[kb.frontmatter]" not in line]
    assert others == [
        f'WARNING: multiple files found for the document "{nfc[:-3]}": {nfc}',
        f"Use _StrPath('{root / nfc}') for the build.",
    ]
    assert snapshot(root) == before


# -- The pure checks, one input at a time ----------------------------------------------------------

RULES = Rules(categories=("Article",), today=date(2026, 1, 1))


@pytest.mark.parametrize(
    "written, reason",
    [
        ("2025-03-01 09:30", ""),
        ("2025-03-01T23:59:59", ""),
        ("2025-03-01 0:00", ""),
        ("2025-03-01 24:00", "not_a_time: hour must be in 0..23"),
        ("2025-03-01 25:00", "not_a_time: hour must be in 0..23"),
        ("2025-03-01 09:60", "not_a_time: minute must be in 0..59"),
        ("2025-03-01 23:59:60", "not_a_time: second must be in 0..59"),
        ("2025-02-29 09:30", "not_a_day: day is out of range for month"),
        ("2025-13-01 09:30:00", "not_a_day: month must be in 1..12"),
    ],
)
def test_times_are_checked(written, reason):
    facts, problems = check_post(
        f"---\nblogpost: true\ndate: {written}\ncategory: Article\n---\n\n# T\n\nText.\n", RULES
    )
    found = [(p.line, p.message) for p in problems]
    if not reason:
        assert (found, facts.date) == ([], written[:10])
        return
    kind, why = reason.split(": ")
    words = "is not a real time of day" if kind == "not_a_time" else "is not a real day"
    assert len(found) == 1 and found[0][0] == 3
    assert found[0][1].startswith(f"date {written} {words} ({why}): ")


def test_date_errors_of_yaml_timestamps():
    assert date_errors(Field(datetime(2025, 3, 1, 9, 30), 3, "2025-03-01 09:30:00")) == []
    bad = Field(None, 3, "2025-03-01 25:00:00", "hour must be in 0..23")
    assert date_errors(bad)[0].startswith("date 2025-03-01 25:00:00 is not a real time of day")


@pytest.mark.parametrize(
    "name, reason",
    [
        ("posts/2024/old-name", ""),
        ("posts/2024/ünïcode_name.v2~", ""),
        ("index2", ""),
        ("", "is empty (an extra comma?)"),
        ("https://example.org/x", "is a full URL, which ablog would write as a file path"),
        ("mailto:x", "is a full URL, which ablog would write as a file path"),
        ("//example.org/x", "is a full URL, which ablog would write as a file path"),
        ("C:/x", "is a full URL, which ablog would write as a file path"),
        ("posts\\x", "contains a backslash"),
        ("/posts/x", "starts with /"),
        ("posts/../x", "goes up with .., out of the site"),
        ("posts/x/", "ends with /"),
        ("posts//x", "has an empty part (// or /./)"),
        ("posts/./x", "has an empty part (// or /./)"),
        ("posts/x.HTML", "ends with a file suffix"),
        ("posts/x.md", "ends with a file suffix"),
        ("posts/x y", "has a character other than letters, digits, -, _, . and ~"),
        ("posts/x\ny", "has a character other than letters, digits, -, _, . and ~"),
        ("posts/x\x00", "has a character other than letters, digits, -, _, . and ~"),
        ("posts/.git/x", "has a part starting with a dot"),
        ("a" * 201, "has a part longer than 200 bytes, too long for a file name"),
    ],
)
def test_redirect_names(name, reason):
    assert redirect_problem(name) == reason


def test_decoding():
    assert decode_source("\ufeff# Café\n".encode()) == ("# Café\n", [])
    text, problems = decode_source(b"---\n\n# Caf\xe9\n")
    assert text == ""
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [
        (1, "this file is not UTF-8 text (byte 0xE9 on line 3 is not UTF-8)")
    ]


def test_what_myst_cannot_read():
    assert unreadable_front_matter("---\ndate: 2025-01-01\n---\n# T\n") is None
    assert unreadable_front_matter("# No front matter\n") is None
    assert unreadable_front_matter("---\ndate:\t2025-01-01\n---\n") == range(1, 2)
    assert unreadable_front_matter("---\ndate: 2025-02-30\nx: 1\n---\n") == range(1, 3)
    assert unreadable_front_matter("---\n- a list\n---\n") == range(1, 2)
    assert unreadable_front_matter("---\n---\n") == range(1, 1)


def test_empty_front_matter_is_an_undated_draft():
    facts, problems = check_post("---\n---\n\n# T\n\nText.\n", RULES)
    assert [(p.line, p.message.split(":")[0], p.level) for p in problems] == [
        (1, "undated", "draft")
    ]
    assert facts.undated
    _, problems = check_post("---\n---\n\nNo title.\n", RULES)
    found = [(p.line, p.message.split(":")[0]) for p in problems]
    assert found == [(1, "undated"), (3, "no title")]


def test_unicode_names():
    nfc = unicodedata.normalize("NFC", "posts/é.md")
    nfd = unicodedata.normalize("NFD", nfc)
    other = unicodedata.normalize("NFD", "posts/ï.md")
    found = unicode_names([nfc, nfd, other, "posts/a.md"])
    assert sorted(found) == sorted([nfd, other])
    assert found[nfd][0].message.startswith(f"this file name differs from {nfc} only")
    assert found[other][0].message.startswith("this file name is not in Unicode NFC form")
