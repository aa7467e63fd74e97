"""axe-core (bundled with axe-playwright-python, so it runs offline) over every page.

No serious or critical violation is allowed, on any page of the built site at a desktop and
a phone width (light theme), and on each kind of page in both themes. Moderate and minor ones
are printed (``-s`` or a failure shows them) so that a person can judge them; the report
names the ones that stay.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from helpers import SIDEBAR_FILLED, representative_pages, sidebar_filled
from playwright.sync_api import expect
from sitefacts import ALL_POSTS, EXPECT, has_text, published

BLOCKING = {"serious", "critical"}
SEARCH_RESULT = 'article[role="main"] a[href*="posts/"]'
#: The widths every page is checked at (the phone as test_journey's ``phone`` fixture).
WIDTHS = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
#: Only violations, and no CSSOM preload (it fetches every stylesheet again on every page;
#: the one rule that needs it, css-orientation-lock, runs in the per-kind tests below).
WALK_OPTIONS = {"resultTypes": ["violations"], "preload": False}
#: Starts axe in the page (once the sidebar holds its lists) and returns at once, so that the
#: two widths' tabs (two renderer processes) check their page at the same time;
#: ``window.kbAxe`` is then awaited.
START_AXE = (
    "options => { window.kbAxe = ("
    + SIDEBAR_FILLED
    + ")().then(() => axe.run(document, options)); }"
)


def violations(axe: Axe, page) -> list[str]:
    """Serious and critical violations as readable lines, once the sidebar holds its lists;
    prints the rest."""
    sidebar_filled(page)
    found = axe.run(page).response["violations"]
    blocking, other = [], []
    for rule in found:
        targets = [" ".join(node["target"]) for node in rule["nodes"]][:5]
        line = f"{rule['impact']}: {rule['id']} ({rule['help']}) at {targets}"
        (blocking if rule["impact"] in BLOCKING else other).append(line)
    for line in other:
        print(f"{page.url}: {line}")
    return blocking


@pytest.mark.parametrize("kind", ["home", "post", "category", "tag"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_page_has_no_serious_violations(axe, open_page, site_url, built_site, kind, scheme):
    page = open_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    page.goto(site_url + representative_pages(built_site)[kind])
    assert violations(axe, page) == []


def every_page(site: Path) -> list[str]:
    """Every HTML page of the built site, except Pagefind's assets and the redirect pages of old
    addresses: a redirect leaves at once (``<meta http-equiv="refresh" content="0; …">``), so
    axe would run in a page that is gone; the page it leads to is checked."""
    return sorted(
        path.relative_to(site).as_posix()
        for path in site.rglob("*.html")
        if "pagefind" not in path.relative_to(site).parts
        and 'http-equiv="refresh"' not in path.read_text(encoding="utf-8")
    )


def test_every_page_at_desktop_and_phone_widths(
    axe, context_factory, site_url, built_site, offsite
):
    pages = every_page(built_site)
    assert len(pages) > len(list(filter(published, ALL_POSTS)))  # the whole site, no sample
    tabs = {}
    for width, options in WIDTHS.items():
        tabs[width] = context_factory(color_scheme="light", **options).new_page()
        tabs[width].add_init_script(axe.axe_script)  # in every page, before its own scripts
    blocking, other = [], Counter()
    started = time.monotonic()
    for path in pages:
        for tab in tabs.values():
            tab.goto(site_url + path)
            tab.evaluate(START_AXE, WALK_OPTIONS)
        for width, tab in tabs.items():
            for rule in tab.evaluate("window.kbAxe")["violations"]:
                targets = [" ".join(node["target"]) for node in rule["nodes"]][:3]
                if rule["impact"] in BLOCKING:
                    blocking.append(f"{path} ({width}): {rule['id']} ({rule['help']}) at {targets}")
                else:
                    other[f"{rule['impact']}: {rule['id']} ({width})"] += 1
    for line, count in sorted(other.items()):
        print(f"{line} on {count} pages")
    print(f"axe: {len(pages)} pages at {len(tabs)} widths in {time.monotonic() - started:.0f} s")
    assert blocking == []
    assert offsite == []


def series_page(site: Path) -> str | None:
    """A series page (kb.series), if the build has one: under a ``series`` folder."""
    pages = sorted(p for p in site.rglob("*.html") if "series" in p.relative_to(site).parts[:-1])
    return pages[0].relative_to(site).as_posix() if pages else None


def test_series_page(axe, page, site_url, built_site):
    path = series_page(built_site)
    if path is None:
        pytest.skip("the build has no series page yet (kb.series)")
    page.goto(site_url + path)
    assert violations(axe, page) == []


def test_search_results(axe, page, site_url):
    if not has_text(EXPECT["search"]["common_word"]):
        pytest.skip(f"no post has {EXPECT['search']['common_word']!r} (expectations.toml)")
    page.goto(site_url)
    search = page.get_by_role("search").get_by_role("textbox")
    search.fill(EXPECT["search"]["common_word"])
    search.press("Enter")
    expect(page.locator(SEARCH_RESULT).first).to_be_visible(timeout=10_000)
    assert violations(axe, page) == []


def test_not_found_page(axe, page, site_url, built_site):
    if not (built_site / "404.html").is_file():
        pytest.skip("the build has no 404.html yet (sphinx-notfound-page)")
    response = page.goto(site_url + "posts/2025/no-such-post.html")
    assert response.status == 404
    expect(page.locator("article h1").first).to_be_visible()
    assert violations(axe, page) == []
