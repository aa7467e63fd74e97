"""Screenshots of the pages a reader meets, desktop and phone, light and dark.

Written to ``_build/screenshots/{page}-{device}-{scheme}.png`` for a person to look at (the
folder is not committed): home, a post, a category page, a Benchmarks post with its charts,
the search page with a hit inside an equation, the 404 page and the feeds page. The test
also checks what a glance would: the image has the device's width, and a dark page is dark
and a light one light.
"""

from __future__ import annotations

import pytest
from helpers import representative_pages, sidebar_filled
from PIL import Image, ImageStat
from sitefacts import EXPECT, has_text, missing

DEVICES = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 1,
    },
}

#: Pages beyond home, post and category: what each shows, and what to wait for.
MORE_PAGES = {
    "benchmarks-post": (EXPECT["pages"]["benchmarks"] + ".html", "svg.kb-chart:visible"),
    # "frac" is a word only equations use: each result's snippet is a formula, as TeX.
    "search-math": ("search.html?q=frac", ".kb-search-result-excerpt"),
    "404": ("posts/2025/no-such-post.html", "article h1"),
    "feeds": ("feeds.html", ".kb-feed-urls"),
}


def mean_brightness(path) -> float:
    """Mean grey level of an image, 0 (black) … 255 (white)."""
    with Image.open(path) as image:
        return ImageStat.Stat(image.convert("L")).mean[0]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("device", DEVICES)
def test_screenshots(open_page, site_url, built_site, screenshots_dir, device, scheme):
    page = open_page(color_scheme=scheme, **DEVICES[device])
    pages = representative_pages(built_site)
    shots = {kind: (pages[kind], None) for kind in ("home", "post", "category")}
    shots.update(MORE_PAGES)
    if missing(EXPECT["pages"]["benchmarks"]):
        del shots["benchmarks-post"]  # a fork without the sample Benchmarks post
    if not has_text("\\frac"):
        del shots["search-math"]  # nor one with math
    for kind, (url, ready) in shots.items():
        page.goto(site_url + url)
        if ready:
            page.locator(ready).first.wait_for()
        # goto waited for the load event (stylesheets, images); what may come later is a font,
        # and the sidebar's lists.
        page.evaluate("document.fonts.ready.then(() => true)")
        sidebar_filled(page)
        path = screenshots_dir / f"{kind}-{device}-{scheme}.png"
        page.screenshot(path=path, full_page=True)
        with Image.open(path) as image:
            assert image.width == DEVICES[device]["viewport"]["width"]
            assert image.height >= DEVICES[device]["viewport"]["height"]
        brightness = mean_brightness(path)
        assert brightness < 80 if scheme == "dark" else brightness > 180, (path, brightness)
