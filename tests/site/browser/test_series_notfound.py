"""In Chromium: reading a series part to part, and the 404 page at a deep missing URL."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sitefacts import EXPECT, docname, position_text, require_posts, series


def test_series_box_leads_through_the_tutorial(page, site_url):
    first = EXPECT["pages"]["series_first_part"]
    require_posts(first)
    name = next(name for name, members in series().items() if docname(members[0]) == first)
    members = series()[name]
    page.goto(f"{site_url}{first}.html")
    box = page.locator("aside.kb-series-box")
    expect(box.locator(".kb-series-position")).to_have_text(position_text(members[0], name))
    # Right under the post's header, above the body: visible without scrolling.
    assert box.bounding_box()["y"] < page.viewport_size["height"]
    for member in members[1:]:
        page.locator("aside.kb-series-box a[rel=next]").click()
        expect(page.locator(".kb-series-position")).to_have_text(position_text(member, name))
    expect(page.locator("aside.kb-series-box a[rel=next]")).to_have_count(0)
    page.locator(".kb-series-position a").click()
    expect(page.locator("article h1").first).to_have_text(name)
    expect(page.locator(".kb-series-member")).to_have_count(len(members))
    # Blocked off-site loads (a CDN, another module's concern) aside, no script errors.
    assert [e for e in page.console_errors if "net::ERR_FAILED" not in e] == []


class _NotFoundHandler(SimpleHTTPRequestHandler):
    """Serves the site's 404.html for any missing path, as Read the Docs and most hosts do."""

    def log_message(self, *args):
        pass

    def send_error(self, code, message=None, explain=None):
        if code != 404:
            return super().send_error(code, message, explain)
        body = (Path(self.directory) / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def site_with_404(built_site):
    handler = functools.partial(_NotFoundHandler, directory=str(built_site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_404_page_is_styled_and_its_links_work_at_depth(page, site_with_404, offsite):
    failed = []
    page.on("response", lambda r: r.status >= 400 and failed.append(r.url))
    response = page.goto(f"{site_with_404}posts/2025/no-such-post/deeper/page.html")
    assert response.status == 404
    expect(page.locator("article h1")).to_have_text("Page not found")
    # furo's stylesheet applied: its sidebar sits beside the content, not above it.
    sidebar = page.locator(".sidebar-drawer").bounding_box()
    content = page.locator("article").bounding_box()
    assert sidebar["x"] + sidebar["width"] <= content["x"]
    # Only the page itself was missing; every stylesheet, script and image loaded.
    assert failed == [response.url]
    page.locator("article").get_by_role("link", name="all posts").click()
    expect(page).to_have_url(f"{site_with_404}blog.html")
    expect(page.locator("article h1").first).to_have_text("All posts")
    assert offsite == []
