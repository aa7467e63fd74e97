"""What the `kb` command says: plain-text help, a post with no author refused, a busy port
reported in one line before any build."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from authoring import GOOD, snapshot

from kb.cli import main

COMMANDS = ["new", "check", "serve", "import"]


@pytest.fixture
def site(tmp_path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(GOOD, root)
    return root


def kb(root: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit:  # argparse: --help, a bad option
            status = exit.code
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)])
def test_help_is_plain_text(site, command):
    status, out, _ = kb(site, *command, "--help")
    assert status == 0 and out.startswith("usage: kb")
    # No reStructuredText: ``literals``, :roles:`...`, *emphasis* markers.
    assert "``" not in out
    assert not re.search(r":(mod|func|class|data|ref|doc):`", out)
    if not command:
        assert "The kb command: start a post, check posts, preview the site." in out


def test_new_without_an_author_is_refused_with_the_keys(site):
    before = snapshot(site)
    args = ("new", "Tiles", "--category", "Article", "--date", "2025-06-01")
    assert kb(site, *args) == (
        2,
        "",
        "kb new: --author is missing: add --author KEY, one of mira, tomas (keys of "
        "blog_authors in conf.py); repeat it for several authors\n",
    )
    assert snapshot(site) == before
    assert kb(site, *args, "--author", "tomas") == (0, "posts/2025/tiles.md\n", "")


def test_new_without_an_author_is_fine_on_a_site_without_authors(site):
    conf = site / "conf.py"
    conf.write_text(
        conf.read_text(encoding="utf-8").replace("blog_authors = {", "_unused = {"),
        encoding="utf-8",
    )
    args = ("new", "Tiles", "--category", "Article", "--date", "2025-06-01")
    assert kb(site, *args) == (0, "posts/2025/tiles.md\n", "")


def test_serve_on_a_busy_port_says_so_in_one_line_before_building(site):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        status, out, err = kb(site, "serve", "--port", str(port))
    assert (status, out) == (2, "")
    assert err == (
        f"kb serve: port {port} on 127.0.0.1 is in use (Address already in use): stop what "
        "serves there (another kb serve?), or choose another port with --port N\n"
    )
    assert not (site / "_build").exists()  # nothing was built


@pytest.mark.parametrize("port", ["0", "70000", "http"])
def test_serve_refuses_what_is_not_a_port(site, port):
    status, out, err = kb(site, "serve", "--port", port)
    assert (status, out) == (2, "")
    assert f"{port!r} is not a port: write a number from 1 to 65535" in err


def test_a_broken_link_is_the_same_line_and_words_in_kb_check_and_the_build(site, tmp_path):
    post = site / "posts/2025/pipelining.md"
    text = post.read_text(encoding="utf-8")
    post.write_text(
        text + "\nThe second paragraph starts here and\nlinks [the basics](tiling-basic.md).\n",
        encoding="utf-8",
    )
    line = text.count("\n") + 3
    message = (
        "links to tiling-basic.md, which does not exist (did you mean "
        "/posts/2025/tiling-basics.md?): fix the path; a path starting with / starts at the site "
        "root"
    )
    status, out, _ = kb(site, "check")
    assert (status, out) == (1, f"posts/2025/pipelining.md:{line}: {message}\n")
    command = [sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-q", "-b", "html",
               "-d", str(tmp_path / "doctrees"), str(site), str(tmp_path / "html")]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent / "src")}
    build = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert build.returncode == 1
    assert build.stderr == f"{post}:{line}: WARNING: {message} [kb.frontmatter]\n"
