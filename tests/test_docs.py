"""The guides (docs/), the README and the build log a newcomer reads.

- The guides build with ``-nW``, and the generated reference lists every ``kb_*`` setting
  (type, default, what it does) and every message code (example, fix).
- Nothing under docs/ is a page of the site.
- The README stays short, in the issue's order, and the commands it gives exist.
- The messages name what an author edits in conf.py; conf.py's comments name modules that exist.
- A successful build is a few lines; a rebuild with nothing changed says nothing changed.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from string import Formatter

import pytest
from bs4 import BeautifulSoup

from kb.checks.examples import EXAMPLES
from kb.checks.messages import MESSAGES
from kb.cli.main import parser as kb_parser
from kb.config import KbConfig
from kb.site import open_site

REPO = Path(__file__).parent.parent
ROOTS = Path(__file__).parent / "roots"
SRC = REPO / "src"
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    "SOURCE_DATE_EPOCH": "1767225600",  # 2026-01-01: the build log root's post is published
}


def sphinx(*args: str) -> subprocess.CompletedProcess:
    """``python -m sphinx ARGS`` as a user runs it: its log is what a user reads."""
    command = [sys.executable, "-m", "sphinx", *args]
    return subprocess.run(command, capture_output=True, text=True, env=ENV, check=False)


# -- The guides ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guides(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("guides")
    result = sphinx(
        "-nW", "--keep-going", "-q", "-b", "html", "-d", str(out / "doctrees"), "docs",
        str(out / "html"),
    )  # fmt: skip
    return out / "html", result


def page(html: Path, name: str) -> BeautifulSoup:
    return BeautifulSoup((html / f"{name}.html").read_text(encoding="utf-8"), "lxml")


def test_the_guides_build_without_a_warning(guides):
    html, result = guides
    assert (result.returncode, result.stderr) == (0, "")
    for name in ("index", "author/index", "maintainer/index", "reference/index"):
        assert (html / f"{name}.html").is_file()


@pytest.mark.parametrize(
    "name",
    [
        "author/posts", "author/commands", "author/notebooks", "author/benchmarks",
        "author/series", "author/pages", "author/import", "author/safety", "author/fork",
        "maintainer/architecture", "maintainer/tests", "maintainer/benchmarks",
        "maintainer/publishing",
    ],
)  # fmt: skip
def test_each_guide_is_in_the_navigation(guides, name):
    html, _ = guides
    links = {a["href"] for a in page(html, "index").select(".sidebar-tree a[href]")}
    assert f"{name}.html" in links


def test_the_architecture_guide_includes_the_map_of_the_extension(guides):
    html, _ = guides
    text = " ".join(page(html, "maintainer/architecture").select_one("article").get_text().split())
    first_heading = (SRC / "kb/README.md").read_text(encoding="utf-8").splitlines()[0]
    assert first_heading.lstrip("# ").replace("`", "") in text
    assert "Floors" in text


def test_every_setting_is_in_the_reference_with_its_type_default_and_doc(guides):
    html, _ = guides
    soup = page(html, "reference/settings")
    for field in fields(KbConfig):
        entry = soup.find(id=f"confval-kb_{field.name}")
        assert entry is not None, f"kb_{field.name} is not in the reference"
        text = entry.find_parent("dl").get_text(" ", strip=True)
        default = list(field.default) if isinstance(field.default, tuple) else field.default
        assert f"Default : {default!r}" in text, text
        assert "Type :" in text
        # The #: comment of the field, not an empty entry.
        description = entry.find_parent("dl").select_one("dd > p")
        assert description is not None and len(description.get_text()) > 15


def test_every_message_code_is_in_the_reference_with_an_example_and_a_fix(guides):
    html, _ = guides
    soup = page(html, "reference/messages")
    for code, text in MESSAGES.items():
        target = soup.find(id=f"message-{code.replace('_', '-')}")
        assert target is not None, f"message {code} is not in the reference"
        section = target if target.name == "section" else target.find_parent("section")
        shown = section.get_text(" ")
        assert code in shown
        example = EXAMPLES[code]
        message = text.format(**example.values)
        assert f"{example.where}:{example.line}: {message}" in shown
        assert "The fix:" in shown


def test_every_message_has_an_example_that_fills_it():
    assert set(EXAMPLES) == set(MESSAGES)
    for code, example in EXAMPLES.items():
        wanted = {name for _, name, _, _ in Formatter().parse(MESSAGES[code]) if name}
        assert wanted <= set(example.values), code  # every placeholder filled
        assert example.fix or example.fix_source, code


def test_nothing_under_docs_is_a_page_of_the_site():
    documents = open_site(REPO).documents()
    assert documents  # the site is found
    assert not [name for name in documents if name.startswith("docs/")]


def test_the_guides_can_be_published_on_read_the_docs():
    config = (REPO / "docs/.readthedocs.yaml").read_text(encoding="utf-8")
    assert "configuration: docs/conf.py" in config
    assert "fail_on_warning: true" in config


# -- The README ---------------------------------------------------------------------------------

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_at_most_10_kb():
    assert len(README.encode("utf-8")) <= 10240


def test_the_readme_goes_in_the_order_a_newcomer_needs():
    headings = re.findall(r"(?m)^## (.*)$", README)
    wanted = ["Two commands", "Look at the result", "A first post", "Configure a fork", "Where"]
    positions = [next(i for i, h in enumerate(headings) if h.startswith(w)) for w in wanted]
    assert positions == sorted(positions), headings


def test_the_readme_says_what_make_test_needs():
    two_commands = README.split("## Two commands")[1].split("\n## ")[0]
    for need in ("sudo", "apt", "Java", "npm", "Chromium", "min"):
        assert need in two_commands, need


def _commands() -> list[str]:
    blocks = re.findall(r"```(?:shell|console|sh)\n(.*?)```", README, re.S)
    lines = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def test_every_make_target_the_readme_gives_exists():
    targets = [shlex.split(line)[1] for line in _commands() if line.startswith("make ")]
    assert {"html", "test", "serve"} <= set(targets)
    for target in targets:
        result = subprocess.run(
            ["make", "-n", target], cwd=REPO, capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, (target, result.stderr)


def test_every_kb_command_the_readme_gives_parses():
    lines = [line for line in _commands() if line.startswith(("kb ", ".venv/bin/kb "))]
    assert {shlex.split(line)[1] for line in lines} >= {"new", "serve", "check"}
    for line in lines:
        kb_parser().parse_args(shlex.split(line)[1:])  # exits on a bad option


def test_the_readme_kb_new_names_a_category_and_an_author_of_the_site():
    conf = _conf_literals()
    new = next(line for line in _commands() if " new " in line)
    args = kb_parser().parse_args(shlex.split(new)[1:])
    assert set(args.category) <= set(conf["kb_categories"])
    assert set(args.author) <= set(conf["blog_authors"])


# -- One name for each thing --------------------------------------------------------------------


def _conf_literals() -> dict:
    """The values conf.py writes as literals, by name."""
    tree = ast.parse((REPO / "conf.py").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return found


def test_the_messages_name_what_the_author_edits_in_conf_py():
    conf = _conf_literals()
    # conf.py's author edits kb_categories and blog_authors themselves, not an alias of them.
    assert isinstance(conf.get("kb_categories"), list)
    assert isinstance(conf.get("blog_authors"), dict)
    assert "(kb_categories in conf.py)" in MESSAGES["unknown_category"]
    assert "(keys of blog_authors in conf.py)" in MESSAGES["unknown_author"]
    for text in (README, *(p.read_text(encoding="utf-8") for p in REPO.glob("docs/**/*.md"))):
        assert "AUTHORS" not in text.replace("AUTHORS.md", "")
        assert "CATEGORIES" not in text


def test_conf_py_points_only_at_modules_that_exist():
    conf = (REPO / "conf.py").read_text(encoding="utf-8")
    named = re.findall(r"src/kb/[\w/.]*\w", conf)
    assert named
    missing = [path for path in named if not (REPO / path).exists()]
    assert missing == []
    assert not re.search(r"\bkb\.(math|meta|feeds)\b(?!/)", conf)


# -- The build log ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory) -> tuple[str, str]:
    """The build log root built twice, nothing changed in between: both logs."""
    base = tmp_path_factory.mktemp("buildlog")
    srcdir = base / "site"
    shutil.copytree(ROOTS / "test-buildlog", srcdir)
    args = ("-nW", "--keep-going", "-b", "html", "-d", str(base / "doctrees"), str(srcdir),
            str(base / "html"))  # fmt: skip
    first, second = sphinx(*args), sphinx(*args)
    assert (first.returncode, first.stderr) == (0, "")
    assert (second.returncode, second.stderr) == (0, "")
    return first.stdout, second.stdout


def test_a_build_log_leaves_out_what_nobody_acts_on(two_builds):
    for log in two_builds:
        assert "MdParserConfig" not in log
        assert "Writing evaluated template result" not in log
        assert "copying downloadable files... 2 files\n" in log
        assert "posts/2026/data/one.csv" not in log
        assert max(len(line) for line in log.splitlines()) < 200


def test_a_rebuild_with_nothing_changed_says_so_in_a_few_lines(two_builds):
    _, second = two_builds
    assert "The configuration has changed" not in second
    assert "0 added, 0 changed, 0 removed" in second
    assert "no targets are out of date." in second
    assert len(second.splitlines()) <= 30, second
