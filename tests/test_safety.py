"""Nothing a post says can break out: files from outside the repository (issue 14).

The test site (tests/roots/test-safety) names files outside the repository, in its hidden
folders and build output, its configuration, and files through symbolic links that lead out,
in every place a post can name a file. Each is a warning at its line, and nothing of those
files reaches the output or the log.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Comment
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
        f"{at('](../../outside/secret.*)')} image: '../../outside/secret.*' {OUT}",
        f"{at('](../*/figure.png)')} image: '../*/figure.png' has wildcards; name one file, or "
        "end the name with .* to let Sphinx pick",
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


def test_a_file_is_judged_the_same_from_any_working_directory(make_app, tmp_path):
    # docutils names a :file: relative to the working directory; judged as if relative to the
    # source folder, the csv-table was refused as outside the repository when the build ran
    # from a folder at another depth (CI's clone in /tmp/ci).
    site, _ = hostile_site(tmp_path)
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    with contextlib.chdir(elsewhere):
        app = build(make_app, site)
    page = soup(Path(app.outdir) / "posts/allowed.html")
    assert "Inside¶" in [caption.get_text(strip=True) for caption in page.select("table caption")]
    assert "ok.csv" not in "".join(kb_warnings(app, "path"))


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


# -- Raw HTML: nothing from another host, no scripts --------------------------------------------

HOST_ADVICE = (
    "which no page of the site may do; it is left out of the page: link to it instead, or add "
    "the host to kb_allow_raw_html_hosts in conf.py"
)
SCRIPT_ADVICE = (
    "which no page of the site may do; it is left out of the page: remove it, or set "
    "kb_allow_raw_scripts = True in conf.py"
)
HOSTS = (
    "tracker.example.com",
    "www.youtube.com",
    "cdn.example.net",
    "images.example.org",
    "evil.example.com",
    "www.youtube-nocookie.com",
    "forms.example.com",
    "fonts.example.com",
)


def test_raw_html_that_loads_or_runs_is_a_warning_at_its_line(hostile):
    post = hostile.srcdir / "posts/rawhtml.md"

    def at(text):
        return f"{post}:{line_of(post, text)}: WARNING: raw HTML:"

    def its(attribute, advice):  # the element stays, without the attribute
        return advice.replace("; it is", f"; its {attribute} attribute is")

    expected = [
        f'{at("An <img")} <img src="https://tracker.example.com/pixel.gif"> loads from another '
        f"host (tracker.example.com), {its('src', HOST_ADVICE)}",
        f"{at('<script>')} <script> runs a script, {SCRIPT_ADVICE}",
        f'{at("youtube.com/embed")} <iframe src="https://www.youtube.com/embed/xyz"> loads from '
        f"another host (www.youtube.com), {HOST_ADVICE}",
        f'{at("<link")} <link href="//cdn.example.net/theme.css"> loads from another host '
        f"(cdn.example.net), {HOST_ADVICE}",
        f"{at('<p style')} <p style=\"background: url('https://images.example.org/bg.png')\"> "
        f"loads from another host (images.example.org), {its('style', HOST_ADVICE)}",
        f'{at("javascript:")} <a href="javascript:alert(1)"> runs a script (a javascript: URL), '
        f"{its('href', SCRIPT_ADVICE)}",
        f'{at("javascript:")} <img onerror="alert(2)"> runs a script (its onerror attribute), '
        f"{its('onerror', SCRIPT_ADVICE)}",
        f'{at("<picture>")} <source srcset="local.webp 1x, https:/evil.example.com/x.webp 2x"> '
        f"loads from another host (evil.example.com), {its('srcset', HOST_ADVICE)}",
        f'{at("youtube-nocookie")} <iframe src="https://www.youtube-nocookie.com/embed/abc"> '
        f"loads from another host (www.youtube-nocookie.com), {HOST_ADVICE}",
        # A {raw} html directive is reported at the directive's line.
        f'{at("{raw} html")} <form action="https://forms.example.com/submit"> loads from '
        f"another host (forms.example.com), {HOST_ADVICE}",
        f'{at("{raw} html")} <input name="q">: the attribute name is not among those raw HTML '
        "may use; its name attribute is left out of the page: remove it, or write it in Markdown",
        f"{at('<style>')} <style> loads from another host (fonts.example.com), {HOST_ADVICE}",
        f"{at('<!--kb-related-->')} the comment <!--kb-related--> looks like those kb writes "
        "around parts of pages that later builds replace; it is left out of the page: remove "
        "it, or name it without the kb- prefix",
    ]
    # Once each: listings and feeds show the excerpt without a second report.
    assert kb_warnings(hostile, "raw-html") == sorted(f"{line} [kb.raw-html]" for line in expected)
    # The page holds kb's own marker of its related posts, and not the post's.
    page = soup(Path(hostile.outdir) / "posts/rawhtml.html")
    comments = page.find_all(string=lambda text: isinstance(text, Comment))
    assert [c for c in comments if c.strip() == "kb-related"] == ["kb-related"]


def soup_of(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "lxml")


def test_images_from_another_host_are_warnings(hostile):
    post = hostile.srcdir / "posts/rawhtml.md"
    advice = (
        "which no page of the site may do; it is left out of the page: copy the image next to "
        "the post, or add the host to kb_allow_raw_html_hosts in conf.py [kb.remote-image]"
    )
    assert kb_warnings(hostile, "remote-image") == [
        f"{post}:{line_of(post, '](https://images.example.org')}: WARNING: image: "
        f"'https://images.example.org/picture.png' loads from another host "
        f"(images.example.org), {advice}",
        f"{post}:{line_of(post, '{figure} https://')}: WARNING: image: "
        f"'https://www.youtube-nocookie.com/thumbnail.jpg' loads from another host "
        f"(www.youtube-nocookie.com), {advice}",
    ]


def _outputs(outdir: Path):
    for pattern in ("**/*.html", "feeds/**/*.xml", "feeds/**/*.json"):
        yield from outdir.glob(pattern)


def test_no_page_listing_or_feed_loads_from_another_host(hostile):
    outdir = Path(hostile.outdir)
    pages = list(_outputs(outdir))
    assert outdir / "feeds/rss.xml" in pages and outdir / "blog.html" in pages
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert not [host for host in HOSTS if host in text], path
        if path.suffix == ".json":  # the HTML of each item, parsed
            items = json.loads(text)["items"]
            html = [soup_of(item.get("content_html", "")) for item in items]
        elif path.suffix == ".xml":
            assert "<script" not in text.lower(), path  # HTML in XML feeds is escaped text
            continue
        else:
            html = [soup(path)]
        for tree in html:
            assert not [s for s in tree.find_all("script") if "alert" in s.get_text()], path
            assert not tree.select("[onerror], a[href^=javascript]"), path
    # What was allowed stays: an ordinary link and a local image, in the page and the listing.
    page = soup(outdir / "posts/rawhtml.html")
    assert page.select_one('article a[href="https://example.org/"]') is not None
    local = page.select('article img[src$="figure.png"]')  # copied to _images, as Sphinx does
    assert local and all((outdir / "posts" / img["src"]).resolve().is_file() for img in local)
    assert not page.select("article script, article iframe, article form, article style")
    listing = soup(outdir / "blog.html").find(string=lambda s: "in the first paragraph" in s)
    assert listing is not None


def test_a_site_may_allow_hosts_and_scripts(make_app, tmp_path):
    site, _ = hostile_site(tmp_path)
    overrides = {
        "kb_allow_raw_html_hosts": ["www.youtube-nocookie.com", "Tracker.Example.com"],
        "kb_allow_raw_scripts": True,
    }
    app = build(make_app, site, confoverrides=overrides)
    found = kb_warnings(app, "raw-html")
    # Scripts, the tracker and the allowed player are no longer reported; kb's comment still is.
    assert len(found) == 8
    assert len([line for line in found if "<!--kb-related-->" in line]) == 1
    assert not [line for line in found if "runs a script" in line]
    assert not [line for line in found if "youtube-nocookie" in line or "tracker" in line]
    assert len(kb_warnings(app, "remote-image")) == 1  # images.example.org is not allowed
    page = soup(Path(app.outdir) / "posts/rawhtml.html")
    assert page.select_one('article img[src="https://www.youtube-nocookie.com/thumbnail.jpg"]')
    assert page.select_one('article iframe[src^="https://www.youtube-nocookie.com/"]')
    assert page.select_one('article img[src^="https://tracker.example.com/"]')
    assert page.select_one("article script")
    assert not page.select_one('article iframe[src^="https://www.youtube.com/"]')


@pytest.mark.parametrize(
    ("html", "hosts", "script"),
    [
        ('<img src="pixel.gif"><img src="/x.png"><img src="data:image/png;base64,AAAA">', [], ""),
        ('<a href="https://example.org/">a link a reader follows</a>', [], ""),
        ('<IMG SRC="HTTPS://Tracker.Example.com/p.gif">', ["tracker.example.com"], ""),
        ('<img src=" \thttps:\\\\evil.example/p">', ["evil.example"], ""),
        ('<img src="https://user:pw@evil.example:8443/p">', ["evil.example"], ""),
        ('<img src="https://[::1]/p">', ["::1"], ""),
        ('<video poster="//evil.example/p.jpg"></video>', ["evil.example"], ""),
        ('<object data="https://evil.example/x.swf"></object>', ["evil.example"], ""),
        ('<svg><image href="https://evil.example/i.png"/></svg>', ["evil.example"], ""),
        ('<svg><use xlink:href="https://evil.example/s.svg#i"/></svg>', ["evil.example"], ""),
        ('<base href="https://evil.example/">', ["evil.example"], ""),
        (
            '<meta http-equiv="refresh" content="0; url=https://evil.example/">',
            ["evil.example"],
            "",
        ),
        ('<a href="/x" ping="https://evil.example/ping">x</a>', ["evil.example"], ""),
        ('<img src="file:///etc/passwd">', ["file:"], ""),
        ("<div style=\"background:URL( '//evil.example/b.png' )\">", ["evil.example"], ""),
        ("<style>@import url(https://evil.example/a.css)</style>", ["evil.example"], ""),
        ('<a href="&#106;avascript:alert(1)">x</a>', [], "a javascript: URL"),
        ('<a href=" JaVaScRiPt:alert(1)">x</a>', [], "a javascript: URL"),
        ('<svg onload="alert(1)"></svg>', [], "its onload attribute"),
        ('<script src="https://cdn.example/x.js"></script>', ["cdn.example"], "itself"),
        ('<iframe srcdoc="<img src=https://evil.example/p>"></iframe>', ["evil.example"], ""),
        ('<iframe srcdoc="<script>alert(1)</script>"></iframe>', [], "in its srcdoc"),
        ("<ScRiPt>alert(1)</sCrIpT>", [], "itself"),
    ],
)
def test_raw_html_checks(html, hosts, script):
    from kb.markup.rawhtml import problems

    found = problems(html)
    assert [host for finding in found for host in finding.hosts] == hosts
    assert next((finding.script for finding in found if finding.script), "") == script


def test_comments_like_kbs_markers_are_reported_and_no_others():
    from kb.markup.rawhtml import problems

    found = problems("<!--kb-listing--> <!-- /kb-related --> <!-- kb-search-bundle -->")
    assert [finding.marker for finding in found] == [True, True, True]
    assert problems("<!-- a note for editors --> <!--kbd--> <!-- see kb-listing -->") == []


def test_allowed_hosts_must_be_host_names(make_app, tmp_path):
    from sphinx.errors import ConfigError

    site = copy_root("safety", tmp_path / "site")
    with pytest.raises(ConfigError, match="kb_allow_raw_html_hosts must list host names"):
        make_app("html", srcdir=site, confoverrides={"kb_allow_raw_html_hosts": ["https://x.org"]})


# -- TeX \text stays text in the built page ------------------------------------------------------


def test_tex_text_never_becomes_html(hostile):
    post = hostile.srcdir / "posts/mathtext.md"
    lines = [line for line in warning_lines(hostile.warning) if str(post) in line]
    assert lines == [
        f"{post}:{line_of(post, 'href')}: WARNING: math: unsupported TeX command \\href (a "
        "formula cannot hold a link: put the link outside the math) in "
        '"\\href{https://example.org}{x}"; rewrite it with commands Temml supports (temml.org) '
        "[kb.math]",
        f"{post}:{line_of(post, 'style')}: WARNING: math: unsupported TeX command \\style "
        '(write \\color for colour) in "\\style{background: url(https://example.org/x.png)}{y}"; '
        "rewrite it with commands Temml supports (temml.org) [kb.math]",
    ]
    page = soup(Path(hostile.outdir) / "posts/mathtext.html")
    article = page.select_one("article")
    assert not article.select("script, img, style, a[href^='https://example.org']")
    texts = [mtext.get_text() for mtext in article.select("math mtext")]
    assert "<script>alert(1)</script>" in texts
    assert "<img\u00a0src=x\u00a0onerror=alert(2)>" in texts
    assert "a\u00a0<\u00a0b\u00a0&\u00a0c" in texts
    for math in article.select("math"):
        assert {tag.name for tag in math.find_all(True)} <= {"mtext", "mstyle", "mi", "mo"}


@pytest.mark.slow
def test_the_warnings_stay_until_the_post_is_fixed(make_app, tmp_path):
    site, _ = hostile_site(tmp_path)
    first = build(make_app, site)
    again = build(make_app, site)  # nothing changed: Sphinx alone would read nothing again
    for subtype in ("path", "raw-html", "remote-image"):
        assert kb_warnings(again, subtype) == kb_warnings(first, subtype) != []
    # Fixed posts are read once more, then no longer.
    for name in ("paths", "rawhtml", "card", "notimage"):
        (site / f"posts/{name}.md").unlink()
    fixed = build(make_app, site)
    assert kb_warnings(fixed, "path") == kb_warnings(fixed, "raw-html") == []
    assert "0 added, 0 changed" in build(make_app, site).status.getvalue()


def test_kb_check_finds_what_the_build_refuses_at_the_same_lines(hostile):
    """kb check and the build reach the same verdict on raw HTML and images from another
    host: the same message at the same line of the post."""
    from kb.site import check_files, open_site

    post = hostile.srcdir / "posts/rawhtml.md"
    site = open_site(Path(hostile.srcdir))
    checked = sorted(
        f"{post}:{problem.line}: WARNING: {problem.message}"
        for _, problem in check_files(site, [post], today=None)
        if problem.message.startswith(("raw HTML:", "image:"))
    )
    built = [
        line.rsplit(" [", 1)[0]
        for line in kb_warnings(hostile, "raw-html") + kb_warnings(hostile, "remote-image")
        if line.startswith(f"{post}:")
    ]
    assert checked == sorted(built)
