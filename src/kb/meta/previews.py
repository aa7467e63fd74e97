"""Link previews: Open Graph and Twitter tags on every page, and each post's own image.

* Open Graph and Twitter cards on every page, written here rather than by sphinxext-opengraph:
  that extension imports matplotlib for its social cards on every build (0.4 s of a 2.7 s
  no-change rebuild at 1000 posts) and skips generated pages. A post gets ``og:type``
  ``article``, its description (the excerpt) and its image, from front matter ``og:image`` (a
  path relative to the post, ``/`` for the site root, or a URL), checked (an image file inside
  the repository, :mod:`kb.core.paths`) and copied to the output next to the post; other
  pages get the site's card (``kb_og_image``).
"""

from __future__ import annotations

import re
import shutil
from html import escape
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin, urlparse

from docutils import nodes
from markupsafe import Markup
from sphinx.application import Sphinx
from sphinx.util import logging

from ..core import events, paths
from ..core.catalog import get_catalog, has_catalog
from ..core.html import reader_text
from ..core.posts import Catalog, Post
from ..core.state import build_state
from ..core.urls import is_notfound_page, site_url

logger = logging.getLogger(__name__)

IMAGE_FIELD = "og:image"


# -- Per-post images -------------------------------------------------------------------------


def image_path(post: Post) -> str | None:
    """The site-relative path of a post's own image; None for none or an external URL."""
    if not post.image or urlparse(post.image).scheme:
        return None
    if post.image.startswith("/"):
        return str(PurePosixPath(post.image.lstrip("/")))
    relative = PurePosixPath(post.docname).parent / post.image
    parts: list[str] = []
    for part in relative.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def image_refusal(app: Sphinx, post: Post) -> paths.Refusal | None:
    """Why a post's own image may not be published (kb.core.paths), or None."""
    if not post.image or urlparse(post.image).scheme:
        return None
    return paths.site_refusal(
        app.env,
        paths.named_path(app.env, post.image, post.docname),
        suffixes=paths.IMAGE_SUFFIXES,
        kind="an image",
    )


def allowed_image_path(app: Sphinx, post: Post) -> str | None:
    """:func:`image_path`, when the image may be published."""
    path = image_path(post)
    return path if path and image_refusal(app, post) is None else None


def image_url(app: Sphinx, post: Post) -> str:
    """Absolute URL of the post's image, or of the site's default image (``kb_og_image``)."""
    if post.image and urlparse(post.image).scheme:
        return post.image
    path = allowed_image_path(app, post) or build_state(app).config.og_image
    if not path or urlparse(path).scheme:
        return path
    return urljoin(site_url(app), path)


def _front_matter_line(app: Sphinx, docname: str, key: str) -> int | None:
    try:
        lines = Path(app.env.doc2path(docname)).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    return next((n for n, line in enumerate(lines, 1) if line.startswith(f"{key}:")), None)


def check_images(app: Sphinx, catalog: Catalog) -> None:
    for post in (*catalog.posts, *catalog.drafts):
        path = image_path(post)
        refused = image_refusal(app, post)
        if refused is not None:
            line = _front_matter_line(app, post.docname, IMAGE_FIELD)
            paths.warn(IMAGE_FIELD, post.image, refused, (post.docname, line))
        elif path and not (Path(app.srcdir) / path).is_file():
            logger.warning(
                f"{IMAGE_FIELD} {post.image!r} not found (looked for {path}); give a path "
                "relative to the post, or starting with / from the site's root",
                location=(post.docname, _front_matter_line(app, post.docname, IMAGE_FIELD)),
                type="kb",
                subtype="image",
            )


def copy_images(app: Sphinx, catalog: Catalog) -> None:
    """Copy each post's image to the same path in the output, when new or changed."""
    for post in (*catalog.posts, *catalog.drafts):
        path = allowed_image_path(app, post)
        if not path:
            continue
        source = Path(app.srcdir) / path
        if not source.is_file():
            continue
        target = Path(app.outdir) / path
        if target.is_file() and target.read_bytes() == source.read_bytes():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


# -- Social meta tags ------------------------------------------------------------------------


def _tag(attribute: str, name: str, content: str) -> str:
    return f'<meta {attribute}="{name}" content="{escape(content, quote=True)}" />\n'


def og_tags(
    app: Sphinx,
    pagename: str,
    title: str,
    description: str,
    og_type: str,
    image: str,
    image_alt: str,
    named: bool = True,
) -> str:
    """Open Graph and Twitter tags of one page; every URL absolute. ``named``: with the
    ``<meta name="description">`` too."""
    tags = [
        _tag("property", "og:title", title),
        _tag("property", "og:type", og_type),
        _tag("property", "og:url", urljoin(site_url(app), app.builder.get_target_uri(pagename))),
        _tag("property", "og:site_name", app.config.project),
    ]
    if description:
        tags.append(_tag("property", "og:description", description))
        if named:
            tags.append(_tag("name", "description", description))
    if image:
        tags.append(_tag("property", "og:image", image))
        if image_alt:
            tags.append(_tag("property", "og:image:alt", image_alt))
    return "".join(tags + twitter_tags(image))


def site_card(app: Sphinx) -> str:
    """The absolute URL of the site's default card image (``kb_og_image``), or ''."""
    image = build_state(app).config.og_image
    if image and not urlparse(image).scheme:
        image = urljoin(site_url(app), image)
    return image


def post_tags(app: Sphinx, pagename: str, post: Post, named: bool = True) -> str:
    """A post's card: its excerpt (as previews show it) and image, plus ``article:*`` tags."""
    image = image_url(app, post)
    own = post.image and (urlparse(post.image).scheme or allowed_image_path(app, post))
    alt = post.title if own else build_state(app).config.og_image_alt
    description = preview_text(post.excerpt_text)
    tags = [og_tags(app, pagename, post.title, description, "article", image, alt, named)]
    tags.append(_tag("property", "article:published_time", post.date.date().isoformat()))
    if post.updated > post.date:
        tags.append(_tag("property", "article:modified_time", post.updated.date().isoformat()))
    tags += [_tag("property", "article:author", a.name) for a in post.authors]
    tags += [_tag("property", "article:tag", t.name) for t in post.tags]
    return "".join(tags)


def twitter_tags(image: str) -> list[str]:
    """Only the card type: for title, description and image X reads the ``og:*`` tags when
    its own are absent (its Cards markup reference), so repeating them would only add bytes
    (a post's description is ~400 of them)."""
    return [_tag("name", "twitter:card", "summary_large_image" if image else "summary")]


#: About what a link preview or a search result shows of a description.
DESCRIPTION_LENGTH = 200


def preview_text(text: str) -> str:
    """``text`` on one line, cut at a word near ``DESCRIPTION_LENGTH`` characters."""
    text = " ".join(text.split())
    if len(text) <= DESCRIPTION_LENGTH:
        return text
    return text[:DESCRIPTION_LENGTH].rsplit(" ", 1)[0] + "…"


def page_description(doctree) -> str:
    """A page's first paragraph, as previews show it."""
    for paragraph in doctree.findall(nodes.paragraph):
        text = preview_text(reader_text(paragraph))
        if text:
            return text
    return ""


def _is_excluded_page(app: Sphinx, pagename: str, templatename: str, context: dict) -> bool:
    # Pages nobody should share: the 404 page, and those that say so (a redirect's old address).
    return (
        is_notfound_page(app.config, pagename)
        or templatename == "search.html"
        or bool(context.get("kb_no_preview"))
    )


def _social_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if app.builder.format != "html" or _is_excluded_page(app, pagename, templatename, context):
        return
    post = get_catalog(app).by_docname(pagename) if has_catalog(app) else None
    # An author's own description (MyST's html_meta, rst's meta directive) is already in the
    # head: one description a page.
    named = doctree is None or not _author_description(doctree)
    if post is not None:
        tags = post_tags(app, pagename, post, named)
    elif context.get("title"):
        title = Markup(str(context.get("kb_title") or context["title"])).striptags()
        description = page_description(doctree) if doctree is not None else ""
        image, alt = site_card(app), build_state(app).config.og_image_alt
        tags = og_tags(app, pagename, title, description, "website", image, alt, named)
    else:
        return
    context["metatags"] = context.get("metatags", "") + tags


def _author_description(doctree) -> bool:
    return any(meta.get("name") == "description" for meta in doctree.findall(nodes.meta))


# docutils' HTML5 writer adds its own viewport tag to the page's meta tags, and Sphinx passes it
# on although every theme's layout (furo's base.html too) writes one: two in each head
# (sphinx-doc/sphinx#11699). Keep the theme's.
DOCUTILS_VIEWPORT = re.compile(r'<meta name="viewport" [^>]*>\n?')


def _drop_docutils_viewport(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if context.get("metatags"):
        context["metatags"] = DOCUTILS_VIEWPORT.sub("", context["metatags"])


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    check_images(app, catalog)


def _build_finished(app: Sphinx, exception) -> None:
    if exception is None and app.builder.format == "html" and has_catalog(app):
        copy_images(app, get_catalog(app))


def setup_previews(app: Sphinx) -> None:
    app.connect("kb-catalog-built", _catalog_built)
    # After kb.pages (500) have set the title of an archive page.
    app.connect("html-page-context", _social_page_context, priority=events.AFTER_PAGE_CONTEXT)
    app.connect("html-page-context", _drop_docutils_viewport)
    app.connect("build-finished", _build_finished)
