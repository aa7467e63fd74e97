"""Every form in which stock ablog reads a post (kb.checks.postforms): rst field lists, the
``post`` directive in rst and in MyST (options as lines or as a YAML block), beside our YAML
front matter. Each is a post with all its metadata in listings and feeds, and each takes the
same checks at its own lines, in the same words from ``kb check`` and the build."""

from __future__ import annotations

from pathlib import Path

import feedparser
import pytest
from authoring import build, build_output, run_check
from helpers import soup
from sitebuild import copy_root

from kb.checks.messages import say


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return copy_root("ablogforms", tmp_path_factory.mktemp("ablogforms") / "site")


@pytest.fixture(scope="module")
def built(site: Path) -> tuple[Path, list]:
    return build_output(site)


def test_each_form_is_a_post_with_its_metadata(built) -> None:
    outdir, warnings = built
    assert warnings == []
    feed = feedparser.parse((outdir / "feeds/atom.xml").read_bytes())
    entries = [
        (e.title, e.published[:10], sorted(t.term for t in e.tags), e.author) for e in feed.entries
    ]
    assert entries == [
        ("Front Matter", "2021-08-26", ["Article"], "Nabil Kakeh"),
        ("Options as YAML", "2021-08-25", ["Article", "myst", "yaml"], "Nabil Kakeh"),
        ("A MyST Post by Directive", "2021-08-24", ["Article", "myst"], "Ahmet Bakan"),
        ("Posting with the Directive", "2021-08-23", ["Manual", "ablog", "directive"],
         "Ahmet Bakan"),
        ("Posting with Fields", "2020-10-10", ["Manual", "ablog", "rst"], "Nabil Kakeh"),
    ]  # fmt: skip
    summaries = {e.title: e.summary for e in feed.entries}
    assert "which ablog takes as the excerpt" in summaries["Posting with the Directive"]
    assert "not the excerpt" not in summaries["Posting with the Directive"]
    manual = soup(outdir / "blog/category/manual.html").select("h2.kb-entry-title a")
    assert [a.get_text() for a in manual] == ["Posting with the Directive", "Posting with Fields"]


def test_kb_check_reads_every_form(site: Path) -> None:
    assert run_check(site) == (0, [], "kb check: 5 post(s), no errors\n")


#: One mistake in each form, and the line it is at.
MISTAKES = {
    "posts/fields.rst": (":category: Manual", ":category: Manul", 4),
    "posts/directive.rst": (":author: ahmet", ":author: ahmed", 9),
    "posts/myst-directive.md": ("{post} 2021-08-24", "{post} next week", 3),
    "posts/myst-yaml-options.md": ("category: Article", "category: Artcle", 5),
}


def test_a_mistake_in_any_form_is_one_message_from_kb_check_and_the_build(tmp_path) -> None:
    site = copy_root("ablogforms", tmp_path / "site")
    for relpath, (right, wrong, _) in MISTAKES.items():
        path = site / relpath
        path.write_text(path.read_text(encoding="utf-8").replace(right, wrong), encoding="utf-8")
    status, checked, _ = run_check(site)
    _, warnings = build(site)
    built = [(path, line, message) for path, line, message, kind in warnings]
    assert status == 1
    assert sorted(checked) == sorted(built)
    assert sorted((path, line) for path, line, _ in checked) == sorted(
        (relpath, line) for relpath, (_, _, line) in MISTAKES.items()
    )
    assert {kind for *_, kind in warnings} == {"kb.frontmatter"}


def test_an_rst_post_without_fields_says_how_to_write_them(tmp_path) -> None:
    site = copy_root("ablogforms", tmp_path / "site")
    (site / "posts/fields.rst").write_text("Posting\n=======\n\nText.\n", encoding="utf-8")
    status, checked, _ = run_check(site)
    assert status == 1
    assert checked == [
        ("posts/fields.rst", 1, "no post fields: an rst post starts with a field list, "
         "`:blogpost: true`, `:date: YYYY-MM-DD` and the other keys, one per line, before its "
         "title (or a `.. post:: YYYY-MM-DD` directive with them as options)"),
    ]  # fmt: skip


LABELS = """---
orphan: true
---

# Links

- {ref}`blog-posts`, {ref}`blog-archives`, {ref}`blog-tags`, {ref}`blog-categories`
- {ref}`blog-authors`, {ref}`tag-ablog`, {ref}`author-nabil`, {ref}`category-manual`
- {ref}`blog-feed`
- {ref}`blog-drafts`
- {ref}`The places <blog-locations>`
"""


def test_ablogs_labels_lead_to_pages_that_exist_or_warn(tmp_path) -> None:
    site = copy_root("ablogforms", tmp_path / "site")
    (site / "links.md").write_text(LABELS, encoding="utf-8")
    app, warnings = build(site)
    outdir = Path(app.outdir)
    page = soup(outdir / "links.html")
    links = {a.get_text(): a["href"] for a in page.select("article a.reference")}
    assert {text: (outdir / href).is_file() for text, href in links.items()} == {
        "Posts": True,
        "Archives": True,
        "Tags": True,
        "Categories": True,
        "Authors": True,
        "ablog": True,
        "Nabil Kakeh": True,
        "Manual": True,
        "Ablog Forms Feed": True,
    }
    assert links["Ablog Forms Feed"] == "feeds/atom.xml"
    assert [(path, line, message.split(":")[1].strip()) for path, line, message, _ in warnings] == [
        ("links.md", 10, "'blog-drafts' is a page of ablog's that this site does not have"),
        ("links.md", 11, "'blog-locations' is a page of ablog's that this site does not have"),
    ]
    assert "The places" in page.get_text() and "Drafts" in page.get_text()


def test_two_files_of_one_page_refuse_the_second_at_its_line(tmp_path) -> None:
    """posts/fields.md beside posts/fields.rst: Sphinx reads only the first name in sorted
    order and warned without a line; kb check and the build refuse the other at its line 1."""
    site = copy_root("ablogforms", tmp_path / "site")
    (site / "posts/fields.md").write_text(
        "---\nblogpost: true\ndate: 2021-08-27\ncategory: Article\nauthor: nabil\n---\n\n"
        "# The Same Page\n\nIn Markdown.\n",
        encoding="utf-8",
    )
    message = say("same_page", other="posts/fields.md")
    status, checked, _ = run_check(site)
    assert (status, checked) == (1, [("posts/fields.rst", 1, message)])
    app, warnings = build(site)
    assert [w[:3] for w in warnings] == [("posts/fields.rst", 1, message)]
    feed = feedparser.parse((Path(app.outdir) / "feeds/atom.xml").read_bytes())
    assert "The Same Page" in [e.title for e in feed.entries]
    assert "Posting with Fields" not in [e.title for e in feed.entries]
