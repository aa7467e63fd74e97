"""What is searchable, and the search page.

While pages are written, the body of each post and real page is marked for Pagefind: the page
template (kb's ``page.html``) wraps it in ``data-pagefind-body``, with its title, date and
categories as Pagefind metadata and filters beside it; archive listings, the home page's list
of posts and furo's chrome never are. Our search page (``search.html``, template
``kb/search.html``) replaces Sphinx's, whose index is turned off since nothing reads it.
"""

from __future__ import annotations

import re
from html import escape, unescape
from typing import TYPE_CHECKING, cast

from markupsafe import Markup
from sphinx.application import Sphinx

from ..core import ablog
from ..core.catalog import get_catalog
from ..core.posts import Post
from ..core.state import build_state, env_state
from ..core.urls import SITE_BUILDERS
from ..incremental.freshness import page_signature, should_write
from .pagefind import BUNDLE_DIR, BUNDLE_END, BUNDLE_START

if TYPE_CHECKING:
    from sphinx.builders.html import StandaloneHTMLBuilder

#: What the search page leaves out of the assets every page loads: it shows no code (so no
#: highlighting styles or copy buttons), math or charts; Sphinx's term
#: highlighting serves pages opened from Sphinx's own search; the one key of Sphinx's doctools
#: a reader uses there, ``/``, kb-search.js handles. (``documentation_options.js`` stays:
#: other extensions' scripts read the settings it defines.) Each is a request competing with
#: Pagefind's before the first results.
NOT_ON_SEARCH_PAGE = {
    "_static/pygments.css",
    "_static/kb-math.css",
    "_static/kb-benchmark.css",
    "_static/sphinx_highlight.js",
    "_static/doctools.js",
    "_static/clipboard.min.js",
    "_static/copybutton.js",
}

SEARCH_TEMPLATE = "kb/search.html"
RTD_SCRIPT = "kb-search-readthedocs.js"

_TAGS = re.compile(r"<[^>]+>")


def enabled(app: Sphinx) -> bool:
    return build_state(app).config.search and app.builder.name in SITE_BUILDERS


# -- Marking what is searchable -------------------------------------------------------------


def plain_title(html: str) -> str:
    """A title from Sphinx's page context (escaped HTML, maybe with tags) as plain text."""
    return unescape(_TAGS.sub("", html)).strip()


def search_metadata_html(title: str, post: Post | None) -> str:
    """Pagefind metadata and filters, hidden and outside the indexed body."""
    parts = [f'<span data-pagefind-meta="title">{escape(title)}</span>']
    if post is not None:
        day = post.date.date().isoformat()
        parts.append(f'<span data-pagefind-meta="date">{day}</span>')
        parts.append(f'<span data-pagefind-sort="date">{day}</span>')
        parts.extend(
            f'<span data-pagefind-filter="category">{escape(label.name)}</span>'
            for label in post.categories
        )
    return f'<div class="kb-search-meta" hidden>{"".join(parts)}</div>'


def searchable_html(body: str, metadata_html: str) -> str:
    """A page's body as Pagefind's content, its metadata outside the wrapper: what the page
    template (``page.html``) writes around the body of a searchable page."""
    return f"{metadata_html}<div data-pagefind-body>{body}</div>"


def is_searchable_doc(app: Sphinx, docname: str) -> bool:
    """Published posts and real pages, written from a source.

    Not drafts, and not a post the front-matter checks rejected, nor a file ablog takes for a
    post that the catalog leaves out (undated), nor a post file ablog could not read as one
    (an empty file): none is a real page yet, and the checks already say what is wrong with it
    (Pagefind would skip some, an empty one, and the count of indexed pages would then blame
    the templates).
    """
    if docname not in app.env.found_docs:
        return False
    checked = env_state(app.env).posts.get(docname)
    if checked is not None and checked.flawed:
        return False
    post = get_catalog(app).by_docname(docname)
    if post is not None:
        return post.published
    return not (ablog.is_blog_post(app.env, docname) or docname in ablog.matched_posts(app.config))


def is_searchable(app: Sphinx, pagename: str, templatename: str, doctree) -> bool:
    """Whether the page being written is searchable.

    Archives, catalog pages, the general index and the search page are generated (no
    doctree, another template), so they never are.
    """
    if doctree is None or templatename != "page.html":
        return False
    return is_searchable_doc(app, pagename)


def html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if not enabled(app):
        return
    if templatename == SEARCH_TEMPLATE:
        for key in ("css_files", "script_files"):
            context[key] = [
                asset
                for asset in context.get(key, [])
                if getattr(asset, "filename", asset) not in NOT_ON_SEARCH_PAGE
            ]
        return
    if "body" not in context:
        return
    if not is_searchable(app, pagename, templatename, doctree):
        return
    post = get_catalog(app).by_docname(pagename)
    title = post.title if post is not None else plain_title(context.get("title", ""))
    # The template wraps the body (kb's page.html); its record is written once every handler
    # is done.
    context["kb_search_meta"] = Markup(search_metadata_html(title, post))


# -- The search page --------------------------------------------------------------------------


def builder_inited(app: Sphinx) -> None:
    if build_state(app).config.search_readthedocs:
        app.add_js_file(RTD_SCRIPT, loading_method="defer")
    if not enabled(app):
        return
    # Our page replaces Sphinx's search page, and nothing reads Sphinx's index any more
    # (Read the Docs' server-side search indexes the HTML itself): skip building it.
    # An HTML builder (SITE_BUILDERS), which Sphinx's types give as a plain Builder.
    cast("StandaloneHTMLBuilder", app.builder).search = False


def html_collect_pages(app: Sphinx):
    if not enabled(app):
        return
    # Rendered again only when the templates or settings changed (its sidebar is refreshed
    # in place, and the bundle's part of its head is filled in at the end of every build).
    if not should_write(app, "search", page_signature(app, "search", app.builder.name)):
        return
    context = {
        "title": "Search",
        "kb_search_bundle": BUNDLE_DIR,
        "kb_search_bundle_marker": Markup(BUNDLE_START + BUNDLE_END),
    }
    yield "search", context, SEARCH_TEMPLATE
