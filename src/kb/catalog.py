"""The catalog: one normalised record per post, built once per build.

ablog finds the posts and parses their front matter while Sphinx reads them; at
``doctree-read`` we keep what every listing needs (title, dates, labels, the excerpt's
doctree). At ``env-updated`` the records become a :class:`Catalog`: sorted, grouped into
ablog's collections (same URLs as ablog's own archive pages), each excerpt rendered to HTML
once and cached in the environment until its post changes. Every output reads this object;
none walks the site or re-renders an excerpt.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from html import escape, unescape
from urllib.parse import urljoin

from ablog.blog import os_path_join, slugify
from docutils import nodes
from docutils.utils import new_document
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import _get_settings
from sphinx.util.osutil import relative_uri
from sphinx.writers.html import HTMLWriter

logger = logging.getLogger(__name__)

#: Builders whose output is a browsable site with one HTML file per page.
SITE_BUILDERS = ("html", "dirhtml")


def site_url(app: Sphinx) -> str:
    """The site's absolute URL with a trailing slash (``html_baseurl``, else ablog's
    ``blog_baseurl``), or "" when none is configured."""
    url = (app.config.html_baseurl or getattr(app.config, "blog_baseurl", "") or "").strip()
    return url if not url or url.endswith("/") else url + "/"


WORDS_PER_MINUTE = 230

#: Kinds of collection, their ablog catalog path and the heading of their archive pages.
KINDS = {
    "category": ("category", "Category"),
    "tag": ("tag", "Tag"),
    "author": ("author", "Author"),
    "year": (None, "Year"),
}


@dataclass(frozen=True)
class Label:
    """A category, tag, author or year, with the archive page that lists it."""

    kind: str
    name: str
    docname: str
    url: str | None = None  # an author's own page, when configured


@dataclass
class Post:
    """Everything a listing, feed, sidebar or series box shows about one post."""

    docname: str
    title: str
    date: datetime
    updated: datetime
    authors: tuple[Label, ...]
    categories: tuple[Label, ...]
    tags: tuple[Label, ...]
    year: Label
    excerpt_html: str  # links relative to the site root; see :func:`relocate_links`
    excerpt_text: str
    words: int
    external_link: str = ""
    series: str = ""
    part: str = ""
    image: str = ""
    published: bool = True

    @property
    def reading_minutes(self) -> int:
        return max(1, round(self.words / WORDS_PER_MINUTE))

    @property
    def labels(self) -> tuple[Label, ...]:
        return (*self.categories, *self.tags, *self.authors, self.year)

    def fingerprint(self) -> str:
        """What listings show of this post; a change here means listings must be rewritten.

        Computed once: every listing page that shows the post signs with it (about eight
        thousand calls per build at 1000 posts), and a post does not change within a build.
        """
        cached = self.__dict__.get("_fingerprint")
        if cached is not None:
            return cached
        parts = [
            self.docname,
            self.title,
            self.date.isoformat(),
            self.updated.isoformat(),
            self.external_link,
            self.series,
            self.part,
            self.excerpt_html,
            *(f"{label.kind}:{label.name}" for label in self.labels),
        ]
        self.__dict__["_fingerprint"] = digest = _digest(parts)
        return digest


@dataclass
class Collection:
    """Posts sharing a label, newest first."""

    label: Label
    posts: list[Post] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.label.name

    @property
    def docname(self) -> str:
        return self.label.docname


@dataclass(repr=False)
class Catalog:
    """All published posts of a build, newest first, with their collections."""

    posts: list[Post]
    drafts: list[Post]
    collections: dict[str, list[Collection]]  # kind -> collections sorted for display
    blog_path: str

    def __repr__(self) -> str:
        # Sphinx logs repr() of every event's arguments; the dataclass repr of a thousand
        # posts took a quarter of a second on each build.
        return f"<Catalog: {len(self.posts)} posts, {len(self.drafts)} drafts>"

    def by_docname(self, docname: str) -> Post | None:
        return self._index().get(docname)

    def _index(self) -> dict[str, Post]:
        if not hasattr(self, "_by_docname"):
            self._by_docname = {p.docname: p for p in (*self.posts, *self.drafts)}
        return self._by_docname

    def catalog_docname(self, kind: str) -> str:
        """The page listing all collections of a kind (ablog's catalog page)."""
        path = KINDS[kind][0]
        return os_path_join(self.blog_path, path) if path else f"{self.blog_path}/archive"


def _digest(parts) -> str:
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()


# -- Reading: keep what listings need from each post ---------------------------------------


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    docname = env.docname
    infos = getattr(env, "ablog_posts", {}).get(docname)
    if not infos:
        return
    info = infos[0]
    meta = env.metadata.get(docname, {})
    env.kb_posts[docname] = {
        "title": info["title"],
        "date": info["date"],
        "update": info["update"],
        "tags": list(info["tags"]),
        "authors": list(info["author"]),
        "categories": list(info["category"]),
        "external_link": info["external_link"] or "",
        "description": str(meta.get("description", "")).strip(),
        "updated": str(meta.get("updated", "")).strip(),
        "series": str(meta.get("series", "")).strip(),
        "part": str(meta.get("part", "")).strip(),
        # Not "image": ablog reads that key as a number (which picture the excerpt shows) and
        # crashes on a path. "og:image" names the Open Graph field it fills.
        "image": str(meta.get("og:image", "")).strip(),
        "excerpt": _excerpt_source(doctree),
        "words": len(doctree.astext().split()),
    }
    env.kb_excerpts.pop(docname, None)


def _excerpt_source(doctree: nodes.document) -> nodes.paragraph | None:
    """The first paragraph with text, images removed: an image never becomes the excerpt."""
    for paragraph in doctree.findall(nodes.paragraph):
        if isinstance(paragraph.parent, (nodes.field_body, nodes.docinfo)):
            continue
        copy = paragraph.deepcopy()
        for image in list(copy.findall(nodes.image)):
            image.parent.remove(image)
        if copy.astext().strip():
            return detach(copy)
    return None


def detach(node: nodes.Node) -> nodes.Node:
    """Cut a copied node loose from the document it was copied from.

    Sphinx's ``deepcopy`` points every copied node at the original document, so keeping the
    copy in the environment would pickle the post's whole doctree (and its settings) with it:
    at 1000 posts that made the environment 68 MB and a no-change rebuild spend seconds
    unpickling it.
    """
    for descendant in node.findall():
        vars(descendant).pop("_document", None)
    return node


def _purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    env.kb_posts.pop(docname, None)
    env.kb_excerpts.pop(docname, None)


def _merge_info(app, env, docnames, other) -> None:
    for docname in docnames:
        if docname in other.kb_posts:
            env.kb_posts[docname] = other.kb_posts[docname]


def _env_before_read(app: Sphinx, env: BuildEnvironment, docnames) -> None:
    if not hasattr(env, "kb_posts"):
        env.kb_posts = {}
        env.kb_excerpts = {}


# -- Building the catalog --------------------------------------------------------------------


def as_utc(value: datetime | date) -> datetime:
    """Front-matter dates carry no zone: they are UTC."""
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def publish_cutoff() -> datetime:
    """ablog's rule: a post dated before tomorrow (UTC, the process is pinned to UTC) is out."""
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return today + timedelta(days=1)


def build_catalog(app: Sphinx, env: BuildEnvironment) -> Catalog:
    blog_path = app.config.blog_path
    authors = app.config.blog_authors or {}
    cutoff = publish_cutoff()
    published, drafts = [], []
    collections: dict[str, dict[str, Collection]] = {kind: {} for kind in KINDS}

    def label(kind: str, name: str) -> Label:
        existing = collections[kind].get(name)
        if existing:
            return existing.label
        if kind == "author":
            full_name, url = authors.get(name, (name, None))
            new = Label(kind, full_name, os_path_join(blog_path, "author", slugify(full_name)), url)
        elif kind == "year":
            new = Label(kind, name, os_path_join(blog_path, name))
        else:
            new = Label(kind, name, os_path_join(blog_path, KINDS[kind][0], slugify(name)))
        collections[kind][name] = Collection(new)
        return new

    for docname in sorted(env.kb_posts):
        raw = env.kb_posts[docname]
        if raw["date"] is None:
            continue  # ablog treats an undated post as a draft; the checks report it
        when = as_utc(raw["date"])
        updated = _updated(raw, when)
        post = Post(
            docname=docname,
            title=raw["title"],
            date=when,
            updated=updated,
            authors=tuple(label("author", a) for a in raw["authors"] if a),
            categories=tuple(label("category", c) for c in raw["categories"] if c),
            tags=tuple(label("tag", t) for t in raw["tags"] if t),
            year=label("year", str(when.year)),
            excerpt_html=_cached_excerpt(app, env, docname, raw),
            excerpt_text=_excerpt_text(raw),
            words=raw["words"],
            external_link=raw["external_link"],
            series=raw["series"],
            part=raw["part"],
            image=raw["image"],
            published=when < cutoff,
        )
        (published if post.published else drafts).append(post)

    newest_first = _newest_first
    published.sort(key=newest_first)
    drafts.sort(key=newest_first)
    by_label = {c.label: c for colls in collections.values() for c in colls.values()}
    for post in published:
        for item in post.labels:
            by_label[item].posts.append(post)
    grouped = {
        kind: sorted(
            (c for c in colls.values() if c.posts),
            key=(lambda c: -int(c.name)) if kind == "year" else (lambda c: c.name.casefold()),
        )
        for kind, colls in collections.items()
    }
    return Catalog(published, drafts, grouped, blog_path)


def _newest_first(post: Post):
    # A stable order: newest first, then by title and docname so ties never flip.
    return (-post.date.timestamp(), post.title, post.docname)


def _updated(raw: dict, published: datetime) -> datetime:
    candidates = [published]
    if raw["update"]:
        candidates.append(as_utc(raw["update"]))
    if raw["updated"]:
        # A malformed date is reported by the front-matter checks, not here.
        with contextlib.suppress(ValueError):
            candidates.append(as_utc(date.fromisoformat(raw["updated"])))
    return max(candidates)


def _excerpt_text(raw: dict) -> str:
    if raw["description"]:
        return raw["description"]
    return raw["excerpt"].astext() if raw["excerpt"] is not None else ""


def _cached_excerpt(app: Sphinx, env: BuildEnvironment, docname: str, raw: dict) -> str:
    html = env.kb_excerpts.get(docname)
    if html is None:
        html = env.kb_excerpts[docname] = render_excerpt(app, docname, raw)
    return html


def render_excerpt(app: Sphinx, docname: str, raw: dict) -> str:
    """Render a post's excerpt once, with links relative to the site root."""
    if raw["description"]:
        paragraph = nodes.paragraph(text=raw["description"])
    elif raw["excerpt"] is not None:
        paragraph = raw["excerpt"].deepcopy()
    else:
        return ""
    builder = app.builder
    document = new_document(app.env.doc2path(docname), _writer_settings(app))
    document.append(paragraph)
    for xref in document.findall(nodes.Element):
        if "refdoc" in xref:
            xref["refdoc"] = docname
    # Resolve and write as on the post's own page (MyST resolves links from the node's
    # refdoc, Sphinx's roles from the page: only the post's page makes both agree), then
    # rebase every relative link onto the site root. Problems are already reported on the post.
    page = builder.get_target_uri(docname)
    with logging.suppress_logging():
        app.env.resolve_references(document, docname, builder)
    return rebase_links(write_fragment(builder, docname, document), page)


def write_fragment(builder, docname: str, document: nodes.document) -> str:
    """HTML of ``document`` as ``docname``'s own page would write it (its relative image and
    download paths, its section and figure numbers), leaving the builder as it was."""
    target = builder.get_target_uri(docname)
    saved = (
        builder.current_docname,
        getattr(builder, "imgpath", ""),
        getattr(builder, "dlpath", ""),
        getattr(builder, "secnumbers", {}),
        getattr(builder, "fignumbers", {}),
    )
    builder.current_docname = docname
    builder.imgpath = relative_uri(target, "_images")
    builder.dlpath = relative_uri(target, "_downloads")
    builder.secnumbers = builder.env.toc_secnumbers.get(docname, {})
    builder.fignumbers = builder.env.toc_fignumbers.get(docname, {})
    try:
        visitor = builder.create_translator(document, builder)
        document.walkabout(visitor)
        return "".join(visitor.fragment).strip()
    finally:
        (
            builder.current_docname,
            builder.imgpath,
            builder.dlpath,
            builder.secnumbers,
            builder.fignumbers,
        ) = saved


def _writer_settings(app: Sphinx):
    """Docutils settings for excerpt documents, made once per build.

    Building them means building docutils' whole option parser (about 5 ms); once per
    excerpt it was the larger part of rendering a thousand excerpts.
    """
    settings = getattr(app, "_kb_writer_settings", None)
    if settings is None:
        settings = _get_settings(HTMLWriter, defaults=app.env.settings, read_config_files=False)
        app._kb_writer_settings = settings
    return settings


_RELATIVE_LINK = re.compile(r'(\s(?:href|src)=")(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)')


_PAGE_LINK = re.compile(r'(\s(?:href|src)=")((?![a-zA-Z][a-zA-Z0-9+.-]*:|/)[^"]*)"')
_ROOT = "https://root.invalid/"


def rebase_links(html: str, page: str) -> str:
    """Make links relative to ``page`` (a target URI) relative to the site root."""

    def rebase(match: re.Match) -> str:
        url = urljoin(_ROOT + page, unescape(match.group(2)))
        url = url[len(_ROOT) :] if url.startswith(_ROOT) else url
        return f'{match.group(1)}{escape(url, quote=True)}"'

    return _PAGE_LINK.sub(rebase, html)


def relocate_links(html: str, prefix: str) -> str:
    """Prefix root-relative ``href``/``src`` values: ``../`` per level, or the site URL."""
    if not prefix:
        return html
    return _RELATIVE_LINK.sub(lambda m: m.group(1) + prefix, html)


def _env_updated(app: Sphinx, env: BuildEnvironment):
    if app.builder.format != "html":
        return []
    env.kb_catalog = build_catalog(app, env)
    app.emit("kb-catalog-built", env.kb_catalog)
    return []


def post_page(app: Sphinx, pagename: str, context: dict, doctree) -> Post | None:
    """The post a page being written shows, when it is a post's own page with a body."""
    if doctree is None or "body" not in context or not hasattr(app.env, "kb_catalog"):
        return None
    return app.env.kb_catalog.by_docname(pagename)


def get_catalog(app_or_env) -> Catalog:
    env = getattr(app_or_env, "env", app_or_env)
    return env.kb_catalog


def setup_catalog(app: Sphinx) -> None:
    app.add_event("kb-catalog-built")
    app.connect("env-before-read-docs", _env_before_read)
    # After ablog's own doctree-read handler (priority 500) has registered the post.
    app.connect("doctree-read", _doctree_read, priority=600)
    app.connect("env-purge-doc", _purge_doc)
    app.connect("env-merge-info", _merge_info)
    app.connect("env-updated", _env_updated, priority=400)
