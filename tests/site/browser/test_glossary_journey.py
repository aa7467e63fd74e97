"""From a post to the glossary and back, in Chromium: a reader follows a {term} link to its
entry, finds the post under the entry's "Used in", and follows it home. The post is the first
published one whose source links a term, so a fork's own posts drive it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sitefacts import ALL_POSTS, docname, published, title_of

from kb.checks.glossary import term_references


def _a_post_with_a_term() -> str:
    for path in ALL_POSTS:
        text = path.read_text(encoding="utf-8") if path.suffix == ".md" else ""
        if published(path) and term_references(text):
            return docname(path)
    pytest.skip("no published post links a glossary term")


def test_a_term_link_leads_to_the_glossary_and_back(page, site_url, offsite):
    post = _a_post_with_a_term()
    title = title_of(next(p for p in ALL_POSTS if docname(p) == post))
    page.goto(f"{site_url}{post}.html")
    link = page.locator('article[role="main"] a[href*="glossary.html#term-"]').first
    href = link.get_attribute("href")
    link.click()
    expect(page).to_have_url(re.compile(r"/pages/glossary\.html#term-[\w-]+$"))
    anchor = page.url.split("#", 1)[1]
    entry = page.locator(f"dt#{anchor}")
    expect(entry).to_be_in_viewport()
    assert href.endswith(f"#{anchor}")
    # The entry's definition follows its terms (an entry may have several).
    used_in = page.locator(f"dt#{anchor} ~ dd").first.locator(".kb-term-uses")
    expect(used_in).to_contain_text("Used in:")
    used_in.get_by_role("link", name=title, exact=True).click()
    expect(page).to_have_url(re.compile(rf"/{re.escape(post)}\.html$"))
    expect(page.locator("article h1").first).to_contain_text(title)
    assert offsite == []
    assert page.console_errors == []
