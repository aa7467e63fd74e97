"""The related lists' order, on plain records: TF-IDF vectors of the posts' kept terms, the
arrays that rank many posts at once, each post's list, and the lists made again after one
post's edit. Nothing here knows Sphinx; :mod:`kb.pages.related` reads the terms, keeps the
lists between builds and shows them (its docstring says the order).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from itertools import combinations
from typing import Any

from ..core.posts import Post

#: Vector weights are whole numbers: a unit weight is SCALE. A similarity is then an exact sum
#: of products (at most 40 products of at most 2**48 each: exact in 64 bits), the same in any
#: order, on any machine, and in one array operation for many posts at once.
SCALE = 2**24
#: A term's IDF is a whole number of 1/IDF_STEPS. One post taking or dropping a word changes
#: that word's document frequency by one, and its exact IDF by about 1/frequency: every post
#: that keeps the word would get another vector, thousands for a common word. In steps, the
#: IDF moves only when it crosses one (for a word kept by f posts, about IDF_STEPS/f of the
#: time), so an edit changes about IDF_STEPS vectors on average whatever the word, and the
#: order is the same as the exact weights' but where two posts are within a step's rounding.
IDF_STEPS = 16


def vectors(terms: dict[str, tuple[tuple[str, int], ...]]) -> dict[str, dict[str, int]]:
    """TF-IDF vectors of unit length (log-scaled counts, smoothed IDF), each weight a whole
    number of 1/SCALE, terms in sorted order."""
    weights = idf(terms)
    return {docname: vector(kept, weights) for docname, kept in terms.items()}


def idf(terms: dict[str, tuple[tuple[str, int], ...]]) -> dict[str, float]:
    """Each term's inverse document frequency (smoothed) among these documents' kept terms: it
    changes only with which words each document kept, not with how often it uses them."""
    frequency = Counter(term for kept in terms.values() for term, _ in kept)
    return {term: term_idf(df, len(terms)) for term, df in frequency.items()}


def term_idf(frequency: int, documents: int) -> float:
    """The IDF of a term kept by ``frequency`` of ``documents`` documents, in steps of
    1/IDF_STEPS (an exact binary fraction: the same on any machine)."""
    return round((math.log((1 + documents) / (1 + frequency)) + 1) * IDF_STEPS) / IDF_STEPS


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

    def __init__(self, posts: list[Post], post_vectors: list[dict[str, int]]) -> None:
        import numpy  # only when lists are computed: not on a build that reuses them

        self.numpy = numpy
        self.numbers = {
            term: n for n, term in enumerate(sorted({t for v in post_vectors for t in v}))
        }
        self.pad = len(self.numbers)  # pads shorter rows; its weight is always 0
        self.width = max((len(v) for v in post_vectors), default=0) or 1
        self.terms = numpy.full((len(posts), self.width), self.pad, dtype=numpy.intp)
        self.weights = numpy.zeros((len(posts), self.width), dtype=numpy.int64)
        self.mine = numpy.zeros(self.pad + 1, dtype=numpy.int64)  # one post's weight per term
        for n, weights in enumerate(post_vectors):
            self.set_vector(n, weights)
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
        """Post ``me``'s vector, of at most ``width`` terms; a term not numbered yet gets the
        next number (after the pad's: numbers only match terms, their order means nothing)."""
        numbers = self.numbers
        for term in weights:
            if term not in numbers:
                numbers[term] = len(numbers) + 1
        if len(numbers) + 1 > len(self.mine):
            self.mine = self.numpy.zeros(2 * len(numbers) + 1, dtype=self.numpy.int64)
        self.terms[me] = self.pad
        self.weights[me] = 0
        self.terms[me, : len(weights)] = [numbers[term] for term in weights]
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

    def pair_scores(self, rows, others) -> Any:
        """:func:`score` of each post of ``rows`` with the post at the same place in
        ``others``, a thousand pairs at a time (each pair compares every term of one with
        every term of the other)."""
        numpy = self.numpy
        sums = numpy.zeros(len(rows), dtype=numpy.int64)
        for start in range(0, len(rows), 1024):
            mine, theirs = rows[start : start + 1024], others[start : start + 1024]
            same = self.terms[mine][:, :, None] == self.terms[theirs][:, None, :]
            products = self.weights[mine][:, :, None] * self.weights[theirs][:, None, :]
            sums[start : start + 1024] = (products * same).sum(axis=(1, 2))
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
    """Each post's related posts (docnames), best first; :mod:`kb.pages.related` says the order.

    Every post shares a tag with a quarter of the site or more, so nothing may look at all of
    them for every post (that was quadratic: 0.6 s at 1000 posts, 79 s at 10,000). The tiers
    of shared tags come from intersecting the posts of its tags, most tags first, and the
    intersections stop once the list is full; only the last tier that is cut needs the text
    similarity of all its posts. Posts are numbered by their place in ``posts``."""
    return Chosen.whole(posts, terms, count).all()


class Chosen:
    """Every post's list, each made when first asked for: one post's from what the lists
    choose from as the posts are now (``lists``), all of them by ``make_all``, which makes
    only those it must (the lists kept from the last build, or made again where they can
    change). A build asks first for the lists of the pages it writes (the edited post's), and
    for all of them only once those are written: at 1000 posts, making every list after a post
    was added took 0.1 s before the new post's page, where its own list takes a millisecond."""

    def __init__(
        self,
        lists: Lists | None,
        make_all: Callable[[], dict[str, list[str]]],
        made: dict[str, list[str]] | None = None,
    ) -> None:
        self.lists = lists
        self._make_all = make_all
        self._all = made
        self._one: dict[str, list[str]] = {}

    @classmethod
    def known(cls, lists: dict[str, list[str]]) -> Chosen:
        """The lists an earlier build made of the same posts."""
        return cls(None, lambda: lists, lists)

    @classmethod
    def whole(
        cls, posts: list[Post], terms: dict[str, tuple[tuple[str, int], ...]], count: int
    ) -> Chosen:
        """Every list made from the posts as they are."""
        lists = Lists(posts, terms, count)
        return cls(lists, lambda: {post.docname: lists.of(me) for me, post in enumerate(posts)})

    @classmethod
    def again(
        cls,
        posts: list[Post],
        terms: dict[str, tuple[tuple[str, int], ...]],
        count: int,
        before: dict[str, list[str]],
        changed: str,
        ahead: Lists | None = None,
    ) -> Chosen:
        """The lists ``before``, made of the same posts and ``count`` when only the words of
        post ``changed`` have changed since, made again where they can change.

        Without ``ahead``, its kept terms must be the same words: no term's document frequency
        changed, so no other post's vector did. ``ahead`` is what the lists choose from
        (:class:`Lists`), made of the posts as they were when ``before`` was made, in any order
        (``kb serve``'s standby makes it while it waits, :func:`kb.pages.related.rank_ahead`);
        the edited post may then keep other words, and the vectors of the posts that keep a
        word it took or dropped change too (:meth:`Lists.edited`). Only the lists that can
        change are made again (:meth:`Lists.again`): every other one is the list the post
        would get made whole, so one list asked for first is made whole.

        In an edit at 10,000 posts, every list made again took 1.8 s; what they choose from,
        0.55 s more where none was made ahead."""
        if ahead is None:
            lists = Lists(posts, terms, count)
            number = lists.number[changed]
            return cls(lists, lambda: lists.again(before, {number}))
        post = next(post for post in posts if post.docname == changed)
        changed_vectors = ahead.edited(post, terms.get(changed, ()))
        if changed_vectors is None:
            return cls.whole(posts, terms, count)
        return cls(ahead, lambda: ahead.again(before, changed_vectors))

    def of(self, docname: str) -> list[str] | None:
        """``docname``'s list; None for a post the lists are not made for."""
        if self._all is not None:
            return self._all.get(docname)
        if docname not in self._one:
            me = self.lists.number.get(docname) if self.lists is not None else None
            if me is None:
                return None
            self._one[docname] = self.lists.of(me)  # type: ignore[union-attr]
        return self._one[docname]

    def all(self) -> dict[str, list[str]]:
        """Every post's list."""
        if self._all is None:
            self._all = self._make_all()
        return self._all


#: Where more posts' vectors changed (a word many posts keep entered or left the edited
#: post's), every list is made again: each changed vector is compared with every list's last
#: entry, and nearly every list would be made again anyway.
AGAIN_AT_MOST = 200


class Lists:
    """What :func:`related_lists` chooses from: the ranking, each post's tags, the posts of each
    tag and of each series, and the tiers of shared tags (made once for posts with the same
    tags)."""

    def __init__(
        self, posts: list[Post], terms: dict[str, tuple[tuple[str, int], ...]], count: int
    ) -> None:
        self.posts, self.count = list(posts), count
        self.number = {post.docname: n for n, post in enumerate(posts)}
        self.kept = [terms.get(post.docname, ()) for post in posts]
        self.words = [frozenset(term for term, _ in kept) for kept in self.kept]
        self.frequency = Counter(term for words in self.words for term in words)
        self.idf = {term: term_idf(df, len(posts)) for term, df in self.frequency.items()}
        self.ranking = _Ranking(posts, [vector(kept, self.idf) for kept in self.kept])
        self.tags_of = [frozenset(t.name for t in p.tags) for p in posts]
        self.tagged: dict[str, set[int]] = {}
        self.by_series: dict[str, list[int]] = {}
        for me, post in enumerate(posts):
            for tag in self.tags_of[me]:
                self.tagged.setdefault(tag, set()).add(me)
            if post.series:
                self.by_series.setdefault(post.series, []).append(me)
        self.tiers: dict[frozenset, _TagTiers] = {}

    def edited(self, post: Post, kept: tuple[tuple[str, int], ...]) -> set[int] | None:
        """``post`` (one of these, by its docname; the same name, date, series, tags and
        categories) now keeps ``kept``: its vector, and where it took or dropped a word whose
        IDF then moved by a step, that IDF and the vector of every post that keeps the word,
        are made again, as :func:`vectors` makes them from all the posts. The numbers of the
        posts whose vectors were made again; None where its vector has more terms than the
        ranking's rows hold (nothing changed: the lists are made whole)."""
        if len(kept) > self.ranking.width:
            return None
        me = self.number[post.docname]
        old, new = self.words[me], frozenset(term for term, _ in kept)
        self.posts[me], self.kept[me], self.words[me] = post, kept, new
        self.frequency.subtract(old - new)
        self.frequency.update(new - old)
        reweighed = set()  # the words whose IDF changed, kept by some other post
        for term in old ^ new:
            if self.frequency[term] > 0:
                weight = term_idf(self.frequency[term], len(self.posts))
                if weight != self.idf.get(term):
                    self.idf[term] = weight
                    reweighed.add(term)
            else:  # no post keeps it any more
                del self.frequency[term]
                self.idf.pop(term, None)
        made_again = {me}
        if reweighed:
            made_again |= {
                n for n, words in enumerate(self.words) if not reweighed.isdisjoint(words)
            }
        for n in sorted(made_again):
            self.ranking.set_vector(n, vector(self.kept[n], self.idf))
        return made_again

    def again(self, before: dict[str, list[str]], changed: set[int]) -> dict[str, list[str]]:
        """The lists ``before``, made of these posts when only the posts ``changed`` had other
        vectors, made again where they can differ: the changed posts' own, and another post's
        where a changed post was in it, is in its series, could fill a short list, or now
        ranks above its last entry; every other list is the same choice among the same keys.
        Every list, where more than :data:`AGAIN_AT_MOST` vectors changed."""
        posts = self.posts
        if len(changed) > AGAIN_AT_MOST:
            return {post.docname: self.of(n) for n, post in enumerate(posts)}
        names = {posts[n].docname for n in changed}
        series = {posts[n].series for n in changed if posts[n].series}
        made_again = set(changed)
        full: list[int] = []
        last: list[int] = []
        for n, post in enumerate(posts):
            listed = before[post.docname]
            if n in changed:
                continue
            if len(listed) < self.count or post.series in series or not names.isdisjoint(listed):
                made_again.add(n)
            else:
                full.append(n)
                last.append(self.number[listed[-1]])
        if full:
            entries = LastEntries(self, full, last)
            for candidate in changed:
                made_again.update(entries.outranked_by(candidate))
        again = dict(before)
        for n in made_again:
            again[posts[n].docname] = self.of(n)
        return again

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


class LastEntries:
    """The last entry of each of some posts' full lists, and its key in that post's order (the
    tier of shared tags, the posts that share none last; shared categories; text score; date;
    docname), as arrays: whether a post now ranks above it in each list is then a few array
    operations (one at a time in Python, 40 ms of an edit at 10,000 posts)."""

    def __init__(self, lists: Lists, owners: list[int], last: list[int]) -> None:
        ranking, numpy, posts = lists.ranking, lists.ranking.numpy, lists.posts
        self.lists = lists
        self.owners = ranking.rows(owners)
        self.last = ranking.rows(last)
        self.tiers = numpy.array(
            [
                _tier(len(lists.tags_of[n] & lists.tags_of[m]))
                for n, m in zip(owners, last, strict=True)
            ],
            dtype=numpy.int64,
        )
        self.categories = (ranking.categories[self.owners] * ranking.categories[self.last]).sum(1)
        # The text scores, only where a candidate ties on the rest (60 ms for all 10,000).
        self.text = numpy.zeros(len(owners), dtype=numpy.int64)
        self.text_known = numpy.zeros(len(owners), dtype=bool)
        self.tag_rows: dict[str, Any] = {}
        # A list that is all of its post's series: no other post enters it.
        self.all_series = numpy.array(
            [
                bool(posts[n].series) and posts[m].series == posts[n].series
                for n, m in zip(owners, last, strict=True)
            ],
            dtype=bool,
        )

    def outranked_by(self, candidate: int) -> list[int]:
        """The owners whose list ``candidate`` (in none of them, in no owner's series) ranks
        above the last entry of. Texts are compared only where the tiers and categories tie
        (each text compared costs a gather of every term of every row)."""
        lists, owners = self.lists, self.owners
        ranking, numpy = lists.ranking, lists.ranking.numpy
        shared = numpy.zeros(len(lists.posts), dtype=numpy.int64)
        for tag in lists.tags_of[candidate]:
            shared[self._tagged(tag)] += 1
        shared = shared[owners]
        tiers = numpy.where(shared > 0, -shared, 1)
        categories = ranking.categories[owners] @ ranking.categories[candidate]
        above = (tiers < self.tiers) | ((tiers == self.tiers) & (categories > self.categories))
        ties = numpy.flatnonzero(
            (tiers == self.tiers) & (categories == self.categories) & ~self.all_series
        )
        if len(ties):
            above[ties] = self._text_above(candidate, ties)
        return owners[above & ~self.all_series].tolist()

    def _text_above(self, candidate: int, ties: Any) -> Any:
        """For the owners at ``ties`` (places in ``owners``), whether ``candidate`` ranks above
        their last entry on the text, then the date, then the docname."""
        ranking, numpy = self.lists.ranking, self.lists.ranking.numpy
        unknown = ties[~self.text_known[ties]]
        if len(unknown):
            self.text[unknown] = ranking.pair_scores(self.owners[unknown], self.last[unknown])
            self.text_known[unknown] = True
        text, last_text = ranking.scores(candidate, self.owners[ties]), self.text[ties]
        last = self.last[ties]
        newer = (ranking.newest_first[candidate] < ranking.newest_first[last]) | (
            (ranking.newest_first[candidate] == ranking.newest_first[last])
            & (ranking.by_name[candidate] < ranking.by_name[last])
        )
        return numpy.where(text != last_text, text > last_text, newer)

    def _tagged(self, tag: str) -> Any:
        """The numbers of the posts with ``tag``, as an array, made once."""
        rows = self.tag_rows.get(tag)
        if rows is None:
            rows = self.tag_rows[tag] = self.lists.ranking.rows(self.lists.tagged[tag])
        return rows


def _tier(shared_tags: int) -> int:
    """Where a post that shares this many tags comes in a list: more shared tags first, the
    posts that share none last."""
    return -shared_tags if shared_tags else 1


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
