"""axe-core (bundled with axe-playwright-python, so it runs offline) over each kind of page.

No serious or critical violation is allowed. Moderate and minor ones are printed (``-s`` or a
failure shows them) so that a person can judge them; the report names the ones that stay.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from helpers import representative_pages
from playwright.sync_api import expect

BLOCKING = {"serious", "critical"}
SEARCH_RESULT = 'article[role="main"] a[href*="posts/"]'


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


def violations(axe: Axe, page) -> list[str]:
    """Serious and critical violations as readable lines; prints the rest."""
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
    page.goto(site_url)
    search = page.get_by_role("search").get_by_role("textbox")
    search.fill("CUTLASS")
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
