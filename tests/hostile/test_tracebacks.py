"""Inputs that ended in a traceback, or on which `kb check` and the build disagreed (issue 31,
items 5 and 8), each now a `file:line` refusal in the same words, or simply built right.

tests/roots/test-hostile-tracebacks: redirects under files the build writes (``sitemap.xml/
old``, a page's ``.html``) or on its pages (``benchmarks``), benchmark values of 1e28 and more
(``decimal.InvalidOperation``), a YAML alias bomb in front matter (passed `kb check`, failed the
build), front matter nested 300 levels deep (a RecursionError in both), a post dated in the
year 999 (invalid Atom and JSON Feed dates), and, written here, an
.ipynb nested 900 levels deep (`kb check` passed it, MyST-NB failed with a RecursionError).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import feedparser
import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).parent.parent / "roots" / "test-hostile-tracebacks"
WARNING = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+): WARNING: (?P<message>.*) \[(?P<type>[\w.]+)\]$"
)
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<message>.*)$")
DEPTH = 900


def deep_notebook() -> str:
    metadata = {
        "blogpost": True,
        "date": "2025-03-05",
        "category": "Article",
        "author": "ada",
        "description": "A notebook nested too deeply.",
    }
    cell = {"cell_type": "markdown", "id": "t", "metadata": {}, "source": ["# Deep\n"]}
    text = json.dumps(
        {"cells": [cell], "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1
    )
    deep = '"x": ' + "[" * DEPTH + "]" * DEPTH
    return text.replace('"author": "ada",', f'"author": "ada",\n  {deep},')


def _run(site: Path, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *command], cwd=site, capture_output=True, text=True, timeout=300
    )


def _build(site: Path):
    done = _run(site, "-m", "sphinx", "-b", "html", "-q", ".", "_build/html", "-d", "_build/dt")
    warnings = []
    for line in re.sub(r"\x1b\[[0-9;]*m", "", done.stderr).splitlines():
        found = WARNING.match(line)
        assert found, f"a warning without a location: {line}"
        path = os.path.relpath(found["path"], site)
        warnings.append((path, int(found["line"]), found["message"], found["type"]))
    return done, warnings


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    site = tmp_path_factory.mktemp("tracebacks") / "site"
    shutil.copytree(ROOT, site)
    (site / "posts/2025/deep.ipynb").write_text(deep_notebook())
    check = _run(site, "-m", "kb.cli", "check")
    problems = [
        (m["path"], int(m["line"]), m["message"])
        for m in map(LINE.match, check.stdout.splitlines())
    ]
    done, warnings = _build(site)
    again, rewarned = _build(site)
    return site, check, problems, done, warnings, again, rewarned


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def folder_like(name: str, part: str) -> str:
    return (
        f'redirect "{name}" has a folder named like a file ("{part}"), where the build writes a '
        "file of that name: write the old address from the site root, without .html, e.g. "
        "`redirect: posts/2025/old-slug`"
    )


def expected(site: Path) -> list[tuple[str, int, str]]:
    posts = site / "posts/2025"
    redirects = line_of(posts / "redirects.md", "redirect:")
    laughs = [
        (
            "posts/2025/laughs.md",
            line_of(posts / "laughs.md", f"a{n}: "),
            f"`a{n}` repeats another value with a YAML alias (`*name`), which the build refuses "
            "to expand (a few aliases can make a value billions of items long): write the value "
            "out in full",
        )
        for n in range(1, 10)
    ]
    return sorted(
        [
            (
                "posts/2025/deep.ipynb",
                line_of(posts / "deep.ipynb", '"x": '),
                "this notebook's JSON is nested more than 100 levels deep, which no notebook "
                "Jupyter writes holds and MyST-NB cannot read: restore the file from version "
                "control, or remove the deeply nested value",
            ),
            *laughs,
            (
                "posts/2025/nested.md",
                line_of(posts / "nested.md", "x: "),
                "the front matter nests a value more than 50 levels deep, which no post needs "
                "and which the build cannot read: write `key: value` lines, with lists of a "
                "level or two",
            ),
            ("posts/2025/redirects.md", redirects, folder_like("sitemap.xml/old", "sitemap.xml")),
            (
                "posts/2025/redirects.md",
                redirects,
                folder_like("posts/2025/fine.html/old", "fine.html"),
            ),
            (
                "posts/2025/taken.md",
                line_of(posts / "taken.md", "redirect:"),
                'redirect "benchmarks" is an address the build writes itself (benchmarks): remove '
                '"benchmarks" from `redirect`',
            ),
        ]
    )


def test_kb_check_refuses_each_at_its_line(built):
    site, check, problems, *_ = built
    assert check.returncode == 1
    assert sorted(problems) == expected(site)


def test_the_build_ends_well_and_says_the_same(built):
    site, _, problems, done, warnings, *_ = built
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Exception" not in done.stderr
    assert sorted((p, n, m) for p, n, m, _ in warnings) == sorted(problems)
    assert {kind for *_, kind in warnings} == {"kb.frontmatter"}


def test_a_second_build_ends_well_too(built):
    *_, warnings, again, rewarned = built
    assert again.returncode == 0, again.stderr
    assert sorted(rewarned) == sorted(warnings)


def test_no_redirect_lands_under_a_file_the_build_writes(built):
    site, *_ = built
    html = site / "_build/html"
    assert (html / "sitemap.xml").is_file()
    assert (html / "posts/2025/fine.html").is_file()
    assert not (html / "posts/2025/fine.html/old.html").exists()
    assert (html / "posts/v1.2/old.html").is_file()  # a folder with a dot is still a folder
    page = BeautifulSoup((html / "posts/v1.2/old.html").read_text(), "lxml")
    assert page.find("meta", attrs={"http-equiv": "refresh"})["content"].endswith("2025/taken.html")


def test_numbers_beyond_decimal_precision_are_written_with_an_exponent(built):
    site, *_ = built
    page = BeautifulSoup((site / "_build/html/posts/2025/numbers.html").read_text(), "lxml")
    cells = [td.get_text(strip=True) for td in page.select("table td")]
    for shown in ("1.00e+28", "1.23e+28", "1.00e-30", "1.00e+300"):
        assert shown in cells


def test_a_post_of_the_year_999_has_valid_feed_dates(built):
    site, *_ = built
    feeds = site / "_build/html/feeds"
    atom = feedparser.parse((feeds / "atom.xml").read_bytes())
    assert not atom.bozo
    old = next(entry for entry in atom.entries if "0999/old" in entry.link)
    assert old.published == "0999-03-01T00:00:00Z"
    assert old.published_parsed[:3] == (999, 3, 1)
    item = next(
        i for i in json.loads((feeds / "feed.json").read_text())["items"] if "0999" in i["url"]
    )
    assert item["date_published"] == "0999-03-01T00:00:00Z"
