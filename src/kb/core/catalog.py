"""The catalog: one normalised record per post, built once per build.

While Sphinx reads a post we keep one :class:`PostSource` for it in ``env_state(env).posts``: what
the checks found (:mod:`kb.core.validation` fills ``facts``) and what listings need (filled
here at ``doctree-read``, from ablog's reading through :mod:`kb.core.ablog`, and from the
doctree: the excerpt paragraph, the word count). At ``env-updated`` the sources become a
:class:`~kb.core.posts.Catalog`: sorted, grouped into collections and series, each excerpt
rendered to HTML once and cached until its post changes. Every output reads this object,
announced by the ``kb-catalog-built`` event; none walks the site or re-renders an excerpt.

``kb serve``'s standby makes every post's record ahead of the change it waits for
(:func:`make_ahead`, :class:`CatalogAhead`): the build then makes only the records of the
documents it read again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import cast

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ..checks.dates import text_day
from ..checks.slugs import join, slugify
from ..upstream.docutils import detach
from . import ablog, events
from .collectors import DocumentTables
from .drafts import publish_cutoff
from .fragments import EXCERPT_PARTS, render_excerpt
from .html import reader_text
from .posts import KINDS, Catalog, Collection, Label, Post, Series, reading_order
from .records import PostSource
from .state import build_state, env_state

# -- Reading: keep what listings need from each post ---------------------------------------


def source(env: BuildEnvironment, docname: str) -> PostSource:
    return env_state(env).posts.setdefault(docname, PostSource())


def _doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    records = ablog.post_records(env, env.docname)
    if not records:
        return
    meta = env.metadata.get(env.docname, {})
    paragraphs, picture = ablog.excerpt_options(app.config, doctree, meta)
    image = _nth_image(doctree, picture)
    record = source(env, env.docname)
    record.fields = {
        **records[0],
        # The file's post, though ablog read it from a section (post_always_section): the
        # page is the post.
        "section": "",
        "description": str(meta.get("description", "")).strip(),
        "updated": str(meta.get("updated", "")).strip(),
        "series": str(meta.get("series", "")).strip(),
        "part": str(meta.get("part", "")).strip(),
        # Not "image": ablog reads that key as a number (which picture the excerpt shows) and
        # crashes on a path. "og:image" names the Open Graph field it fills; without one, the
        # picture ablog's number names is the card's, as a path from the site's root.
        "image": str(meta.get("og:image", "")).strip() or _site_path(image),
        "excerpt": _excerpt_source(doctree, paragraphs, image),
        "words": len(doctree.astext().split()),
    }
    record.sections = [_section_fields(app, doctree, one) for one in records[1:]]
    env_state(env).excerpts.pop(env.docname, None)


def _section_fields(app: Sphinx, doctree: nodes.document, record: dict) -> dict:
    """What listings need of a section post: its own excerpt, from its section."""
    section = doctree.ids.get(record["section"])
    if section is None:
        section = nodes.section()
    order = record["order"]
    paragraphs, picture = ablog.excerpt_options(app.config, doctree, {}, order)
    image = _nth_image(section, picture)
    return {
        **record,
        "description": "",
        "updated": "",
        "series": "",
        "part": "",
        "redirects": [],
        "image": "",
        "excerpt": _excerpt_source(doctree, paragraphs, image, order, section),
        "words": len(section.astext().split()),
    }


def _excerpt_source(
    doctree: nodes.document,
    paragraphs: int = 1,
    image: nodes.image | None = None,
    order: int = 1,
    within: nodes.Element | None = None,
) -> nodes.Element | None:
    """The excerpt, as ablog makes it: the ``order``-th ``post`` directive's content,
    wherever the directive stands; else the first ``paragraphs`` paragraphs with text of the
    document (or of the section ``within``, for a section post: ablog's ``:excerpt: N``),
    their images removed, so an image never becomes the excerpt by accident; then the picture
    ablog's ``:image: N`` names. One paragraph alone, or the parts in an :data:`EXCERPT_PARTS`
    container, which is rendered as its children."""
    mark = ablog.DIRECTIVE_EXCERPT
    marked = [p for p in doctree.findall(nodes.paragraph) if _is_order(p.get(mark), order)]
    for kept in ablog.excluded_excerpt(doctree, order):
        marked += [p for p in kept.findall(nodes.paragraph) if _is_order(p.get(mark), order)]
    candidates = marked or (within or doctree).findall(nodes.paragraph)
    parts: list[nodes.Element] = []
    for paragraph in candidates:
        if len(parts) >= (len(marked) or paragraphs):
            break
        if isinstance(paragraph.parent, (nodes.field_body, nodes.docinfo, nodes.system_message)):
            continue
        if not marked and within is None and paragraph.get(mark) not in (None, 1, True):
            continue  # a section post's own excerpt is not the file's
        copy = paragraph.deepcopy()
        for inner in list(copy.findall(nodes.image)):
            inner.parent.remove(inner)
        if copy.astext().strip():
            parts.append(detach(copy))
    if image is not None:
        parts.append(
            nodes.paragraph("", "", detach(image.deepcopy()), classes=["kb-excerpt-image"])
        )
    if len(parts) == 1 and image is None:
        return parts[0]
    return nodes.container("", *parts, **{EXCERPT_PARTS: True}) if parts else None


def _is_order(value: object, order: int) -> bool:
    # True (environments of older versions, which marked the first directive only) is 1.
    return value is not None and value is not False and value == order


def _nth_image(doctree: nodes.Element, number: int) -> nodes.image | None:
    """The post's image that ablog's ``:image: N`` names (1 for the first), or None."""
    if number <= 0:
        return None
    found = [image for image in doctree.findall(nodes.image) if "://" not in image["uri"]]
    return found[number - 1] if number <= len(found) else None


def _site_path(image: nodes.image | None) -> str:
    """An image's path from the site's root (Sphinx keeps it relative to the source folder)."""
    return "/" + image["uri"] if image is not None else ""


class PostSourceCollector(DocumentTables):
    """Each post's source (written at ``doctree-read``, priority 600, after ablog's handler:
    not in ``process_doc``, which runs at 500) and its rendered excerpt."""

    purged = ("posts", "excerpts")
    # Excerpts are not merged: they are rendered at env-updated, after the merge, from the
    # merged sources; a worker never renders one.
    merged = ("posts",)


# -- Building the catalog --------------------------------------------------------------------


def as_utc(value: datetime | date) -> datetime:
    """Front-matter dates carry no zone: they are UTC."""
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


class _Labels:
    """Labels and their collections, one object per name."""

    def __init__(self, blog_path: str, authors: dict) -> None:
        self.blog_path, self.authors = blog_path, authors
        self.collections: dict[str, dict[str, Collection]] = {kind: {} for kind in KINDS}

    def seeded(self) -> _Labels:
        """A registry that starts with these labels, each with a collection of no post yet
        (a label that no post has by the end is left out of the catalog, as any other)."""
        copy = _Labels(self.blog_path, self.authors)
        for kind, collections in self.collections.items():
            copy.collections[kind] = {name: Collection(c.label) for name, c in collections.items()}
        return copy

    def __call__(self, kind: str, name: str) -> Label:
        existing = self.collections[kind].get(name)
        if existing:
            return existing.label
        if kind == "author":
            full_name, url = self.authors.get(name, (name, None))
            new = Label(kind, full_name, join(self.blog_path, "author", slugify(full_name)), url)
        elif (folder := KINDS[kind][0]) is None:  # a year: no folder of its own
            new = Label(kind, name, join(self.blog_path, name))
        else:
            new = Label(kind, name, join(self.blog_path, folder, slugify(name)))
        self.collections[kind][name] = Collection(new)
        return new

    def grouped(self, published: list[Post]) -> dict[str, list[Collection]]:
        by_label = {c.label: c for colls in self.collections.values() for c in colls.values()}
        for post in published:
            for item in post.labels:
                by_label[item].posts.append(post)
        return {
            kind: sorted(
                (c for c in colls.values() if c.posts),
                key=(lambda c: -int(c.name)) if kind == "year" else (lambda c: c.name.casefold()),
            )
            for kind, colls in self.collections.items()
        }


@dataclass
class CatalogAhead:
    """Each post's records as ``kb serve``'s standby made them from the environment it loaded,
    while it waited for the change (:func:`make_ahead`): a build then makes only those of the
    documents it read again. At 10,000 posts making every record took 0.17-0.3 s of each
    edit.

    A build takes a document's records from here only while they are the ones it would make:
    the document's source object is the same (Sphinx reads a document into a new one, and no
    step writes into the source of a document it did not read) and the publish cut-off is the
    same (it moves at midnight). Its registry of labels starts from the one the records were
    made with (``labels``, one object per name, made from the names and the configuration
    alone). The old addresses are the build's (its checks accept them); the records hold
    none. Documents whose excerpt was not yet rendered are left out (rendering runs Sphinx's
    post-transforms, ablog's among them), and so are undated drafts (dated by the cut-off)."""

    cutoff: datetime
    labels: _Labels
    records: dict[str, tuple[PostSource, list[Post]]]


def make_ahead(app: Sphinx) -> None:
    """Make the records of every post of ``app``'s environment for its next build (kb serve's
    standby, before the change it waits for)."""
    env = app.env
    labels = _Labels(app.config.blog_path, app.config.blog_authors or {})
    cutoff = publish_cutoff()
    excerpts = env_state(env).excerpts
    records = {}
    for docname, record in env_state(env).posts.items():
        raws = _raws(record)
        if not raws or not _rendered(raws, docname in excerpts):
            continue
        made = [_post(app, env, docname, raw, labels, cutoff, ahead=True) for raw in raws]
        if any(post is None or post.undated for post in made):
            continue
        records[docname] = (record, cast("list[Post]", made))
    build_state(app).catalog_ahead = CatalogAhead(cutoff, labels, records)


def _raws(record: PostSource) -> list[dict]:
    """A document's post and its section posts' fields; none for a document that is no post."""
    return [record.fields, *record.sections] if record.fields else []


def _rendered(raws: list[dict], file_excerpt_cached: bool) -> bool:
    """Whether every excerpt of these posts is rendered and its nodes gone (making the
    record then changes nothing in the environment)."""
    sections_cached = all(raw.get("excerpt_html") is not None for raw in raws[1:])
    return file_excerpt_cached and sections_cached and all(r.get("excerpt") is None for r in raws)


def _records_kept(
    app: Sphinx, docname: str, record: PostSource, ahead: CatalogAhead | None
) -> list[Post] | None:
    """The records made ahead of this build for ``docname``, if they are still the ones it
    would make (see :class:`CatalogAhead`)."""
    kept = ahead.records.get(docname) if ahead is not None else None
    if kept is None or kept[0] is not record:
        return None
    made, raws = kept[1], _raws(record)
    if len(made) != len(raws):
        return None
    for raw, post in zip(raws, made, strict=True):
        post.redirects = () if post.section else _allowed_redirects(app, docname, raw)
    return made


def build_catalog(app: Sphinx, env: BuildEnvironment) -> Catalog:
    blog_path = app.config.blog_path
    cutoff = publish_cutoff()
    state = build_state(app)
    ahead, state.catalog_ahead = state.catalog_ahead, None  # for this build only
    if ahead is not None and ahead.cutoff != cutoff:
        ahead = None
    labels = ahead.labels.seeded() if ahead else _Labels(blog_path, app.config.blog_authors or {})
    published: list[Post] = []
    drafts: list[Post] = []
    posts = env_state(env).posts
    for docname in sorted(posts):
        kept = _records_kept(app, docname, posts[docname], ahead)
        made: Sequence[Post | None] = (
            kept
            if kept is not None
            else [_post(app, env, docname, raw, labels, cutoff) for raw in _raws(posts[docname])]
        )
        for post in made:
            if post is not None:
                (published if post.published else drafts).append(post)
    published.sort(key=_newest_first)
    drafts.sort(key=_newest_first)
    series = group_series(published, blog_path)
    return Catalog(published, drafts, labels.grouped(published), series, blog_path)


def _post(
    app: Sphinx,
    env: BuildEnvironment,
    docname: str,
    raw: dict,
    labels: _Labels,
    cutoff,
    ahead: bool = False,
) -> Post | None:
    """The catalog's record of one post of ``docname`` (its own or a section's); ``ahead``:
    made before the build (:func:`make_ahead`), with no old addresses."""
    if not raw or (raw["date"] is None and not app.config.kb_drafts):
        return None  # not a post; or undated, a draft left out (core/drafts) or unreadable
    undated = raw["date"] is None  # a draft, in a preview: listed first, as the newest
    when = cutoff if undated else as_utc(raw["date"])
    section = raw.get("section", "")
    authors, categories, tags, year, locations, languages = _labels_of(raw, when, labels)
    return Post(
        docname=docname,
        title=raw["title"],
        date=when,
        updated=_updated(raw, when, cutoff, app.config.post_date_format),
        authors=authors,
        categories=categories,
        tags=tags,
        year=year,
        excerpt_html=_cached_excerpt(app, env, docname, raw, section),
        excerpt_text=_excerpt_text(raw),
        words=raw["words"],
        external_link=raw["external_link"],
        series=raw["series"],
        part=raw["part"],
        image=raw["image"],
        redirects=() if section or ahead else _allowed_redirects(app, docname, raw),
        locations=locations,
        languages=languages,
        published=when < cutoff,
        undated=undated,
        section=section,
    )


def _labels_of(raw: dict, when: datetime, labels: _Labels) -> tuple:
    """A post's authors, categories, tags, year, locations and languages, each registered in
    ``labels`` (an archive page each)."""
    return (
        tuple(labels("author", a) for a in raw["authors"] if a),
        tuple(labels("category", c) for c in raw["categories"] if c),
        tuple(labels("tag", t) for t in raw["tags"] if t),
        labels("year", str(when.year)),
        tuple(labels("location", x) for x in raw.get("locations", ()) if x),
        tuple(labels("language", x) for x in raw.get("languages", ()) if x),
    )


def group_series(published: list[Post], blog_path: str) -> list[Series]:
    """Every series with at least one published post, sorted by name, in reading order."""
    members: dict[str, list[Post]] = {}
    for post in published:
        if post.series:
            members.setdefault(post.series, []).append(post)
    return [
        Series(
            name,
            slugify(name),
            join(blog_path, "series", slugify(name)),
            tuple(sorted(posts, key=reading_order)),
        )
        for name, posts in sorted(members.items(), key=lambda item: item[0].casefold())
    ]


def _newest_first(post: Post):
    # A stable order: newest first, then by title and docname so ties never flip.
    return (-post.date.timestamp(), post.title, post.key)


def _updated(raw: dict, published: datetime, cutoff: datetime, date_format: str) -> datetime:
    candidates = [published]
    if raw["update"]:
        candidates.append(as_utc(raw["update"]))
    # A malformed date is reported by the front-matter checks, not here.
    updated = text_day(raw["updated"], date_format) if raw["updated"] else None
    if updated is not None:
        candidates.append(as_utc(updated))
    # An update dated after today is not true yet (the rule of a future date): ignored.
    return max(c for c in candidates if c < cutoff or c == published)


def _allowed_redirects(app: Sphinx, docname: str, raw: dict) -> tuple[str, ...]:
    """The old addresses the checks accepted (:mod:`kb.core.validation`); none unchecked."""
    allowed = build_state(app).allowed_redirects.get(docname, set())
    return tuple(name for name in raw["redirects"] if name in allowed)


def _excerpt_paragraph(raw: dict) -> nodes.Element | None:
    if raw["description"]:
        return nodes.paragraph(text=raw["description"])
    return raw["excerpt"]


def _excerpt_text(raw: dict) -> str:
    if "excerpt_text" in raw:
        return raw["excerpt_text"]
    paragraph = _excerpt_paragraph(raw)
    if paragraph is None:
        return ""
    if paragraph.get(EXCERPT_PARTS):
        return " ".join(filter(None, (reader_text(part).strip() for part in paragraph.children)))
    return reader_text(paragraph)


def _cached_excerpt(
    app: Sphinx, env: BuildEnvironment, docname: str, raw: dict, section: str = ""
) -> str:
    """The excerpt's HTML, rendered once per reading of the post. Once it is rendered, the
    paragraph's nodes give way to its text: the environment is pickled after every build
    that read anything and unpickled by every build, and nodes cost far more than strings.
    An excerpt that holds a cross-reference keeps them, to be rendered again where the link
    now leads elsewhere (:func:`render_excerpts_again`). A section post's is kept in its own
    record (purged with the file's)."""
    excerpts = env_state(env).excerpts
    html = raw.get("excerpt_html") if section else excerpts.get(docname)
    if html is None:
        html = render_excerpt(app, docname, _excerpt_paragraph(raw))
        if section:
            raw["excerpt_html"] = html
        else:
            excerpts[docname] = html
    if raw.get("excerpt") is not None and "excerpt_text" not in raw:
        raw["excerpt_text"] = _excerpt_text(raw)
    if raw.get("excerpt") is not None and not _holds_cross_references(raw["excerpt"]):
        raw["excerpt"] = None
    return html


def _holds_cross_references(excerpt: nodes.Element) -> bool:
    """Whether an excerpt's nodes hold a cross-reference, which Sphinx resolves as it renders
    them (rendering resolves a copy: the nodes keep theirs)."""
    return next(excerpt.findall(addnodes.pending_xref), None) is not None


def render_excerpts_again(env: BuildEnvironment, docnames: set[str]) -> None:
    """Have this build's catalog render the excerpts of these posts again (their links lead
    elsewhere now, :func:`kb.core.links.linking_again`): those that hold a cross-reference
    kept their nodes for it; the others show nothing that changed."""
    state = env_state(env)
    for docname in docnames:
        record = state.posts.get(docname)
        for index, raw in enumerate(_raws(record) if record is not None else []):
            if raw.get("excerpt") is None:
                continue
            if index:
                raw["excerpt_html"] = None
            else:
                state.excerpts.pop(docname, None)


def _env_updated(app: Sphinx, env: BuildEnvironment):
    if app.builder.format != "html":
        return []
    catalog = build_state(app).catalog = build_catalog(app, env)
    app.emit("kb-catalog-built", catalog)
    return []


# -- Reading the catalog ---------------------------------------------------------------------
#
# The catalog and what outputs derive from it live on the application, not in the environment:
# they are made again by every build, so pickling them with the environment would only cost
# time, and only what is read from sources (env_state(env).posts, purged and merged by its
# collector) must survive between builds.


def get_catalog(app: Sphinx) -> Catalog:
    catalog = build_state(app).catalog
    if catalog is None:
        raise RuntimeError("kb's catalog is built at env-updated")
    return catalog


def has_catalog(app: Sphinx) -> bool:
    return build_state(app).catalog is not None


def setup_catalog(app: Sphinx) -> None:
    app.add_event("kb-catalog-built")
    # After ablog's own doctree-read handler (priority 500) has registered the post.
    app.connect("doctree-read", _doctree_read, priority=events.READ_POST_RECORDS)
    app.add_env_collector(PostSourceCollector)
    app.connect("env-updated", _env_updated, priority=events.BUILD_CATALOG)
