"""What a reader sees, measured in Chromium: math set as a paper sets it, on every page that has
math, and screenshots of the pages issue 36 was about (desktop and phone, light and dark).

Geometry, not pixels: a display sum is at least 1.4 times an inline one, an accent overlaps its
letter and sits within 0.3 em above it, a cases brace is as tall as its rows, and the rows of an
aligned (or any) table of a display formula stack one per line.
"""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup
from helpers import sidebar_filled
from playwright.sync_api import expect
from sitefacts import ALL_POSTS, EXPECT, has_text, published

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
    with_display_math = [p for p in filter(published, ALL_POSTS) if "$$" in p.read_text("utf-8")]
    if not pages and not with_display_math:
        pytest.skip("no post of this site has math")
    assert len(pages) >= len(with_display_math)
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


# -- Charts and tables on a phone ---------------------------------------------------------------

#: Every chart's smallest text in CSS px, and each benchmark table: does it fit, and does its
#: first column stay in view when it scrolls sideways.
CHARTS = """() => {
  for (const details of document.querySelectorAll("details.kb-benchmark-data")) details.open = true;
  const charts = [...document.querySelectorAll("svg.kb-chart")].filter((svg) => svg.getBBox
      && svg.getBoundingClientRect().width > 0);
  const shown = (svg) => [...svg.querySelectorAll("text")].filter(
      (text) => text.textContent.trim() && text.getBoundingClientRect().width > 0);
  const smallest = charts.map((svg) => Math.min(...shown(svg).map(
      (text) => {
        const m = text.getScreenCTM();  // a rotated axis label scales by its norm
        return parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
      })));
  const tables = [...document.querySelectorAll("table.kb-benchmark-table")].map((table) => {
    const wrapper = table.closest(".table-wrapper") || table.parentElement;
    const fits = table.scrollWidth <= wrapper.clientWidth + 1;
    const first = table.querySelector("tbody td");
    const before = first.getBoundingClientRect().left;
    wrapper.scrollLeft = wrapper.scrollWidth;
    // Pinned: scrolled to the end, the first column has not moved.
    const pinned = wrapper.scrollLeft > 0
        && Math.abs(first.getBoundingClientRect().left - before) < 1;
    wrapper.scrollLeft = 0;
    return {fits, pinned};
  });
  return {smallest, tables};
}"""
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def _benchmark_pages(built_site) -> list[str]:
    return sorted(
        path.relative_to(built_site).as_posix()
        for path in (built_site / "posts").rglob("*.html")
        if 'class="kb-chart' in path.read_text(encoding="utf-8")
    )


def test_charts_and_tables_read_on_a_phone(phone, site_url, built_site, offsite):
    pages = _benchmark_pages(built_site)
    if not pages and not has_text("{benchmark}"):
        pytest.skip("no post of this site has a benchmark figure")
    assert pages
    charts = 0
    for name in pages:
        phone.goto(site_url + name)
        found = phone.evaluate(CHARTS)
        charts += len(found["smallest"])
        for size in found["smallest"]:
            assert size >= 11, f"{name}: chart text of {size:.1f} px at 390 px"
        for table in found["tables"]:
            assert table["fits"] or table["pinned"], f"{name}: a table scrolls its rows away"
    assert charts >= len(pages)
    assert offsite == []


def test_no_raw_identifier_or_long_number_in_a_figure(built_site):
    for name in _benchmark_pages(built_site):
        page = BeautifulSoup((built_site / name).read_text(encoding="utf-8"), "lxml")
        for figure in page.select("figure.kb-benchmark"):
            for svg in figure.select("svg.kb-chart"):
                legend = [text.get_text() for text in svg.find_all("text")]
                assert not [t for t in legend if SNAKE.fullmatch(t)], f"{name}: {legend}"
            for table in figure.select("table.kb-benchmark-table"):
                header = [th.get_text(" ", strip=True) for th in table.select("thead th")]
                assert not [h for h in header if SNAKE.search(h)], f"{name}: {header}"
                classes = [th.get("class", []) for th in table.select("thead th")]
                measured = [i for i, names in enumerate(classes) if "kb-measured" in names]
                for row in table.select("tbody tr"):
                    cells = [td.get_text(strip=True) for td in row.find_all("td")]
                    assert not [c for c in cells if SNAKE.fullmatch(c)], f"{name}: {cells}"
                    for cell in cells:
                        # A byte count is never a bare number: 8589934592 is "8 GiB".
                        assert not (cell.isdigit() and int(cell) >= 2**20), f"{name}: {cell}"
                    for index in measured:
                        digits = re.sub(r"\D", "", cells[index]).lstrip("0")
                        assert len(digits) <= 4, f"{name}: {header[index]} {cells[index]}"


# -- Series at the end of a post -----------------------------------------------------------------


def test_series_continue_at_the_end_of_each_part(built_site):
    members = 0
    for path in sorted((built_site / "posts").rglob("*.html")):
        page = BeautifulSoup(path.read_text(encoding="utf-8"), "lxml")
        top = page.select_one("aside.kb-series-box")
        if top is None or len(top.select("ul.kb-series-parts > li")) < 2:
            continue
        members += 1
        end = page.select_one("aside.kb-series-end")
        assert end is not None, path
        # After the post's text, under the last section, before related posts.
        assert top.find_next("aside", class_="kb-series-end") is end
        related = page.select_one(".kb-related")
        if related is not None:
            assert end.find_next(class_="kb-related") is related, path
        name = top.select_one(".kb-series-position a").get_text()
        following = top.select_one("a.kb-series-next")
        if following is not None:
            link = end.select_one("a.kb-series-next")
            assert link["href"] == following["href"]
            assert end.get_text().startswith(f"Next in {name}:")
        else:
            assert "The last of the " in end.get_text() and name in end.get_text()
    if not members:
        pytest.skip("no post of this site is in a series of two or more")


# -- Dark mode --------------------------------------------------------------------------------


def test_dark_mode_code_names_and_notebook_plots(open_page, site_url, built_site):
    page = open_page(color_scheme="dark", viewport={"width": 1280, "height": 900})
    names = [
        path.relative_to(built_site).as_posix()
        for path in sorted((built_site / "posts").rglob("*.html"))
        if 'class="nn"' in path.read_text(encoding="utf-8")
    ]
    if not names:
        pytest.skip("no post of this site shows code with a module name (Pygments' .nn)")
    page.goto(site_url + names[0])
    decorations = page.evaluate(
        "[...document.querySelectorAll('.highlight .nn')]"
        ".map((el) => getComputedStyle(el).textDecorationLine)"
    )
    assert decorations and set(decorations) == {"none"}, decorations
    notebooks = [
        path.relative_to(built_site).as_posix()
        for path in sorted((built_site / "posts").rglob("*.html"))
        if 'class="cell_output' in path.read_text(encoding="utf-8")
    ]
    if not notebooks:
        return  # a fork without a notebook post: the code names were checked
    page.goto(site_url + notebooks[0])
    cards = page.evaluate(
        "[...document.querySelectorAll('.cell_output img')].map((img) => "
        "[getComputedStyle(img).backgroundColor, parseFloat(getComputedStyle(img).paddingTop)])"
    )
    assert cards and all(colour == "rgb(255, 255, 255)" and pad > 0 for colour, pad in cards)


# -- 404 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_404_has_its_own_search_box(open_page, site_url, device, offsite):
    page = open_page(**DEVICES[device])
    response = page.goto(site_url + "posts/2025/no-such-post.html")
    assert response.status == 404
    article = page.locator("article")
    # Words that fit both layouts: no sidebar to point at on a phone.
    assert "sidebar" not in article.inner_text().lower()
    box = article.get_by_role("searchbox", name="Search this site")
    expect(box).to_be_visible()
    box.fill("wgmma")
    box.press("Enter")
    page.wait_for_url("**/search.html?q=wgmma")
    assert offsite == []


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
    "reader-benchmarks": (EXPECT["pages"]["benchmarks"] + ".html", "svg.kb-chart:visible"),
    "reader-catalog": ("benchmarks.html", "article h1"),
    "reader-404": ("posts/2025/no-such-post.html", "article h1"),
}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("device", DEVICES)
def test_reader_screenshots(
    open_page, site_url, built_site, screenshots_dir, device, scheme, offsite
):
    page = open_page(color_scheme=scheme, **DEVICES[device])
    for kind, (url, ready) in SHOTS.items():
        if kind != "reader-404" and not (built_site / url).is_file():
            continue  # a fork without the group's math or Benchmarks post
        page.goto(site_url + url)
        page.locator(ready).first.wait_for()
        # goto waited for the load event (stylesheets, images); what may come later is a font,
        # and the sidebar's lists.
        page.evaluate("document.fonts.ready.then(() => true)")
        sidebar_filled(page)
        path = screenshots_dir / f"{kind}-{device}-{scheme}.png"
        page.screenshot(path=path, full_page=True)
        # Nothing wider than the screen: a phone never scrolls the page sideways.
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= DEVICES[device]["viewport"]["width"], f"{url}: {width} px wide"
    assert offsite == []
