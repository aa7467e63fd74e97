"""Dates as stock ablog reads them (kb.checks.dates): the site's ``post_date_format`` first,
then dateutil's forms, in ``date`` and ``updated``, agreed on by ``kb check``, the build, the
drafts it leaves out, listings and feeds. What ablog would fill in from the clock (a missing
year, day or month) or crash on (a time zone) is refused at its line, by both alike."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import feedparser
import pytest
from authoring import build_output, run_check
from helpers import soup
from sitebuild import copy_root

from kb.checks.dates import text_day
from kb.checks.frontmatter import check_post
from kb.checks.model import Rules


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return copy_root("ablogdates", tmp_path_factory.mktemp("ablogdates") / "site")


@pytest.fixture(scope="module")
def built(site: Path) -> tuple[Path, list]:
    return build_output(site)


def test_every_ablog_form_builds_without_a_warning_and_dates_its_post(built) -> None:
    outdir, warnings = built
    assert warnings == []
    feed = feedparser.parse((outdir / "feeds/atom.xml").read_bytes())
    assert [(e.title, e.published[:16], e.updated[:10]) for e in feed.entries] == [
        ("Updated Later", "2025-03-02T00:00", "2025-03-14"),
        ("Long Month", "2024-09-19T00:00", "2024-09-19"),
        ("Day First", "2024-04-16T00:00", "2024-04-16"),
        ("With a Time", "2020-10-10T14:00", "2020-10-10"),
        ("In the Site\u2019s Format", "2020-10-10T00:00", "2020-10-10"),
    ]
    page = soup(outdir / "posts/updated-later.html")
    assert [t["datetime"] for t in page.select("article time")][:2] == ["2025-03-02", "2025-03-14"]
    assert [
        a.get_text() for a in soup(outdir / "blog/2024.html").select("h2.kb-entry-title a")
    ] == [
        "Long Month",
        "Day First",
    ]


def test_a_post_dated_later_in_an_ablog_form_is_a_draft_left_off_the_site(built) -> None:
    outdir, _ = built
    assert not (outdir / "posts/later.html").exists()
    assert "Later" not in (outdir / "feeds/rss.xml").read_text(encoding="utf-8").split("Updated")


def test_kb_check_reads_the_same_dates(site: Path) -> None:
    status, problems, _ = run_check(site)
    assert status == 0
    assert [(path, line, message[:34]) for path, line, message in problems] == [
        ("posts/later.md", 3, "scheduled: dated 2099-01-05, after"),
    ]


@pytest.mark.parametrize(
    ("written", "day"),
    [
        ("Oct 10, 2020", date(2020, 10, 10)),  # the site's post_date_format
        ("10 October 2020", date(2020, 10, 10)),  # ablog's default format
        ("2020-10-10 14:00", date(2020, 10, 10)),
        ("16 Apr, 2024", date(2024, 4, 16)),
        ("Sept 19 2024", date(2024, 9, 19)),
        ("14/03/2025", date(2025, 3, 14)),
        ("May 9, 2014", date(2014, 5, 9)),
    ],
)
def test_the_forms_ablog_reads(written: str, day: date) -> None:
    assert text_day(written, "%b %d, %Y") == day


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("March 14", 'date "March 14" is not a date with a day, month and year'),
        ("October 2020", 'date "October 2020" is not a date with a day, month and year'),
        ("Oct 32, 2020", 'date "Oct 32, 2020" is not a date with a day, month and year'),
        ("next week", 'date "next week" is not a date with a day, month and year'),
        (
            "Oct 10, 2020 14:00 +02:00",
            "date Oct 10, 2020 14:00 +02:00 has a time zone, which "
            "crashes ablog: dates are UTC and carry no zone, write `date: 2020-10-10`",
        ),
        ("2020-10-10T14:00+02:00", "date 2020-10-10T14:00+02:00 has a time zone"),
    ],
)
def test_what_ablog_would_fill_from_the_clock_or_crash_on_is_refused(written, message) -> None:
    text = f"---\nblogpost: true\ndate: {written}\ncategory: Article\n---\n\n# T\n\nText.\n"
    _, problems = check_post(text, Rules(("Article",), date_format="%b %d, %Y"))
    assert [(p.line, p.message[: len(message)]) for p in problems] == [(3, message)]
