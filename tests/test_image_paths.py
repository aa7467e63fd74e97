"""A local image that cannot be shown (missing, outside the repository, not an image) is the same
problem, at the same file:line in the same words, from `kb check` and from the build: Markdown
images, `{figure}` and `{image}` (in a note too), rst `image` and `figure`, raw HTML `<img>`,
`<video src/poster>` and `<audio>`, in posts (Markdown, rst, a notebook's markdown cells) and
pages. The build no longer says Sphinx's "image file not readable" for a missing one."""

from __future__ import annotations

from pathlib import Path

import pytest
from authoring import build, run_check, snapshot
from bs4 import BeautifulSoup
from sitebuild import copy_root

from kb.checks.namedfiles import NOT_A_FILE, refusal

MISSING = "is not a file of the repository; put the file next to the post, or correct the path"
OUTSIDE = (
    "is outside the repository; put the file in the repository, next to the post, and give its "
    "path relative to the post"
)
NOT_IMAGE = "is not an image; give a png, jpg, jpeg, gif, webp, svg or avif file next to the post"

#: (file, text on the line, message): every problem of the root, and nothing else.
EXPECTED = [
    ("pages/about.md", "(missing.png)", f"image: 'missing.png' {MISSING}"),
    ("posts/bad.md", "(images/missing.png)", f"image: 'images/missing.png' {MISSING}"),
    ("posts/bad.md", "(../../outside.png)", f"image: '../../outside.png' {OUTSIDE}"),
    ("posts/bad.md", "(images/notes.txt)", f"image: 'images/notes.txt' {NOT_IMAGE}"),
    ("posts/bad.md", "{figure}", f"image: 'images/missing-figure.png' {MISSING}"),
    ("posts/bad.md", "{image}", f"image: 'images/missing-image.png' {MISSING}"),
    ("posts/bad.md", "in a note", f"image: 'images/missing-in-note.png' {MISSING}"),
    ("posts/bad.md", "<img", f"image: 'images/missing-raw.png' {MISSING}"),
    ("posts/bad.md", "<video", f"video: 'images/missing.mp4' {MISSING}"),
    ("posts/bad.md", "<video", f"image: 'images/notes.txt' {NOT_IMAGE}"),
    ("posts/bad.md", "<audio", f"audio: '../../outside.png' {OUTSIDE}"),
    ("posts/bad-rst.rst", ".. image::", f"image: 'images/missing.png' {MISSING}"),
    ("posts/bad-rst.rst", ".. figure::", f"image: '../../outside.png' {OUTSIDE}"),
    ("posts/notebook.ipynb", "missing-nb.png", f"image: 'images/missing-nb.png' {MISSING}"),
    ("posts/notebook.ipynb", "<img", f"image: 'images/notes.txt' {NOT_IMAGE}"),
]


def line_of(site: Path, relpath: str, text: str) -> int:
    lines = (site / relpath).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("imagepaths")
    (folder / "outside.png").write_bytes(b"\x89PNG\r\n\x1a\n a secret")  # beside the site
    return copy_root("imagepaths", folder / "site")


@pytest.fixture(scope="module")
def results(site: Path):
    before = snapshot(site.parent)
    checked = run_check(site)
    app, warnings = build(site)
    return before, checked, Path(app.outdir), warnings


def expected(site: Path) -> list[tuple[str, int, str]]:
    return sorted((path, line_of(site, path, text), message) for path, text, message in EXPECTED)


def test_kb_check_reports_each_bad_image_at_its_line(site, results) -> None:
    _, (status, problems, summary), _, _ = results
    assert status == 1
    assert sorted(problems) == expected(site)
    assert summary == f"kb check: 4 post(s), 1 page(s), {len(EXPECTED)} error(s)\n"


def test_the_build_says_the_same_words_once_and_never_sphinxs(site, results) -> None:
    _, (_, problems, _), _, warnings = results
    assert sorted((path, line, message) for path, line, message, _ in warnings) == sorted(problems)
    assert {kind for *_, kind in warnings} == {"kb.path"}  # no image.not_readable beside it


def test_a_good_image_gives_no_problem_and_is_shown(results) -> None:
    _, (_, problems, _), outdir, warnings = results
    assert not [p for p in problems if p[0] == "posts/good.md"]
    assert not [w for w in warnings if w[0] == "posts/good.md"]
    page = BeautifulSoup((outdir / "posts/good.html").read_bytes(), "html.parser")
    shown = [img["src"] for img in page.select("article img")]
    assert len(shown) == 5 and all(src.startswith("../_images/chart") for src in shown)
    assert page.select_one("article video")["poster"].startswith("../_images/poster")
    # A refused image is left out of its page, a missing one too (no broken box); raw HTML
    # keeps what the sanitizer left of it.
    bad = BeautifulSoup((outdir / "posts/bad.html").read_bytes(), "html.parser")
    assert [img.get("alt") for img in bad.select("article img")] == ["raw"]


def test_nothing_outside_is_published(results) -> None:
    _, _, outdir, _ = results
    assert not any(b"a secret" in p.read_bytes() for p in outdir.rglob("*") if p.is_file())


def test_the_sources_are_untouched(site, results) -> None:
    before, *_ = results
    assert snapshot(site.parent) == before


def test_a_broken_link_is_no_file(tmp_path) -> None:
    (tmp_path / "posts").mkdir()
    (tmp_path / "posts/gone.png").symlink_to(tmp_path / "posts/nothing.png")
    path = tmp_path / "posts/gone.png"
    assert refusal(path, tmp_path) is None  # the rule has nothing against it...
    run = run_check_of(tmp_path, "![gone](gone.png)")
    assert run == [(3, f"image: 'gone.png' {MISSING}")]  # ...but it names nothing
    assert NOT_A_FILE.advice in MISSING


def run_check_of(root: Path, body: str) -> list[tuple[int, str]]:
    from kb.checks.namedfiles import NamedFiles
    from kb.checks.rawhtml import markdown_problems

    files = NamedFiles(root, "posts/x.md")
    markdown_problems(f"# X\n\n{body}\n", files=files)
    return [(problem.line, problem.message) for problem in files.problems]
