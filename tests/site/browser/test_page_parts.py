"""Parts of a post page made smaller (issue #8), still working in Chromium: furo's icons
drawn from our compact sprite, and the "Cite this post" block's copy button."""

from __future__ import annotations

from io import BytesIO

import pytest
from helpers import filled_sidebar, representative_pages
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


# -- The sidebar's lists, from the file every page shares (kb.pages.sidebars) ---------------------


def _sidebar_links(page) -> list[tuple[str, str]]:
    pairs = page.locator(".kb-sidebar-holder a").evaluate_all(
        "links => links.map(a => [a.textContent, a.getAttribute('href')])"
    )
    return [(text, href) for text, href in pairs]


@pytest.mark.parametrize("kind", ["home", "post", "category", "404"])
def test_the_sidebar_is_filled_as_the_build_would_have_written_it(
    page, built_site, site_url, offsite, kind
):
    """kb-sidebar.js puts the shared lists in the holder with each link relative to the page:
    the same links, in the same order, as ``helpers.filled_sidebar`` (which the other tests
    read) makes of the page and the file, and each leads to a page of the site."""
    path = "404.html" if kind == "404" else representative_pages(built_site)[kind]
    page.goto(site_url + ("posts/no-such-post.html" if kind == "404" else path))
    page.locator(".kb-sidebar-holder[data-kb-filled='']").wait_for()
    expected = filled_sidebar(built_site / path, built_site)
    wanted = [(a.get_text(), a["href"]) for a in expected.select("a")]
    assert _sidebar_links(page) == wanted
    assert len(wanted) > 4  # the lists, not only the outline's "All …" links
    for _, href in wanted:
        assert page.evaluate("href => fetch(href).then(r => r.status)", href) == 200, href
    assert offsite == []
    # The missed address itself answers 404, as it should; nothing else fails.
    assert [e for e in page.console_errors if "no-such-post.html" not in e] == []


def test_without_scripts_the_sidebar_keeps_its_outline(context_factory, built_site, site_url):
    page = context_factory(viewport=DESKTOP, java_script_enabled=False).new_page()
    post = representative_pages(built_site)["post"]
    page.goto(site_url + post)
    holder = page.locator(".kb-sidebar-holder")
    assert holder.get_attribute("data-kb-filled") is None
    shown = dict(_sidebar_links(page))
    assert "All posts" in shown and "All categories" in shown
    holder.get_by_role("link", name="All posts").click()
    assert page.locator("article h1").first.inner_text().startswith("All posts")


def test_the_lists_are_those_of_the_last_build_whatever_the_browser_kept(
    page, built_site, tmp_path
):
    """After a build that changed the lists (a new post), the next page a reader opens shows
    the new ones, although the browser's heuristic cache would keep the file it fetched a
    moment ago for hours (it was last changed a day earlier): the script asks the server."""
    import functools
    import os
    import shutil
    import threading
    import time
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    site = tmp_path / "site"
    shutil.copytree(built_site, site, ignore=shutil.ignore_patterns("pagefind", "_images"))
    shared = site / "_kb" / "sidebar.json"
    day_ago = time.time() - 86400
    os.utime(shared, (day_ago, day_ago))

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        page.goto(base + "index.html")
        page.locator(".kb-sidebar-holder[data-kb-filled='']").wait_for()
        before = page.locator(".kb-sidebar-holder li a").first.inner_text()
        shared.write_text(
            shared.read_text(encoding="utf-8").replace(before, "A post of the next build", 1),
            encoding="utf-8",
        )
        os.utime(shared, (day_ago + 1, day_ago + 1))
        page.goto(base + representative_pages(built_site)["post"])
        page.locator(".kb-sidebar-holder[data-kb-filled='']").wait_for()
        assert page.locator(".kb-sidebar-holder li a").first.inner_text() == (
            "A post of the next build"
        )
    finally:
        server.shutdown()
