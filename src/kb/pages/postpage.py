"""What a post's own page shows under its title: date, updates, authors, labels, reading time.

External posts also say where the article lives and link there.
"""

from __future__ import annotations

from html import escape

from sphinx.application import Sphinx

from ..core.catalog import has_catalog
from ..core.posts import Post
from ..core.urls import root_prefix
from .entries import format_date, label_links, meta_line


def post_header_html(post: Post, prefix: str) -> str:
    lines = [meta_line(post, prefix)]
    if post.updated.date() > post.date.date():
        lines.append(
            '<span class="kb-updated">Updated on '
            f'<time datetime="{post.updated.date().isoformat()}">{format_date(post.updated)}</time>'
            "</span>"
        )
    lines.append(f'<span class="kb-reading-time">{post.reading_minutes} min read</span>')
    html = f'<p class="kb-post-meta">{" · ".join(lines)}</p>'
    if post.tags:
        html += f'<p class="kb-post-tags">Tags: {label_links(post.tags, prefix)}</p>'
    if post.external_link:
        url = escape(post.external_link, quote=True)
        html += (
            '<aside class="admonition note kb-external-note"><p class="admonition-title">'
            "Published elsewhere</p><p>The full article lives at "
            f'<a href="{url}" rel="external">{escape(post.external_link)}</a>.</p></aside>'
        )
    return html


def insert_after_title(body: str, html: str) -> str:
    """Place ``html`` right after the page's first ``<h1>…</h1>``."""
    end = body.find("</h1>")
    if end < 0:
        return html + body
    end += len("</h1>")
    return body[:end] + html + body[end:]


def post_page(app: Sphinx, pagename: str, context: dict, doctree) -> Post | None:
    """The post a page being written shows, when it is a post's own page with a body."""
    if doctree is None or "body" not in context or not has_catalog(app):
        return None
    return app.env.kb_catalog.by_docname(pagename)


def _html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    post = post_page(app, pagename, context, doctree)
    if post is None:
        return
    context["kb_post"] = post
    context["body"] = insert_after_title(
        context["body"], post_header_html(post, root_prefix(app, pagename))
    )


def setup_postpage(app: Sphinx) -> None:
    app.connect("html-page-context", _html_page_context)
