"""The one module that knows ablog: it turns ablog's data into plain records.

ablog finds the posts (``blog_post_pattern``), reads their front matter while Sphinx reads
them and keeps what it found in ``env.ablog_posts``. Everything else in kb reads the catalog
(:mod:`kb.core.catalog`), built from the records this module hands out: plain dicts of
strings, lists and naive datetimes, never an ablog object. What ablog gets wrong or costs
(see shared/research/ablog.md) is handled here too:

* its class-level ``Blog`` state would leak from one build to the next in one process
  (tests, a long-lived preview worker): every build starts with a fresh one;
* it keeps a deep copy of each post's whole doctree in the environment, which only its
  full-text Atom feed reads (ours replace it): the copy is dropped after reading.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

from .compat import detach


def matched_posts(config) -> tuple[str, ...]:
    """Docnames matching ``blog_post_pattern``, as ablog matched them at ``config-inited``."""
    return tuple(getattr(config, "matched_blog_posts", ()) or ())


def is_blog_post(env, docname: str) -> bool:
    """Whether ablog took ``docname`` for a post (published, draft, or one the catalog
    leaves out because its front matter is broken)."""
    return docname in getattr(env, "ablog_posts", {})


def post_record(env, docname: str) -> dict | None:
    """What ablog read from a post's front matter, as plain values; None for no post."""
    infos = getattr(env, "ablog_posts", {}).get(docname)
    if not infos:
        return None
    info = infos[0]
    return {
        "title": info["title"],
        "date": info["date"],
        "update": info["update"],
        "tags": [str(t) for t in info["tags"]],
        "authors": [str(a) for a in info["author"]],
        "categories": [str(c) for c in info["category"]],
        "external_link": info["external_link"] or "",
        "redirects": [str(r) for r in info.get("redirect") or ()],
    }


def redirect_pages(env) -> set[str]:
    """Docnames of the redirect pages ablog writes for renamed posts."""
    return {
        str(name)
        for infos in getattr(env, "ablog_posts", {}).values()
        for info in infos
        for name in info.get("redirect") or ()
    }


def posts_with_redirects(env) -> list[str]:
    """Docnames of the posts ablog will write redirect pages for."""
    posts = getattr(env, "ablog_posts", {})
    return sorted(name for name, infos in posts.items() if any(i.get("redirect") for i in infos))


def keep_redirects(env, docname: str, allowed: set[str]) -> None:
    """Let ablog write redirect pages for ``docname`` at the ``allowed`` old addresses only.

    In place: ablog's ``Post`` objects share these lists."""
    for info in getattr(env, "ablog_posts", {}).get(docname, ()):
        names = info.get("redirect")
        if names:
            names[:] = [name for name in names if name in allowed]


# -- Events --------------------------------------------------------------------------------------


def _fresh_blog_state(app: Sphinx, config) -> None:
    """ablog's ``Blog`` shares one dict among all instances, class-level (``Blog._dict``),
    filled on first use: a second build in one process would see the first build's posts.
    There is no public reset; ``tests/test_compat.py`` fails if the attribute goes away."""
    from ablog.blog import Blog

    Blog._dict.clear()


def _slim_posts(app: Sphinx, doctree: nodes.document) -> None:
    """Drop ablog's copy of the post's whole doctree, which only its own full-text feeds read
    (``blog_feed_fulltext``; kb writes the feeds): pickling it with the environment made a
    no-change rebuild at 1000 posts spend seconds unpickling 68 MB. The excerpt paragraphs
    ablog keeps are cut loose from the document (see :func:`kb.core.compat.detach`)."""
    for info in getattr(app.env, "ablog_posts", {}).get(app.env.docname, ()):
        copy = info.get("doctree")
        if isinstance(copy, nodes.Node) and not app.config.blog_feed_fulltext:
            # An empty section: ablog's to_html(fulltext=True) on it gives an empty body.
            info["doctree"] = nodes.section()
        elif isinstance(copy, nodes.Node):
            detach(copy)
        for paragraph in info.get("excerpt") or ():
            detach(paragraph)


def setup_ablog_adapter(app: Sphinx) -> None:
    app.connect("config-inited", _fresh_blog_state)
    # After ablog's own doctree-read handler (priority 500) has stored the post.
    app.connect("doctree-read", _slim_posts, priority=550)
