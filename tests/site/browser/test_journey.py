"""A reader's way through the real site in Chromium, on a desktop and on a phone.

Every journey ends by asserting that the pages logged no console error and sent no request
beyond 127.0.0.1 (the ``offsite`` guard blocks and records them).
"""

from __future__ import annotations

import re

import pytest
from helpers import representative_pages
from playwright.sync_api import expect

POST_URL = re.compile(r"/posts/\d{4}/[\w-]+\.html")
# Search results, whichever engine writes them: Sphinx's list or Pagefind's UI, both inside
# the page's main article.
SEARCH_RESULT = 'article[role="main"] a[href*="posts/"]'
# The series box of a post (kb.series): its link to the next part.
SERIES_NEXT = '[class*="series"] a[rel~="next"]'


def assert_clean(page, offsite) -> None:
    assert offsite == []
    assert page.console_errors == []


def body_luminance(page) -> float:
    """Relative luminance (0 black … 1 white) of the page's computed background."""
    return page.evaluate(
        """() => {
            const rgb = getComputedStyle(document.body).backgroundColor.match(/[\\d.]+/g);
            const [r, g, b] = rgb.slice(0, 3).map(Number).map(c => c / 255);
            return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        }"""
    )


def open_category_older_page(page, site_url) -> None:
    """Home → the sidebar's first category → its older posts (the page after its own)."""
    page.goto(site_url)
    expect(page.locator("article h1").first).to_contain_text("GPU Kernel Notes")
    page.locator(".kb-sidebar a[href*='/category/']").first.click()
    expect(page).to_have_url(re.compile(r"/blog/category/[\w-]+\.html$"))
    expect(page.locator("article h1").first).to_have_text(re.compile(r"^Category: "))
    assert page.locator(".kb-entry").count() >= 1
    if not page.locator(".kb-pagination").count():
        pytest.skip("the first category's posts fit on one page: there is no older page to visit")
    page.locator(".kb-pagination").get_by_role("link", name="Older posts →").click()
    # Numbered from the oldest: the page after the newest posts has the highest number.
    expect(page).to_have_url(re.compile(r"/blog/category/[\w-]+/page/\d+\.html$"))
    number = re.search(r"/page/(\d+)\.html$", page.url)[1]
    expect(page.locator("article h1").first).to_contain_text(f"(page {number}: ")
    expect(page.locator(".kb-pagination a[rel=prev]")).to_have_text("← Newer posts")


def test_home_category_older_page_post_search_result(page, site_url, offsite):
    open_category_older_page(page, site_url)
    entry = page.locator(".kb-entry").last
    title = entry.locator(".kb-entry-title a").inner_text()
    entry.get_by_role("link", name="Go to article…").click()
    expect(page).to_have_url(POST_URL)
    expect(page.locator("article h1").first).to_contain_text(title)

    # Search for a word of the post's title from the sidebar's search box.
    word = max(re.findall(r"[A-Za-z]{4,}", title), key=len)
    search = page.get_by_role("search").get_by_role("textbox")
    search.fill(word)
    search.press("Enter")
    expect(page).to_have_url(re.compile(r"/search\.html\?"))
    results = page.locator(SEARCH_RESULT)
    expect(results.first).to_be_visible(timeout=10_000)
    result_title = results.first.inner_text().strip()
    results.first.click()
    expect(page).to_have_url(POST_URL)
    expect(page.locator("article h1").first).to_contain_text(result_title)
    assert_clean(page, offsite)


def test_next_in_series(page, site_url, offsite):
    """From a post listed on a category's older page to the next part of its series."""
    open_category_older_page(page, site_url)
    hrefs = [
        link.get_attribute("href")
        for link in page.locator(".kb-entry-title a").all()
        if not link.get_attribute("rel")  # our own posts, not external ones
    ]
    for href in hrefs:
        page.goto(page.url.rsplit("/", 1)[0] + "/" + href)
        if page.locator(SERIES_NEXT).count():
            break
    else:
        pytest.skip("no post on the older page has a series box with a next part (no kb.series)")
    here = page.url
    target = page.locator(SERIES_NEXT).first.evaluate("link => link.href")
    page.locator(SERIES_NEXT).first.click()
    expect(page).to_have_url(target)
    assert POST_URL.search(page.url) and page.url != here
    expect(page.locator("article h1").first).to_be_visible()
    # The next part links back to the one we came from.
    back = page.locator('[class*="series"] a[rel~="prev"]').first
    assert back.evaluate("link => link.href") == here
    assert_clean(page, offsite)


def wait_for_theme(page, theme: str) -> None:
    """furo applies the stored theme from a script as the page loads: wait for it, don't race."""
    page.wait_for_function(f"document.body.dataset.theme === '{theme}'", timeout=5000)


def test_dark_mode_persists_across_pages(open_page, site_url, offsite):
    page = open_page(viewport={"width": 1280, "height": 900}, color_scheme="light")
    page.goto(site_url)
    page.wait_for_load_state("load")
    assert body_luminance(page) > 0.8
    toggle = page.locator(".theme-toggle-content .theme-toggle")
    for _ in range(3):  # furo cycles auto → dark → light (on a light system)
        before = page.evaluate("document.body.dataset.theme || ''")
        if before == "dark":
            break
        toggle.click()
        page.wait_for_function(f"(document.body.dataset.theme || '') !== '{before}'")
    wait_for_theme(page, "dark")
    assert body_luminance(page) < 0.1

    page.locator(".kb-entry-title a").first.click()
    expect(page).to_have_url(POST_URL)
    wait_for_theme(page, "dark")
    assert body_luminance(page) < 0.1
    page.locator(".kb-sidebar a[href*='/tag/']").first.click()
    expect(page.locator("article h1").first).to_have_text(re.compile(r"^Tag: "))
    wait_for_theme(page, "dark")
    assert body_luminance(page) < 0.1
    assert_clean(page, offsite)


DRAWER_BOX = "document.querySelector('.sidebar-drawer').getBoundingClientRect()"


def drawer_left(page) -> float:
    return page.evaluate(f"{DRAWER_BOX}.left")


def test_phone_navigation_drawer(phone, site_url, offsite):
    page = phone
    page.goto(site_url)
    drawer = page.locator(".sidebar-drawer")
    assert drawer_left(page) < 0  # off screen until asked for
    page.locator(".mobile-header .nav-overlay-icon").click()
    page.wait_for_function(f"{DRAWER_BOX}.left >= 0")
    expect(drawer.get_by_role("search").get_by_role("textbox")).to_be_visible()

    # Tapping beside the drawer closes it again.
    page.mouse.click(380, 400)
    page.wait_for_function(f"{DRAWER_BOX}.right <= 0")

    page.locator(".mobile-header .nav-overlay-icon").click()
    category = drawer.locator(".kb-sidebar a[href*='/category/']").last
    expect(category).to_be_visible()
    name = category.inner_text()
    category.click()
    expect(page).to_have_url(re.compile(r"/blog/category/[\w-]+\.html$"))
    expect(page.locator("article h1").first).to_have_text(f"Category: {name}")
    assert drawer_left(page) < 0
    assert_clean(page, offsite)


@pytest.mark.parametrize("kind", ["home", "post", "category"])
def test_phone_pages_fit_the_screen(phone, site_url, built_site, kind):
    phone.goto(site_url + representative_pages(built_site)[kind])
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= phone.viewport_size["width"]
