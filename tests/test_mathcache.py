"""The store of converted formulas (kb.markup.mathcache, a section of kb's state file): an
edit converts only formulas no earlier build converted, so Node.js does not start for it; a
store that is damaged, cut short or made by another converter is ignored, never trusted."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from helpers import soup
from sphinx.testing.util import SphinxTestApp

from kb.core import journal
from kb.markup import mathcache, temml

ROOT = Path(__file__).parent / "roots" / "test-math"
FAKE = "<math><mi>fake</mi></math>"


def build(site: Path) -> tuple[SphinxTestApp, str]:
    app = SphinxTestApp("html", srcdir=site, warning=io.StringIO())
    try:
        app.build()
    finally:
        app.cleanup()
    return app, app.warning.getvalue()


def formulas(outdir: Path) -> list[str]:
    page = soup(outdir / "index.html")
    return [str(math) for math in page.select("span.kb-math > math, div.kb-math > math")]


def edit(site: Path, words: str) -> None:
    index = site / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + f"\n{words}\n", encoding="utf-8")


@pytest.mark.slow
def test_an_edit_converts_no_formula_an_earlier_build_converted(tmp_path, monkeypatch) -> None:
    site = tmp_path / "site"
    shutil.copytree(ROOT, site)
    app, warnings = build(site)
    assert warnings == ""
    outdir, store = Path(app.outdir), Path(app.doctreedir) / journal.STATE_FILE
    first = formulas(outdir)
    stored = json.loads(store.read_text(encoding="utf-8"))[mathcache.SECTION]
    assert stored["signature"] == mathcache.signature()
    assert len(stored["entries"]) == len(first) and len(first) == 8

    temml._PROCESS.close()
    monkeypatch.setattr(temml.shutil, "which", lambda name: None)  # no Node.js from here on
    edit(site, "One more sentence, no new formula.")
    app, warnings = build(site)
    assert warnings == "" and formulas(outdir) == first

    store.write_text(store.read_text(encoding="utf-8")[:200], encoding="utf-8")  # cut short
    edit(site, "And another.")
    app, warnings = build(site)
    assert "WARNING: math: cannot convert TeX to MathML: Node.js is not installed" in warnings
    monkeypatch.undo()
    temml._PROCESS.close()

    edit(site, "Node.js is back.")
    app, warnings = build(site)
    assert warnings == "" and formulas(outdir) == first
    kept = json.loads(store.read_text(encoding="utf-8"))[mathcache.SECTION]
    assert len(kept["entries"]) == len(first)
    assert not (store.parent / "kb-math.json").exists()  # what older versions wrote


@pytest.mark.parametrize(
    "stored",
    [
        {"signature": "made by another Temml", "entries": [["0E = mc^2", "mathml", FAKE]]},
        {"signature": "", "entries": []},
        ["not", "a", "store"],
        None,
    ],
)
def test_a_store_of_another_converter_or_shape_is_ignored(stored) -> None:
    assert mathcache.MathStore(stored).entries == {}


def test_entries_of_the_wrong_shape_are_dropped() -> None:
    entries = [
        ["0a", "mathml", "<math/>"],
        ["0b", "script", "x"],
        ["0c", "<math/>"],
        [1, "mathml", "<math/>"],
        "0d",
    ]
    stored = {"signature": mathcache.signature(), "entries": entries}
    assert mathcache.MathStore(stored).entries == {"0a": ["mathml", "<math/>"]}


def test_the_section_keeps_the_newest_entries_in_order() -> None:
    store = mathcache.MathStore()
    for tex in ("b", "a", "c"):
        store.put(tex, False, "mathml", f"<math>{tex}</math>")
    again = mathcache.MathStore(json.loads(json.dumps(store.section(), sort_keys=True)))
    assert list(again.entries) == ["0b", "0a", "0c"]
