"""Math as a paper writes it: the environments papers use become the right MathML, what
cannot be converted is a warning at its line, and only pages with math load the math font."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from authoring import ROOTS, build
from helpers import soup

from kb.markup.math import MathError, tex_to_mathml

ROOT = ROOTS / "test-reader-math"
STATIC = Path(__file__).parent.parent / "src" / "kb" / "static"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("reader-math") / "site"
    shutil.copytree(ROOT, root)
    app, warnings = build(root)
    return Path(app.outdir), warnings


def _display(out: Path) -> list:
    return soup(out / "papers.html").select("div.math.kb-math > math")


def test_unconvertible_tex_is_a_warning_at_its_line(built):
    _, warnings = built
    assert warnings == [
        (
            "bad.md",
            5,
            "math: cannot convert TeX to MathML (no such environment: frobnicate) in "
            '"\\begin{frobnicate} a \\end{frobnicate}"; rewrite it with commands Temml supports '
            "(temml.org)",
            "kb.math",
        ),
        (
            "bad.md",
            9,
            "math: unsupported TeX command \\href (a formula cannot hold a link: put the link "
            'outside the math) in "\\href{https://example.org}{x}"; rewrite it with commands '
            "Temml supports (temml.org)",
            "kb.math",
        ),
    ]
    # The page shows the source, not a formula with its environment silently dropped.
    page = soup(built[0] / "bad.html")
    assert [code.get_text() for code in page.select("code.kb-math-source")] == [
        "\\begin{frobnicate} a \\end{frobnicate}",
        "\\href{https://example.org}{x}",
    ]
    assert page.select("article math") == []


def test_aligned_is_one_row_a_line_with_its_columns(built):
    aligned = _display(built[0])[1]
    rows = aligned.select("mtable > mtr")
    assert len(rows) == 2
    for row, (left, right) in zip(rows, [("a", "=b"), ("c", "=d")], strict=True):
        cells = row.find_all("mtd", recursive=False)
        assert [cell.get_text() for cell in cells] == [left, right]
        # Chromium ignores columnalign: the alignment is in a class kb-math.css styles.
        assert [cell.get("class") for cell in cells] == [["tml-right"], ["tml-left"]]
    assert "&" not in aligned.get_text()


def test_gathered_split_cases_and_matrices(built):
    _, gathered, split, cases, matrices = _display(built[0])[1:]
    assert len(gathered.select("mtable > mtr")) == 3
    assert len(split.select("mtable > mtr")) == 2
    brace = cases.find("mo", string="{")
    assert brace is not None and brace.get("stretchy") == "true"
    assert len(cases.select("mtable > mtr")) == 2
    fences = [mo.get_text() for mo in matrices.find_all("mo") if mo.get("fence") == "true"]
    assert fences == ["(", ")", "[", "]"]
    assert [len(table.find_all("mtr")) for table in matrices.find_all("mtable")] == [2, 2]


def test_letters_operators_and_arrows(built):
    inline = soup(built[0] / "papers.html").select("p span.math.kb-math > math")
    _, _, script, calligraphic, operator, arrow = inline
    # \mathscr and \mathcal are the script letter (U+2112), not a plain L.
    assert script.get_text() == calligraphic.get_text() == "\u2112"
    assert script.find("mi")["class"] == ["mathscr"]  # STIX Two Math's roundhand (ss01)
    assert operator.find("mi").get_text() == "softmax"
    labelled = arrow.find("mover")
    assert labelled.find("mo").get_text() == "\u2192" and labelled.find("mo")["stretchy"] == "true"
    assert "f" in [mi.get_text() for mi in labelled.find_all("mi")]


def test_only_pages_with_math_load_the_font(built):
    out = built[0]

    def stylesheets(name: str) -> list[str]:
        return [link["href"] for link in soup(out / name).select("link[rel=stylesheet]")]

    assert any(href.startswith("_static/kb-math.css") for href in stylesheets("papers.html"))
    assert not any("kb-math" in href for href in stylesheets("plain.html"))
    css = (out / "_static" / "kb-math.css").read_text(encoding="utf-8")
    assert 'url("kb-stix-two-math.woff2")' in css
    assert '"KB Math", "STIX Two Math", "Latin Modern Math", math' in css
    font = out / "_static" / "kb-stix-two-math.woff2"
    assert font.read_bytes()[:4] == b"wOF2"
    licence = (STATIC / "kb-stix-two-math-OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence


@pytest.mark.parametrize(
    ("tex", "message"),
    [
        (r"\begin{foo} a \end{foo}", "cannot convert TeX to MathML (no such environment: foo)"),
        (r"\foo", r"unsupported TeX command \foo"),
        (r"\url{https://example.org}", r"unsupported TeX command \url (a formula cannot hold"),
        (r"\includegraphics{x.png}", r"unsupported TeX command \includegraphics"),
    ],
)
def test_refused_tex(tex, message):
    with pytest.raises(MathError) as error:
        tex_to_mathml(tex, True)
    assert str(error.value).startswith(message)


def test_style_keeps_lengths_only():
    # Temml spaces cells with padding; a declaration that could load anything never survives.
    from kb.markup.math import _style

    assert _style("padding-left:0em;padding-right:5.9776pt;") == (
        "padding-left:0em;padding-right:5.9776pt"
    )
    assert _style("background:url(https://x.example/a.png);width:1em") == "width:1em"
    assert _style("width:calc(1em + 2px);math-depth:0") == "math-depth:0"
