"""Related posts: every post's page ends with up to ``kb_related_posts`` (5) other posts.

Ranked by what they share with the post: the same series first, then more shared tags, then
more shared categories, then more similar text (TF-IDF cosine over the words of the posts,
each word's IDF in steps of a sixteenth: :data:`kb.pages.relatedrank.IDF_STEPS`), then the
newer, then by docname, so the order never depends on the machine. Never the post
itself, a draft, or a post with nothing in common.

Each post's words are counted once, when it is read (its most frequent terms, kept in the
environment with purge and merge handlers); the lists are computed once per build from the
catalog and those counts, and kept in the doctree folder so that a build whose posts and
counts are unchanged reuses them. Where one post alone changed, and only how often it uses
the words it kept, no other post's vector changes: only its own list, and those it was in or
could now enter, are made again (:meth:`~kb.pages.relatedrank.Chosen.again`). ``kb serve``'s
standby makes what the lists choose from while it waits (:func:`make_ahead`): an edit of one
post's text then makes again only its vector and, where it took or dropped a kept word, the
vectors of the posts that keep that word, and the lists that can change. A build makes the
lists of the pages Sphinx writes first, as those pages ask, and the others after them
(:class:`~kb.pages.relatedrank.Chosen`).

A list is part of its page (a post part at the "end" slot, before the cite block, between
markers) and changes only with what it shows, the related posts' docnames, titles, dates and
links. A page whose list alone changed (a post added or retitled elsewhere) gets the list
replaced in the written page (kb.incremental.freshness.PagePart), without Sphinx writing the
page again.
"""

from __future__ import annotations

import re
from collections import Counter

from docutils import nodes
from sphinx.application import Sphinx

from ..core.catalog import get_catalog, has_catalog
from ..core.collectors import DocumentTables
from ..core.parts import markers, render_part
from ..core.posts import Catalog, Post, digest
from ..core.state import build_state, env_state
from ..core.urls import root_prefix
from ..incremental.freshness import PagePart, add_page_part
from .entries import format_date, post_href
from .postpage import add_post_part
from .relatedrank import Chosen, Lists

#: How many of a post's most frequent terms are kept (and make its TF-IDF vector).
TERMS_KEPT = 40
#: The lists kept between builds: a section of kb's state file (kb.core.journal).
SECTION = "related"
#: Around the list on every post's page, even an empty one: a list that changes is replaced
#: between them in the written page (kb.incremental.freshness.PagePart), not written by
#: Sphinx again.
MARKERS = markers("related")
#: Words too common to say what a post is about.
STOPWORDS = frozenset(
    """about above after again against all also and any are because been before being below
    between both but can could did does doing down during each few for from further had has
    have having her here hers herself him himself his how into its itself just more most
    not now off once only other our ours out over own same she should some such than that the
    their theirs them then there these they this those through too under until very was were
    what when where which while who whom why will with would you your yours one two three
    first second new use used using like get gets make makes made may might must per each
    via every many much well way ways see shows show here""".split()  # noqa: SIM905
)
WORD = re.compile(r"[a-z][a-z0-9]{2,}")


def top_terms(text: str, kept: int = TERMS_KEPT) -> tuple[tuple[str, int], ...]:
    """A text's most frequent words (three letters or more, no stop words), most frequent
    first, ties by the word."""
    counts = Counter(word for word in WORD.findall(text.lower()) if word not in STOPWORDS)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return tuple(ranked[:kept])


# -- Reading ------------------------------------------------------------------------------------


class TermsCollector(DocumentTables):
    """Each document's most frequent words and their signature, read at ``doctree-read``."""

    purged = ("related_terms", "related_signs")

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        env = app.env
        state = env_state(env)
        terms = state.related_terms[env.docname] = top_terms(doctree.astext())
        state.related_signs[env.docname] = _terms_sign(terms)

    def merge_other(self, app, env, docnames, other) -> None:
        # The signatures are made again from the merged terms, not copied.
        mine, theirs = env_state(env), env_state(other).related_terms
        for docname in docnames:
            if docname in theirs:
                mine.related_terms[docname] = theirs[docname]
                mine.related_signs[docname] = _terms_sign(theirs[docname])


def _terms_sign(terms: tuple[tuple[str, int], ...]) -> str:
    # Kept beside the terms: signing every post's terms on every build took 0.3 s at 10,000.
    return digest([repr(terms)])


# -- Once per build -----------------------------------------------------------------------------


def _made_of(post: Post, terms: dict, signs: dict) -> list[str]:
    """What the lists take of ``post``, in three parts kept with them: its name, date, series,
    tags and categories; which words it kept; how often it uses them (its terms' sign). Made
    once a post record (a record is made again whenever its document is read again, and its
    terms change only then); ``kb serve``'s standby makes these for the records it makes
    ahead (:func:`make_ahead`)."""
    made = post.__dict__.get("_related_made")
    if made is None:
        kept = terms.get(post.docname, ())
        sign = signs.get(post.docname)
        if sign is None:  # an environment from before the signs were kept
            sign = _terms_sign(kept)
        made = [digest(_identity(post)), digest(sorted(word for word, _ in kept)), sign]
        post.__dict__["_related_made"] = made
    return made


def _identity(post: Post) -> list[str]:
    """What the lists take of ``post`` but its words: its name, date, series, tags and
    categories."""
    return [
        post.docname,
        post.date.isoformat(),
        post.series,
        ",".join(sorted(t.name for t in post.tags)),
        ",".join(sorted(c.name for c in post.categories)),
    ]


class RelatedAhead:
    """What the lists choose from, made by ``kb serve``'s standby from the post records it made
    ahead (:func:`make_ahead`), with what each post's list is made of (:func:`_made_of`). At
    10,000 posts making the lists took 0.55 s of an edit that changes how often a post uses its
    words: they are made when first asked for, by the standby's last step
    (:func:`rank_ahead`), or, where the author saved before it, by the build that needs them,
    from the posts and terms as they were before the build read anything."""

    def __init__(
        self, count: int, made: dict[str, list[str]], posts: list[Post], terms: dict
    ) -> None:
        self.count, self.made = count, made
        # A copy (of a dictionary of tuples): the build replaces the terms of what it reads.
        self._posts, self._terms = posts, dict(terms)
        self._lists: Lists | None = None
        self.taken = False

    @property
    def lists(self) -> Lists:
        if self._lists is None:
            self._lists = Lists(self._posts, self._terms, self.count)
        return self._lists

    @property
    def ranked(self) -> bool:
        """Whether the lists are made yet."""
        return self._lists is not None

    def take(self) -> RelatedAhead | None:
        """It, for the first build that asks (which may change it); None after. It stays
        referenced: freed in the standby's build, a forked child that ends without freeing
        anything, its 10,000 posts' sets and lists took 25 ms of every edit (each object
        freed is a page copied)."""
        if self.taken:
            return None
        self.taken = True
        return self

    def matches(self, count: int, made_before: dict[str, list[str]]) -> bool:
        """Whether it was made of the posts the kept lists were made of (``made_before``, what
        each post's list was made of), with the same ``count``."""
        return count == self.count and made_before == self.made


def make_ahead(app: Sphinx) -> None:
    """While ``kb serve``'s standby waits: what the related lists take of, and show of, each
    post record made ahead (:func:`kb.core.catalog.make_ahead`), which the build keeps for the
    documents it does not read again."""
    state = build_state(app)
    terms, signs = env_state(app.env).related_terms, env_state(app.env).related_signs
    for post in _records_ahead(state):
        _made_of(post, terms, signs)
        _shown(post)


def make_lists_ahead(app: Sphinx) -> None:
    """While ``kb serve``'s standby waits, after :func:`make_ahead`: what the lists choose
    from (:class:`RelatedAhead`), which the build takes when one post changes how often it
    uses its words; the lists themselves are made by :func:`rank_ahead`, or when first asked
    for, of the terms as they are now."""
    state = build_state(app)
    count = state.config.related_posts
    if state.catalog_ahead is None or not count:
        return
    if state.config.incremental and app.builder.format == "html":
        terms, signs = env_state(app.env).related_terms, env_state(app.env).related_signs
        pages = [post for post in _records_ahead(state) if post.published]
        made = {post.docname: _made_of(post, terms, signs) for post in pages}
        state.related_ahead = RelatedAhead(count, made, pages, terms)


def rank_ahead(app: Sphinx) -> None:
    """While ``kb serve``'s standby waits, last: the lists of :func:`make_lists_ahead` made."""
    ahead = build_state(app).related_ahead
    if ahead is not None:
        ahead.lists  # noqa: B018  (made now, while no one waits)


def _records_ahead(state) -> list[Post]:
    """The post records made ahead that have a page (a section post has none, so no related
    posts); none if none were made."""
    ahead = state.catalog_ahead
    if ahead is None:
        return []
    return [post for _, posts in ahead.records.values() for post in posts if not post.section]


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    state = build_state(app)
    ahead = state.related_ahead.take() if state.related_ahead is not None else None
    count = state.config.related_posts
    state.related = dict[str, list[Post]]()
    if not count or app.builder.format != "html":
        return
    terms = env_state(app.env).related_terms
    signs = env_state(app.env).related_signs
    pages = catalog.page_posts  # a section post has no page, so no related posts
    made = {post.docname: _made_of(post, terms, signs) for post in pages}
    key = digest([str(count), *("\x1e".join(parts) for parts in made.values())])
    kept = state.journal.kept(SECTION) if state.journal is not None else None
    chosen = None
    if state.config.incremental:
        lists = _kept_lists(kept, key)
        if lists is not None:
            chosen = Chosen.known(lists)
        else:
            chosen = _lists_again(kept, made, pages, terms, count, ahead)
    if chosen is None:
        chosen = Chosen.whole(pages, terms, count)
    state.kept_sections[SECTION] = lambda: {
        "key": key,
        "count": count,
        "lists": chosen.all(),
        "posts": made,
    }
    state.related = RelatedPosts(chosen, catalog)


class RelatedPosts:
    """Each post's related posts, as records, made when first asked for (:class:`Chosen`)."""

    def __init__(self, chosen: Chosen, catalog: Catalog) -> None:
        self.chosen = chosen
        self.catalog = catalog
        self.shown: dict[str, list[Post]] = {}

    def get(self, docname: str, /) -> list[Post] | None:
        posts = self.shown.get(docname)
        if posts is None:
            names = self.chosen.of(docname)
            if names is None:
                return None
            by_docname = self.catalog.by_docname
            posts = self.shown[docname] = [
                post for name in names if (post := by_docname(name)) is not None
            ]
        return posts


def _lists_again(
    kept: object,
    made: dict[str, list[str]],
    posts: list[Post],
    terms: dict,
    count: int,
    ahead: RelatedAhead | None,
) -> Chosen | None:
    """The lists made again from those an earlier build kept, where the posts are the same and
    one of them changed only its text (:meth:`Chosen.again`): from what the standby made
    ``ahead``, where it was made of the posts the kept lists were; otherwise only where the
    edited post keeps the same words. None in any other case (they are made whole)."""
    if not isinstance(kept, dict) or kept.get("count") != count:
        return None
    before, made_before = _kept_shape(kept.get("lists")), kept.get("posts")
    if before is None or not isinstance(made_before, dict) or made_before.keys() != made.keys():
        return None
    if before.keys() != made.keys() or any(n not in made for ns in before.values() for n in ns):
        return None
    changed = [docname for docname, parts in made.items() if made_before[docname] != parts]
    if len(changed) != 1 or made_before[changed[0]][0] != made[changed[0]][0]:
        return None
    lists = ahead.lists if ahead is not None and ahead.matches(count, made_before) else None
    if lists is None and made_before[changed[0]][1] != made[changed[0]][1]:
        return None  # it keeps other words: other posts' vectors changed, unknown here
    return Chosen.again(posts, terms, count, before, changed[0], lists)


def _kept_lists(kept: object, key: str) -> dict[str, list[str]] | None:
    """The lists an earlier build kept, when made from the same inputs and of the right
    shape; None otherwise (they are made again)."""
    if not isinstance(kept, dict) or kept.get("key") != key:
        return None
    return _kept_shape(kept.get("lists"))


def _kept_shape(lists: object) -> dict[str, list[str]] | None:
    """Kept lists, if they are of the right shape (docnames to lists of docnames)."""
    if not isinstance(lists, dict):
        return None
    for names in lists.values():
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            return None
    return lists


def _shown(post: Post) -> str:
    """What a related list shows of ``post``; made once a build (a post is in about five
    lists: 50,000 calls at 10,000 posts)."""
    shown = post.__dict__.get("_related_shown")
    if shown is None:
        shown = f"{post.docname}\x1e{post.title}\x1e{post.date.date()}\x1e{post.external_link}"
        post.__dict__["_related_shown"] = shown
    return shown


def _every_list(app: Sphinx) -> None:
    """Before every page's list is signed: all of them made together (:meth:`Chosen.all`:
    the kept lists, or only those that can change made again), not each one whole as a page
    asks for it (every list of 10,000 made whole took 1.8 s)."""
    related = build_state(app).related
    if isinstance(related, RelatedPosts):
        related.chosen.all()


def _signer(app: Sphinx, docname: str) -> str:
    related = build_state(app).related.get(docname)
    return digest([_shown(post) for post in related]) if related else ""


def related_html(app: Sphinx, posts: list[Post], prefix: str) -> str:
    """The list (the template ``kb/parts/related.html``)."""
    items = [
        (
            post_href(post, prefix),
            post.title,
            bool(post.external_link),
            post.date.date().isoformat(),
            format_date(post.date),
        )
        for post in posts
    ]
    return render_part(app, "related", items=items)


def _related_part(app: Sphinx, post: Post, prefix: str) -> str:
    if not has_catalog(app):
        return ""
    return MARKERS[0] + _list_html(app, post.docname, prefix) + MARKERS[1]


def _list_html(app: Sphinx, docname: str, prefix: str | None = None) -> str:
    related = build_state(app).related.get(docname)
    if not related:
        return ""
    return related_html(app, related, root_prefix(app, docname) if prefix is None else prefix)


def related_of(app: Sphinx, docname: str) -> list[Post]:
    """The related posts this build shows on ``docname``'s page."""
    if not has_catalog(app) or get_catalog(app).by_docname(docname) is None:
        return []
    return list(build_state(app).related.get(docname) or [])


def setup_related(app: Sphinx) -> None:
    app.add_env_collector(TermsCollector)
    app.connect("kb-catalog-built", _catalog_built)
    add_page_part(app, PagePart("related", *MARKERS, _signer, _list_html, _every_list))
    add_post_part(app, "end", 5, _related_part)  # before the cite block (10)
