"""Parts of a post page made smaller (issue #8), still working in Chromium: furo's icons
drawn from our compact sprite, and the "Cite this post" block's copy button."""

from __future__ import annotations

from io import BytesIO

from helpers import representative_pages
from PIL import Image
from pybtex.database import parse_string

DESKTOP = {"width": 1280, "height": 900}
# furo's icons: an <svg> holding a <use> of a symbol of the sprite (partials/icons.html).
ICON_USE = "use[href^='#svg-']"


def test_every_icon_is_drawn(page, built_site, site_url, offsite):
    page.goto(site_url + representative_pages(built_site)["post"])
    # Every icon the page uses names a symbol of the sprite …
    targets = page.evaluate(
        "selector => [...document.querySelectorAll(selector)].map(u => u.getAttribute('href'))",
        ICON_USE,
    )
    assert targets and all(page.locator(f"symbol{target}").count() == 1 for target in targets)
    # … and the ones on screen have something to draw.
    shown = [icon for icon in page.locator(f"svg:has(> {ICON_USE})").all() if icon.is_visible()]
    assert shown, "no icon on screen"
    for icon in shown:
        box = icon.locator("use").evaluate(
            "use => { const b = use.getBBox(); return [b.width, b.height]; }"
        )
        assert min(box) > 0, icon.evaluate("svg => svg.outerHTML")
    toggle = Image.open(BytesIO(page.locator(".theme-toggle-content").screenshot()))
    darkest, lightest = toggle.convert("L").getextrema()
    assert lightest - darkest > 100  # strokes on the background, not a blank square
    assert offsite == []
    assert page.console_errors == []


def test_cite_block_copies_its_bibtex(context_factory, built_site, site_url, offsite):
    context = context_factory(viewport=DESKTOP, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(site_url + representative_pages(built_site)["post"])
    block = page.locator("section.kb-cite div.highlight")
    block.hover()
    block.locator("button.copybtn").click()
    page.wait_for_function("navigator.clipboard.readText().then(text => text.length > 0)")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == block.locator("pre").inner_text().strip()
    (entry,) = parse_string(copied, "bibtex").entries.values()
    title = page.locator("article h1").first.text_content().removesuffix("¶")
    assert entry.fields["title"].strip("{}") == title
    assert offsite == []
