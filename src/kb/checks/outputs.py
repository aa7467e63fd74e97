"""A notebook's stored outputs: which forms a page may show, said the same by ``kb check`` and
the build (:mod:`kb.notebooks.outputs` drops them when the notebook is read).

A form is refused when it would run code in the reader's browser or load anything from another
host: JavaScript, a Jupyter widget (its code loads from a CDN), and HTML or SVG of which the one
sanitizer (:mod:`.sanitize`, the policy of raw HTML in posts) would drop anything. A
``<style>`` in an output (pandas writes one for every DataFrame, matplotlib for every SVG) is
dropped without a word: it is not the author's.
"""

from __future__ import annotations

from collections.abc import Callable

from .messages import say
from .model import Problem
from .sanitize import Drop, Policy, sanitize, sanitize_svg

#: Forms dropped whatever they hold, with what they are.
SCRIPT_FORMS = {
    "application/javascript": "JavaScript",
    "text/javascript": "JavaScript",
    "application/vnd.jupyter.widget-view+json": "a Jupyter widget, whose code loads from a CDN",
}
#: Forms that are HTML, kept as the sanitizer cleans them.
HTML_FORMS = ("text/html",)
SVG_FORMS = ("image/svg+xml",)


def loud(drops: list[Drop]) -> list[Drop]:
    """The drops worth a warning: a ``<style>`` that loads nothing is an output's own."""
    return [drop for drop in drops if not (drop.kind == "element" and drop.shown == "<style>")]


def reason(drops: list[Drop], what: str = "HTML") -> str:
    """Why a form is dropped, from what the sanitizer would drop of it ("" when nothing)."""
    if not drops:
        return ""
    kinds = {drop.kind for drop in drops}
    if "host" in kinds or any(drop.hosts for drop in drops if drop.kind == "script"):
        return f"{what} that loads from another host"
    if "script" in kinds:
        return f"{what} with a script"
    first = drops[0]
    if first.kind == "scheme":
        return f"{what} with a {first.how} URL"
    if first.attribute:
        return f"{what} with {first.shown}, whose {first.attribute} pages may not hold"
    return f"{what} with {first.shown}, which pages may not hold"


def unsafe(mime_type: str, content: str = "", policy: Policy | None = None) -> str:
    """Why a form of an output may not be on a page; "" when it may."""
    if mime_type in SCRIPT_FORMS:
        return SCRIPT_FORMS[mime_type]
    policy = policy or Policy(context="output")
    if mime_type in HTML_FORMS:
        return reason(loud(sanitize(content, policy).drops))
    if mime_type in SVG_FORMS:
        return reason(loud(sanitize_svg(content, policy).drops), "an SVG")
    return ""


def dropped_message(index: int | None, mime_type: str, why: str, others: bool) -> str:
    number = f"cell {index + 1}" if index is not None else "a cell"
    return say(
        "nb_output_dropped",
        cell=number,
        mime_type=mime_type,
        reason=why,
        others="; its other forms are shown" if others else "",
    )


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else value if isinstance(value, str) else ""


def output_problems(cells: list, cell_line: Callable[[int], int], policy: Policy) -> list[Problem]:
    """The forms of a notebook's stored outputs that the build drops, each at its cell's line
    (``cells``: the notebook's JSON cells)."""
    problems = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs") or []:
            data = output.get("data") if isinstance(output, dict) else None
            if not isinstance(data, dict):
                continue
            refused = {m: unsafe(m, _text(v), policy) for m, v in data.items()}
            refused = {m: why for m, why in refused.items() if why}
            others = len(refused) < len(data)
            for mime_type, why in refused.items():
                message = dropped_message(index, mime_type, why, others)
                problems.append(Problem(cell_line(index), message, "outputs"))
    return problems
