"""Smoke test of the real site in Chromium: home, a post, a category page."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def test_home_to_post_to_category(page, site_url, offsite):
    page.goto(site_url)
    expect(page.locator("h1").first).to_contain_text("GPU Kernel Notes")
    first = page.locator(".kb-entry").first
    title = first.locator(".kb-entry-title a").inner_text()
    first.get_by_role("link", name="Go to article…").click()
    expect(page.locator("article h1").first).to_contain_text(title)
    page.locator(".kb-post-meta a.kb-category").first.click()
    expect(page).to_have_url(re.compile(r"/blog/category/[a-z-]+\.html$"))
    expect(page.locator("article h1").first).to_have_text(re.compile(r"^Category: "))
    assert page.locator(".kb-entry").count() >= 1
    assert offsite == []
    assert page.console_errors == []


def test_a_request_to_another_host_is_recorded_and_never_sent(page, site_url, offsite):
    """The harness itself: what every test's ``offsite == []`` relies on. A host name and an IP
    address are both recorded, and both fail at the browser's dead proxy (so neither was looked
    up nor sent); 127.0.0.1 is served."""
    failures = {}
    page.on("requestfailed", lambda request: failures.update({request.url: request.failure}))
    page.goto(site_url)
    others = sorted(["http://example.com/a.png", "http://192.0.2.1/b.png"])
    first, second = (lambda request, url=url: request.url == url for url in others)
    with page.expect_event("requestfailed", first), page.expect_event("requestfailed", second):
        page.evaluate(
            "urls => urls.forEach(url => { const image = new Image(); image.src = url; })",
            others,
        )
    assert sorted(offsite) == others
    assert failures == dict.fromkeys(others, "net::ERR_PROXY_CONNECTION_FAILED")
    assert page.evaluate("fetch(location.href).then(response => response.status)") == 200
