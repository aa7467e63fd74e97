"""The pages of issue 21 in Chromium: the feeds page, the archive, a Benchmarks post with its
charts, and the search page showing a hit inside an equation: no serious or critical axe
violation in either theme, and the subscribe link works.

(tests/site/browser/test_accessibility.py covers the other kinds of page.)
"""

from __future__ import annotations

from urllib.parse import urljoin

import pytest
from axe_playwright_python.sync_playwright import Axe
from helpers import sidebar_filled
from playwright.sync_api import expect
from sitefacts import EXPECT, categories_in_use, has_text, require_posts

from kb.checks.slugs import slugify

BLOCKING = {"serious", "critical"}
PAGES = {
    "feeds": ("feeds.html", ".kb-feed-urls"),
    "archive": ("blog/archive.html", ".kb-archive-posts"),
    "benchmarks-post": (EXPECT["pages"]["benchmarks"] + ".html", "svg.kb-chart"),
    "search-math": ("search.html?q=frac", ".kb-search-result-excerpt"),
}


def blocking_violations(axe: Axe, page) -> list[str]:
    sidebar_filled(page)
    found = axe.run(page).response["violations"]
    return [
        f"{rule['impact']}: {rule['id']} at {[' '.join(n['target']) for n in rule['nodes']][:5]}"
        for rule in found
        if rule["impact"] in BLOCKING
    ]


@pytest.mark.parametrize("kind", PAGES)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_violations(axe, open_page, site_url, offsite, kind, scheme):
    page = open_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    url, ready = PAGES[kind]
    if kind == "benchmarks-post":
        require_posts(EXPECT["pages"]["benchmarks"])
    if kind == "search-math" and not has_text("\\frac"):
        pytest.skip("no post of this site has a formula with \\frac to search for")
    page.goto(site_url + url)
    page.locator(ready).first.wait_for()
    assert blocking_violations(axe, page) == []
    assert offsite == []
    assert page.console_errors == []


def test_sidebar_subscribe_leads_to_the_feeds(page, site_url, offsite):
    url = site_url + f"blog/category/{slugify(categories_in_use()[0])}.html"
    page.goto(url)
    sidebar = page.locator(".sidebar-drawer .kb-subscribe")
    expect(sidebar.get_by_role("heading")).to_have_text("Subscribe")
    expect(sidebar.get_by_role("link", name="RSS")).to_be_visible()
    # The category's own feed, from the line under its heading, is an RSS document.
    own = page.locator("article .kb-subscribe-line").get_by_role("link", name="RSS")
    response = page.request.get(urljoin(url, own.get_attribute("href")))
    assert response.ok and b"<rss" in response.body()
    sidebar.get_by_role("link", name="All feeds").click()
    expect(page.locator("article h1")).to_have_text("Feeds")
    first = page.locator(".kb-feed-urls a").first.inner_text()
    assert first.startswith("https://") and first.endswith("/feeds/rss.xml")
    assert offsite == []
