"""Related posts: every post's page ends with up to ``kb_related_posts`` (5) other posts.

Ranked by what they share with the post: the same series first, then more shared tags, then
more shared categories, then more similar text (TF-IDF cosine over the words of the posts),
then the newer, then by docname, so the order never depends on the machine. Never the post
itself, a draft, or a post with nothing in common.

Each post's words are counted once, when it is read (its most frequent terms, kept in the
environment with purge and merge handlers); the lists are computed once per build from the
catalog and those counts, and kept in the doctree folder so that a build whose posts and
counts are unchanged reuses them. Where one post alone changed, and only how often it uses
the words it kept, no other post's vector changes: only its own list, and those it was in or
could now enter, are made again (:func:`related_lists_again`); ``kb serve``'s standby makes what
the lists choose from while it waits (:func:`make_ahead`), so that such an edit makes only the
edited post's vector again.

A list is part of its page (a post part at the "end" slot, before the cite block, between
markers) and changes only with what it shows, the related posts' docnames, titles, dates and
links. A page whose list alone changed (a post added or retitled elsewhere) gets the list
replaced in the written page (kb.incremental.freshness.PagePart), without Sphinx writing the
page again.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import Any

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


# -- Ranking ------------------------------------------------------------------------------------


#: Vector weights are whole numbers: a unit weight is SCALE. A similarity is then an exact sum
#: of products (at most 40 products of at most 2**48 each: exact in 64 bits), the same in any
#: order, on any machine, and in one array operation for many posts at once.
SCALE = 2**24


def vectors(terms: dict[str, tuple[tuple[str, int], ...]]) -> dict[str, dict[str, int]]:
    """TF-IDF vectors of unit length (log-scaled counts, smoothed IDF), each weight a whole
    number of 1/SCALE, terms in sorted order."""
    weights = idf(terms)
    return {docname: vector(kept, weights) for docname, kept in terms.items()}


def idf(terms: dict[str, tuple[tuple[str, int], ...]]) -> dict[str, float]:
    """Each term's inverse document frequency (smoothed) among these documents' kept terms: it
    changes only with which words each document kept, not with how often it uses them."""
    documents = len(terms)
    frequency = Counter(term for kept in terms.values() for term, _ in kept)
    return {term: math.log((1 + documents) / (1 + df)) + 1 for term, df in frequency.items()}


def vector(kept: tuple[tuple[str, int], ...], idf: dict[str, float]) -> dict[str, int]:
    """One document's vector of :func:`vectors`, from its kept terms and the terms' IDF."""
    weights = {term: (1 + math.log(count)) * idf[term] for term, count in sorted(kept)}
    norm = math.sqrt(math.fsum(w * w for w in weights.values())) or 1.0
    return {term: round(w / norm * SCALE) for term, w in weights.items()}


def score(a: dict[str, int], b: dict[str, int]) -> int:
    """The similarity of two vectors, exactly, in units of 1/SCALE**2 (what ranks posts)."""
    return sum(a[term] * b[term] for term in a.keys() & b.keys())


def similarity(a: dict[str, int], b: dict[str, int]) -> float:
    """Cosine similarity of two vectors of :func:`vectors`, from 0 to 1."""
    return score(a, b) / SCALE**2  # exact: a power of two, and a score is below 2**53


class _Ranking:
    """What ranks posts, as arrays indexed by a post's place in the list: every post's vector
    as a row of term numbers and weights, its categories as a row of 0s and 1s, its date and
    its docname's place in sorted order. One post's ranking of many others is then a few
    array operations. Comparing them one at a time in Python took 2.7 s of an edit at 10,000
    posts (and pairs of vectors, 30 s of adding a post); the sums are the same whole numbers
    :func:`score` gives, and the order the same as sorting by the keys in Python."""

    def __init__(self, posts: list[Post], vector: dict[str, dict[str, int]]) -> None:
        import numpy  # only when lists are computed: not on a build that reuses them

        self.numpy = numpy
        self.numbers = numbers = {
            term: n for n, term in enumerate(sorted({t for v in vector.values() for t in v}))
        }
        unused = len(numbers)  # pads shorter rows; its weight is always 0
        width = max((len(v) for v in vector.values()), default=0) or 1
        self.terms = numpy.full((len(posts), width), unused, dtype=numpy.intp)
        self.weights = numpy.zeros((len(posts), width), dtype=numpy.int64)
        for n, post in enumerate(posts):
            self.set_vector(n, vector[post.docname])
        self.mine = numpy.zeros(unused + 1, dtype=numpy.int64)  # one post's weight per term
        names = {
            name: n for n, name in enumerate(sorted({c.name for p in posts for c in p.categories}))
        }
        self.categories = numpy.zeros((len(posts), max(len(names), 1)), dtype=numpy.int64)
        for n, post in enumerate(posts):
            self.categories[n, [names[c.name] for c in post.categories]] = 1
        self.newest_first = numpy.array([-p.date.timestamp() for p in posts], dtype=numpy.float64)
        self.by_name = numpy.empty(len(posts), dtype=numpy.intp)
        self.by_name[sorted(range(len(posts)), key=lambda n: posts[n].docname)] = numpy.arange(
            len(posts)
        )

    def set_vector(self, me: int, weights: dict[str, int]) -> None:
        """Post ``me``'s vector; its terms must be among those the ranking was made with, and
        no more than the longest vector's."""
        self.terms[me, : len(weights)] = [self.numbers[term] for term in weights]
        self.weights[me, : len(weights)] = list(weights.values())

    def rows(self, posts) -> Any:
        """An array of post numbers, from any collection of them."""
        return self.numpy.fromiter(posts, dtype=self.numpy.intp, count=len(posts))

    def scores(self, me: int, rows) -> Any:
        """:func:`score` of post ``me`` with each of ``rows``."""
        self.mine[self.terms[me]] = self.weights[me]
        sums = (self.mine[self.terms[rows]] * self.weights[rows]).sum(axis=1)
        self.mine[self.terms[me]] = 0
        return sums

    def best(self, me: int, rows, wanted: int) -> list[tuple[int, int, int]]:
        """The first ``wanted`` of ``rows`` for post ``me``, best first: more shared
        categories, more similar text, newer, by docname; each as (shared categories, text
        score, post). Text is compared only in the groups of shared categories that the list
        reaches."""
        numpy = self.numpy
        if wanted <= 0 or not len(rows):
            return []
        shared = self.categories[rows] @ self.categories[me]
        best: list[tuple[int, int, int]] = []
        for overlap in sorted(set(shared.tolist()), reverse=True):
            if len(best) >= wanted:
                break
            group = rows[shared == overlap]
            text = self.scores(me, group)
            ranked = numpy.lexsort((self.by_name[group], self.newest_first[group], -text))
            ranked = ranked[: wanted - len(best)]
            best.extend(
                zip(
                    [overlap] * len(ranked),
                    text[ranked].tolist(),
                    group[ranked].tolist(),
                    strict=True,
                )
            )
        return best


#: A post with more tags than this finds its tiers by counting every post that shares a tag
#: (as many intersections as tag combinations would be slower).
MAX_COMBINED_TAGS = 6


def related_lists(
    posts: list[Post], terms: dict[str, tuple[tuple[str, int], ...]], count: int
) -> dict[str, list[str]]:
    """Each post's related posts (docnames), best first; see the module's doc for the order.

    Every post shares a tag with a quarter of the site or more, so nothing may look at all of
    them for every post (that was quadratic: 0.6 s at 1000 posts, 79 s at 10,000). The tiers
    of shared tags come from intersecting the posts of its tags, most tags first, and the
    intersections stop once the list is full; only the last tier that is cut needs the text
    similarity of all its posts. Posts are numbered by their place in ``posts``."""
    lists = _Lists(posts, terms, count)
    return {post.docname: lists.of(me) for me, post in enumerate(posts)}


def related_lists_again(
    posts: list[Post],
    terms: dict[str, tuple[tuple[str, int], ...]],
    count: int,
    before: dict[str, list[str]],
    changed: str,
    ahead: _Lists | None = None,
) -> dict[str, list[str]]:
    """:func:`related_lists`, from the lists ``before`` made of the same posts and ``count``,
    when only the words of post ``changed`` have changed since, and its kept terms are the
    same words: no term's document frequency changed, so no other post's vector did. Its own
    list is made again, and another post's only where the edited post could be in it now or
    was in it: every other list is the same choice among the same keys.

    ``ahead``: what the lists choose from (:class:`_Lists`) made before the edit, of the same
    posts with the same count, names, dates, series, tags, categories and terms, but
    ``changed``'s terms, in any order (``kb serve``'s standby makes it while it waits,
    :func:`make_ahead`); only the edited post's vector is then made again.

    In an edit at 10,000 posts, every list made again took 1.8 s; the choices made again
    took 0.55 s more where none was made ahead."""
    if ahead is None:
        lists = _Lists(posts, terms, count)
    else:
        lists = ahead
        lists.edited(next(p for p in posts if p.docname == changed), terms[changed])
    posts = lists.posts
    number = {post.docname: n for n, post in enumerate(posts)}
    me = number[changed]
    ranking = lists.ranking
    everyone = ranking.numpy.arange(len(posts))
    text = ranking.scores(me, everyone).tolist()
    shared_categories = (ranking.categories @ ranking.categories[me]).tolist()
    again = dict(before)
    for other, post in enumerate(posts):
        names = before[post.docname]
        if (
            other == me
            or changed in names
            or len(names) < count
            or (post.series and post.series == posts[me].series)
            or lists.ranks_above(
                other, me, number[names[-1]], text[other], shared_categories[other]
            )
        ):
            again[post.docname] = lists.of(other)
    return again


class _Lists:
    """What :func:`related_lists` chooses from: the ranking, each post's tags, the posts of each
    tag and of each series, and the tiers of shared tags (made once for posts with the same
    tags)."""

    def __init__(
        self, posts: list[Post], terms: dict[str, tuple[tuple[str, int], ...]], count: int
    ) -> None:
        self.posts, self.count = list(posts), count
        kept = {p.docname: terms.get(p.docname, ()) for p in posts}
        self.idf = idf(kept)
        self.ranking = _Ranking(
            posts, {docname: vector(words, self.idf) for docname, words in kept.items()}
        )
        self.tags_of = [frozenset(t.name for t in p.tags) for p in posts]
        self.tagged: dict[str, set[int]] = {}
        self.by_series: dict[str, list[int]] = {}
        for me, post in enumerate(posts):
            for tag in self.tags_of[me]:
                self.tagged.setdefault(tag, set()).add(me)
            if post.series:
                self.by_series.setdefault(post.series, []).append(me)
        self.tiers: dict[frozenset, _TagTiers] = {}

    def edited(self, post: Post, kept: tuple[tuple[str, int], ...]) -> None:
        """``post`` (one of these, by its docname) uses its kept words as often as ``kept``
        says: the same words, so the same IDF (:func:`related_lists_again`)."""
        me = next(n for n, other in enumerate(self.posts) if other.docname == post.docname)
        self.posts[me] = post
        self.ranking.set_vector(me, vector(kept, self.idf))

    def of(self, me: int) -> list[str]:
        """Post ``me``'s list, as docnames."""
        posts, count, ranking, tags_of = self.posts, self.count, self.ranking, self.tags_of
        post = posts[me]
        series = [n for n in self.by_series.get(post.series, ()) if n != me] if post.series else []
        # The series first (by shared tags, then as any tier), then a tier per number of
        # shared tags, most first.
        shared_tags = {n: len(tags_of[n] & tags_of[me]) for n in series}
        in_order = ranking.best(me, ranking.rows(series), len(series))
        chosen = [k[2] for k in sorted(in_order, key=lambda k: -shared_tags[k[2]])][:count]
        left_out = {me, *series}
        if tags_of[me] not in self.tiers:
            self.tiers[tags_of[me]] = _TagTiers(tags_of[me], self.tagged)
        for tier in self.tiers[tags_of[me]]:
            if len(chosen) >= count:
                break
            rows = ranking.rows(tier - left_out)
            chosen.extend(k[2] for k in ranking.best(me, rows, count - len(chosen)))
        if len(chosen) < count:  # posts that share no tag: a category or some words
            rest = ranking.numpy.ones(len(posts), dtype=bool)
            rest[[me, *chosen]] = False
            for tag in tags_of[me]:
                rest[ranking.rows(self.tagged[tag])] = False
            # In the order, the posts that share a category or some words come first: the
            # first that many hold all of them that fit.
            ranked = ranking.best(me, ranking.numpy.flatnonzero(rest), count - len(chosen))
            chosen.extend(k[2] for k in ranked if k[0] > 0 or k[1] > 0)
        return [posts[n].docname for n in chosen]

    def ranks_above(self, me: int, candidate: int, last: int, text: int, categories: int) -> bool:
        """Whether ``candidate``, in no list of ``me``'s series, ranks above ``last`` (the last
        post of ``me``'s full list) in ``me``'s order: a tier of more shared tags (the posts
        that share none last), then more shared categories, more similar text, newer, by
        docname. ``text`` and ``categories`` are what ``candidate`` shares with ``me``."""
        series = self.posts[me].series
        if series and self.posts[last].series == series:
            return False  # the list is all of the series: no other post is in it
        mine = self.tags_of[me]

        def tier(post: int) -> int:
            shared = len(self.tags_of[post] & mine)
            return -shared if shared else 1

        ranking = self.ranking
        if tier(candidate) != tier(last):
            return tier(candidate) < tier(last)
        last_categories = int(ranking.categories[last] @ ranking.categories[me])
        if categories != last_categories:
            return categories > last_categories
        last_text = int(ranking.scores(me, ranking.rows([last]))[0])
        if text != last_text:
            return text > last_text
        newer = (ranking.newest_first[candidate], ranking.by_name[candidate])
        return newer < (ranking.newest_first[last], ranking.by_name[last])


class _TagTiers:
    """The posts that share exactly k of a set of tags, for k from all of them down to one,
    each tier computed only when a list needs it, and once for every post with these tags."""

    def __init__(self, tags: frozenset, tagged: dict[str, set[int]]) -> None:
        self.tagged = tagged
        self.mine = sorted(tags, key=lambda tag: (len(tagged[tag]), tag))
        self.made: list[set[int]] = []
        self.seen: set[int] = set()
        self.shared: Counter | None = None
        if len(self.mine) > MAX_COMBINED_TAGS:
            self.shared = Counter(d for tag in self.mine for d in tagged[tag])

    def __iter__(self):
        for number in range(len(self.mine)):
            if number == len(self.made):
                self.made.append(self._tier(len(self.mine) - number))
            yield self.made[number]

    def _tier(self, k: int) -> set[int]:
        if self.shared is not None:
            return {d for d, n in self.shared.items() if n == k}
        at_least = set()
        for combination in combinations(self.mine, k):  # each from its smallest set
            first, *others = (self.tagged[tag] for tag in combination)
            at_least |= first.intersection(*others)
        tier = at_least - self.seen
        self.seen |= tier
        return tier


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


@dataclass
class RelatedAhead:
    """What the lists choose from, made by ``kb serve``'s standby from the post records it made
    ahead (:func:`make_ahead`), with what each post's list is made of (:func:`_made_of`). At
    10,000 posts making it took 0.55 s of an edit that changes how often a post uses its
    words."""

    count: int
    made: dict[str, list[str]]
    lists: _Lists
    taken: bool = False

    def take(self) -> RelatedAhead | None:
        """It, for the first build that asks (which may change it); None after. It stays
        referenced: freed in the standby's build, a forked child that ends without freeing
        anything, its 10,000 posts' sets and lists took 25 ms of every edit (each object
        freed is a page copied)."""
        if self.taken:
            return None
        self.taken = True
        return self

    def matches(self, count: int, made: dict[str, list[str]], changed: str) -> bool:
        """Whether it was made of the posts of ``made`` with ``count``, all as they are but
        ``changed``, whose name, date, series, tags, categories and kept words are the same."""
        if count != self.count or made.keys() != self.made.keys():
            return False
        if self.made[changed][:2] != made[changed][:2]:
            return False
        return all(self.made[d] == parts for d, parts in made.items() if d != changed)


def make_ahead(app: Sphinx) -> None:
    """While ``kb serve``'s standby waits: what the related lists take of, and show of, each
    post record made ahead (:func:`kb.core.catalog.make_ahead`), which the build keeps for the
    documents it does not read again; and what the lists choose from (:class:`RelatedAhead`),
    which the build takes when one post changes how often it uses its words."""
    state = build_state(app)
    ahead = state.catalog_ahead
    if ahead is None:
        return
    terms, signs = env_state(app.env).related_terms, env_state(app.env).related_signs
    pages = []
    for _, posts in ahead.records.values():
        for post in posts:
            if not post.section:  # a section post has no page, so no related posts
                _made_of(post, terms, signs)
                _shown(post)
                if post.published:
                    pages.append(post)
    count = state.config.related_posts
    if count and state.config.incremental and app.builder.format == "html":
        made = {post.docname: _made_of(post, terms, signs) for post in pages}
        state.related_ahead = RelatedAhead(count, made, _Lists(pages, terms, count))


def _catalog_built(app: Sphinx, catalog: Catalog) -> None:
    state = build_state(app)
    ahead = state.related_ahead.take() if state.related_ahead is not None else None
    count = state.config.related_posts
    state.related = {}
    if not count or app.builder.format != "html":
        return
    terms = env_state(app.env).related_terms
    signs = env_state(app.env).related_signs
    pages = catalog.page_posts  # a section post has no page, so no related posts
    made = {post.docname: _made_of(post, terms, signs) for post in pages}
    key = digest([str(count), *("\x1e".join(parts) for parts in made.values())])
    kept = state.journal.kept(SECTION) if state.journal is not None else None
    lists = None
    if state.config.incremental:
        lists = _kept_lists(kept, key)
        if lists is None:
            lists = _lists_again(kept, made, pages, terms, count, ahead)
    if lists is None:
        lists = related_lists(pages, terms, count)
    state.kept_sections[SECTION] = lambda: {
        "key": key,
        "count": count,
        "lists": lists,
        "posts": made,
    }
    state.related = {
        docname: [post for name in names if (post := catalog.by_docname(name)) is not None]
        for docname, names in lists.items()
    }


def _lists_again(
    kept: object,
    made: dict[str, list[str]],
    posts: list[Post],
    terms: dict,
    count: int,
    ahead: RelatedAhead | None,
) -> dict[str, list[str]] | None:
    """The lists made again from those an earlier build kept, where the posts are the same and
    one of them changed only how often it uses its words (an edit of its text that keeps its
    kept words: :func:`related_lists_again`, from what the standby made ``ahead`` where it
    matches); None otherwise (they are made whole)."""
    if not isinstance(kept, dict) or kept.get("count") != count:
        return None
    before, made_before = _kept_shape(kept.get("lists")), kept.get("posts")
    if before is None or not isinstance(made_before, dict) or made_before.keys() != made.keys():
        return None
    if before.keys() != made.keys() or any(n not in made for ns in before.values() for n in ns):
        return None
    changed = [docname for docname, parts in made.items() if made_before[docname] != parts]
    if len(changed) != 1 or made_before[changed[0]][:2] != made[changed[0]][:2]:
        return None
    lists = ahead.lists if ahead is not None and ahead.matches(count, made, changed[0]) else None
    return related_lists_again(posts, terms, count, before, changed[0], lists)


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
    return list(build_state(app).related.get(docname, []))


def setup_related(app: Sphinx) -> None:
    app.add_env_collector(TermsCollector)
    app.connect("kb-catalog-built", _catalog_built)
    add_page_part(app, PagePart("related", *MARKERS, _signer, _list_html))
    add_post_part(app, "end", 5, _related_part)  # before the cite block (10)
