"""Shared fixtures: Sphinx's testing fixtures over the tiny sites under tests/roots/, the real
site built once per run, and the tiers every test belongs to.

Tiers (markers, given here from where a test lives and what it uses, so no test file repeats
them): ``unit`` builds nothing; ``build`` builds tiny test roots; ``site`` reads the real site;
``browser`` drives Chromium against it; ``slow`` builds many times in one test (incremental
builds, stopped builds, ``kb serve``, the floor). ``make test`` runs them all, in parallel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import settings

pytest_plugins = ["sphinx.testing.fixtures"]

# Property tests draw the same examples on every CI run (a change is judged by what it changed,
# never by a new draw): CI=true loads this profile before any test module builds its settings.
# Hunting for new counterexamples is a local run without CI, with more examples
# (KB_AGREEMENT_EXAMPLES=500, KB_HOSTILE_EXAMPLES=200); each one found is kept as an @example.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI", "").lower() == "true":
    settings.load_profile("ci")
collect_ignore = ["roots"]

# Sphinx colours its messages whenever CI=true (CI sets it), even into a pipe; the tests read the
# words a user reads, so every build they run or start prints them plain.
os.environ["NO_COLOR"] = "1"

ROOTS = Path(__file__).parent / "roots"
REPO = Path(__file__).parent.parent

#: Fixtures that run a Sphinx build (tests using them are at least ``build``).
BUILD_FIXTURES = {"app", "make_app", "app_params", "shared_result"}
#: Modules of pure functions and commands on files: no Sphinx build.
UNIT_MODULES = {
    "test_upstream",
    "test_fileio",
    "test_frontmatter",
    "test_import",
}
#: Modules whose tests build a site several times each.
SLOW_MODULES = {
    "test_floor",
    "test_incremental",
    "test_serve",
    "test_buildcaches",
    "test_interrupted",
}


def _tier(item: pytest.Item) -> str:
    path = Path(str(item.fspath)).resolve().relative_to(REPO / "tests").as_posix()
    module = Path(path).stem
    if path.startswith("site/browser/") or item.get_closest_marker("browser"):
        return "browser"
    if path.startswith("site/") or "built_site" in item.fixturenames:
        return "site"
    if module in SLOW_MODULES or item.get_closest_marker("slow"):
        return "slow"
    if item.get_closest_marker("unit"):
        return "unit"
    if module in UNIT_MODULES and not BUILD_FIXTURES & set(item.fixturenames):
        return "unit"
    return "build"


def pytest_collection_modifyitems(config, items):
    for item in items:
        tier = _tier(item)
        if not item.get_closest_marker(tier):
            item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return ROOTS


CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="session")
def playwright():
    """One Playwright driver per test process, for every browser test (tests/site/browser,
    tests/hostile): its sync API keeps an event loop running in the process, so a second
    driver started beside it fails (\"Sync API inside the asyncio loop\")."""
    import shutil

    if not (Path(CHROMIUM).exists() and shutil.which(CHROMIUM)):
        message = f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        yield driver


def _shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every pytest-xdist worker of this run shares: ``KB_TEST_RUN_DIR`` when set
    (``make test`` gives both of its pytest runs one, so the real site is built once), else
    the run's base temp folder."""
    given = os.environ.get("KB_TEST_RUN_DIR")
    if given:
        Path(given).mkdir(parents=True, exist_ok=True)
        return Path(given)
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built once per run (once per ``make test``) with warnings as errors, as
    `make html` does.

    Under pytest-xdist the first worker to ask builds it while the others wait on a lock; they
    all read the same folder (tests never write into it). A failed build is remembered, so each
    worker reports the same errors instead of building again.
    """
    shared = _shared_folder(tmp_path_factory)
    out = shared / "real-site"
    verdict = shared / "real-site.json"
    with FileLock(str(shared / "real-site.lock")):
        if not verdict.exists():
            sphinx = [sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-q", "-b", "html"]
            folders = [str(REPO), str(out / "html"), "-d", str(out / "doctrees")]
            # A subprocess, so not measured by coverage: the figure ``make test`` enforces must
            # not depend on the sample posts (a fork that deletes them keeps it).
            result = subprocess.run([*sphinx, *folders], capture_output=True, text=True, cwd=REPO)
            record = {"returncode": result.returncode, "stderr": result.stderr}
            verdict.write_text(json.dumps(record), encoding="utf-8")
    record = json.loads(verdict.read_text(encoding="utf-8"))
    assert record["returncode"] == 0, record["stderr"]
    return out / "html"
