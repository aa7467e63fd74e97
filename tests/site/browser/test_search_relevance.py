"""Relevance of the site's search: each query names the post that must rank in the top 3.

Typed into the real search page of the real site in Chromium, so the whole chain is tested:
what the build marks as searchable, Pagefind's index and tokenizer, and our page's script.
Queries are what a reader of these posts would type: kernel code names with dots and
underscores, format and architecture names, hyphenated terms and phrases.
"""

from __future__ import annotations

from urllib.parse import quote, urlparse

import pytest
from playwright.sync_api import expect
from sitefacts import EXPECT, missing

TOP = EXPECT["search"]["top"]
#: Queries and the post each must find (tests/site/expectations.toml).
RELEVANCE = [
    pytest.param(
        query,
        post,
        id=query,
        marks=[pytest.mark.skip(reason=f"{post}: not on this site (expectations.toml names it)")]
        if missing(post)
        else [],
    )
    for query, post in EXPECT["search"]["queries"]
]


def result_docnames(page, site_url: str, query: str) -> list[str]:
    """Search from the search page's URL; the docnames of the results, best first."""
    page.goto(f"{site_url}search.html?q={quote(query)}")
    status = page.locator(".kb-search-status")
    expect(status).to_contain_text("result", timeout=10_000)
    site_path = urlparse(site_url).path
    names = []
    for href in page.locator(".kb-search-result-title a").evaluate_all(
        "links => links.map(a => a.href)"
    ):
        path = urlparse(href).path
        assert path.startswith(site_path) and path.endswith(".html"), href
        names.append(path[len(site_path) : -len(".html")])
    return names


@pytest.mark.parametrize(("query", "docname"), RELEVANCE)
def test_post_ranks_in_top_three(page, site_url, offsite, query, docname):
    names = result_docnames(page, site_url, query)
    assert docname in names[:TOP], f"{query!r}: top {TOP} were {names[:TOP]}"
    assert offsite == []
    assert page.console_errors == []
