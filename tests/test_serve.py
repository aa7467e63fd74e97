"""kb serve's warm worker: each rebuild is a fresh build, forked from a process that imported
everything once; a worker whose imported code changed on disk is replaced."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import soup
from sitebuild import copy_root, warm_worker

from kb.cli.buildworker import ImportedFiles
from kb.cli.serve import Rebuilds, build_folders, sphinx_arguments


@pytest.fixture
def site(tmp_path) -> Path:
    """The listings root with a local extension whose code we can change under the worker."""
    root = copy_root("listings", tmp_path / "site").resolve()
    _write_extension(root, "marker-one.js")
    conf = root / "conf.py"
    conf.write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parent))\n"
        + conf.read_text().replace('"kb"]', '"kb", "localext"]'),
        encoding="utf-8",
    )
    return root


def _write_extension(root: Path, script: str) -> None:
    (root / "localext.py").write_text(
        textwrap.dedent(f"""\
            def setup(app):
                app.add_js_file("{script}")
                return {{"parallel_read_safe": True, "parallel_write_safe": True}}
            """),
        encoding="utf-8",
    )


def _scripts(root: Path, page: str = "index.html") -> list[str]:
    html = soup(build_folders(root)[0] / page)
    return [tag.get("src", "") for tag in html.find_all("script")]


def _title(root: Path, page: str) -> str:
    return soup(build_folders(root)[0] / page).find("h1").get_text(strip=True).rstrip("¶")


def test_each_rebuild_is_a_fresh_build_of_the_current_sources(site):
    with warm_worker(site) as worker:
        assert worker.build(sphinx_arguments(site)) == 0
        assert "_static/marker-one.js" in _scripts(site)
        post = site / "posts/post-27.md"
        post.write_text(post.read_text().replace("# Post 27", "# Post 27, edited"))
        assert worker.build(sphinx_arguments(site)) == 0
        assert _title(site, "posts/post-27.html") == "Post 27, edited"
        # The home page lists it under its new title: the catalog was rebuilt, not kept.
        home = soup(build_folders(site)[0] / "index.html").get_text()
        assert "Post 27, edited" in home
        assert worker.process.poll() is None  # one worker served both builds
    assert worker.process.returncode == 0  # it ends when the server closes its pipe


def test_a_failed_build_leaves_the_worker_ready_for_the_next(site):
    conf = site / "conf.py"
    good = conf.read_text()
    with warm_worker(site) as worker:
        conf.write_text(good + "\nthis is not python\n")
        assert worker.build(sphinx_arguments(site)) != 0
        conf.write_text(good)
        assert worker.build(sphinx_arguments(site)) == 0
        assert (build_folders(site)[0] / "index.html").is_file()


def test_a_worker_whose_imported_code_changed_is_replaced(site, capsys):
    rebuilds = Rebuilds(site, sphinx_arguments(site), "http://127.0.0.1:1/")
    try:
        assert rebuilds.build() == 0
        first = rebuilds.worker.process.pid
        _write_extension(site, "marker-two.js")
        post = site / "posts/post-27.md"
        post.write_text(post.read_text().replace("# Post 27", "# Post 27, edited"))
        assert rebuilds.build() == 0
        # The new code ran: a worker that kept the old module would still add marker-one.
        scripts = _scripts(site, "posts/post-27.html")
        assert "../_static/marker-two.js" in scripts
        assert "../_static/marker-one.js" not in scripts
        assert rebuilds.worker.process.pid != first
    finally:
        rebuilds.close()


def test_imported_files_notice_a_changed_module(tmp_path, monkeypatch):
    module = tmp_path / "changing_module.py"
    module.write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import changing_module  # noqa: F401

    try:
        imported = ImportedFiles()
        assert imported.changed() == []
        module.write_text("VALUE = 2  # a longer file, whatever the clock's resolution\n")
        os.utime(module, ns=(0, 0))
        assert str(module) in imported.changed()
    finally:
        sys.modules.pop("changing_module", None)


def test_the_worker_ends_quietly_where_kb_serve_has_gone(capfd):
    """kb serve killed while its worker builds: the worker's answer finds no one to read it,
    and it ends without a traceback."""
    from kb.cli.buildworker import serve_requests

    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    os.write(request_write, b'{"wait": "prepared"}\n')
    os.close(request_write)
    os.close(reply_read)  # the server is gone
    serve_requests(request_read, reply_write, ImportedFiles())
    assert "Traceback" not in capfd.readouterr().err


def test_cold_rebuilds_build_too(site):
    rebuilds = Rebuilds(site, sphinx_arguments(site), "http://127.0.0.1:1/", cold=True)
    assert rebuilds.build() == 0
    assert rebuilds.worker is None
    assert "_static/marker-one.js" in _scripts(site)


def test_the_worker_learns_what_a_build_imports(site):
    from pygments.lexers.c_like import CudaLexer

    from kb.cli.buildworker import LEXER, build_in_child, import_what_builds_import

    (site / "kernel.md").write_text("# Kernel\n\n```cuda\n__global__ void k() {}\n```\n")
    status, modules = build_in_child(sphinx_arguments(site) + ["-q"])
    assert status == 0
    # Imported inside myst-parser's setup(), not by importing the extension's package.
    assert "myst_parser.sphinx_ext.main" in modules and "localext" in modules
    # The lexer that highlighted the page, its rules compiled here too for the next build.
    assert LEXER + "pygments.lexers.c_like:CudaLexer" in modules
    import_what_builds_import([name for name in modules if name.startswith(LEXER)])
    assert "_tokens" in CudaLexer.__dict__
    sys.modules.pop("colorsys", None)
    assert import_what_builds_import(["colorsys", "sys", "no_such_module_at_all"]) is True
    assert "colorsys" in sys.modules
    assert import_what_builds_import(["colorsys", "sys"]) is False


def test_the_worker_keeps_the_posts_days_a_build_read_for_the_next_standby(site, monkeypatch):
    """A standby forked from the worker scans every post for drafts: it reads only those whose
    stamp changed since the worker's last build read them (at 10,000 posts the whole scan took
    0.27 s of every standby, 0.09 s with the days learnt), and hands on only those."""
    from kb.cli.buildworker import DRAFT_DAYS, build_in_child, import_what_builds_import
    from kb.core import drafts

    def days_said(said: list[str]) -> list:
        lines = [line for line in said if line.startswith(DRAFT_DAYS)]
        assert len(lines) == 1
        return json.loads(lines[0].removeprefix(DRAFT_DAYS))

    # A name with spaces: the child's lines are read as lines, not words.
    (site / "posts/a later post.md").write_text(
        "---\nblogpost: true\ndate: 2999-01-01\ncategory: Article\n---\n# Later\n\nText.\n"
    )
    monkeypatch.setattr(drafts, "_days", {})  # what this process read before
    monkeypatch.setattr(drafts, "_read_here", set())
    status, said = build_in_child(sphinx_arguments(site) + ["-q"])
    assert status == 0
    assert len(days_said(said)) == len(list(site.glob("posts/*.md")))  # every post read
    import_what_builds_import(said)
    # The next child reads, and hands on, only the post saved since.
    post = site / "posts/post-03.md"
    post.write_text(post.read_text().replace("date: 2023", "date: 2998"))
    status, said = build_in_child(sphinx_arguments(site) + ["-q"])
    assert status == 0
    assert [entry[0] for entry in days_said(said)] == [str(post)]
    import_what_builds_import(said)
    read = []
    monkeypatch.setattr(drafts, "file_day", lambda path, *a: read.append(path) or "not read")
    drafts_now = drafts.draft_sources(str(site), "posts/*.md", "%Y-%m-%d")
    assert drafts_now == ["posts/a later post.md", "posts/post-03.md"]
    assert read == []
    # A post saved since is read again.
    post.write_text(post.read_text() + "\nMore.\n")
    assert drafts.draft_sources(str(site), "posts/*.md", "%Y-%m-%d") == ["posts/a later post.md"]
    assert read == [str(post)]
    # A line cut short (the build was killed as it wrote it) teaches nothing.
    monkeypatch.setattr(drafts, "_days", {})
    drafts.learn_days(json.dumps([[str(post), "%Y-%m-%d", 1, 2, 3, 4, "2024-01-01"]])[:-5])
    assert drafts._days == {}


def test_the_worker_warms_up_what_a_first_page_needs(site):
    """kb serve's first build is most often one with nothing to write: the worker imports what
    writing a page and kb serve's own steps import, and compiles the common languages' rules
    and the site's highlight_language, before any build has taught it."""
    import subprocess

    conf = site / "conf.py"
    conf.write_text(conf.read_text() + '\nhighlight_language = "toml"\n', encoding="utf-8")
    script = textwrap.dedent(f"""\
        import sys
        from kb.cli.buildworker import LAZILY_IMPORTED, warm_up
        from kb.upstream.pygments import compiled_lexers
        warm_up({str(site)!r})
        print(all(name in sys.modules for name in LAZILY_IMPORTED))
        print(" ".join(compiled_lexers()))
        """)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    imported, lexers = result.stdout.splitlines()
    assert imported == "True"
    for lexer in ("python:PythonLexer", "c_cpp:CppLexer", "c_like:CudaLexer", "shell:BashLexer"):
        assert f"pygments.lexers.{lexer}" in lexers.split()
    assert "pygments.lexers.configs:TOMLLexer" in lexers.split()


@pytest.mark.parametrize("flags", [[], ["--unprepared"], ["--cold"]])
def test_kb_serves_options_reach_the_rebuilds(site, monkeypatch, flags):
    import importlib
    import socket

    cli = importlib.import_module("kb.cli.main")  # the module (kb.cli exports the function)

    seen = {}
    monkeypatch.setattr(cli.serve, "serve", lambda site, port, **options: seen.update(options))
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cli.main(["serve", "--root", str(site), "--port", str(port), *flags])
    assert seen == {
        "drafts": False,
        "cold": flags == ["--cold"],
        "prepare": flags != ["--unprepared"],
    }


def test_unprepared_rebuilds_never_build_ahead(site):
    post = site / "posts/post-27.md"
    for prepare in (False, True):
        rebuilds = Rebuilds(site, sphinx_arguments(site), "http://127.0.0.1:1/", prepare=prepare)
        try:
            assert rebuilds.build() == 0
            post.write_text(post.read_text() + f"\nOne more line ({prepare}).\n")
            assert rebuilds.build() == 0
            assert rebuilds.worker.last_prepared is prepare
        finally:
            rebuilds.close()
