"""Math as MathML at build time: no MathJax, numbered equations, a warning for bad TeX."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import soup, warning_lines
from lxml import etree
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

from kb.markup.math import MathError, mathml_tree, tex_to_mathml

REPO = Path(__file__).parent.parent


@pytest.mark.sphinx("html", testroot="math")
def test_math_is_mathml_without_a_script(app, warning):
    app.build()
    assert warning.getvalue() == ""
    page = soup(app.outdir / "index.html")
    # No MathJax: no script of it, nothing loaded from another host.
    sources = [tag.get("src", "") for tag in page.find_all("script")]
    assert not any(
        "mathjax" in src.lower() or src.startswith(("http:", "https:", "//")) for src in sources
    )

    inline = page.select("p span.math.kb-math > math")
    assert len(inline) == 3  # E = mc^2, the relation, n^2
    # What HTML implies is not written: the namespace (the parser gives it) and inline display.
    assert all(math.attrs == {} for math in inline)
    assert inline[0].find("msup") is not None  # c^2 is a superscript, not the text "c^2"
    # \mathrel{+}= becomes two adjacent operators, not an <mo> holding a row.
    relation = inline[1]
    assert [mo.get_text() for mo in relation.find_all("mo")][:2] == ["+", "="]
    assert all(mo.find(True) is None for mo in relation.find_all("mo"))

    blocks = page.select("div.math.kb-math")
    assert len(blocks) == 5
    assert all(block.find("math").attrs == {"display": "block"} for block in blocks)
    numbers = [block.select_one("span.eqno") for block in blocks]
    assert [n.get_text(strip=True).rstrip("¶") if n else None for n in numbers] == [
        None,
        "(1)",
        "(2)",
        None,
        None,
    ]
    # Two paragraphs in one block become two rows; the align* environment a table of rows.
    assert len(blocks[3].find_all("mtr")) == 2
    assert len(blocks[4].find_all("mtr")) == 2

    # {eq} references link to the equation's anchor, which exists exactly once on the page.
    references = page.select('p a.reference.internal[href^="#equation-"]')
    assert [a.get_text() for a in references] == ["(1)", "(2)"]
    for reference in references:
        assert len(page.find_all(id=reference["href"][1:])) == 1


@pytest.mark.sphinx("html", testroot="math")
def test_kb_chooses_mathml_by_itself(app):
    assert app.config.html_math_renderer == "mathml"  # the root's conf.py does not set it


@pytest.mark.sphinx("html", testroot="math-errors")
def test_unsupported_tex_is_a_warning_with_location(app, warning):
    app.build()
    index = app.srcdir / "index.md"
    assert warning_lines(warning) == [
        f'{index}:3: WARNING: math: unsupported TeX command \\foo in "\\foo{{x}}"; '
        "rewrite it with commands Temml supports (temml.org) [kb.math]",
        f"{index}:5: WARNING: math: cannot convert TeX to MathML (temml could not read it: "
        'look for a ^, _ or command without its argument) in "x^"; rewrite it with commands '
        "Temml supports (temml.org) [kb.math]",
    ]
    page = soup(app.outdir / "index.html")
    # The reader sees the TeX source where the formula would be, and the rest renders.
    assert [code.get_text() for code in page.select("code.kb-math-source")] == ["\\foo{x}", "x^"]
    assert page.select_one("p:-soup-contains('Fine math') math") is not None


def _real_formulas():
    parser = create_md_parser(
        MdParserConfig(enable_extensions={"dollarmath", "amsmath"}), RendererHTML
    )
    for path in sorted((REPO / "posts").glob("*/*.md")):
        stack = list(parser.parse(path.read_text(encoding="utf-8")))
        while stack:
            token = stack.pop()
            stack.extend(token.children or [])
            if token.type in ("math_inline", "math_block", "math_block_label", "amsmath"):
                yield path.relative_to(REPO), token.content, token.type != "math_inline"


def test_every_formula_of_the_real_posts_converts():
    formulas = list(_real_formulas())
    # Every post that writes display math is found (the parser sees what the build sees).
    with_math = {
        path.relative_to(REPO)
        for path in (REPO / "posts").glob("*/*.md")
        if "\n$$" in path.read_text(encoding="utf-8")
    }
    assert with_math <= {path for path, _, _ in formulas}
    if not formulas:
        pytest.skip("no post has math")
    for path, tex, display in formulas:
        try:
            mathml = tex_to_mathml(tex, display)
        except MathError as error:
            pytest.fail(f"{path}: {error}: {tex}")
        assert etree.fromstring(mathml).tag == "math"


def _without_rows(element) -> list:
    """A MathML tree as nested (tag, attributes, text, children), every <mrow> spliced away."""
    result = []
    for child in element:
        if child.tag == "mrow":
            result += _without_rows(child)
        else:
            item = (child.tag, dict(child.attrib), (child.text or "").strip(), _without_rows(child))
            result.append(item)
    return result


def test_compact_mathml_drops_only_rows_of_one_element():
    """The page's MathML is Temml's less what a browser would add back by itself."""
    for path, tex, display in _real_formulas():
        full = mathml_tree(tex, display)
        compact = etree.fromstring(tex_to_mathml(tex, display))
        assert compact.attrib == ({"display": "block"} if display else {}), path
        rows = list(compact.iter("mrow"))
        # A row of one element goes, unless it carries something (Temml's negative space).
        kept = [row for row in rows if len(row) > 1 or row.attrib]
        assert kept == rows, f"{path}: a row of one element in {tex}"
        assert len(compact) != 1 or compact[0].tag != "mrow", f"{path}: <math> holds one row"
        # Rows aside, the same elements, attributes and text in the same order.
        for element in full.iter():
            element.tag = etree.QName(element).localname
        assert _without_rows(compact) == _without_rows(full), f"{path}: {tex}"
        # Every row of several elements is kept, except the one <math> itself stands for.
        outer = len(full) == 1 and full[0].tag == "mrow" and len(full[0]) > 1
        full_rows = [row for row in full.iter("mrow") if len(row) > 1 or row.attrib]
        assert len(rows) == len(full_rows) - outer


@pytest.mark.parametrize(
    ("tex", "mathml"),
    [
        # TeX's \text is text: markup in it is escaped, never an element.
        (
            r"\text{<script>alert(1)</script>}",
            "<math><mtext>&lt;script&gt;alert(1)&lt;/script&gt;</mtext></math>",
        ),
        (
            r"\mbox{<img src=x onerror=alert(2)>}",
            "<math><mtext>&lt;img\u00a0src=x\u00a0onerror=alert(2)&gt;</mtext></math>",
        ),
        (r"\text{a < b \& c}", "<math><mtext>a\u00a0&lt;\u00a0b\u00a0&amp;\u00a0c</mtext></math>"),
    ],
)
def test_text_in_tex_stays_text(tex, mathml):
    assert tex_to_mathml(tex, False) == mathml
    tree = etree.fromstring(mathml)
    assert {element.tag for element in tree.iter()} <= {"math", "mtext", "mstyle"}


@pytest.mark.parametrize(
    ("tex", "message"),
    [
        (
            r"\href{https://example.org}{x}",
            r"unsupported TeX command \href (a formula cannot hold a link: put the link "
            "outside the math)",
        ),
        (
            r"\style{background: url(https://example.org/x.png)}{y}",
            r"unsupported TeX command \style (write \color for colour)",
        ),
    ],
)
def test_math_never_links_or_loads(tex, message):
    with pytest.raises(MathError) as error:
        tex_to_mathml(tex, False)
    assert str(error.value) == message


def test_only_mathml_elements_and_attributes_come_out():
    from kb.markup.math import ATTRIBUTES, CLASSES, ELEMENTS, STYLE_PROPERTIES

    for path, tex, display in _real_formulas():
        tree = etree.fromstring(tex_to_mathml(tex, display))
        for element in tree.iter():
            assert element.tag in ELEMENTS, f"{path}: <{element.tag}> in {tex}"
            attributes = set(element.attrib) - {"class", "style"}
            assert attributes <= ATTRIBUTES, f"{path}: {element.attrib} in {tex}"
            assert set(element.get("class", "").split()) <= CLASSES
            for declaration in filter(None, element.get("style", "").split(";")):
                prop, value = declaration.split(":")
                assert prop in STYLE_PROPERTIES and "(" not in value, f"{path}: {declaration}"
    # What a script or a link would need is not on the lists.
    assert not {"script", "a", "img", "iframe", "style", "foreignObject"} & ELEMENTS
    assert not {"href", "src", "style", "onload", "onclick", "class", "id"} & ATTRIBUTES
    assert not {"background", "background-image", "content", "behavior"} & STYLE_PROPERTIES
