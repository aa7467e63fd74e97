"""``{video}`` and ``{audio}`` (kb.markup.players): a file of the repository in the browser's own
player, with a download link inside for a browser without one and the content as its caption;
a URL is refused (a player would load from another host), and so is a path that leads out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from authoring import build
from helpers import soup


@pytest.fixture(scope="module")
def built(tmp_path_factory, rootdir: Path) -> tuple[Path, list]:
    root = tmp_path_factory.mktemp("players")
    site = root / "site"
    shutil.copytree(rootdir / "test-players", site)
    (root / "outside.mp3").write_bytes(b"\x00secret")
    app, warnings = build(site)
    return Path(app.outdir), warnings


def test_a_local_file_plays_in_the_browsers_player(built) -> None:
    outdir, _ = built
    page = soup(outdir / "posts/recordings.html")
    video = page.select_one("figure.kb-player > video")
    assert video is not None and "controls" in video.attrs and video["preload"] == "metadata"
    assert (outdir / "posts" / video["src"]).read_bytes() == b"\x00media tide.mp4"
    assert (outdir / "posts" / video["poster"]).read_bytes() == b"\x00media tide.png"
    fallback = video.select_one("a.download")
    assert fallback["href"] == video["src"] and fallback.get_text() == "Video: tide.mp4"
    caption = video.find_parent("figure").find("figcaption")
    assert " ".join(caption.get_text().split()) == "The tide, filmed from the pier."
    assert caption.find("em").get_text() == "filmed"
    audio = page.select_one("figure.kb-player > audio")
    assert (outdir / "posts" / audio["src"]).read_bytes() == b"\x00media talk.mp3"
    assert audio.find_parent("figure").find("figcaption") is None


def test_a_url_or_a_path_out_of_the_repository_is_refused_at_its_line(built) -> None:
    outdir, warnings = built
    assert [(path, line, message.split(" which")[0]) for path, line, message, _ in warnings] == [
        ("posts/recordings.md", 18, "video: 'https://videos.example.net/storm.mp4' would load from "
         "another host,"),
        ("posts/recordings.md", 21, "download: '../../outside.mp3' is outside the repository; put "
         "the file in the repository, next to the post, and give its path relative to the post"),
    ]  # fmt: skip
    page = soup(outdir / "posts/recordings.html")
    assert page.find("a", href="https://videos.example.net/storm.mp4").get_text() == "storm.mp4"
    assert len(page.select("video, audio")) == 2  # the refused ones have no player
    assert "secret" not in "".join(p.read_text("latin-1") for p in outdir.rglob("*.mp3"))
