"""The test harness itself: what ``tests/conftest.py`` promises about coverage."""

from __future__ import annotations

import os

import coverage
import pytest


@pytest.mark.slow
def test_coverage_is_paused_in_the_slow_tier():
    """Under ``make test`` (coverage on) a ``slow`` test runs untraced, and the builds it starts
    are not measured either; in a run without coverage both hold trivially."""
    assert coverage.Coverage.current() is None
    assert "COVERAGE_PROCESS_CONFIG" not in os.environ
