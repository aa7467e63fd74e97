"""Math rendered at build time as MathML: no script, no request to a CDN.

Sphinx's default renderer, MathJax, loads from cdn.jsdelivr.net, so a reader behind a
firewall (or the offline browser tests) sees raw TeX. Here MyST's ``$...$``, ``$$...$$``
(labelled or not) and amsmath blocks become MathML through latex2mathml when the HTML is
written; browsers draw MathML natively. TeX that latex2mathml cannot convert is reported
with its location when the page is read, and the page shows the TeX source instead.

Nothing but MathML comes out of a formula. latex2mathml writes ``\\text{...}`` into its
string output unescaped (``\\text{<script>…</script>}`` was a live script), so we take its
element tree instead, whose text we escape ourselves, and copy only MathML elements and
presentation attributes (:data:`ELEMENTS`, :data:`ATTRIBUTES`): ``\\href`` and ``\\style``,
whose attributes could link or load elsewhere, are reported like any unsupported command.
"""

from __future__ import annotations

import functools
import re

from docutils import nodes
from lxml import etree
from sphinx.application import Sphinx
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

from ..core.html import focusable

logger = logging.getLogger(__name__)

RENDERER = "mathml"
MATHML_NS = "http://www.w3.org/1998/Math/MathML"
# latex2mathml keeps a command it does not know as the text of a token: <mi>\foo</mi>.
UNKNOWN_COMMAND = re.compile(r"^\\[A-Za-z]+$")
# latex2mathml writes symbols and spaces as character references inside its text.
CHARACTER_REFERENCE = re.compile(r"&#(?:x([0-9A-Fa-f]+)|([0-9]+));")

#: MathML Core's elements, and the few others latex2mathml writes (mstyle, menclose, …).
ELEMENTS = frozenset((
    "math", "mi", "mn", "mo", "ms", "mspace", "mtext", "merror", "mfrac", "mpadded", "mphantom",
    "mroot", "mrow", "msqrt", "mstyle", "msub", "msubsup", "msup", "mmultiscripts",
    "mprescripts", "mnone", "munder", "munderover", "mover", "mtable", "mtd", "mtr",
    "mlabeledtr", "menclose", "mfenced", "semantics", "annotation",
))  # fmt: skip
#: Presentation attributes: nothing that links, loads, runs or styles with CSS.
ATTRIBUTES = frozenset((
    "display", "displaystyle", "scriptlevel", "mathvariant", "mathcolor", "mathbackground",
    "mathsize", "dir", "fence", "form", "largeop", "lspace", "rspace", "maxsize", "minsize",
    "movablelimits", "separator", "separators", "stretchy", "symmetric", "accent",
    "accentunder", "linethickness", "width", "height", "depth", "voffset", "columnalign",
    "rowalign", "columnlines", "rowlines", "columnspacing", "rowspacing", "columnspan",
    "rowspan", "frame", "framespacing", "equalrows", "equalcolumns", "notation", "linebreak",
    "open", "close", "align", "numalign", "denomalign", "bevelled",
))  # fmt: skip
#: The TeX commands behind the attributes we refuse, for the message.
REFUSED_ATTRIBUTES = {
    "href": r"\href (a formula cannot hold a link: put the link outside the math)",
    "style": r"\style (write \color for colour)",
}


class MathError(ValueError):
    """TeX that cannot become MathML; the message says what to change."""


@functools.lru_cache(maxsize=4096)
def tex_to_mathml(tex: str, display: bool) -> str:
    """MathML for one formula, or MathError naming what latex2mathml could not read."""
    tree = mathml_tree(tex, display)
    compact(tree, display)
    return etree.tostring(tree, encoding="unicode")


def mathml_tree(tex: str, display: bool):
    """latex2mathml's tree of one formula, checked, with its operators made valid."""
    # Imported when a page has math to convert.
    from latex2mathml.converter import convert_to_element

    try:
        element = convert_to_element(tex, display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises a dozen unrelated classes
        reason = str(error) or _words(type(error).__name__)
        raise MathError(f"cannot convert TeX to MathML ({reason})") from error
    tree = _mathml(element)
    for token in tree.iter(f"{{{MATHML_NS}}}mi", f"{{{MATHML_NS}}}mo"):
        if token.text and UNKNOWN_COMMAND.match(token.text):
            raise MathError(f"unsupported TeX command {token.text}")
    _unwrap_operators(tree)
    return tree


def _mathml(source, parent=None):
    """An lxml copy of latex2mathml's tree: MathML elements and attributes only, text as text.

    latex2mathml's own string output un-escapes everything after writing it (so that its
    ``&#x…;`` references survive), which turns text such as ``\\text{<b>}`` into markup; here
    only those references become characters, and lxml escapes what the text holds.
    """
    tag = source.tag
    if tag not in ELEMENTS:
        raise MathError(f"cannot convert TeX to MathML (it would write a <{tag}> element)")
    name = f"{{{MATHML_NS}}}{tag}"
    if parent is None:
        element = etree.Element(name, nsmap={None: MATHML_NS})
    else:
        element = etree.SubElement(parent, name)
    for key, value in source.attrib.items():
        if key == "xmlns":
            continue
        if key not in ATTRIBUTES:
            command = REFUSED_ATTRIBUTES.get(key, f"TeX that sets the attribute {key}")
            raise MathError(f"unsupported TeX command {command}")
        element.set(key, _characters(value))
    element.text = _characters(source.text)
    element.tail = _characters(source.tail) if parent is not None else None
    for child in source:
        _mathml(child, element)
    return element


def _characters(text: str | None) -> str | None:
    if not text:
        return text
    return CHARACTER_REFERENCE.sub(
        lambda m: chr(int(m.group(1), 16) if m.group(1) else int(m.group(2))), text
    )


def _words(class_name: str) -> str:
    """``MissingSuperScriptOrSubscriptError`` -> ``missing super script or subscript``."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", class_name).lower().removesuffix(" error")


def _unwrap_operators(tree) -> None:
    # ``\mathrel{+}`` comes out as <mo><mrow><mo>+</mo></mrow></mo>, but an <mo> may only
    # hold text. Keep the inner operator, spaced as a relation; TeX puts no space between
    # two relations in a row, so ``\mathrel{+}=`` reads "+=".
    mo = f"{{{MATHML_NS}}}mo"
    for outer in list(tree.iter(mo)):
        children = list(outer)
        if not children or outer.text:
            continue
        operators = [node for child in children for node in child.iter(mo)]
        parent = outer.getparent()
        index = parent.index(outer)
        parent.remove(outer)
        for offset, child in enumerate(children):
            parent.insert(index + offset, child)
        if len(operators) == 1:
            operator = operators[0]
            operator.set("lspace", "0.2778em")
            operator.set("rspace", "0.2778em")
            following = children[-1].getnext()
            if following is not None and following.tag == mo:
                operator.set("rspace", "0")
                following.set("lspace", "0")


def compact(tree, display: bool) -> None:
    """The same formula in fewer bytes (a post's inline formulas were a tenth of its page).

    In HTML the parser puts <math> and its children in the MathML namespace by itself, and
    ``display="inline"`` is the default, so neither is written. An <mrow> of one element
    (``<msub><mi>t</mi><mrow><mn>4</mn></mrow></msub>``) means that element, and <math> is a
    row itself, so the row latex2mathml wraps every formula in is one row too many (MathML
    Core, "mrow": a row of one child is equivalent to the child).
    """
    for element in tree.iter():
        element.tag = etree.QName(element).localname
    etree.cleanup_namespaces(tree)
    if not display:
        tree.attrib.pop("display", None)
    for row in list(tree.iter("mrow")):
        if len(row) == 1 and _bare(row):
            row[0].tail = row.tail
            row.getparent().replace(row, row[0])
    if len(tree) == 1 and tree[0].tag == "mrow" and _bare(tree[0]):
        tree[:] = list(tree[0])


def _bare(row) -> bool:
    """A row with no attributes and no text of its own, whose children can stand in for it."""
    return (
        not row.attrib
        and not (row.text or "").strip()
        and not any((child.tail or "").strip() for child in row)
    )


def display_tex(node: nodes.math_block) -> str:
    """The TeX of a display block, as one formula (several paragraphs become aligned rows)."""
    text = node.astext()
    if node.get("no-wrap", node.get("nowrap", False)):
        return text
    parts = [part.strip() for part in text.split("\n\n") if part.strip()]
    joined = r" \\ ".join(parts)
    if len(parts) > 1 or r"\\" in joined:
        return r"\begin{split}" + joined + r"\end{split}"
    return joined


def _source_tex(node: nodes.Element) -> str:
    return display_tex(node) if isinstance(node, nodes.math_block) else node.astext()


# -- Checked when a page is read, so the warning has the page's location -------------------


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    if app.builder.format != "html":  # LaTeX and the other writers take TeX as it is
        return
    for node in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        try:
            tex_to_mathml(_source_tex(node), isinstance(node, nodes.math_block))
        except MathError as error:
            logger.warning(
                'math: %s in "%s"; rewrite it with commands latex2mathml supports',
                error,
                node.astext().strip(),
                location=node,
                type="kb",
                subtype="math",
            )


# -- HTML visitors ------------------------------------------------------------------------


def _formula(self, node: nodes.Element, display: bool) -> str:
    try:
        return tex_to_mathml(_source_tex(node), display)
    except MathError:
        # Already reported when the page was read: show the source rather than nothing.
        return f'<code class="kb-math-source">{self.encode(node.astext())}</code>'


def visit_inline_math(self, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math kb-math notranslate"))
    self.body.append(_formula(self, node, display=False))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_block_math(self, node: nodes.math_block) -> None:
    number = get_node_equation_number(self, node) if node["number"] else None
    if isinstance(node.parent, nodes.container) and node.parent["ids"] == node["ids"]:
        # furo wraps display math in a container that copies its ids; one id is enough.
        start = '<div class="math kb-math notranslate">'
    else:
        start = self.starttag(node, "div", CLASS="math kb-math notranslate")
    # A wide formula scrolls (kb-math.css): reachable by keyboard, named (kb.markup.scrolling).
    label = f"Equation ({number})" if number else "Equation"
    self.body.append(start.replace("<div", f"<div {focusable(label)}", 1))
    if number:
        # The anchor and number that a {eq} reference links to, as Sphinx's renderers write it.
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(_formula(self, node, display=True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def _config_inited(app: Sphinx, config) -> None:
    # Without a choice Sphinx already prefers a second registered renderer over MathJax;
    # say so explicitly, so an added math extension cannot make the choice ambiguous.
    if config.html_math_renderer is None:
        config.html_math_renderer = RENDERER


def setup_math(app: Sphinx) -> None:
    app.add_html_math_renderer(
        RENDERER,
        inline_renderers=(visit_inline_math, None),
        block_renderers=(visit_block_math, None),
    )
    app.connect("config-inited", _config_inited)
    app.connect("doctree-read", _doctree_read)
    app.add_css_file("kb-math.css")
