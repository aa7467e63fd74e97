"""Generated hostile input (issue 31): front matter and benchmark CSV values from Hypothesis.

* Front matter made of YAML's sharp edges (aliases and merge keys, nesting up to 80 levels,
  huge integers, years before 1000, tags that name Python objects, notebook settings) never
  makes the checks raise; and, built into a copy of the authoring site a few times, `kb check`
  and the build report the same errors at the same lines, with no other warning and no source
  touched (the pattern of tests/test_agreement.py).
* CSV values (floats, decimals and integers of any size, infinities, NaN, near-numbers) never
  make reading, rounding, the table or the chart raise anything but the directive's own error.

KB_HOSTILE_EXAMPLES=200 for a longer hunt; the defaults keep the suite quick.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from authoring import GOOD, build, snapshot
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kb.benchmark.charts import ChartSpec, Series, render_svg
from kb.benchmark.data import BenchmarkError, read_csv
from kb.benchmark.labels import round_number, round_value
from kb.benchmark.table import build_table
from kb.checks.frontmatter import Rules, check_post
from kb.cli.main import today_utc
from kb.site import check_files, open_site

EXAMPLES = int(os.environ.get("KB_HOSTILE_EXAMPLES", "0"))
FOLDER = "posts/2030"

# -- Front matter -----------------------------------------------------------------------------


def _nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


HOSTILE_LINES = st.one_of(
    st.sampled_from(
        [
            "a: &a [x, y]\nb: *a",
            "base: &base {k: v}\nmerged:\n  <<: *base\n  j: w",
            'l0: &l0 ["lol","lol","lol"]\nl1: &l1 [*l0,*l0,*l0]\nl2: [*l1,*l1,*l1]',
            "self: &self [*self]",
            "date: 0999-03-01",
            "date: 0001-01-01",
            "updated: 0042-12-31",
            "date: 10000-01-01",
            "x: !!python/object:os.system ls",
            "x: !!python/name:os.system",
            "x: !!binary aGVsbG8=",
            "x: !!set {a, b}",
            "x: !!omap [a: 1]",
            "mystnb: {execution_mode: force}",
            "execution: {timeout: 1}",
            "kb_execute: force",
            "category: {Article: 1}",
            "tags: [[a], {b: c}]",
            "author: ~",
            "x: .nan",
            "x: -.inf",
            "? [complex, key]\n: value",
            "x: 'unclosed",
            "x: |\n  block\n  text",
            "- not a mapping",
        ]
    ),
    st.integers(1, 80).map(lambda depth: f"deep: {_nested(depth)}"),
    st.integers(1, 1000).map(lambda digits: f"big: {'9' * digits}"),
    st.integers(1, 999).map(lambda year: f"date: {year:04}-06-15"),
)


@st.composite
def front_matter_posts(draw) -> str:
    lines = ["blogpost: true", "date: 2025-03-01", "category: Article", "author: mira"]
    for extra in draw(st.lists(HOSTILE_LINES, min_size=1, max_size=3)):
        lines.insert(draw(st.integers(0, len(lines))), extra)
    body = "\n# A generated post\n\nIts first paragraph, the excerpt.\n"
    return "---\n" + "\n".join(lines) + "\n---\n" + body


RULES = Rules(categories=("Article", "Benchmarks"), authors=("mira", "tomas"))


@settings(max_examples=EXAMPLES or 300, deadline=None, database=None)
@given(text=front_matter_posts())
def test_no_front_matter_makes_the_checks_raise(text):
    facts, problems = check_post(text, RULES)
    assert all(problem.line >= 1 and problem.message for problem in problems)


@settings(
    max_examples=EXAMPLES or 6,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=front_matter_posts())
# Found by this test: a key that is a list, which MyST's YAML cannot make a dict key of.
@pytest.mark.slow
@example(
    text="---\n? [complex, key]\n: value\nblogpost: true\ndate: 2025-03-01\ncategory: Article\n"
    "author: mira\n---\n\n# A generated post\n\nIts first paragraph, the excerpt.\n"
)
def test_kb_check_and_the_build_agree_on_hostile_front_matter(tmp_path, text):
    root = tmp_path / "site"
    if not root.exists():
        shutil.copytree(GOOD, root)
    folder = root / FOLDER
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "generated.md").write_text(text, encoding="utf-8")
    before = snapshot(root)

    site = open_site(root)
    checked = check_files(site, site.post_paths(), today=today_utc())
    errors = {(path, p.line, p.message) for path, p in checked if p.is_error}
    _, warnings = build(root)

    ours = {
        (path, line, message) for path, line, message, kind in warnings if kind == "kb.frontmatter"
    }
    assert ours == errors
    assert [w for w in warnings if w[3] != "kb.frontmatter"] == []
    assert snapshot(root) == before


# -- CSV values ---------------------------------------------------------------------------------

VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.decimals(allow_nan=True, allow_infinity=True).map(str),
    st.integers(-(10**400), 10**400).map(str),
    st.builds(lambda m, e: f"{m}e{e}", st.integers(-999, 999), st.integers(-99999, 99999)),
    st.sampled_from(
        ["", " ", "1e28", "1E+30", "-0", "0x10", "1_000", "١٢٣", "1e", "e5", "--1", "1.2.3"]
    ),
    st.sampled_from(["inf", "-Infinity", "nan", "NaN", "1e999999", "-1e-999999", "9" * 500]),
    st.text(max_size=6).filter(lambda text: not any(c in text for c in ',"\r\n')),
)


@settings(max_examples=EXAMPLES or 200, deadline=None, database=None)
@given(values=st.lists(VALUES, min_size=1, max_size=6), digits=st.integers(1, 6))
def test_no_csv_value_makes_reading_rounding_or_the_table_raise(values, digits):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "data.csv")
        path.write_text("kernel,value\n" + "".join(f"k{n},{v}\n" for n, v in enumerate(values)))
        try:
            data = read_csv(path, "data.csv")
        except BenchmarkError:
            return  # the directive's own error, reported at the post's line
    numbers = data.numbers("value") if data.is_numeric("value") else []
    for row in data.rows:
        round_number(row["value"], digits)
    for number in numbers:
        if number is not None:
            round_value(number, digits)
    try:
        build_table(data, ["kernel", "value"], {}, ["value"], peak=1e3, digits=digits)
    except BenchmarkError as error:
        assert str(error).startswith("data.csv:")  # at the value's line


@settings(max_examples=EXAMPLES or 8, deadline=None, database=None)
@given(
    ys=st.lists(
        st.one_of(st.floats(-1e308, 1e308), st.sampled_from([0.0, 1e-300, 1e300])),
        min_size=1,
        max_size=4,
    ),
    kind=st.sampled_from(["bar", "line"]),
)
def test_no_finite_value_makes_the_chart_raise(ys, kind):
    points = tuple((f"k{n}" if kind == "bar" else float(n + 1), y) for n, y in enumerate(ys))
    spec = ChartSpec(kind, "Generated", "x", "y", (Series("s", points),), peak=max(ys) or None)
    assert render_svg(spec).lstrip().startswith("<")
