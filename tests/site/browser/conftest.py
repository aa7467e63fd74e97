"""Browser fixtures: the real site, built once, served on 127.0.0.1, driven by Chromium.

Playwright drives Debian's Chromium (``/usr/bin/chromium``); Playwright's own browser
download does not work offline, so we never rely on it. Every request that would leave
127.0.0.1 is blocked (Chromium sends it to a proxy on a closed port of 127.0.0.1, and goes
straight only to 127.0.0.1 itself) and recorded, and tests assert that there were none.
With ``CI=true`` a missing Chromium fails the run instead of skipping it.
"""

from __future__ import annotations

import functools
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

import pytest

REPO = Path(__file__).resolve().parents[3]
CHROMIUM = "/usr/bin/chromium"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Blocks every request to another host, IP addresses included: Chromium never sends
    # 127.0.0.1 through a proxy, and nothing listens on port 9. (A Playwright route would
    # block them too, but it hands every request to Python and turns off the HTTP cache: a
    # page then costs 25% more CPU, and the browser tier is CPU-bound.)
    "--proxy-server=127.0.0.1:9",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/site/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serves the built site quietly; a missing page gets the site's 404 page, as on a host."""

    def log_message(self, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        not_found_page = Path(self.directory) / "404.html"
        if code != 404 or not not_found_page.is_file():
            return super().send_error(code, message, explain)
        body = not_found_page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@pytest.fixture(scope="session")
def site_url(built_site) -> str:
    """Base URL (ending in /) of the built site served on 127.0.0.1."""
    handler = functools.partial(_SiteHandler, directory=str(built_site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="session")
def browser(playwright):
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
    """Make browser contexts (viewport, colour scheme, …) that never leave 127.0.0.1: the
    browser blocks any other host (``CHROMIUM_ARGS``), and each request for one is recorded.

    Recorded when it starts, not when it fails: a request for another loopback name (localhost,
    [::1]) skips the proxy as 127.0.0.1 does, and may well succeed."""
    contexts = []

    def record(request):
        host = urlparse(request.url).hostname
        if host is not None and host != "127.0.0.1":
            offsite.append(request.url)

    def make(**options):
        context = browser.new_context(**options)
        context.on("request", record)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


def _favicon_probe(url: str) -> bool:
    """Chromium asks the server for /favicon.ico by itself when a page names no icon, and
    logs the 404 when it arrives before the test ends: the browser's request, not the page's."""
    return urlparse(url).path == "/favicon.ico"


@pytest.fixture
def open_page(context_factory):
    """Open a page in a new context (``viewport``, ``color_scheme``, …); console errors and
    uncaught exceptions are collected on ``page.console_errors``."""

    def make(**context_options):
        new_page = context_factory(**context_options).new_page()
        new_page.console_errors = []
        new_page.on(
            "console",
            lambda msg: (
                msg.type == "error"
                and not _favicon_probe(msg.location.get("url") or "")
                and new_page.console_errors.append(f"{msg.text} ({msg.location.get('url')})")
            ),
        )
        new_page.on("pageerror", lambda exc: new_page.console_errors.append(str(exc)))
        return new_page

    return make


@pytest.fixture
def page(open_page):
    """A desktop page; console errors are collected on ``page.console_errors``."""
    return open_page(viewport=DESKTOP)


@pytest.fixture
def phone(open_page):
    """A phone-sized page (390×844, touch), as a reader on a phone sees the site."""
    return open_page(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)


@pytest.fixture(scope="session")
def screenshots_dir() -> Path:
    """Where the test run leaves screenshots for a person to look at (not committed)."""
    folder = REPO / "_build" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
