"""ablog's labels lead to pages this site writes, or are a warning at the reference.

ablog resolves ``:ref:`blog-posts```, ``blog-tags``, ``tag-gemm``, ``blog-drafts``,
``blog-feed``, ``blog-locations`` … to the pages its own writers would make. This site writes
its archives and catalogs itself (:mod:`.listings`), under the same names (location and
language archives too, once a post names one), but no drafts page (drafts stay off the site),
and its feeds under ``feeds/``. So each label is looked up before ablog's handler answers: one
whose page the build writes is left to ablog, ``blog-feed`` leads to the site's Atom feed, and
any other is a warning at the reference's line that says what the site has instead, the
reference kept as plain text rather than a link to a page that does not exist.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.osutil import relative_uri

from ..core import ablog, events
from ..core.catalog import get_catalog, has_catalog
from ..core.urls import site_url
from .listings import listing_pages

logger = logging.getLogger(__name__)

SITE_FEED = "feeds/atom.xml"
#: What to say of a label whose page the site never writes, by the label's start.
INSTEAD = {
    "blog-drafts": "drafts stay off the site until their day (kb serve --drafts previews them)",
    "blog-locations": "no post names a location",
    "blog-languages": "no post names a language",
    "location-": "no post names that location",
    "language-": "no post names that language",
}


def written_pages(app: Sphinx) -> set[str]:
    """The docnames of every page this build writes: documents and kb's listing pages."""
    pages = set(app.env.found_docs) | set(listing_pages(app))
    if has_catalog(app):
        catalog = get_catalog(app)
        pages |= {catalog.catalog_docname(k) for k, found in catalog.collections.items() if found}
        if catalog.series:
            pages.add(catalog.series_catalog_docname)
    return pages


def _missing_reference(app: Sphinx, env, node: nodes.Element, contnode: nodes.Element):
    if node.get("refdomain") != "std" or node.get("reftype") != "ref":
        return None
    if not has_catalog(app):
        return None  # an excerpt rendered while the catalog is built: pages not known yet
    target = node.get("reftarget", "")
    found = ablog.reference_page(app, target)
    if found is None or found[0] in written_pages(app):
        return None  # not ablog's, or a page the build writes: ablog's own answer is right
    page, title = found
    shown = contnode if node.get("refexplicit") else nodes.emphasis(title, title)
    refdoc = node.get("refdoc", env.docname)
    if target == "blog-feed" and site_url(app) and app.builder.format == "html":
        uri = relative_uri(app.builder.get_target_uri(refdoc), SITE_FEED)
        return nodes.reference("", "", shown, internal=True, refuri=uri, reftitle=title)
    reason = next((why for start, why in INSTEAD.items() if target.startswith(start)), "")
    reason = reason or f"the site writes no page {page!r}"
    logger.warning(
        "ref: %r is a page of ablog's that this site does not have: %s; link a page that "
        "exists instead",
        target,
        reason,
        location=node,
        type="kb",
        subtype="ablog-ref",
    )
    return nodes.inline("", "", *shown.children)


def setup_ablogrefs(app: Sphinx) -> None:
    # Before ablog's own handler (500), which answers for every label of its own.
    app.connect("missing-reference", _missing_reference, priority=events.ABLOG_LABELS)
