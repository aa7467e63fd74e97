"""Nothing a post says can break out: files from outside the repository (issue 14).

The test site (tests/roots/test-safety) names files outside the repository, in its hidden
folders and build output, its configuration, and files through symbolic links that lead out,
in every place a post can name a file. Each is a warning at its line, and nothing of those
files reaches the output or the log.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import soup, warning_lines
from sitebuild import build, copy_root

from kb.core import paths

#: Written into every file a post may not use: none of it may reach the output or the log.
OUTSIDE = "OUTSIDE-SECRET-7f3a"
HIDDEN = "GIT-SECRET-91c2"
LEFTOVER = "BUILD-LEFTOVER-5d0e"
CONFIG = "CONF-SECRET-3b8d"
SECRETS = (OUTSIDE, HIDDEN, LEFTOVER, CONFIG)


def hostile_site(tmp_path: Path) -> tuple[Path, Path]:
    """The test site, with files outside it, in its hidden folder and its build output, a
    secret in its conf.py and symbolic links that lead out."""
    site = copy_root("safety", tmp_path / "site")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"# {OUTSIDE}\n\n{OUTSIDE} included text\n")
    (outside / "secret.txt").write_text(f"{OUTSIDE} text\n")
    # A failing CSV used to print its first line into the log.
    (outside / "secret.csv").write_text(f"{OUTSIDE},tflops\nrow,not-a-number\n")
    (outside / "secret.json").write_text(f'{{"gpu": "{OUTSIDE}"}}\n')
    (outside / "secret.png").write_bytes(b"\x89PNG\r\n\x1a\n" + OUTSIDE.encode())
    (outside / "secret.html").write_text(f"<p>{OUTSIDE}</p>\n")
    (site / ".git").mkdir()
    (site / ".git/config").write_text(f'[remote "origin"]\n\turl = https://{HIDDEN}@x.org/r\n')
    (site / "_build").mkdir()
    (site / "_build/leftover.csv").write_text(f"name,tflops\n{LEFTOVER},1\n")
    with open(site / "conf.py", "a") as conf:
        conf.write(f'\nSECRET_TOKEN = "{CONFIG}"  # a setting a post must never publish\n')
    (site / "posts/link-out.png").symlink_to("../../outside/secret.png")
    (site / "posts/link-out.txt").symlink_to("../../outside/secret.txt")
    return site, outside


def snapshot(*folders: Path) -> dict[str, bytes]:
    """Every file under ``folders`` (build output aside) and its bytes."""
    files = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "_build" not in path.relative_to(folder).parts[:1]:
                files[str(path)] = path.read_bytes()
    return files


def line_of(path: Path, text: str, occurrence: int = 1) -> int:
    """The number of the line holding ``text`` (its ``occurrence``-th time)."""
    found = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    return found[occurrence - 1]


@pytest.fixture
def hostile(make_app, tmp_path):
    site, outside = hostile_site(tmp_path)
    before = snapshot(site, outside)
    app = build(make_app, site)
    app.before, app.outside = before, outside
    return app


def kb_warnings(app, subtype: str) -> list[str]:
    return sorted(line for line in warning_lines(app.warning) if line.endswith(f"[kb.{subtype}]"))


# -- Every path that leads out is a warning at its line ---------------------------------------


OUT = (
    "is outside the repository; put the file in the repository, next to the post, and give "
    "its path relative to the post"
)
LINK_OUT = (
    "leads outside the repository through a symbolic link; put the file in the repository, "
    "next to the post, and give its path relative to the post"
)
GIT = (
    "is inside the hidden folder .git, which is never published; name a file of the site "
    "(posts/…, _static/…) instead"
)
CONF = (
    "is the site's configuration (conf.py), which may hold secrets and is never published; "
    "copy what the post needs into a file next to the post"
)
NOT_IMAGE = "is not an image; give a png, jpg, jpeg, gif, webp, svg or avif file next to the post"


def test_every_path_that_leads_out_is_a_warning_at_its_line(hostile):
    post = hostile.srcdir / "posts/paths.md"

    def at(text, occurrence=1):
        return f"{post}:{line_of(post, text, occurrence)}: WARNING:"

    expected = [
        f"{at('{include} ../../outside')} include: '../../outside/secret.md' {OUT}",
        f"{at('{include} ../.git/config')} include: '../.git/config' {GIT}",
        f"{at(':::{include} ../../outside')} include: '../../outside/secret.md' {OUT}",
        f"{at('.. include::')} include: '../../outside/secret.md' {OUT}",
        f"{at('{literalinclude} ../../outside')} literalinclude: '../../outside/secret.txt' {OUT}",
        f"{at('{literalinclude} data/notes.txt')} literalinclude: :diff: "
        f"'../../outside/secret.txt' {OUT}",
        f"{at('{literalinclude} ../conf.py')} literalinclude: '../conf.py' {CONF}",
        f"{at('{literalinclude} link-out.txt')} literalinclude: 'link-out.txt' {LINK_OUT}",
        f"{at('{benchmark} ../../outside')} benchmark: '../../outside/secret.csv' {OUT}",
        f"{at('{benchmark} data/ok.csv')} benchmark: :metadata: '../../outside/secret.json' {OUT}",
        f"{at('{benchmark} ../_build')} benchmark: '../_build/leftover.csv' is inside the build "
        "output (_build/); name the source file that the build copies there instead",
        f"{at('](../../outside/secret.png)')} image: '../../outside/secret.png' {OUT}",
        f"{at('{figure} link-out.png')} image: 'link-out.png' {LINK_OUT}",
        f"{at('](data/notes.txt)')} image: 'data/notes.txt' {NOT_IMAGE}",
        f"{at('{download}')} download: '../.git/config' {GIT}",
        f"{at('](../../outside/secret.txt)')} download: '../../outside/secret.txt' {OUT}",
        f"{at('](../conf.py)')} download: '../conf.py' {CONF}",
        f"{at('{csv-table} From outside')} csv-table: :file: '../../outside/secret.csv' {OUT}",
        f"{at('{csv-table} From another host')} csv-table: :url: "
        "'https://data.example.org/table.csv' reads a file from another host at build time; "
        "copy the file into the repository, next to the post, and use :file: instead",
        f"{at('{raw} html')} raw: :file: '../../outside/secret.html' {OUT}",
        f"{at('og:image')} og:image: '../conf.py' {CONF}",
    ]
    card, not_image = hostile.srcdir / "posts/card.md", hostile.srcdir / "posts/notimage.md"
    expected += [
        f"{card}:{line_of(card, 'og:image')}: WARNING: og:image: '/.git/config' {GIT}",
        f"{not_image}:{line_of(not_image, 'og:image')}: WARNING: og:image: 'data/notes.txt' "
        f"{NOT_IMAGE}",
    ]
    assert kb_warnings(hostile, "path") == sorted(f"{line} [kb.path]" for line in expected)


def test_nothing_from_outside_is_published_read_or_logged(hostile):
    outdir = Path(hostile.outdir)
    # Not one byte of a refused file in any output file, nor in what the build cached.
    for folder in (outdir, Path(hostile.doctreedir)):
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                for secret in SECRETS:
                    assert secret.encode() not in data, f"{secret} in {path}"
    # No file of theirs was copied under another name either.
    published = {path.name for path in outdir.rglob("*") if path.is_file()}
    assert not {"secret.md", "secret.txt", "secret.csv", "secret.json", "secret.png"} & published
    assert not {"secret.html", "config", "conf.py", "link-out.png", "link-out.txt"} & published
    assert not (outdir / "_downloads").exists() or all(
        path.name in ("notes.txt", "measure.py", "ok.csv", "ok.json")
        for path in (outdir / "_downloads").rglob("*")
        if path.is_file()
    )
    # Nor in the log: the warnings name the path as the post wrote it, never the content.
    log = hostile.status.getvalue() + hostile.warning.getvalue()
    assert not [secret for secret in SECRETS if secret in log]
    # The hostile page is still written, without what it tried to pull in.
    page = soup(outdir / "posts/paths.html")
    assert page.select_one("article h1").get_text(strip=True).startswith("Paths that lead out")
    assert "The last paragraph." in page.get_text()
    assert not page.select("article img, figure.kb-benchmark, article table")


def test_sources_and_outside_files_are_untouched(hostile):
    assert snapshot(hostile.srcdir, hostile.outside) == hostile.before


def test_files_inside_the_repository_are_still_used(hostile):
    outdir = Path(hostile.outdir)
    page = soup(outdir / "posts/allowed.html")
    text = page.get_text()
    assert "Included text from a snippet next to the post." in text
    assert 'print("measured")' in text  # a Python script of the post may be shown
    figure = page.select_one("figure.kb-benchmark")
    assert figure is not None and "1237" in figure.get_text()
    images = [img["src"] for img in page.select("article img")]
    assert len(images) == 1 and (outdir / "posts" / images[0]).is_file()
    downloads = {a.get_text(): a["href"] for a in page.select("a.download")}
    assert {"the notes", "the script", "ok.csv", "ok.json"} <= set(downloads)
    assert all((outdir / "posts" / href).is_file() for href in downloads.values())
    captions = [caption.get_text(strip=True) for caption in page.select("table caption")]
    assert "Inside¶" in captions  # the csv-table (and its permalink), after the benchmark's
    card = page.select_one('meta[property="og:image"]')["content"]
    assert card == "https://safety.example.org/posts/data/figure.png"
    assert (outdir / "posts/data/figure.png").is_file()
    # A refused card falls back to the site's.
    for name in ("card", "notimage", "paths"):
        meta = soup(outdir / f"posts/{name}.html").select_one('meta[property="og:image"]')
        assert meta["content"] == "https://safety.example.org/_static/card.png"


# -- The rule itself ---------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "elsewhere"
    for folder in ("posts", ".git", ".venv/lib", "_build/html", "src/__pycache__", "out"):
        (root / folder).mkdir(parents=True)
    outside.mkdir()
    for name in ("posts/a.png", "posts/a.csv", "posts/run.py", "conf.py", "src/__pycache__/x.pyc"):
        (root / name).write_text("x")
    (outside / "b.png").write_text("x")
    (root / "posts/out.png").symlink_to(outside / "b.png")
    (root / "posts/in.png").symlink_to(root / "posts/a.png")
    (root / "posts/git.png").symlink_to(root / ".git")
    return root


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("posts/a.png", None),
        ("posts/in.png", None),  # a link that stays inside is fine
        ("posts/run.py", None),
        ("/etc/passwd", "is outside the repository"),
        ("posts/../../elsewhere/b.png", "is outside the repository"),
        ("posts/out.png", "leads outside the repository through a symbolic link"),
        ("posts/git.png/config", "is inside the hidden folder .git, which is never published"),
        (".git/config", "is inside the hidden folder .git, which is never published"),
        (".venv/lib/x.png", "is inside the hidden folder .venv, which is never published"),
        ("posts/.env", "is the hidden file .env, which is never published"),
        ("_build/html/x.png", "is inside the build output (_build/)"),
        ("out/x.png", "is inside the build output (out/)"),
        ("conf.py", "is the site's configuration (conf.py), which may hold secrets and is never "
         "published"),
        ("src/x.pyc", "is compiled Python (x.pyc), which is never published"),
        ("src/__pycache__/y.png", "is inside the hidden folder __pycache__, which is never "
         "published"),
    ],
)  # fmt: skip
def test_the_rule(tree, path, reason):
    refused = paths.refusal(path, tree, blocked=(tree / "out",))
    assert (refused.reason if refused else None) == reason


def test_the_rule_checks_the_file_type(tree):
    image = {"suffixes": paths.IMAGE_SUFFIXES, "kind": "an image"}
    assert paths.refusal("posts/a.png", tree, **image) is None
    assert paths.refusal("posts/A.PNG", tree, **image) is None
    refused = paths.refusal("posts/a.csv", tree, **image)
    assert refused.reason == "is not an image"
    assert refused.advice == "give a png, jpg, jpeg, gif, webp, svg or avif file next to the post"
    csv = paths.refusal("posts/a.png", tree, suffixes=(".csv",), kind="a CSV file")
    assert (csv.reason, csv.advice) == ("is not a CSV file", "give a csv file next to the post")


def test_messages_quote_a_short_line():
    assert paths.shorten("a\x1b[31mred\nline") == "a [31mred line"
    assert paths.shorten("x" * 200, 10) == "x" * 9 + "…"
    refused = paths.Refusal("is outside the repository", "put it inside")
    assert paths.message("benchmark", "../x.json", refused, ":metadata:") == (
        "benchmark: :metadata: '../x.json' is outside the repository; put it inside"
    )


def test_a_repository_csv_is_quoted_short_and_on_one_line(tmp_path):
    from kb.benchmark.data import BenchmarkError, read_csv

    path = tmp_path / "wide.csv"
    path.write_text('name,tflops\nfa4,"' + "9" * 30 + "x\x1b[2J" + "y" * 100 + '"\n')
    with pytest.raises(BenchmarkError) as error:
        read_csv(path, "wide.csv").numbers("tflops")
    message = str(error.value)
    assert "\x1b" not in message and len(message) < 120
    assert message.startswith("wide.csv:2: column 'tflops' holds '999")
    assert os.fspath(tmp_path) not in message
