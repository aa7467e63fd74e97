"""ablog's section posts: a ``post`` directive in a section of a file that is already a post
posts that section on its own. Each is listed, archived and in the feeds with its own date,
labels and excerpt, leading to its section of the file's page; it has no page of its own (no
sitemap entry, related posts or series). ``kb check`` and the build check each directive's
fields at their lines, in the same words, and refuse a second directive in the same section."""

from __future__ import annotations

from pathlib import Path

import feedparser
import pytest
from authoring import build, build_output, run_check
from helpers import filled_sidebar, soup
from sitebuild import copy_root

from kb.checks.messages import say
from kb.checks.postforms import nested_post_directive_lines


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return copy_root("sectionposts", tmp_path_factory.mktemp("sectionposts") / "site")


@pytest.fixture(scope="module")
def built(site: Path) -> tuple[Path, list]:
    return build_output(site)


def test_each_section_post_is_in_the_feeds_with_its_own_metadata(built) -> None:
    outdir, warnings = built
    assert warnings == []
    feed = feedparser.parse((outdir / "feeds/atom.xml").read_bytes())
    base = "https://sections.example.org/posts/"
    entries = [
        (e.title, e.link, e.published[:10], sorted(t.term for t in e.tags), e.author)
        for e in feed.entries
    ]
    assert entries == [
        ("Monday: Tiles", base + "myst-sections.html#monday-tiles", "2021-10-04",
         ["Article", "tiles"], "Nabil Kakeh"),
        ("A Week of Kernels", base + "myst-sections.html", "2021-10-01", ["Article"],
         "Nabil Kakeh"),
        ("Version 0.2", base + "release-notes.html#version-0-2", "2021-09-20",
         ["Article", "release", "wombat"], "Nabil Kakeh"),
        ("Version 0.1", base + "release-notes.html#version-0-1", "2021-09-05", ["Manual"],
         "Ahmet Bakan"),
        ("Release Notes", base + "release-notes.html", "2021-09-01", ["Manual", "release"],
         "Ahmet Bakan"),
        ("A Plain Post", base + "plain.html", "2021-08-01", ["Article", "release"],
         "Ahmet Bakan"),
    ]  # fmt: skip
    assert len({e.id for e in feed.entries}) == len(feed.entries)
    summaries = {e.title: e.summary for e in feed.entries}
    # Each post's excerpt is its own directive's content, or its section's first paragraph.
    assert "wombat exporter" in summaries["Version 0.2"]
    assert "wombat" not in summaries["Release Notes"]
    assert "The notes of every release" in summaries["Release Notes"]
    assert "the reader alone" in summaries["Version 0.1"]
    assert "shared memory" in summaries["Monday: Tiles"]
    assert "shared memory" not in summaries["A Week of Kernels"]


def test_listings_and_archives_lead_to_the_section(built) -> None:
    outdir, _ = built
    entries = soup(outdir / "blog.html").select("article.kb-entry .kb-entry-title a")
    assert [a["href"] for a in entries] == [
        "posts/myst-sections.html#monday-tiles",
        "posts/myst-sections.html",
        "posts/release-notes.html#version-0-2",
        "posts/release-notes.html#version-0-1",
        "posts/release-notes.html",
        "posts/plain.html",
    ]
    wombat = soup(outdir / "blog/tag/wombat.html").select(".kb-entry-title a")
    assert [a["href"] for a in wombat] == ["../../posts/release-notes.html#version-0-2"]
    manual = soup(outdir / "blog/category/manual.html").select(".kb-entry-title a")
    assert [a.get_text() for a in manual] == ["Version 0.1", "Release Notes"]
    # Each link's target is on the page, and is the section the post is about.
    page = soup(outdir / "posts/release-notes.html")
    for section_id, title in (("version-0-2", "Version 0.2"), ("version-0-1", "Version 0.1")):
        section = page.find(id=section_id)
        assert section is not None and section.find(["h2", "h3"]).get_text().startswith(title)
    recent = filled_sidebar(outdir / "index.html").select("a[href*='#monday-tiles']")
    assert recent, "the sidebar's recent posts lead to the section too"


def test_a_section_post_has_no_page_of_its_own(built) -> None:
    outdir, _ = built
    sitemap = (outdir / "sitemap.xml").read_text(encoding="utf-8")
    assert "#" not in sitemap
    assert sitemap.count("posts/release-notes.html") == 1
    related = soup(outdir / "posts/release-notes.html").select(".kb-related a")
    assert [a["href"] for a in related] == ["../posts/plain.html"]  # not its own sections
    # The file's post keeps its header: its own date, not a section's.
    header = soup(outdir / "posts/release-notes.html").select_one("time")
    assert header is not None and header["datetime"].startswith("2021-09-01")


def test_kb_check_reads_section_posts(site: Path) -> None:
    assert run_check(site) == (0, [], "kb check: 3 post(s), no errors\n")


#: Mistakes in section posts: (file, text, replaced by, line, message).
MISTAKES = [
    ("posts/release-notes.rst", "   :category: Article", "   :category: Articel", 16,
     'unknown category "Articel"'),
    ("posts/myst-sections.md", ":tags: tiles", ":redirect: kernels/monday", 13,
     say("section_post_key", key="redirect")),
    ("posts/myst-sections.md", "## Monday: Tiles\n", "Monday: Tiles.\n", 12,
     say("section_post")),
    ("posts/myst-sections.md", "```{post} 2021-10-04\n:tags: tiles\n:category: Article\n"
     ":author: nabil\n```\n", ":::{note}\n```{post} 2021-10-04\n:tags: tiles\n"
     ":category: Article\n:author: nabil\n```\n:::\n", 13, say("section_post_nested")),
    ("posts/release-notes.rst", ".. post:: 2021-09-05\n   :category: Manual\n   :author: ahmet",
     ".. note::\n\n   .. post:: 2021-09-05\n      :category: Manual\n      :author: ahmet", 28,
     say("section_post_nested")),
    ("posts/release-notes.rst", ".. post:: 2021-09-05", ".. post:: 2021-13-05", 26,
     "date 2021-13-05 is not a real day (month must be in 1..12): write a date that exists, "
     "e.g. `date: 2026-05-04` (ablog also reads `Oct 10, 2020`)"),
]  # fmt: skip


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: f"{m[0]}:{m[3]}")
def test_kb_check_and_the_build_agree_on_a_section_posts_mistake(tmp_path, mistake) -> None:
    relpath, right, wrong, line, message = mistake
    site = copy_root("sectionposts", tmp_path / "site")
    path = site / relpath
    text = path.read_text(encoding="utf-8")
    assert right in text
    path.write_text(text.replace(right, wrong, 1), encoding="utf-8")
    status, checked, _ = run_check(site)
    _, warnings = build(site)
    built = [(where, at, said) for where, at, said, _ in warnings]
    assert status == 1
    assert [(where, at) for where, at, _ in checked] == [(relpath, line)]
    assert checked[0][2].startswith(message[:60])
    assert built == checked


def test_an_edited_section_post_is_listed_anew(tmp_path) -> None:
    site = copy_root("sectionposts", tmp_path / "site")
    build(site)
    notes = site / "posts/release-notes.rst"
    text = notes.read_text(encoding="utf-8")
    notes.write_text(text.replace("the wombat exporter", "the numbat exporter"), "utf-8")
    app, warnings = build(site)
    assert warnings == []
    outdir = Path(app.outdir)
    listing = soup(outdir / "blog.html").get_text()
    assert "numbat exporter" in listing and "wombat exporter" not in listing
    feed = feedparser.parse((outdir / "feeds/atom.xml").read_bytes())
    assert "numbat" in next(e.summary for e in feed.entries if e.title == "Version 0.2")


def test_post_always_section_gives_the_same_posts(tmp_path, built) -> None:
    """ablog's post_always_section reads even a file's own post from its section: the page
    is still the post, and every section post is as without it."""
    site = copy_root("sectionposts", tmp_path / "site")
    outdir, warnings = build_output(site, confoverrides={"post_always_section": True})
    assert warnings == []

    def links(outdir: Path) -> list[str]:
        feed = feedparser.parse((outdir / "feeds/atom.xml").read_bytes())
        return [(e.title, e.link) for e in feed.entries]

    assert links(outdir) == links(built[0])


NESTING_MD = """# Title

:::{note}
```{post} 2026-01-02
```
:::

````{code-block} md
```{post} 2026-01-03
```
````

```md
:::{post} 2026-01-04
:::
```

::::{tab-set}
:::{tab-item} A
```{post} 2026-01-05
```
:::
::::
"""
NESTING_RST = """Title
=====

.. note::

   .. post:: 2026-01-02

.. code-block:: rst

   .. post:: 2026-01-03

Shown as an example::

   .. post:: 2026-01-04

..
   .. post:: 2026-01-05

- An item

  .. post:: 2026-01-06

.. container::

   .. code-block:: rst

      .. post:: 2026-01-07
"""


@pytest.mark.parametrize(("text", "rst", "lines"), [(NESTING_MD, False, [4, 20]),
                                                    (NESTING_RST, True, [6, 21])])  # fmt: skip
def test_only_directives_nested_in_markup_are_found(text: str, rst: bool, lines: list) -> None:
    """In a note, a tab or a list item a ``post`` directive is markup the build reads; in a
    code block, a literal block or a comment it is text shown to the reader."""
    assert nested_post_directive_lines(text, rst) == lines
