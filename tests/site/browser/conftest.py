"""Browser fixtures: the real site, built once, served on 127.0.0.1, driven by Chromium.

Playwright drives Debian's Chromium (``/usr/bin/chromium``); Playwright's own browser
download does not work offline, so we never rely on it. Every request that would leave
127.0.0.1 is blocked (Chromium sends it to a proxy on a closed port of 127.0.0.1, and goes
straight only to 127.0.0.1 itself) and recorded, and tests assert that there were none.
With ``CI=true`` a missing Chromium fails the run instead of skipping it.
"""

from __future__ import annotations

import functools
import json
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


class _OffsiteRecorder:
    """Records each request a context sends to another host, into the running test's list.

    Recorded when it starts, not when it fails: a request for another loopback name (localhost,
    [::1]) skips the proxy as 127.0.0.1 does, and may well succeed."""

    def __init__(self, offsite: OffsiteRequests) -> None:
        self.offsite = offsite

    def __call__(self, request) -> None:
        host = urlparse(request.url).hostname
        if host is not None and host != "127.0.0.1":
            self.offsite.append(request.url)


def _favicon_probe(url: str) -> bool:
    """Chromium asks the server for /favicon.ico by itself when a page names no icon, and
    logs the 404 when it arrives before the test ends: the browser's request, not the page's."""
    return urlparse(url).path == "/favicon.ico"


def _collect_console_errors(page) -> None:
    """Console errors and uncaught exceptions of ``page``, on ``page.console_errors``."""
    page.console_errors = []
    page.on(
        "console",
        lambda msg: (
            msg.type == "error"
            and not _favicon_probe(msg.location.get("url") or "")
            and page.console_errors.append(f"{msg.text} ({msg.location.get('url')})")
        ),
    )
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))


@pytest.fixture
def context_factory(browser, offsite):
    """Make browser contexts (viewport, colour scheme, …) that never leave 127.0.0.1: the
    browser blocks any other host (``CHROMIUM_ARGS``), and each request for one is recorded.
    Each is new and closed after the test: for tests that change a context (permissions, init
    scripts, routes) or need two at once."""
    contexts = []

    def make(**options):
        context = browser.new_context(**options)
        context.on("request", _OffsiteRecorder(offsite))
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


#: What a test may not do to a kept tab (it would outlive the test): use ``fresh_page``.
_CHANGES_A_TAB_KEEPS = (
    "add_init_script",
    "route",
    "route_from_har",
    "expose_binding",
    "expose_function",
    "set_extra_http_headers",
    "set_viewport_size",
    "emulate_media",
    "set_default_timeout",
    "set_default_navigation_timeout",
)


class _KeptTab:
    """One tab of the browser, kept open from test to test, in a context of its own options.

    A new context and page cost more than most tests that use them (a renderer process, every
    stylesheet, script, font and Pagefind's WebAssembly fetched and compiled again: 0.4 s a
    page against 0.07 s for a page in a kept tab, in Chromium 156 on 2 cores). So a test gets a
    kept tab that is as a new one would be, but for the browser's HTTP cache: on an empty page,
    with no cookie or stored data of any origin, no listener of an earlier test, its own
    ``console_errors`` and its own ``offsite`` list. What would outlive the test (init scripts,
    routes, another viewport) is refused with the name of the fixture that allows it."""

    def __init__(self, browser, options: dict) -> None:
        self.context = browser.new_context(**options)
        self.recorder = _OffsiteRecorder(OffsiteRequests())
        self.context.on("request", self.recorder)
        self.page = self.context.new_page()
        _collect_console_errors(self.page)
        self.cdp = self.context.new_cdp_session(self.page)
        self.listeners: list[tuple[str, object]] = []
        keep = self.page.on

        def on(event, handler):
            self.listeners.append((event, handler))
            return keep(event, handler)

        self.page.on = on
        self.page.once = self._refused("once")
        for name in _CHANGES_A_TAB_KEEPS:
            setattr(self.page, name, self._refused(name))

    @staticmethod
    def _refused(name: str):
        def refuse(*args, **kwargs):
            raise AssertionError(
                f"page.{name}() would change a tab that later tests are given: "
                "use the fresh_page fixture (or context_factory) for this test"
            )

        return refuse

    def lend(self, offsite: OffsiteRequests):
        self.recorder.offsite = offsite
        self.page.console_errors.clear()
        return self.page

    def give_back(self) -> None:
        """Forget the test: its listeners, its stored data, its page."""
        for event, handler in self.listeners:
            self.page.remove_listener(event, handler)
        self.listeners.clear()
        self.page.goto("about:blank")
        for origin in self.context.storage_state()["origins"]:
            self.cdp.send(
                "Storage.clearDataForOrigin", {"origin": origin["origin"], "storageTypes": "all"}
            )
        self.context.clear_cookies()
        self.recorder.offsite = OffsiteRequests()

    def usable(self) -> bool:
        return not self.page.is_closed()


@pytest.fixture(scope="session")
def _kept_tabs(browser):
    """The kept tabs of this process, by their context options (see ``_KeptTab``)."""
    tabs: dict[str, list[_KeptTab]] = {}
    yield tabs
    for kept in tabs.values():
        for tab in kept:
            tab.context.close()


@pytest.fixture
def open_page(browser, _kept_tabs, offsite):
    """Open a page with the given context options (``viewport``, ``color_scheme``, …): a kept
    tab (``_KeptTab``), empty, with console errors and uncaught exceptions collected on
    ``page.console_errors`` and requests to other hosts on ``offsite``."""
    lent: list[_KeptTab] = []

    def make(**context_options):
        key = json.dumps(context_options, sort_keys=True)
        kept = _kept_tabs.setdefault(key, [])
        kept[:] = [tab for tab in kept if tab.usable()]
        tab = next((tab for tab in kept if tab not in lent), None)
        if tab is None:
            tab = _KeptTab(browser, context_options)
            kept.append(tab)
        lent.append(tab)
        return tab.lend(offsite)

    yield make
    for tab in lent:
        if tab.usable():
            tab.give_back()


@pytest.fixture
def fresh_page(context_factory):
    """A desktop page in a new context of its own, for a test that changes its page or context
    (init scripts, routes, viewport) in ways a kept tab must not carry to the next test."""
    new_page = context_factory(viewport=DESKTOP).new_page()
    _collect_console_errors(new_page)
    return new_page


@pytest.fixture
def page(open_page):
    """A desktop page; console errors are collected on ``page.console_errors``."""
    return open_page(viewport=DESKTOP)


@pytest.fixture
def phone(open_page):
    """A phone-sized page (390×844, touch), as a reader on a phone sees the site."""
    return open_page(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)


#: The axe-core release ``make test`` installs from npm (``AXE_VERSION`` in the Makefile).
AXE_JS = "KB_AXE_JS"


@pytest.fixture(scope="session")
def axe():
    """axe-core, as axe-playwright-python runs it: the release ``make test`` installs from npm
    (``KB_AXE_JS``), which checks a page in 60% of the time of the one the Python package bundles
    (4.14 against 4.12: the whole site's walk, 24 s against 38 s of axe); without it (a plain
    ``pytest``), the bundled one, and under ``CI=true`` the run fails instead."""
    from axe_playwright_python.sync_playwright import Axe

    checker = Axe()
    given = os.environ.get(AXE_JS)
    if given:
        checker.axe_script = Path(given).read_text(encoding="utf-8")
    elif os.environ.get("CI") == "true":
        pytest.fail(f"{AXE_JS} names no axe-core script: run the suite with make test")
    return checker


@pytest.fixture(scope="session")
def screenshots_dir() -> Path:
    """Where the test run leaves screenshots for a person to look at (not committed)."""
    folder = REPO / "_build" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
