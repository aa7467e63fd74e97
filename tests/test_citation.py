"""Citable posts: the "Cite this post" block, citation meta tags, references from BibTeX."""

from __future__ import annotations

import pytest
from helpers import soup
from pybtex.database import parse_string
from sitebuild import build, copy_root

SITE = "https://cite.example.org/research/"


@pytest.fixture
def built(make_app, tmp_path):
    app = build(make_app, copy_root("citation", tmp_path / "site"))
    # Two posts cite the same paper: with footcite each lists it, with no duplicate warning.
    assert app.warning.getvalue() == ""
    return app


def cite_block(outdir, docname):
    return soup(outdir / f"{docname}.html").select_one("section.kb-cite")


def bibtex(outdir, docname):
    """The post's BibTeX, parsed: (key, entry)."""
    text = cite_block(outdir, docname).select_one("div.highlight pre").get_text()
    entries = parse_string(text, "bibtex").entries
    assert len(entries) == 1
    return next(iter(entries.items()))


def citation_tags(outdir, docname) -> list[tuple[str, str]]:
    page = soup(outdir / f"{docname}.html")
    return [(m["name"], m["content"]) for m in page.head.select('meta[name^="citation_"]')]


def test_cite_block_ends_the_post_and_can_be_copied(built):
    page = soup(built.outdir / "posts/two-authors.html")
    article = page.select_one("article[role=main]")
    block = article.select_one("section.kb-cite")
    assert block.select_one("h2").get_text() == "Cite this post"
    # After the post's own section, its footnotes (references included) and its related
    # posts, and last.
    # Each in kb's wrapper, which keeps them out of the search index.
    wrapper = block.parent
    assert wrapper["class"] == ["kb-post-part"] and wrapper["data-pagefind-ignore"] == "all"
    assert wrapper.find_next_sibling() is None
    backlinks = wrapper.find_previous_sibling()  # none here: only kb's markers
    assert backlinks["class"] == ["kb-post-part"] and not backlinks.find_all(True)
    related = backlinks.find_previous_sibling()
    assert related.select_one("section.kb-related")
    notes = related.find_previous_sibling()
    assert notes.name == "aside" and notes.select_one("#footcite-osama2023streamk")
    post = notes.find_previous_sibling("section")
    assert post.select_one("h1").get_text().startswith("Tiles & pipes")
    # The markup sphinx-copybutton attaches its button to, holding the entry as plain text
    # (no Pygments spans): what a reader copies is exactly what the page shows.
    pre = block.select_one("div.highlight-bibtex div.highlight pre")
    assert pre.find_all(True) == []
    assert pre.get_text() == (
        "@misc{godel2024tiles,\n"
        "  author = {Kurt Gödel and Ada Lovelace},\n"
        "  title = {{Tiles \\& pipes: 50\\% faster\\_GEMM with \\{braces\\}}},\n"
        "  year = {2024},\n"
        "  month = jul,\n"
        "  howpublished = {Citation Test Site},\n"
        f"  url = {{{SITE}posts/two-authors.html}},\n"
        "  note = {Blog post}\n"
        "}\n"
    )
    assert block.select_one(".kb-cite-reference").get_text() == (
        "Kurt Gödel and Ada Lovelace. “Tiles & pipes: 50% faster_GEMM with {braces}”. "
        f"Citation Test Site, 9 July 2024. {SITE}posts/two-authors.html"
    )


def test_bibtex_entry_of_a_post_with_two_authors(built):
    key, entry = bibtex(built.outdir, "posts/two-authors")
    assert key == "godel2024tiles"
    assert entry.type == "misc"
    assert [str(p) for p in entry.persons["author"]] == ["Gödel, Kurt", "Lovelace, Ada"]
    assert entry.fields["title"] == r"{Tiles \& pipes: 50\% faster\_GEMM with \{braces\}}"
    assert entry.fields["year"] == "2024"
    assert entry.fields["month"] == "July"  # the jul macro, expanded by the parser
    assert entry.fields["howpublished"] == "Citation Test Site"
    assert entry.fields["url"] == f"{SITE}posts/two-authors.html"
    assert entry.fields["note"] == "Blog post"


def test_bibtex_of_a_post_without_author_names_the_group(built):
    key, entry = bibtex(built.outdir, "posts/no-author")
    assert key == "post2024groups"
    # Braced: one corporate author, not a person called "Group, The Test".
    assert [str(p) for p in entry.persons["author"]] == ["{The Test Group}"]
    assert citation_tags(built.outdir, "posts/no-author")[1] == (
        "citation_author",
        "The Test Group",
    )


def test_external_post_is_cited_at_its_own_address(built):
    _, entry = bibtex(built.outdir, "posts/external")
    assert entry.fields["url"] == "https://elsewhere.example.com/article"
    assert "howpublished" not in entry.fields


def test_citation_meta_tags(built):
    assert citation_tags(built.outdir, "posts/two-authors") == [
        ("citation_title", "Tiles & pipes: 50% faster_GEMM with {braces}"),
        ("citation_author", "Kurt Gödel"),
        ("citation_author", "Ada Lovelace"),
        ("citation_publication_date", "2024/07/09"),
        ("citation_public_url", f"{SITE}posts/two-authors.html"),
    ]


def test_pages_that_are_not_posts_are_not_citable(built):
    assert cite_block(built.outdir, "index") is None
    assert citation_tags(built.outdir, "index") == []
    assert cite_block(built.outdir, "blog") is None


def test_posts_cite_references_from_the_bibtex_file(built):
    for docname in ("posts/two-authors", "posts/also-cites"):
        page = soup(built.outdir / f"{docname}.html")
        note = page.select_one("aside.footnote#footcite-osama2023streamk")
        assert "Stream-K: work-centric parallel decomposition" in note.get_text()
        assert note.select_one("a.reference.external")["href"] == "https://arxiv.org/abs/2301.03598"
        marker = page.select_one("a.footnote-reference")
        assert marker["href"] == "#footcite-osama2023streamk"
