"""Smoke test of the real site in Chromium: home, a post, a category page."""

from __future__ import annotations

import re

import pytest
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


def test_a_kept_tab_is_lent_as_a_new_one_would_be(browser, site_url):
    """The harness again: what ``open_page`` lends a later test carries nothing of an earlier
    one but the HTTP cache (``_KeptTab``): no stored data, no cookie, no listener, no console
    error, requests to other hosts recorded for the new test only; and a change that would
    outlive the test is refused."""
    from conftest import OffsiteRequests, _KeptTab

    tab = _KeptTab(browser, {"viewport": {"width": 800, "height": 600}})
    try:
        earlier, later = OffsiteRequests(), OffsiteRequests()
        page = tab.lend(earlier)
        heard = []
        page.on("console", lambda msg: heard.append(msg.text))
        page.goto(site_url)
        page.evaluate(
            "() => { localStorage.setItem('theme', 'dark'); document.cookie = 'seen=1';"
            " console.error('from the earlier test'); new Image().src = 'http://example.com/x'; }"
        )
        page.wait_for_function("() => true")
        assert page.console_errors and earlier == ["http://example.com/x"]
        tab.give_back()

        page = tab.lend(later)
        assert page.url == "about:blank" and page.console_errors == []
        page.goto(site_url)
        assert page.evaluate("localStorage.getItem('theme')") is None
        assert page.evaluate("document.cookie") == ""
        assert page.evaluate("document.documentElement.dataset.theme") != "dark"
        page.evaluate("console.log('to nobody')")
        page.wait_for_function("() => true")
        assert "from the earlier test" in heard and "to nobody" not in heard
        assert later == [] and earlier == ["http://example.com/x"]
        with pytest.raises(AssertionError, match="fresh_page"):
            page.add_init_script("window.x = 1")
    finally:
        tab.context.close()
