"""Shared fixtures: Sphinx's testing fixtures over the tiny sites under tests/roots/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["sphinx.testing.fixtures"]
collect_ignore = ["roots"]

ROOTS = Path(__file__).parent / "roots"
REPO = Path(__file__).parent.parent


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return ROOTS


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built once per session with warnings as errors, as `make html` does."""
    out = tmp_path_factory.mktemp("site")
    sphinx = [sys.executable, "-m", "sphinx", "-nW", "--keep-going", "-q", "-b", "html"]
    folders = [str(REPO), str(out / "html"), "-d", str(out / "doctrees")]
    result = subprocess.run([*sphinx, *folders], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
    return out / "html"
