"""Page parts as Jinja templates that a fork overrides.

Every part kb adds to a page (a post's header, series box and series end, related posts,
"Linked from", the cite block, a listing entry, the sidebar's sections, the subscribe
blocks) is written by a template under ``src/kb/templates/kb/parts/``. Sphinx looks for
templates in the project's ``templates_path`` (``_templates/``) before kb's, so a fork that
saves ``_templates/kb/parts/series-box.html`` changes the series box on every post, and the
in-place refresh of an incremental build (:mod:`kb.incremental.freshness`) renders the same
templates, so it keeps the change.

A template gets plain values (the catalog's :class:`~kb.core.posts.Post` records, links
already made relative to the page); values whose names end in ``_html`` are HTML, every
other text is escaped in the template with ``|e``. What the part's HTML means to the rest of
kb never depends on what the template writes: kb puts its own markers around a part
(:func:`markers`), so the refresh and the search index find it whatever a fork writes.
"""

from __future__ import annotations

from sphinx.application import Sphinx

#: Where the parts' templates live, in kb's templates and in a fork's ``_templates/``.
FOLDER = "kb/parts"


def render_part(app: Sphinx, name: str, **context: object) -> str:
    """The HTML of the part ``name`` (``kb/parts/<name>.html``) with ``context``; nothing
    for a builder that writes no HTML pages (it has no templates)."""
    templates = getattr(app.builder, "templates", None)
    if templates is None:
        return ""
    return templates.render(f"{FOLDER}/{name}.html", context)


#: The parts around the lists of other posts in a page's body: the home page's latest posts
#: and an ablog ``postlist`` (which a post's excerpt, shown in the first, may hold). Their
#: titles and excerpts are never words of this page: each is left out of the page's search
#: record (:mod:`kb.search.records`), Pagefind having been told to skip it, so that a post
#: added or retitled changes no record of a page that lists it.
UNSEARCHED_LISTS = ("latest-posts", "postlist")

#: The part around each part of a post's page that is no word of it (its date and authors, the
#: series box, related posts, "Linked from", the cite block: :mod:`kb.pages.postpage`), which
#: Pagefind skips whole (``data-pagefind-ignore="all"``). Left out of the search record too:
#: a post added to a series, or linking to this one, then changes no record but its own.
UNSEARCHED_PART = "unsearched"


def markers(name: str) -> tuple[str, str]:
    """The comments kb writes around the part ``name`` on every page that has it, whatever
    its template writes: ``<!--kb-related-->`` and ``<!--/kb-related-->``."""
    return f"<!--kb-{name}-->", f"<!--/kb-{name}-->"


def marked(name: str, html: str) -> str:
    """``html`` between kb's markers for the part ``name``."""
    start, end = markers(name)
    return start + html + end


def between(html: str, name: str) -> tuple[int, int] | None:
    """Where the part ``name`` stands in a written page ``html`` (the start of its first
    marker, the end of its second), or None when the page does not have it."""
    start, end = markers(name)
    first = html.find(start)
    if first < 0:
        return None
    last = html.find(end, first + len(start))
    return None if last < 0 else (first, last + len(end))


def without(html: str, name: str) -> str:
    """``html`` with every occurrence of the part ``name``, markers included, left out."""
    while (found := between(html, name)) is not None:
        html = html[: found[0]] + html[found[1] :]
    return html
