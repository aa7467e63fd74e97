"""Browser fixtures: the real site, built once, served on 127.0.0.1, driven by Chromium.

Playwright drives Debian's Chromium (``/usr/bin/chromium``); Playwright's own browser
download does not work offline, so we never rely on it. Every request that would leave
127.0.0.1 is blocked and recorded, and tests assert that there were none.
With ``CI=true`` a missing Chromium fails the run instead of skipping it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built with warnings as errors, the way `make html` builds it."""
    out = tmp_path_factory.mktemp("site")
    cmd = [
        sys.executable,
        "-m",
        "sphinx",
        "-nW",
        "--keep-going",
        "-q",
        "-b",
        "html",
        str(REPO),
        str(out / "html"),
        "-d",
        str(out / "doctrees"),
    ]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
    return out / "html"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site_url(built_site) -> str:
    """Base URL (ending in /) of the built site served on 127.0.0.1."""
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    if not (Path(CHROMIUM).exists() and shutil.which(CHROMIUM)):
        message = f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class OffsiteRequests(list):
    """Requests the page tried to send anywhere but 127.0.0.1 (all of them blocked)."""


@pytest.fixture
def offsite() -> OffsiteRequests:
    return OffsiteRequests()


@pytest.fixture
def context_factory(browser, offsite):
    """Make browser contexts (viewport, colour scheme, …) that never leave 127.0.0.1."""
    contexts = []

    def make(**options):
        context = browser.new_context(**options)

        def guard(route):
            host = urlparse(route.request.url).hostname
            if route.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
                route.continue_()
            else:
                offsite.append(route.request.url)
                route.abort()

        context.route("**/*", guard)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(context_factory):
    """A desktop page; console errors are collected on ``page.console_errors``."""
    context = context_factory(viewport={"width": 1280, "height": 900})
    new_page = context.new_page()
    new_page.console_errors = []
    new_page.on(
        "console", lambda msg: msg.type == "error" and new_page.console_errors.append(msg.text)
    )
    new_page.on("pageerror", lambda exc: new_page.console_errors.append(str(exc)))
    return new_page
