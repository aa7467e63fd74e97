"""A document's copied images and downloads go with it (kb.incremental.copies): after a post is
deleted or stops using a file, the output holds what a clean build writes, and a file another
extension put in ``_images`` stays."""

from __future__ import annotations

from pathlib import Path

from sitebuild import build, copy_root


def test_copies_go_with_the_last_document_that_used_them(make_app, tmp_path):
    site = copy_root("listings", tmp_path / "site")
    (site / "posts/data.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    post = site / "posts/post-05.md"
    post.write_text(post.read_text() + "\n{download}`the data <data.csv>`\n", encoding="utf-8")
    outdir = Path(build(make_app, site).outdir)
    image = outdir / "_images/chart.png"
    [download] = list((outdir / "_downloads").rglob("data.csv"))
    diagram = outdir / "_images/diagram-from-another-extension.svg"
    diagram.write_text("<svg/>", encoding="utf-8")
    assert image.is_file()

    # Another post uses the image too: deleting the first keeps it, as a clean build does.
    other = site / "posts/post-06.md"
    other.write_text(other.read_text() + "\n![chart](chart.png)\n", encoding="utf-8")
    post.unlink()
    build(make_app, site)
    assert image.is_file()
    assert not download.exists() and not download.parent.exists()

    # Edited not to use it any more: the last user is gone, so is the copy.
    other.write_text(other.read_text().replace("![chart](chart.png)", ""), encoding="utf-8")
    build(make_app, site)
    assert not image.exists()
    assert diagram.is_file(), "a file Sphinx did not copy was removed"
