"""A real post in Chromium with the network closed: its math renders, and so does its chart."""

from __future__ import annotations

from playwright.sync_api import expect
from sitefacts import EXPECT, require_posts

POST = EXPECT["pages"]["math_and_chart"] + ".html"


def _box(locator) -> dict:
    box = locator.bounding_box()
    assert box is not None, "not rendered"
    return box


def test_math_renders_offline(page, site_url, offsite):
    require_posts(EXPECT["pages"]["math_and_chart"])
    page.goto(site_url + POST)
    formulas = page.locator("article math")
    assert formulas.count() > 20
    # Chromium parses them as MathML (not unknown HTML tags) and lays them out.
    assert page.evaluate("document.querySelector('article math') instanceof MathMLElement")
    for index in range(formulas.count()):
        box = _box(formulas.nth(index))
        assert box["width"] > 0 and box["height"] > 0
    # A display equation with its number, and the superscript in it raised above the baseline.
    numbered = page.locator("div.math:has(span.eqno)").first
    expect(numbered.locator("span.eqno")).to_contain_text("(1)")
    base, exponent = numbered.locator("msup").first.locator(":scope > *").all()[:2]
    assert _box(exponent)["y"] < _box(base)["y"]
    assert offsite == []
    assert page.console_errors == []


def test_chart_renders_in_both_themes(context_factory, site_url, offsite):
    require_posts(EXPECT["pages"]["math_and_chart"])
    seen = {}
    for scheme in ("light", "dark"):
        context = context_factory(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        page.goto(site_url + POST)
        chart = page.locator("figure.kb-benchmark svg.kb-chart:visible")
        expect(chart).to_be_visible()
        box = _box(chart)
        assert box["width"] > 300 and box["height"] > 150
        seen[scheme] = page.evaluate(
            """() => {
                const chart = document.querySelector('svg.kb-chart');
                return {
                    text: getComputedStyle(chart.querySelector('text')).fill,
                    page: getComputedStyle(document.querySelector('article')).color,
                    bar: getComputedStyle(chart.querySelector('path[style*="--kb-chart-1"]')).fill,
                    background: getComputedStyle(document.body).backgroundColor,
                };
            }"""
        )
        # The figure's table holds the data: a row per CSV row, none of them empty.
        rows = page.locator("figure.kb-benchmark").first.locator("table tbody tr")
        assert rows.count() >= 1
        assert all(text.strip() for text in rows.locator("td").all_inner_texts())
    for colours in seen.values():
        # Labels and axes in the page's own text colour, bars unlike the background.
        assert colours["text"] == colours["page"]
        assert colours["bar"] not in (colours["background"], "none", "rgba(0, 0, 0, 0)")
    # Each theme has its own colours: dark mode is not light mode's chart on black.
    assert seen["light"]["text"] != seen["dark"]["text"]
    assert seen["light"]["bar"] != seen["dark"]["bar"]
    assert offsite == []
