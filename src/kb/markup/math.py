"""Math rendered at build time as MathML: no script in the page, no request to a CDN.

Sphinx's default renderer, MathJax, loads from cdn.jsdelivr.net, so a reader behind a
firewall (or the offline browser tests) sees raw TeX. Here MyST's ``$...$``, ``$$...$$``
(labelled or not) and amsmath blocks become MathML through Temml (:mod:`kb.markup.temml`,
on Node.js) when the HTML is written; browsers draw MathML natively, in the STIX Two Math
font that kb ships (``kb-math.css``, loaded only by pages that show math). TeX that Temml
cannot convert, an unknown command or environment included, is reported with its location
when the page is read, and the page shows the TeX source instead: never a silently wrong
formula.

Nothing but MathML comes out of a formula. Temml's output is parsed and copied element by
element: only MathML elements and presentation attributes (:data:`ELEMENTS`,
:data:`ATTRIBUTES`), only the class names our stylesheet styles (:data:`CLASSES`) and only
style declarations of a length or a keyword (:data:`STYLE_PROPERTIES`: no ``url()``, no
function at all). Temml's trust stays off, so ``\\href``, ``\\url`` and ``\\style``, which
could link or load elsewhere, are reported like any unsupported command.
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
from ..core.state import build_state
from ..upstream.sphinx import html_assets_policy
from . import temml
from .mathcache import SECTION as STORE_SECTION
from .mathcache import MathStore

logger = logging.getLogger(__name__)

RENDERER = "mathml"
MATHML_NS = "http://www.w3.org/1998/Math/MathML"

#: MathML Core's elements, and the few others a converter writes (mstyle, menclose, …).
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
#: Temml's class names that kb-math.css styles (taken from Temml's own stylesheet); any
#: other class would style nothing, so it is left out.
CLASSES = frozenset((
    "tml-right", "tml-left", "tml-jot", "tml-small", "mathscr", "tml-prime", "tml-sml-pad",
    "tml-med-pad", "tml-lrg-pad", "chr-sml", "chr-med", "chr-lrg", "chr-sml-vec",
    "chr-med-vec", "chr-lrg-vec", "tml-overline", "tml-underline", "tml-fbox",
    "tml-shift-left", "menclose", "tml-cancel", "upstrike", "downstrike", "sout",
    "tml-tilde-2", "tml-tilde-3", "tml-tilde-4", "tml-hat-1", "tml-hat-2",
    "tml-hat-3", "tml-hat-4",
))  # fmt: skip
#: Style declarations Temml writes for spacing; each value a length or a keyword.
STYLE_PROPERTIES = frozenset((
    "padding-left", "padding-right", "padding-top", "padding-bottom", "margin-left",
    "margin-right", "math-depth", "math-style", "width", "height", "min-width",
))  # fmt: skip
STYLE_VALUE = re.compile(r"^(?:-?(?:\d+\.?\d*|\.\d+)(?:em|ex|pt|px|mu|%)?|auto|compact|normal)$")
#: The TeX commands a formula may not hold, for the message.
REFUSED_COMMANDS = {
    "\\href": r"\href (a formula cannot hold a link: put the link outside the math)",
    "\\url": r"\url (a formula cannot hold a link: put the link outside the math)",
    "\\style": r"\style (write \color for colour)",
    "\\class": r"\class (a formula cannot set classes)",
    "\\htmlClass": r"\htmlClass (a formula cannot set classes)",
    "\\htmlStyle": r"\htmlStyle (write \color for colour)",
    "\\htmlId": r"\htmlId (a formula cannot set ids)",
    "\\data": r"\data (a formula cannot hold data attributes)",
    "\\includegraphics": r"\includegraphics (a formula cannot load an image)",
}
UNSUPPORTED = re.compile(
    r'^(?:Unsupported function name: (\\[A-Za-z]+)|Function "(\\[A-Za-z]+)" is not trusted'
    r"|Undefined control sequence: (\\[A-Za-z]+))"
)


class MathError(ValueError):
    """TeX that cannot become MathML; the message says what to change."""


class MathUnavailable(MathError):
    """No converter to ask (Node.js missing, Temml stopped): says nothing of the formula."""


#: This build's store of earlier builds' conversions (kb.markup.mathcache); None outside one.
_STORE: MathStore | None = None


@functools.lru_cache(maxsize=4096)
def tex_to_mathml(tex: str, display: bool) -> str:
    """MathML for one formula, or MathError naming what Temml could not read."""
    stored = _STORE.get(tex, display) if _STORE is not None else None
    if stored is not None:
        kind, text = stored
        if kind == "error":
            raise MathError(text)
        return text
    try:
        tree = mathml_tree(tex, display)
    except MathUnavailable:
        raise
    except MathError as error:
        if _STORE is not None:
            _STORE.put(tex, display, "error", str(error))
        raise
    compact(tree, display)
    mathml = etree.tostring(tree, encoding="unicode")
    if _STORE is not None:
        _STORE.put(tex, display, "mathml", mathml)
    return mathml


def mathml_tree(tex: str, display: bool):
    """Temml's tree of one formula, checked, in the MathML namespace."""
    try:
        answer = temml.render(tex, display)
    except temml.TemmlUnavailable as error:
        raise MathUnavailable(f"cannot convert TeX to MathML: {error}") from error
    if "error" in answer:
        raise MathError(_reason(answer["error"]))
    try:
        source = etree.fromstring(answer["mathml"])
    except etree.XMLSyntaxError as error:  # never seen; say so rather than guess
        raise MathError(f"cannot convert TeX to MathML (Temml wrote {error})") from error
    tree = _mathml(source)
    # The block display and its class are what kb-math.css gives every display formula.
    tree.attrib.pop("class", None)
    tree.attrib.pop("style", None)
    _unwrap_operators(tree)
    return tree


def _reason(message: str) -> str:
    """Temml's message, as ours: ``No such environment: foo at position 7: …`` loses its tail."""
    message = message.strip().split(" at position ")[0].split(" at end of input")[0]
    match = UNSUPPORTED.match(message)
    if match:
        command = next(group for group in match.groups() if group)
        return f"unsupported TeX command {REFUSED_COMMANDS.get(command, command)}"
    return f"cannot convert TeX to MathML ({message[:1].lower()}{message[1:]})"


def _mathml(source, parent=None):
    """An lxml copy of Temml's tree: MathML elements and allowed attributes only.

    Text is copied as text (lxml escapes it), so ``\\text{<b>}`` stays the characters ``<b>``.
    """
    tag = etree.QName(source).localname if isinstance(source.tag, str) else None
    if tag not in ELEMENTS:
        raise MathError(f"cannot convert TeX to MathML (it would write a <{tag}> element)")
    name = f"{{{MATHML_NS}}}{tag}"
    if parent is None:
        element = etree.Element(name, nsmap={None: MATHML_NS})
    else:
        element = etree.SubElement(parent, name)
    for key, value in source.attrib.items():
        if key == "class":
            kept = [name for name in value.split() if name in CLASSES]
            if kept:
                element.set("class", " ".join(kept))
        elif key == "style":
            style = _style(value)
            if style:
                element.set("style", style)
        elif key in ATTRIBUTES:
            element.set(key, value)
        else:
            raise MathError(f"unsupported TeX command (TeX that sets the attribute {key})")
    element.text = source.text
    element.tail = source.tail if parent is not None else None
    for child in source:
        _mathml(child, element)
    return element


def _style(value: str) -> str:
    """Only the declarations of :data:`STYLE_PROPERTIES` whose value is a length or keyword."""
    kept = []
    for declaration in value.split(";"):
        prop, _sep, val = declaration.partition(":")
        prop, val = prop.strip().lower(), val.strip()
        if prop in STYLE_PROPERTIES and STYLE_VALUE.match(val):
            kept.append(f"{prop}:{val}")
    return ";".join(kept)


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
    if len(parts) > 1 or r"\\" in _outside_environments(joined):
        return r"\begin{split}" + joined + r"\end{split}"
    return joined


ENVIRONMENT = re.compile(r"\\begin\{([^{}]*)\}(?:(?!\\begin\{).)*?\\end\{\1\}", re.DOTALL)


def _outside_environments(tex: str) -> str:
    """The TeX with every ``\\begin{…}…\\end{…}`` taken out, innermost first: a ``\\\\``
    left is a line break of the formula itself, one inside ``aligned`` or ``cases`` is theirs."""
    while True:
        shorter = ENVIRONMENT.sub("", tex)
        if shorter == tex:
            return tex
        tex = shorter


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
                'math: %s in "%s"; rewrite it with commands Temml supports (temml.org)',
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


def _open_store(app: Sphinx) -> None:
    global _STORE
    tex_to_mathml.cache_clear()  # a process may build twice (tests, kb serve's worker)
    state = build_state(app)
    if app.builder.format != "html" or state.journal is None:
        _STORE = None
        return
    # kb_incremental = False: every formula converted anew, then kept again
    kept = state.journal.kept(STORE_SECTION) if state.config.incremental else None
    _STORE = store = MathStore(kept)
    state.kept_sections[STORE_SECTION] = store.section


def _close_store(app: Sphinx, exception) -> None:
    global _STORE
    _STORE = None  # the state file asked for its section (kb.incremental.freshness)


def setup_math(app: Sphinx) -> None:
    app.add_html_math_renderer(
        RENDERER,
        inline_renderers=(visit_inline_math, None),
        block_renderers=(visit_block_math, None),
    )
    app.connect("config-inited", _config_inited)
    app.connect("builder-inited", _open_store)
    app.connect("build-finished", _close_store)
    app.connect("doctree-read", _doctree_read)
    app.connect("html-page-context", _html_page_context)


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    # Only a page that shows math loads the stylesheet, and with it the math font (Sphinx
    # adds a file added here to this page alone, as sphinx.ext.mathjax does).
    if context.get("has_maths_elements") or html_assets_policy(app) == "always":
        app.add_css_file("kb-math.css")
