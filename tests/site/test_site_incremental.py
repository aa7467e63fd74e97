"""The real site, changed as its authors change it and built incrementally with plain
``sphinx-build`` after each change: every file a reader can fetch is the file a clean build of
the same sources writes, and the build warns as a clean build does.

The sample posts link one another, name glossary terms and share tags, which the small test
roots do not: built this way, a deleted post once left a link to its page in a post that
linked it, and a renamed one its old address in the glossary's "Used in" lists
(:mod:`kb.core.links`, :mod:`kb.pages.glossary`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent.parent
#: Left out of the copy: not sources (conf.py excludes the tests from the build too).
NOT_THE_SITE = {".git", ".venv", "_build", "node_modules", "tests"}


def _copy_site(target: Path) -> Path:
    shutil.copytree(REPO, target, ignore=lambda folder, names: NOT_THE_SITE & set(names))
    return target


def _build(site: Path, fresh: bool = False) -> list[str]:
    """Build ``site`` (from nothing with ``fresh``); what it warned, its folder written SITE."""
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", ".", "_build/html"]
    command += ["-d", "_build/doctrees", *(["-E"] if fresh else [])]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    result = subprocess.run(command, cwd=site, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    warnings = re.sub(r"\x1b\[[0-9;]*m", "", result.stderr).replace(str(site), "SITE")
    return sorted(line for line in warnings.splitlines() if "WARNING" in line)


def _files(outdir: Path) -> dict[str, bytes]:
    """Every file a reader can fetch (search bundle included), by path."""
    return {
        path.relative_to(outdir).as_posix(): path.read_bytes()
        for path in sorted(outdir.rglob("*"))
        if path.is_file() and not path.relative_to(outdir).parts[0].startswith(".")
    }


def _folders(outdir: Path) -> set[str]:
    return {path.relative_to(outdir).as_posix() for path in outdir.rglob("*") if path.is_dir()}


def _assert_same_as_clean(site: Path, warned: list[str], scratch: Path) -> None:
    shutil.rmtree(scratch, ignore_errors=True)
    clean = _copy_site_sources(site, scratch)
    assert _build(clean, fresh=True) == warned
    got, expected = site / "_build/html", clean / "_build/html"
    assert sorted(_files(got)) == sorted(_files(expected))
    assert [name for name, data in _files(got).items() if _files(expected)[name] != data] == []
    assert _folders(got) == _folders(expected)


def _copy_site_sources(site: Path, target: Path) -> Path:
    shutil.copytree(site, target, ignore=shutil.ignore_patterns("_build"))
    return target


def _linked_post(site: Path) -> tuple[Path, Path] | None:
    """A post in no series that another post links by its file name, and that other post: a
    series box would have the linking post written again anyway, links and all."""
    posts = sorted((site / "posts").rglob("*.md"))
    for target in posts:
        if re.search(r"^series:", target.read_text(encoding="utf-8"), re.MULTILINE):
            continue
        for post in posts:
            if post != target and f"{target.stem}.md)" in post.read_text(encoding="utf-8"):
                return target, post
    return None


@pytest.mark.slow
def test_changes_to_the_real_site_give_a_clean_builds_files(tmp_path: Path) -> None:
    site = _copy_site(tmp_path / "site")
    _build(site)
    found = _linked_post(site)
    if found is None:
        pytest.skip("no post links another by its file name")
    target, linker = found
    steps = [
        (
            "a linked post renamed",
            lambda: target.rename(target.with_name(f"renamed-{target.name}")),
        ),
        (
            "its old name given back",
            lambda: target.with_name(f"renamed-{target.name}").rename(target),
        ),
        ("a linked post deleted", target.unlink),
        ("a glossary entry given a second term", lambda: _add_term(site / "pages/glossary.md")),
        ("the listings' page size", lambda: _page_size(site / "conf.py")),
    ]
    for number, (name, change) in enumerate(steps):
        change()
        warned = _build(site)
        if name == "a linked post deleted":
            assert any(linker.name in line for line in warned), warned
        _assert_same_as_clean(site, warned, tmp_path / f"clean-{number}")


def _add_term(glossary: Path) -> None:
    text = glossary.read_text(encoding="utf-8")
    first = re.search(r"^```\{glossary\}\n(?::\w+:.*\n)*\n?([^\s].*)\n", text, re.MULTILINE)
    assert first, "the glossary has no entry"
    term = first.group(1)
    glossary.write_text(text.replace(f"\n{term}\n", f"\n{term}\n{term} too\n", 1), "utf-8")


def _page_size(conf: Path) -> None:
    text = conf.read_text(encoding="utf-8")
    size = int(re.search(r"^kb_page_size = (\d+)", text, re.MULTILINE).group(1))
    conf.write_text(text.replace(f"kb_page_size = {size}", f"kb_page_size = {size + 1}"), "utf-8")
