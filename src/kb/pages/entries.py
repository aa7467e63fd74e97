"""The one HTML layout of a listed post, shared by archives, the home page and series pages.

An entry is the template ``kb/parts/entry.html`` (:mod:`kb.core.parts`), which a fork
overrides; each is made once per build and page depth (:func:`entries_html`), since a post
stands on several listings.
"""

from __future__ import annotations

import functools
from datetime import date, datetime
from html import escape

from sphinx.application import Sphinx

from ..core.parts import render_part
from ..core.posts import Label, Post
from ..core.urls import relocate_links

MORE_TEXT = "Go to article…"
EXTERNAL_MARK = "(External)"


def format_date(when: datetime) -> str:
    """The day as a reader reads it, "9 June 2025" (in the date's own time zone)."""
    return _day_text(when.year, when.month, when.day)


@functools.lru_cache(maxsize=8192)
def _day_text(year: int, month: int, day: int) -> str:
    # Once per day shown: listings' titles ("page 3: 3 March 2025 to 9 June 2025") and
    # entries asked strftime 29,000 times a build at 10,000 posts (0.1 s).
    return f"{day} {date(year, month, 1).strftime('%B %Y')}"


def post_href(post: Post, prefix: str) -> str:
    """Where a listing's title and "Go to article…" lead: the external site, or our page."""
    if post.external_link:
        return post.external_link
    return prefix + post.docname + ".html" + post.anchor


def label_links(labels: tuple[Label, ...], prefix: str) -> str:
    return ", ".join(
        f'<a class="kb-label kb-{lb.kind}" href="{prefix}{lb.docname}.html">{escape(lb.name)}</a>'
        for lb in labels
    )


def meta_line(post: Post, prefix: str) -> str:
    if post.undated:  # a draft without a date, in a preview (kb serve --drafts)
        parts = ['<span class="kb-undated">Undated draft</span>']
    else:
        parts = [f'<time datetime="{post.date.date().isoformat()}">{format_date(post.date)}</time>']
    if post.authors:
        parts.append(f'<span class="kb-by">by {label_links(post.authors, prefix)}</span>')
    if post.categories:
        parts.append(f'<span class="kb-in">in {label_links(post.categories, prefix)}</span>')
    return " · ".join(parts)


def entry_html(app: Sphinx, post: Post, prefix: str, heading: int = 2) -> str:
    """One listing entry: linked title, date, authors, categories, excerpt, "Go to article…"."""
    return render_part(
        app,
        "entry",
        post=post,
        href=post_href(post, prefix),
        heading=heading,
        meta_html=meta_line(post, prefix),
        excerpt_html=relocate_links(post.excerpt_html, prefix),
        more_text=MORE_TEXT,
        external_mark=EXTERNAL_MARK,
    )


def entries_html(
    app: Sphinx, posts: list[Post], prefix: str, heading: int = 2, made: dict | None = None
) -> str:
    """The entries of ``posts``; ``made`` keeps each entry made for the pages of one build: a
    post is listed on several (its archive, each of its tags, categories and authors), and
    an added post shifts every one of them (9000 listing pages at 10,000 posts)."""
    if made is None:
        made = {}
    entries = []
    for post in posts:
        key = (post.key, prefix, heading)
        entry = made.get(key)
        if entry is None:
            entry = made[key] = entry_html(app, post, prefix, heading)
        entries.append(entry)
    return f'<div class="kb-listing">{"".join(entries)}</div>'
