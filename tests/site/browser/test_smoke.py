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
