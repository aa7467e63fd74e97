"""ablog's ``postlist`` directive (kb.pages.postlist): every option ablog's manual documents
does what it says, each excerpt is the one the listings show and never carries the host
page's parts (header, related posts, cite block), and what cannot be done is a warning at the
directive's line."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from authoring import build, build_output
from bs4 import BeautifulSoup
from helpers import soup
from sitebuild import copy_root

#: Elements that may not stand inside a <p> (HTML's phrasing content excludes them).
BLOCKS = {
    "address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset",
    "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main",
    "nav", "ol", "p", "pre", "section", "table", "ul",
}  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return copy_root("postlist", tmp_path_factory.mktemp("postlist") / "site")


@pytest.fixture(scope="module")
def built(site: Path) -> tuple[Path, list]:
    return build_output(site)


def postlist(outdir: Path, page: str, section: str):
    """The ``postlist`` under the heading ``section`` (its id) of ``page``."""
    found = soup(outdir / page).select(f"section#{section} > ul.postlist")
    assert len(found) == 1, f"no single postlist under #{section} in {page}"
    return found[0]


def titles(ul) -> list[str]:
    return [li.select_one("p.ablog-post-title a").get_text() for li in ul.select("li.ablog-post")]


def lines(ul) -> list[str]:
    return [" ".join(li.p.get_text().split()) for li in ul.select("li.ablog-post")]


def test_the_valid_root_builds_without_a_warning(built) -> None:
    assert built[1] == []


def test_the_number_is_how_many_newest_posts_with_their_excerpts_and_expand(built) -> None:
    outdir, _ = built
    ul = postlist(outdir, "index.html", "latest")
    assert lines(ul) == ["28 August - Host", "26 August - Elsewhere", "24 August - Kernels"]
    items = ul.select("li.ablog-post")
    assert [li.select_one("div.ablog-post-excerpt").get_text(strip=True) for li in items] == [
        "A post that lists the newest others with their excerpts.",
        "An article published on another site.",
        "Kernels for GEMM, in CUDA.",
    ]
    expand = [li.select_one("p.ablog-post-expand a") for li in items]
    assert [a.get_text() for a in expand] == ["Read more…"] * 3
    assert [a["href"] for a in expand] == [
        "posts/host.html",
        "posts/elsewhere.html",  # ablog's rule: our page, which says where the article is
        "posts/kernels.html",
    ]
    # The title of a post published elsewhere leads there, as in ablog.
    assert ul.select_one("a[rel=external]")["href"] == "https://elsewhere.example.org/article"


def test_each_excerpt_is_the_one_the_listings_show(built) -> None:
    outdir, _ = built
    listed = {
        entry.select_one(".kb-entry-title a").get_text(): entry.select_one(".kb-entry-excerpt")
        for entry in soup(outdir / "blog.html").select("article.kb-entry")
    }
    shown = 0
    for section in ("latest", "every-option"):
        for li in postlist(outdir, "index.html", section).select("li.ablog-post"):
            title = li.select_one("p.ablog-post-title a").get_text()
            excerpt = li.select_one("div.ablog-post-excerpt")
            assert excerpt.decode_contents() == listed[title].decode_contents(), title
            shown += 1
    assert shown == 5
    # A description is the excerpt (not ablog's first paragraph), in listings and here.
    assert "as its description says it" in listed["Tips Two"].get_text()


def test_filters_keep_posts_with_every_label_named(built) -> None:
    outdir, _ = built
    every = postlist(outdir, "index.html", "every-option")
    assert titles(every) == ["Tips One", "Tips Two"]  # :sort: oldest first
    assert titles(postlist(outdir, "index.html", "by-tag")) == ["Kernels"]  # gemm and cuda
    # An author by blog_authors key (above) or by full name; newest first without :sort:.
    assert titles(postlist(outdir, "index.html", "by-author")) == ["Host", "Elsewhere", "Kernels"]
    assert titles(postlist(outdir, "index.html", "by-place")) == ["Tips Two", "Tips One"]


def test_format_and_date_fill_each_line_with_linked_labels(built) -> None:
    outdir, _ = built
    assert lines(postlist(outdir, "index.html", "every-option")) == [
        "Tips One by Ahmet Bakan on Friday, August 20, 2021",
        "Tips Two by Ahmet Bakan on Sunday, August 22, 2021",
    ]
    assert lines(postlist(outdir, "index.html", "by-tag")) == ["Kernels (gemm, cuda)"]
    assert lines(postlist(outdir, "index.html", "by-author"))[0] == ("Host: Nabil Kakeh in Article")
    assert lines(postlist(outdir, "index.html", "by-place")) == [
        "Tips Two, Pittsburgh, en",
        "Tips One, Pittsburgh, en",
    ]
    page = soup(outdir / "index.html")
    labels = page.select("ul.postlist p.ablog-post-title a:has(> em)")
    assert {a.get_text() for a in labels} == {
        "Ahmet Bakan", "Nabil Kakeh", "Article", "gemm", "cuda", "Pittsburgh", "en",
    }  # fmt: skip
    assert all((outdir / a["href"]).is_file() for a in labels), [a["href"] for a in labels]


def test_list_style_and_only_what_is_asked(built) -> None:
    outdir, _ = built
    styles = {
        section: postlist(outdir, "index.html", section)
        for section in ("latest", "every-option", "by-author")
    }
    assert {name: ul["class"] for name, ul in styles.items()} == {
        "latest": ["postlist-style-none", "postlist"],
        "every-option": ["postlist-style-circle", "postlist"],
        "by-author": ["postlist-style-disc", "postlist"],
    }
    assert styles["every-option"]["style"] == "list-style-type: circle"
    # No :excerpts:, no excerpt; no :expand:, no link after it.
    assert not styles["by-author"].select(".ablog-post-excerpt, .ablog-post-expand")
    # Other posts' words: Pagefind leaves them to those posts' pages.
    assert all(ul.has_attr("data-pagefind-ignore") for ul in styles.values())


def test_a_post_lists_the_others_without_its_own_parts_in_the_excerpts(built) -> None:
    outdir, _ = built
    ul = postlist(outdir, "posts/host.html", "host")
    assert titles(ul) == ["Elsewhere", "Kernels", "Tips Two"]  # never the host itself
    assert [a.get_text() for a in ul.select("p.ablog-post-expand a")] == ["Continue"] * 3
    assert not ul.select(".kb-post-part, .kb-post-meta, .kb-post-tags, .kb-related, .kb-cite")
    assert "Cite this post" not in ul.get_text()
    page = soup(outdir / "posts/host.html")
    # The host's own parts are where they belong, once.
    assert len(page.select("p.kb-post-meta")) == 1
    assert len(page.select("section.kb-related")) == 1
    assert len(page.select("section.kb-cite")) == 1


def test_no_id_is_repeated_and_no_block_stands_in_a_paragraph(built) -> None:
    outdir, _ = built
    pages = sorted(outdir.rglob("*.html"))
    assert len(pages) > 10
    for path in pages:
        # html.parser keeps what the file says: lxml would close the <p> before a block.
        page = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        ids = Counter(element["id"] for element in page.select("[id]"))
        assert [i for i, n in ids.items() if n > 1] == [], path
        for name in ("kb-related-title", "kb-cite-title"):
            assert ids[name] <= 1, path
        blocks = [el.name for p in page.find_all("p") for el in p.find_all(BLOCKS)]
        assert blocks == [], path


BAD = """---
orphan: true
---

# Mistakes

```{postlist} 0
:format: {title} at {place}
:list-style: square
:expand: More
```

```{postlist}
:tags: gmm
:author: nobody
```

```{postlist} 2
:image: 1
```

```{postlist} 2
:format: {title
:excerpts:
:expand:
:tags:
```
"""


def test_each_mistake_is_a_warning_at_the_directive(tmp_path: Path) -> None:
    site = copy_root("postlist", tmp_path / "site")
    (site / "mistakes.md").write_text(BAD, encoding="utf-8")
    app, warnings = build(site)
    assert [(path, line, kind) for path, line, _, kind in warnings] == [
        ("mistakes.md", 19, "myst.directive_option"),  # not an option of ablog's postlist
        *[("mistakes.md", 7, "kb.postlist")] * 4,
        *[("mistakes.md", 13, "kb.postlist")] * 2,
        *[("mistakes.md", 22, "kb.postlist")] * 3,
    ]
    messages = [message for path, line, message, kind in warnings if kind == "kb.postlist"]
    assert messages == [
        "postlist: shows 0 posts: give a number of 1 or more, or none for all",
        "postlist: `:format:` has {place}, which ablog does not know: use {date}, {title}, "
        "{author}, {category}, {tags}, {location}, {language} ('{date} - {title}' is shown "
        "instead)",
        "postlist: `:list-style:` 'square' is not one of ablog's: use none, circle or disc",
        "postlist: `:expand:` shows under an excerpt: add `:excerpts:`, or remove `:expand:`",
        "postlist: no published post has the tag 'gmm', so the list is empty: check its spelling",
        "postlist: no published post has the author 'nobody', so the list is empty: check its "
        "spelling",
        "postlist: `:tags:` names nothing: give a name, or remove the option",
        "postlist: `:format:` '{title' cannot be read (expected '}' before end of string): "
        "write keys as {title}",
        "postlist: `:expand:` needs the text of its link, such as `:expand: Read more…`",
    ]
    page = soup(Path(app.outdir) / "mistakes.html")
    first, unknown, _, unread = page.select("ul.postlist")
    # What was wrong fell back to ablog's defaults; an unknown name matches no post.
    assert lines(first)[0] == "28 August - Host"
    assert first["class"] == ["postlist-style-none", "postlist"]
    assert unknown.select("li") == []
    assert lines(unread) == ["28 August - Host", "26 August - Elsewhere"]


@pytest.mark.slow
def test_a_changed_excerpt_is_shown_on_pages_not_read_again(tmp_path: Path) -> None:
    site = copy_root("postlist", tmp_path / "site")
    build(site)
    kernels = site / "posts/kernels.md"
    text = kernels.read_text(encoding="utf-8")
    kernels.write_text(text.replace("Kernels for GEMM", "Faster kernels for GEMM"), "utf-8")
    app, warnings = build(site)
    assert warnings == []
    ul = postlist(Path(app.outdir), "posts/host.html", "host")  # a page Sphinx did not read
    excerpts = [div.get_text(strip=True) for div in ul.select("div.ablog-post-excerpt")]
    assert "Faster kernels for GEMM, in CUDA." in excerpts
