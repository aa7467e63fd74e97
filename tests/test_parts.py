"""Page parts are templates a fork overrides (kb.core.parts): the series box, related posts,
the cite block, listing entries, the sidebar and the subscribe blocks, each from
``_templates/kb/parts/``. The override shows on every page that has the part, and an
incremental build, which replaces some parts in pages it does not write again, keeps it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import resolve_link, soup, write_post
from sitebuild import build, copy_root

#: A fork's templates: each marks what it wrote, with values from its context.
OVERRIDES = {
    "series-box.html": (
        '<aside class="fork-series" data-name="{{ series.name|e }}">'
        "{% for label, href, title, current, external in members %}"
        '<a class="fork-member{% if current %} fork-current{% endif %}" href="{{ href|e }}">'
        "{{ title|e }}</a>{% endfor %}</aside>"
    ),
    "related.html": (
        '<ol class="fork-related">{% for href, title, external, iso, text in items %}'
        '<li><a href="{{ href|e }}">{{ title|e }}</a></li>{% endfor %}</ol>'
    ),
    "sidebar.html": (
        '<div class="fork-sidebar">{% for title, items, more_href, more_text in sections %}'
        '<h3>{{ title|e }}</h3>{% for href, text, count in items %}<a href="{{ href|e }}">'
        "{{ text|e }}</a>{% endfor %}{% endfor %}</div>"
    ),
    "entry.html": (
        '<div class="fork-entry"><a href="{{ href|e }}">{{ post.title|e }}</a>'
        "{{ excerpt_html }}</div>"
    ),
    "cite.html": '<p class="fork-cite">{{ reference|e }}</p>',
    "subscribe.html": '<p class="fork-subscribe"><a href="{{ feeds_href|e }}">Feeds</a></p>',
}


def forked(dest: Path) -> Path:
    """The series test site with the fork's templates in ``_templates/kb/parts/``."""
    root = copy_root("series", dest)
    parts = root / "_templates" / "kb" / "parts"
    parts.mkdir(parents=True)
    for name, text in OVERRIDES.items():
        (parts / name).write_text(text + "\n", encoding="utf-8")
    with (root / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write('\ntemplates_path = ["_templates"]\n')
    return root


def pages(outdir: Path) -> dict[str, bytes]:
    """Every page a reader opens, by path: the bytes the server sends."""
    return {
        path.relative_to(outdir).as_posix(): path.read_bytes()
        for path in sorted(outdir.rglob("*.html"))
        if not path.relative_to(outdir).parts[0].startswith("_")
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    from sphinx.testing.util import SphinxTestApp

    root = forked(tmp_path_factory.mktemp("parts") / "site")
    app = SphinxTestApp("html", srcdir=root)
    try:
        app.build()
    finally:
        app.cleanup()
    assert app.warning.getvalue() == ""
    return Path(app.outdir)


def test_the_forks_series_box_is_on_every_member(site: Path) -> None:
    members = ["gemm-1", "gemm-2", "gemm-3", "gemm-extra-early", "gemm-unnumbered"]
    for name in members:
        page = soup(site / "posts" / f"{name}.html")
        box = page.select_one("aside.fork-series")
        assert box is not None, name
        assert box["data-name"] == "GEMM tutorial"
        assert page.select_one(".kb-series-box") is None
        current = box.select_one(".fork-current")["href"]
        assert resolve_link(f"posts/{name}", current) == f"posts/{name}.html"
    assert soup(site / "posts/standalone.html").select_one(".fork-series") is None


def test_the_forks_other_parts_replace_kbs(site: Path) -> None:
    post = soup(site / "posts/gemm-2.html")
    assert "“GEMM part two: TMA & pipelines”." in post.select_one(".fork-cite").get_text()
    assert post.select_one(".kb-cite") is None
    assert post.select(".fork-related li a") and post.select_one(".kb-related") is None
    assert post.select_one(".fork-sidebar h3").get_text() == "Recent posts"
    assert post.select_one(".kb-sidebar") is None
    assert post.select_one(".fork-subscribe a")["href"] == "../feeds.html"
    archive = soup(site / "blog.html")
    entries = archive.select(".fork-entry")
    assert entries and archive.select_one(".kb-entry") is None
    hrefs = [entry.select_one("a")["href"] for entry in entries]
    assert "https://elsewhere.example.com/fp4-3" in hrefs  # the external member leads there
    assert "posts/gemm-2.html" in hrefs
    # kb's wrapper keeps other posts' titles out of the search index, whatever the template.
    box = post.select_one(".fork-series")
    assert box.parent["data-pagefind-ignore"] == "all"


def _change(root: Path, change: str) -> None:
    if change == "add":  # a new member: every member's box, the sidebar of every page
        write_post(
            root,
            "posts/gemm-4.md",
            "GEMM part four",
            "2026-03-20",
            extra="series: GEMM tutorial\npart: 4\n",
        )
    else:  # an old post retitled: pages that show it get their parts replaced in place
        path = root / "posts/standalone.md"
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("\n# ", "\n# Retitled: ", 1), encoding="utf-8")


@pytest.mark.parametrize("change", ["add", "retitle"])
def test_an_incremental_build_keeps_the_override(make_app, tmp_path: Path, change: str) -> None:
    root = forked(tmp_path / "site")
    build(make_app, root)
    _change(root, change)
    again = build(make_app, root)
    assert again.warning.getvalue() == ""
    clean_root = tmp_path / "clean"
    shutil.copytree(root, clean_root, ignore=shutil.ignore_patterns("_build"))
    clean = build(make_app, clean_root)
    incremental, fresh = pages(Path(again.outdir)), pages(Path(clean.outdir))
    assert sorted(incremental) == sorted(fresh)
    stale = [page for page in fresh if incremental[page] != fresh[page]]
    assert stale == [], f"pages that differ from a clean build: {stale}"
    page = soup(Path(again.outdir) / "posts/gemm-1.html")
    shown = [a.get_text() for a in page.select(".fork-sidebar a")]
    if change == "add":
        titles = [a.get_text() for a in page.select(".fork-series a")]
        assert "GEMM part four" in titles and "GEMM part four" in shown
    else:
        assert page.select_one(".kb-sidebar") is None and shown
