"""The one module that knows ablog: it turns ablog's data into plain records.

ablog finds the posts (``blog_post_pattern``), reads their front matter while Sphinx reads
them and keeps what it found in ``env.ablog_posts``. Everything else in kb reads the catalog
(:mod:`kb.core.catalog`), built from the records this module hands out: plain dicts of
strings, lists and naive datetimes, never an ablog object. What ablog 0.11 gets wrong or
costs is handled here too:

* its class-level ``Blog`` state would leak from one build to the next in one process
  (tests, a long-lived preview worker): every build starts with a fresh one;
* it keeps a deep copy of each post's whole doctree in the environment, which only its
  full-text Atom feed reads (ours replace it): the copy is dropped after reading;
* it writes page 1 of every archive, its catalog pages, a drafts page and redirect pages on
  every build, whether they changed or not, and its Atom feeds: kb writes all of those from
  the catalog (:mod:`kb.pages.listings`, :mod:`kb.pages.redirects`, :mod:`kb.feeds`), only
  when they change and never for drafts, so ablog's two ``html-collect-pages`` handlers are
  disconnected (through Sphinx's public ``app.disconnect``).
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from ..upstream.ablog import matched_blog_posts, reset_blog_state
from ..upstream.docutils import detach
from ..upstream.sphinx import listeners
from . import events
from .state import build_state


def matched_posts(config) -> tuple[str, ...]:
    """Docnames matching ``blog_post_pattern``, as ablog matched them at ``config-inited``."""
    return tuple(getattr(config, "matched_blog_posts", ()) or ())


def match_posts_again(app: Sphinx) -> tuple[str, ...]:
    """Match ``blog_post_pattern`` to the files as they are now, as ablog did when the
    configuration was read, and keep the result where ablog reads it; the docnames found."""
    app.config.matched_blog_posts = matched_blog_posts(app.srcdir, app.config.blog_post_pattern)
    build_state(app).post_files = None  # the post files the checks list: looked for again
    return matched_posts(app.config)


def is_blog_post(env, docname: str) -> bool:
    """Whether ablog took ``docname`` for a post (published, draft, or one the catalog
    leaves out because its front matter is broken)."""
    return docname in getattr(env, "ablog_posts", {})


def post_directives(document: nodes.document) -> list[nodes.Element]:
    """The nodes of ablog's ``post`` directives in a document just parsed (before ablog's
    transforms and handlers read them)."""
    from ablog.post import PostNode

    return list(document.findall(PostNode))


#: The attribute that marks the paragraphs of a ``post`` directive's content: ablog's
#: excerpt for that post, wherever in the post the directive stands. Its value is the
#: directive's place among the file's posts (1 for the file's own post; True, from older
#: environments, is 1 too).
DIRECTIVE_EXCERPT = "kb_directive_excerpt"


#: The document attribute keeping the content of each ``post`` directive with ``:exclude:``,
#: by the directive's place (1 for the first).
EXCLUDED_EXCERPT = "kb_excluded_excerpt"
#: The document attribute keeping each ``post`` directive's ``:excerpt:`` and ``:image:``
#: numbers, which ablog's doctree-read handler takes away with the directive's node.
EXCERPT_OPTIONS = "kb_excerpt_options"


def mark_directive_excerpts(document: nodes.document, directives: list[nodes.Element]) -> None:
    """Mark the paragraphs of each directive's content, which ablog moves into the page in
    its place: the catalog takes them as the excerpt, as ablog does. Keep each directive's
    ``:excerpt: N`` and ``:image: N`` for :func:`excerpt_options`."""
    excluded: dict[int, list[nodes.Element]] = {}
    for order, directive in enumerate(directives, start=1):
        for child in directive.children:
            if isinstance(child, nodes.paragraph):
                child[DIRECTIVE_EXCERPT] = order
        if directive.get("exclude"):  # ablog keeps the content off the page: the excerpt only
            excluded[order] = [child.deepcopy() for child in directive.children]
    if excluded:
        document[EXCLUDED_EXCERPT] = excluded
    document[EXCERPT_OPTIONS] = [(d.get("excerpt"), d.get("image")) for d in directives]


def keep_posts(document: nodes.document, directives: list[nodes.Element]) -> list:
    """The ``post`` directives ablog can take; the others are unwrapped, their content left
    in the page, and the checks report each at its line (:mod:`kb.checks.postforms`,
    :mod:`kb.checks.frontmatter`).

    * A later one that does not stand right inside a section below the title, or stands in
      the same section as an earlier one: ablog would look for its section for ever.
    * Any, in a document with no title at all and no ``:title:``: ablog raises "Missing title".

    With more than one, ablog reads each from the section it stands in, so a first directive
    written above the title (MyST's top of the file) is moved to just below the title.
    """
    kept = directives[:1]
    if kept and not kept[0].get("title") and not any(document.findall(nodes.title)):
        kept = []
    taken = {id(kept[0].parent)} if kept else set()
    for directive in directives[1:] if kept else ():
        parent = directive.parent
        in_a_section = isinstance(parent, nodes.section) and parent.parent is not document
        if in_a_section and id(parent) not in taken:
            kept.append(directive)
            taken.add(id(parent))
    for directive in directives:
        if not any(directive is other for other in kept):
            directive.replace_self(directive.children)
    if len(kept) > 1 and not isinstance(kept[0].parent, nodes.section):
        title = next(iter(document.findall(nodes.section)), None)
        if title is not None:
            kept[0].parent.remove(kept[0])
            title.insert(1, kept[0])
    return kept


def excluded_excerpt(document: nodes.document, order: int = 1) -> list[nodes.Element]:
    """The content of the ``order``-th ``post`` directive, when it has ``:exclude:``: ablog's
    excerpt, which it takes off the page; taken from the document, which keeps no copy."""
    excluded = document.attributes.get(EXCLUDED_EXCERPT)
    return excluded.pop(order, None) or [] if isinstance(excluded, dict) else []


def excerpt_options(
    config, document: nodes.document, metadata: dict, order: int = 1
) -> tuple[int, int]:
    """How many paragraphs a post's excerpt takes and which of its images (1 for the first,
    0 for none) it shows, as ablog reads them: the ``post`` directive's ``:excerpt:`` and
    ``:image:``, else the front matter's ``excerpt`` and ``image``, else ``post_auto_excerpt``
    and ``post_auto_image``. A value that is not a number is reported by the checks."""
    options = document.get(EXCERPT_OPTIONS) or []
    given = options[order - 1] if len(options) >= order else (None, None)
    if order == 1 and given == (None, None):
        given = (metadata.get("excerpt"), metadata.get("image"))
    defaults = (config.post_auto_excerpt, config.post_auto_image)
    excerpt, image = (
        _count(value, default) for value, default in zip(given, defaults, strict=True)
    )
    return excerpt, image


def _count(value, default) -> int:
    text = str(value).strip() if value is not None else ""
    if text.isdigit():
        return int(text)
    return int(default) if str(default).strip().isdigit() else 0


def drop_post_option(node: nodes.Element, key: str) -> None:
    """Forget one option of a ``post`` directive, as ablog leaves one that is not given."""
    node[key] = None if key in ("date", "excerpt", "image") else []


def reference_page(app: Sphinx, target: str) -> tuple[str, str] | None:
    """The docname ablog's label ``target`` (``blog-tags``, ``tag-gemm``, ``blog-feed`` …)
    leads to, as ablog resolves it, and the title it shows; None for no label of ablog's."""
    from ablog.blog import Blog

    found = Blog(app).references.get(target)
    return (str(found[0]), str(found[1])) if found else None


def post_records(env, docname: str) -> list[dict]:
    """What ablog read of each post of a document, as plain values: the file's own post first
    (``section`` ""), then its section posts (``section``: the id of the section each posts,
    with ``order``, its directive's place in the file); empty for no post."""
    infos = getattr(env, "ablog_posts", {}).get(docname) or []
    records = [_record(info) for info in infos]
    return sorted(records, key=lambda record: (bool(record["section"]), record["order"]))


def _record(info: dict) -> dict:
    return {
        "title": info["title"],
        "date": info["date"],
        "update": info["update"],
        "tags": [str(t) for t in info["tags"]],
        "authors": [str(a) for a in info["author"]],
        "categories": [str(c) for c in info["category"]],
        "locations": [str(x) for x in info.get("location") or ()],
        "languages": [str(x) for x in info.get("language") or ()],
        "external_link": info["external_link"] or "",
        "redirects": [str(r) for r in info.get("redirect") or ()],
        "section": str(info.get("section") or ""),
        "order": int(info.get("order") or 1),
    }


# -- Events --------------------------------------------------------------------------------------


def _fresh_blog_state(app: Sphinx, config) -> None:
    """A second build in one process must not see the first build's posts
    (:func:`kb.upstream.ablog.reset_blog_state`)."""
    reset_blog_state()


def _slim_posts(app: Sphinx, doctree: nodes.document) -> None:
    """Drop ablog's copy of the post's whole doctree, which only its own full-text feeds read
    (``blog_feed_fulltext``; kb writes the feeds): pickling it with the environment made a
    no-change rebuild at 1000 posts spend seconds unpickling 68 MB. The excerpt paragraphs
    ablog keeps are cut loose from the document (see :func:`kb.upstream.docutils.detach`)."""
    for info in getattr(app.env, "ablog_posts", {}).get(app.env.docname, ()):
        copy = info.get("doctree")
        if isinstance(copy, nodes.Node) and not app.config.blog_feed_fulltext:
            # An empty section: ablog's to_html(fulltext=True) on it gives an empty body.
            info["doctree"] = nodes.section()
        elif isinstance(copy, nodes.Node):
            detach(copy)
        for paragraph in info.get("excerpt") or ():
            detach(paragraph)


#: ablog's page and feed writers, which kb replaces.
REPLACED_HANDLERS = ("generate_archive_pages", "generate_atom_feeds")


def _disconnect_ablog_writers(app: Sphinx) -> None:
    """Unregister ablog's ``html-collect-pages`` handlers; fail loudly if they moved, rather
    than let both write the same pages."""
    from ablog import post

    handlers = {getattr(post, name) for name in REPLACED_HANDLERS}
    found = [
        listener_id
        for listener_id, handler in listeners(app, "html-collect-pages")
        if handler in handlers
    ]
    if len(found) != len(handlers):
        raise ExtensionError(
            "kb could not find ablog's archive and feed writers (ablog.post."
            f"{' and '.join(REPLACED_HANDLERS)}); this ablog version is not supported by kb"
        )
    for listener_id in found:
        app.disconnect(listener_id)


def setup_ablog_adapter(app: Sphinx) -> None:
    app.connect("config-inited", _fresh_blog_state)
    app.connect("builder-inited", _disconnect_ablog_writers)
    # After ablog's own doctree-read handler (priority 500) has stored the post.
    app.connect("doctree-read", _slim_posts, priority=events.AFTER_ABLOG_STORED)


def postlist_directives(doctree: nodes.Element) -> list[nodes.Element]:
    """The nodes of ablog's ``postlist`` directives in a doctree, each with the options ablog's
    directive read (``length``, ``tags``, ``author``, ``category``, ``location``,
    ``language``, ``format``, ``date``, ``sort``, ``excerpts``, ``list-style``, ``expand``)
    and the file and line it stands at."""
    from ablog.post import PostList

    return list(doctree.findall(PostList))
