"""Feed items and feeds: what each item says of a post, every link absolute.

Each item's content is the excerpt the catalog rendered once (or, in full-text mode, the
post's body), with the "appeared first on" footer after it.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from html import escape
from typing import TYPE_CHECKING, cast

from sphinx.application import Sphinx
from sphinx.util import logging

from ..core.fragments import FRAGMENT, write_fragment
from ..core.posts import Catalog, Post
from ..core.state import build_state
from ..core.urls import absolute_links, relocate_links
from .formats import Feed, Item, Person, Term
from .scopes import Scope, feed_url, page_url

if TYPE_CHECKING:
    from sphinx.builders.html import StandaloneHTMLBuilder

# -- Items -------------------------------------------------------------------------------------

_FIRST_H1 = re.compile(r"<h1[^>]*>.*?</h1>", re.DOTALL)
_HEADERLINK = re.compile(r'<a class="headerlink"[^>]*>.*?</a>', re.DOTALL)


def footer_html(app: Sphinx, post: Post, link: str, base: str) -> str:
    config = build_state(app).config
    template = config.feed_footer_external if post.external_link else config.feed_footer
    if not template:
        return ""
    post_link = f'<a href="{escape(link, quote=True)}">{escape(post.title)}</a>'
    site_link = f'<a href="{escape(base, quote=True)}">{escape(config.site_name)}</a>'
    return f"<p>{template.format(post_link=post_link, site_link=site_link)}</p>"


def full_text_html(app: Sphinx, docname: str, url: str) -> str:
    """A post's body as its page shows it, title and ¶ marks removed, links absolute.

    Rendered from the doctree here rather than captured at ``html-page-context``: an
    incremental or parallel build does not write every post page in this process.
    """
    # Feeds are written by the HTML builders only; Sphinx's types give a plain Builder.
    builder = cast("StandaloneHTMLBuilder", app.builder)
    with logging.suppress_logging():  # problems are reported on the post's own page
        doctree = app.env.get_and_resolve_doctree(docname, builder, tags=builder.tags)
    doctree.settings = builder.docsettings
    doctree[FRAGMENT] = True  # written outside its page: without the page's own parts
    body = write_fragment(builder, docname, doctree)
    body = _HEADERLINK.sub("", _FIRST_H1.sub("", body, count=1))
    return absolute_links(body.strip(), url)


def feed_item(app: Sphinx, catalog: Catalog, post: Post, base: str) -> Item:
    url = page_url(app, base, post.docname) + post.anchor
    link = post.external_link or url
    blog = base + catalog.blog_path
    excerpt = absolute_links(relocate_links(post.excerpt_html, base), url)
    footer = footer_html(app, post, link, base)
    if build_state(app).config.feed_fulltext and not post.section:  # a section: its excerpt
        content, summary = full_text_html(app, post.docname, url) + footer, excerpt
    else:
        content, summary = excerpt + footer, ""
    return Item(
        id=url,
        link=link,
        title=post.title,
        published=post.date,
        updated=post.updated,
        authors=tuple(Person(a.name, a.url) for a in post.authors),
        terms=tuple(Term(c.name, f"{blog}/category/") for c in post.categories)
        + tuple(Term(t.name, f"{blog}/tag/") for t in post.tags),
        content_html=content,
        summary_html=summary,
        summary_text=post.excerpt_text,
    )


def fallback_date() -> datetime:
    """The date of a feed with no items: SOURCE_DATE_EPOCH, else the epoch; never the clock."""
    return datetime.fromtimestamp(int(os.environ.get("SOURCE_DATE_EPOCH", "0")), UTC)


def feed_author(app: Sphinx) -> str:
    author = app.config.author
    return (
        author if author and author != "Author name not set" else build_state(app).config.site_name
    )


def build_feed(app: Sphinx, scope: Scope, items: dict[str, Item], base: str) -> Feed:
    chosen = tuple(items[post.key] for post in scope.posts)
    formats = build_state(app).config.feed_formats
    return Feed(
        title=scope.title,
        description=scope.description,
        home=page_url(app, base, scope.home_docname),
        self_urls={fmt: feed_url(base, scope.path, fmt) for fmt in formats},
        language=app.config.language or "en",
        author=Person(feed_author(app)),
        updated=max((item.updated for item in chosen), default=fallback_date()),
        items=chosen,
    )
