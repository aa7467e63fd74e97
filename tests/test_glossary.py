"""The glossary (tests/roots/test-pages): each entry lists the published posts that link any of
its terms, newest first, made by the build; a post's {term} leads to its entry; the list follows
an incremental build as a clean one; and the pure functions kb check and the site tests share
(:mod:`kb.checks.glossary`) read terms, roles and prose as Sphinx and MyST do."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import resolve_link, soup
from test_incremental import assert_matches_clean, build, clean_build, retitle

from kb.checks.glossary import (
    glossary_entries,
    term_references,
    unknown_terms,
    unlinked_uses,
)
from kb.checks.messages import say


def uses(outdir: Path) -> dict[str, list[str]]:
    """Each entry's first term and the posts its "Used in" line names, in order."""
    page = soup(outdir / "pages" / "glossary.html")
    found = {}
    for dt in page.select("dl.glossary > dt:first-of-type, dl.glossary > dd + dt"):
        dd = dt.find_next_sibling("dd")
        found[dt.get_text().rstrip("¶")] = [
            resolve_link("pages/glossary", a["href"]).removesuffix(".html")
            for a in dd.select(".kb-term-uses a")
        ]
    return found


def fresh_site(tmp_path: Path, rootdir: Path) -> Path:
    srcdir = tmp_path / "site"
    shutil.copytree(rootdir / "test-pages", srcdir)
    (srcdir / "stray.md").unlink()  # the ignored files are test_pages.py's
    shutil.rmtree(srcdir / "notes")
    return srcdir


@pytest.fixture(scope="module")
def built(tmp_path_factory, rootdir: Path) -> Path:
    srcdir = fresh_site(tmp_path_factory.mktemp("glossary"), rootdir)
    return build(srcdir, srcdir / "_build")


def test_each_entry_lists_the_posts_that_link_it_newest_first(built: Path) -> None:
    # gamma links widget and gadget, alpha widget, beta "gadgets <gadget>"; gizmo shares
    # gadget's entry, so its one list.
    assert uses(built) == {
        "widget": ["posts/gamma", "posts/alpha"],
        "gadget": ["posts/gamma", "posts/beta"],
    }


def test_a_term_link_leads_to_its_entry(built: Path) -> None:
    page = soup(built / "posts" / "beta.html")
    link = page.select_one('a[href*="glossary.html#term-"]')
    assert link.get_text() == "gadgets"
    target = resolve_link("posts/beta", link["href"].split("#")[0])
    anchor = link["href"].split("#")[1]
    assert soup(built / target).select_one(f"dt#{anchor}").get_text().rstrip("¶") == "gadget"


@pytest.mark.slow
def test_the_lists_follow_an_incremental_build(tmp_path: Path, rootdir: Path) -> None:
    srcdir = fresh_site(tmp_path, rootdir)
    outdir = build(srcdir, srcdir / "_build")
    beta = srcdir / "posts" / "beta.md"
    beta.write_text(
        beta.read_text(encoding="utf-8").replace("links back", "a {term}`gizmo`, and links back"),
        encoding="utf-8",
    )
    rendered: list[str] = []
    assert_matches_clean(
        build(srcdir, srcdir / "_build", rendered), clean_build(srcdir, tmp_path / "c")
    )
    assert uses(outdir)["widget"] == ["posts/gamma", "posts/alpha"]
    assert "pages/glossary" in rendered  # its lists are made when it is written
    beta.write_text(
        beta.read_text(encoding="utf-8").replace("{term}`gadgets <gadget>`", "gadgets"),
        encoding="utf-8",
    )
    assert_matches_clean(build(srcdir, srcdir / "_build"), clean_build(srcdir, tmp_path / "c2"))
    assert uses(outdir)["gadget"] == ["posts/gamma", "posts/beta"]  # gizmo is still linked
    (srcdir / "posts" / "gamma.md").unlink()
    (srcdir / "pages" / "about.md").write_text("# About this site\n\nNo links.\n", "utf-8")
    alpha = srcdir / "posts" / "alpha.md"
    alpha.write_text(alpha.read_text("utf-8").replace("[Beta](/posts/beta.md)", "Beta"), "utf-8")
    assert_matches_clean(build(srcdir, srcdir / "_build"), clean_build(srcdir, tmp_path / "c3"))
    assert uses(outdir) == {"widget": ["posts/alpha"], "gadget": ["posts/beta"]}


def test_the_list_of_a_term_written_in_capitals_follows_a_retitled_post(
    tmp_path: Path, rootdir: Path
) -> None:
    """Sphinx keeps a glossary term as the glossary writes it ("TMA"), and the posts' {term}
    links are matched casefolded: the page's signature left out the posts of a term written
    in capitals, so a list that a retitled (or renamed) post changed was not written again."""
    srcdir = fresh_site(tmp_path, rootdir)
    glossary = srcdir / "pages" / "glossary.md"
    glossary.write_text(glossary.read_text("utf-8").replace("\nwidget\n", "\nWidget\n"), "utf-8")
    outdir = build(srcdir, srcdir / "_build")
    assert uses(outdir)["Widget"] == ["posts/gamma", "posts/alpha"]
    retitle(srcdir / "posts" / "alpha.md", "Alpha, retitled")
    assert_matches_clean(build(srcdir, srcdir / "_build"), clean_build(srcdir, tmp_path / "c"))
    page = soup(outdir / "pages" / "glossary.html")
    assert "Alpha, retitled" in [a.get_text() for a in page.select(".kb-term-uses a")]


GLOSSARY = """\
---
description: Words.
---

# Glossary

```{glossary}
:sorted:

CLC
Cluster Launch Control
  Asks for the next cluster; not a {term}`TMA`.

TMA
  Copies tiles.
```

```python
not_a_term = 1
```
"""


def test_entries_are_the_unindented_lines_of_a_glossary() -> None:
    entries = glossary_entries(GLOSSARY)
    assert [(e.terms, e.line) for e in entries] == [
        (("CLC", "Cluster Launch Control"), 10),
        (("TMA",), 14),
    ]
    assert entries[0].keys == {"clc", "cluster launch control"}


def test_term_roles_as_sphinx_reads_them() -> None:
    text = "# T\n\nA {term}`TMAs <TMA>`, a {term}`clc`\nand {term}`code`.\n\n```\n{term}`x`\n```\n"
    assert term_references(text) == [("TMA", 3), ("clc", 3), ("code", 4)]
    problems = unknown_terms(text, {"tma"})
    assert [(p.line, p.message) for p in problems] == [
        (3, say("unknown_term", term="clc", hint="")),
        (4, say("unknown_term", term="code", hint="")),
    ]
    assert "did you mean 'tma'" in unknown_terms("{term}`TNA`", {"tma"})[0].message


def test_prose_uses_are_words_outside_code_math_links_and_headings() -> None:
    entries = glossary_entries(GLOSSARY)
    text = (
        "---\ndescription: about TMA\n---\n\n# TMA in a heading\n\n"
        "`TMA` in code, $TMA$ in math, [TMA](https://x.org) in a link, tmas-x no word.\n\n"
        "$$\nTMA\n$$ (eq)\n\n"
        "Cluster Launch Control is a use, and so are two TMAs.\n"
    )
    found = [(entry.terms[0], line) for entry, line in unlinked_uses(text, entries)]
    assert found == [("CLC", 13), ("TMA", 13)]
    linked = text.replace("two TMAs", "two {term}`TMAs <TMA>`")
    assert [(e.terms[0], line) for e, line in unlinked_uses(linked, entries)] == [("CLC", 13)]
    # The longest term wins: "Tensor Memory Accelerator" is no use of "Tensor Memory".
    two = glossary_entries(
        "# G\n\n```{glossary}\nTensor Memory\n  a.\n\nTensor Memory Accelerator\n  b.\n```\n"
    )
    assert [
        e.terms[0] for e, _ in unlinked_uses("# P\n\nThe Tensor Memory Accelerator.\n", two)
    ] == ["Tensor Memory Accelerator"]
