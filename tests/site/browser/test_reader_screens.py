"""What a reader sees, measured in Chromium: math set as a paper sets it, on every page that has
math, and screenshots of the pages issue 36 was about (desktop and phone, light and dark).

Geometry, not pixels: a display sum is at least 1.4 times an inline one, an accent overlaps its
letter and sits within 0.3 em above it, a cases brace is as tall as its rows, and the rows of an
aligned (or any) table of a display formula stack one per line.
"""

from __future__ import annotations

import pytest
from sitefacts import EXPECT

#: Measures every formula of the page; the inline sum is measured in the page's own text.
GEOMETRY = """() => {
  const box = (el) => el.getBoundingClientRect();
  const size = (el) => parseFloat(getComputedStyle(el).fontSize);
  const article = document.querySelector("article");
  const probe = document.createElement("p");
  probe.innerHTML = '<span class="math kb-math"><math><mo>\u2211</mo></math></span>';
  article.appendChild(probe);
  const inlineSum = box(probe.querySelector("mo")).height;
  probe.remove();
  const sums = [], accents = [], braces = [], tables = [];
  for (const mo of document.querySelectorAll("div.kb-math > math mo")) {
    if (mo.textContent.trim() === "\u2211") sums.push(box(mo).height / inlineSum);
  }
  const ACCENTS = "^\u02c6~\u02dc\u00af\u203e\u2192\u20d7\u02d9\u00a8\u00b4`\u02c7\u02d8";
  for (const mover of document.querySelectorAll("article mover")) {
    const [base, accent] = mover.children;
    if (!accent || accent.localName !== "mo" || !ACCENTS.includes(accent.textContent.trim())
        || accent.textContent.trim() === "") continue;
    const b = box(base), a = box(accent), em = size(mover);
    accents.push({
      formula: mover.closest("math").textContent.slice(0, 60),
      overlap: Math.min(a.right, b.right) - Math.max(a.left, b.left),
      gap: (b.top - a.bottom) / em,
      above: a.top < b.top,
    });
  }
  for (const mo of document.querySelectorAll("article mo[stretchy=true]")) {
    const table = mo.nextElementSibling;
    if (mo.textContent.trim() === "{" && table && table.localName === "mtable") {
      braces.push(box(mo).height / box(table).height);
    }
  }
  for (const table of document.querySelectorAll("div.kb-math mtable")) {
    const rows = [...table.querySelectorAll(":scope > mtr")].map((row) => {
      const r = box(row);
      const cells = [...row.children].map((cell) => box(cell));
      return {top: r.top, bottom: r.bottom, cells: cells.map((c) => [c.top, c.bottom])};
    });
    tables.push(rows);
  }
  return {inlineSum, sums, accents, braces, tables};
}"""


def _math_pages(built_site) -> list[str]:
    return sorted(
        path.relative_to(built_site).as_posix()
        for path in built_site.rglob("*.html")
        if "_static" not in path.parts and "<math" in path.read_text(encoding="utf-8")
    )


def test_math_is_set_as_a_paper_sets_it(page, site_url, built_site, offsite):
    pages = _math_pages(built_site)
    assert len(pages) >= 10
    seen = {"sums": 0, "accents": 0, "braces": 0, "tables": 0}
    for name in pages:
        page.goto(site_url + name)
        page.evaluate("document.fonts.ready.then(() => true)")
        # The shipped math font is the one used (not a fallback the machine happens to have).
        assert page.evaluate("document.fonts.check('16px \"KB Math\"', '\u2211')"), name
        found = page.evaluate(GEOMETRY)
        for ratio in found["sums"]:
            assert ratio >= 1.4, f"{name}: a display sum is {ratio:.2f} times an inline one"
        for accent in found["accents"]:
            assert accent["overlap"] > 0, f"{name}: an accent beside its letter: {accent}"
            assert accent["above"] and accent["gap"] <= 0.3, f"{name}: accent floats: {accent}"
        for ratio in found["braces"]:
            assert ratio >= 0.95, f"{name}: a cases brace {ratio:.2f} of its rows' height"
        for rows in found["tables"]:
            for upper, lower in zip(rows, rows[1:], strict=False):
                assert lower["top"] >= upper["bottom"] - 1, f"{name}: two rows on one line"
            for row in rows:
                for top, bottom in row["cells"]:
                    assert top >= row["top"] - 1 and bottom <= row["bottom"] + 1, name
        for key in seen:
            seen[key] += len(found[key])
    # The site's own math has each of these (a fork without them proves less, not wrongly).
    assert seen["sums"] and seen["accents"] and seen["braces"], seen
    assert offsite == []
    assert page.console_errors == []


# -- Screenshots --------------------------------------------------------------------------------

DEVICES = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 1,
    },
}
#: The pages of issue 36: what each is, and what to wait for before the picture.
SHOTS = {
    "reader-math": ("posts/2025/deepseek-r1-fp8-training.html", "div.kb-math math"),
    "reader-benchmarks": (EXPECT["pages"]["benchmarks"] + ".html", "svg.kb-chart"),
    "reader-catalog": ("benchmarks.html", "article h1"),
    "reader-404": ("posts/2025/no-such-post.html", "article h1"),
}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("device", DEVICES)
def test_reader_screenshots(open_page, site_url, screenshots_dir, device, scheme, offsite):
    page = open_page(color_scheme=scheme, **DEVICES[device])
    for kind, (url, ready) in SHOTS.items():
        page.goto(site_url + url)
        page.locator(ready).first.wait_for()
        page.wait_for_load_state("networkidle")
        page.evaluate("document.fonts.ready.then(() => true)")
        path = screenshots_dir / f"{kind}-{device}-{scheme}.png"
        page.screenshot(path=path, full_page=True)
        # Nothing wider than the screen: a phone never scrolls the page sideways.
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= DEVICES[device]["viewport"]["width"], f"{url}: {width} px wide"
    assert offsite == []
