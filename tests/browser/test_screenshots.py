"""Screenshots of home, a post and a category page, desktop and phone, light and dark.

Written to ``_build/screenshots/{page}-{device}-{scheme}.png`` for a person to look at (the
folder is not committed). The test also checks what a glance would: the image has the
device's width, and a dark page is dark and a light one light.
"""

from __future__ import annotations

import pytest
from helpers import representative_pages
from PIL import Image, ImageStat

DEVICES = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 1,
    },
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
    for kind in ("home", "post", "category"):
        page.goto(site_url + pages[kind])
        page.wait_for_load_state("networkidle")
        path = screenshots_dir / f"{kind}-{device}-{scheme}.png"
        page.screenshot(path=path, full_page=True)
        with Image.open(path) as image:
            assert image.width == DEVICES[device]["viewport"]["width"]
            assert image.height >= DEVICES[device]["viewport"]["height"]
        brightness = mean_brightness(path)
        assert brightness < 80 if scheme == "dark" else brightness > 180, (path, brightness)
