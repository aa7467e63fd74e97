"""Files beside a post that its raw HTML shows (kb.markup.rawhtml): ``<img src="images/x.png">``,
a video and its poster are checked as a Markdown image is and copied as Sphinx copies one, and
the page points at the copy; a missing file or one outside the repository is a warning at its
line, never an empty box without a word."""

from __future__ import annotations

from pathlib import Path

from helpers import soup
from sitebuild import build, copy_root


def page_files(outdir: Path) -> dict[str, bytes | None]:
    """Each file the post's page loads, by the element and attribute that names it."""
    page = soup(outdir / "posts/migrated.html")
    found = {}
    for element in page.select("article img, article video"):
        for attribute in ("src", "poster"):
            if element.get(attribute):
                target = (outdir / "posts" / element[attribute]).resolve()
                inside = target.is_relative_to(outdir.resolve()) and target.is_file()
                key = f"{element.name} {element.get('alt') or ''} {attribute}".replace("  ", " ")
                found[key] = target.read_bytes() if inside else None
    return found


def test_raw_html_files_are_copied_and_checked(make_app, tmp_path) -> None:
    site = copy_root("rawfiles", tmp_path / "site")
    (tmp_path / "outside.png").write_bytes(b"\x89PNG secret")
    app = build(make_app, site)
    outdir = Path(app.outdir)
    source = site / "posts"
    assert page_files(outdir) == {
        "img The chart src": (source / "images/chart.png").read_bytes(),
        "img a dot src": (source / "images/dot.png").read_bytes(),
        "video src": (source / "clip.mp4").read_bytes(),
        "video poster": (source / "images/poster.png").read_bytes(),
        "img gone src": None,
        "img outside src": None,
    }
    warnings = [line.split(" [")[0] for line in app.warning.getvalue().splitlines()]
    assert [w.split("site/", 1)[1] for w in warnings] == [
        "posts/migrated.md:19: WARNING: image: 'images/missing.png' is not a file of the "
        "repository; put the file next to the post, or correct the path",
        "posts/migrated.md:21: WARNING: image: '../../outside.png' is outside the repository; "
        "put the file in the repository, next to the post, and give its path relative to the "
        "post",
    ]
    assert b"secret" not in b"".join(p.read_bytes() for p in outdir.rglob("*.png"))

    (source / "images/chart.png").write_bytes(b"\x89PNG a new chart")
    app = build(make_app, site)
    assert page_files(Path(app.outdir))["img The chart src"] == b"\x89PNG a new chart"
