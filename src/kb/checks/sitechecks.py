"""Checks across posts: what no single file can show wrong on its own.

Slug collisions (two posts, two tag spellings or two series names that end up at one page),
duplicate titles, a series part used twice, redirects that would replace a page, and links to
posts that do not exist. Pure functions over the :class:`~kb.checks.frontmatter.PostFacts` of every
post, keyed by path relative to the site root (``posts/2025/x.md``). Of two clashing posts the
older keeps its claim (then the first by path), and the other is told what to change.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping
from difflib import get_close_matches
from urllib.parse import unquote

from .frontmatter import PostFacts, Problem
from .messages import say
from .slugs import slugify

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
#: Source suffixes a link may name: a link to anything else (an image, a PDF) is not a page.
DOC_SUFFIXES = (".md", ".rst", ".ipynb")

Problems = dict[str, list[Problem]]

#: Pages and folders the build writes besides the blog's archives (``blog_path``): a redirect
#: there would replace them.
GENERATED: tuple[str, ...] = (
    "feeds",
    "search",
    "genindex",
    "py-modindex",
    "_static",
    "_images",
    "_downloads",
)
GENERATED += ("_sources", "pagefind", "benchmarks")  # benchmarks.html: kb.pages.benchmarks


def check_site(
    posts: Mapping[str, PostFacts],
    exists: Callable[[str], bool] | None = None,
    blog_path: str = "blog",
    documents: Collection[str] = (),
    generated: Iterable[str] = ("404",),
    scheduled: Mapping[str, str] | None = None,
    pages: Mapping[str, PostFacts] | None = None,
) -> Problems:
    """Problems between posts, by path. ``exists(docname)`` enables the link check.

    ``scheduled`` maps each draft's docname to its day: a link to a draft is an error (it
    breaks until that day) even where missing documents are left to Sphinx (no ``exists``).

    ``documents`` are the docnames of every source the site has (posts and pages), and
    ``generated`` the pages the build writes besides ``blog_path`` and :data:`GENERATED`
    (the 404 page): a redirect may take none of them. Of ``pages`` (evergreen pages, by path)
    only the links are checked: no slug, title or redirect of a page is a post's.
    """
    problems: Problems = {}

    def report(path: str, line: int, message: str, key: str = "", subject: str = "") -> None:
        problems.setdefault(path, []).append(Problem(line, message, key, subject=subject))

    # The older claim wins each clash: every check goes through the posts in date order,
    # sorted once (six sorts of 10,000 posts were a tenth of a build's checks).
    dated = _DateOrder(posts)
    _check_post_slugs(dated, report)
    _check_tag_slugs(dated, report, blog_path)
    _check_series_slugs(dated, report, blog_path)
    _check_titles(dated, report)
    _check_series_parts(dated, report)
    _check_redirects(dated, report, documents, (blog_path, *GENERATED, *generated))
    if exists is not None or scheduled:
        _check_links(posts, exists, scheduled or {}, report, pages or {})
    for found in problems.values():
        found.sort(key=lambda p: p.line)
    return problems


def post_slug(path: str) -> str:
    """ablog's label for a post: its file name, or its folder's for an ``index`` file."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    return posixpath.basename(posixpath.dirname(path)) if stem == "index" else stem


class _DateOrder(dict):
    """The posts (path -> facts), with ``in_order``: their paths oldest first (undated last),
    then by path."""

    def __init__(self, posts: Mapping[str, PostFacts]) -> None:
        super().__init__(posts)
        self.in_order = sorted(posts, key=lambda path: (posts[path].date or "9999", path))


def _clashes(posts: _DateOrder, claims):
    """``(path, line, (first_path, first_line, first_value))`` for each claim already taken.

    ``claims(path, facts)`` lists ``(key, line, value)``; a later claim of a key clashes when
    its value differs from the first one's (a post's own path, or a tag's spelling).
    """
    first: dict = {}
    for path in posts.in_order:
        for key, line, value in claims(path, posts[path]):
            owner = first.setdefault(key, (path, line, value))
            if owner[2] != value:
                yield path, line, owner


def _check_post_slugs(posts, report) -> None:
    for path, _, (other, _, _) in _clashes(posts, lambda p, f: [(post_slug(p), 1, p)]):
        report(path, 1, say("slug_taken", slug=post_slug(path), other=other))


def _check_tag_slugs(posts, report, blog_path: str) -> None:

    def claims(path, facts):
        return [(slugify(tag), facts.tags_line, tag) for tag in facts.tags]

    for path, line, (where, first_line, spelling) in _clashes(posts, claims):
        tags = [t for t in posts[path].tags if slugify(t) == slugify(spelling) and t != spelling]
        page = f"{blog_path}/tag/{slugify(spelling)}"
        for tag in tags[:1]:
            message = say(
                "tag_slug", tag=tag, other=spelling, where=f"{where}:{first_line}", page=page
            )
            report(path, line, message, "tags")


def _check_series_slugs(posts, report, blog_path: str) -> None:
    """Series names that differ only in case or punctuation share one page and one feed."""

    def claims(path, facts):
        return [(slugify(facts.series), facts.series_line, facts.series)] if facts.series else []

    for path, line, (where, first_line, name) in _clashes(posts, claims):
        page = f"{blog_path}/series/{slugify(name)}"
        message = say(
            "series_slug", series=posts[path].series, other=name, where=f"{where}:{first_line}",
            page=page,
        )  # fmt: skip
        report(path, line, message, "series")


def _check_titles(posts, report) -> None:
    def claims(path, facts):
        return (
            [(" ".join(facts.title.casefold().split()), facts.title_line, path)]
            if facts.title
            else []
        )

    for path, line, (where, first_line, _) in _clashes(posts, claims):
        title = posts[path].title
        report(path, line, say("same_title", title=title, where=f"{where}:{first_line}"))


def _check_series_parts(posts, report) -> None:
    def claims(path, facts):
        numbered = facts.series and facts.part and facts.part != "supplement"
        return [((facts.series, facts.part), facts.part_line, path)] if numbered else []

    for path, line, (where, first_line, _) in _clashes(posts, claims):
        facts = posts[path]
        message = say(
            "same_part", part=facts.part, series=facts.series, where=f"{where}:{first_line}"
        )
        report(path, line, message, "part")


def _same(name: str) -> str:
    """Two addresses that are one file on macOS or Windows: same letters, whatever the case
    or Unicode normalisation."""
    return unicodedata.normalize("NFC", name).casefold()


def _check_redirects(
    posts: _DateOrder, report, documents: Collection[str], generated: tuple
) -> None:
    """Each old address must be free: no page of the site, no page the build writes, no
    other redirect, and not the post itself. Checked in date order: the older claim wins."""
    if not any(facts.redirects for facts in posts.values()):
        return  # and the addresses of every post and page are not looked at
    post_docnames = {_same(posixpath.splitext(path)[0]): path for path in posts}
    pages = {_same(docname): docname for docname in documents}
    claimed: dict[str, str] = {}
    for path in posts.in_order:
        facts = posts[path]
        own = _same(posixpath.splitext(path)[0])
        for name in facts.redirects:
            key = _same(name)
            built = next(
                (g for g in generated if key == _same(g) or key.startswith(_same(g) + "/")), None
            )
            if key == own:
                message = say("redirect_self", name=name)
            elif key in post_docnames:
                message = say("redirect_taken", name=name, what=post_docnames[key])
            elif key in pages:
                message = say("redirect_taken", name=name, what=f"the page {pages[key]}")
            elif built is not None:
                message = say(
                    "redirect_built", name=name, what=f"{built}/…" if key != _same(built) else built
                )
            elif key in claimed:
                message = say("redirect_twice", name=name, where=claimed[key])
            else:
                claimed[key] = f"{path}:{facts.redirect_line}"
                continue
            report(path, facts.redirect_line, message, "redirect", name)


def unicode_names(paths: Iterable[str]) -> Problems:
    """Files whose names are not in Unicode NFC form (``é`` written as ``e`` and an accent).

    Sphinx names documents in NFC and opens a file by that name, so on Linux it never reads
    such a file (it reads the NFC one when both exist), and macOS stores the two names as one
    file. Each is reported at its line 1.
    """
    paths = set(paths)
    problems: Problems = {}
    for path in sorted(paths):
        nfc = unicodedata.normalize("NFC", path)
        if nfc == path:
            continue
        message = say("unicode_name", other=nfc) if nfc in paths else say("not_nfc")
        problems[path] = [Problem(1, message)]
    return problems


def link_docname(target: str, path: str) -> str | None:
    """The document a link in ``path`` points to, or None when it is not a link to a page."""
    if target.startswith("{doc}"):
        name = target[len("{doc}") :]
    else:
        if _SCHEME.match(target) or target.startswith("#"):
            return None
        name = unquote(target.split("#")[0].split("?")[0])
        suffix = posixpath.splitext(name)[1]
        if suffix not in DOC_SUFFIXES:
            return None
        name = name[: -len(suffix)]
    base = "" if name.startswith("/") else posixpath.dirname(path)
    return posixpath.normpath(posixpath.join(base, name.lstrip("/")))


def _check_links(posts, exists, scheduled, report, pages) -> None:
    known: dict[str, str] = {}  # each post by its slug, for a hint: made at the first miss

    def hint(docname: str) -> str:
        if not known:
            known.update((post_slug(p), posixpath.splitext(p)[0]) for p in sorted(posts)[::-1])
        guess = get_close_matches(posixpath.basename(docname), known, 1, 0.6)
        return f" (did you mean /{known[guess[0]]}.md?)" if guess else ""

    linkers = {**posts, **pages}
    for path in sorted(linkers):
        linker = posixpath.splitext(path)[0]
        for target, line in linkers[path].links:
            docname = link_docname(target, path)
            if docname is None:
                continue
            shown = f"{{doc}}`{target[5:]}`" if target.startswith("{doc}") else target
            if docname in scheduled and linker not in scheduled:
                day = scheduled[docname]
                message = (
                    say("draft_link", shown=shown, day=day)
                    if day
                    else say("undated_link", shown=shown)
                )
                report(path, line, message, "link", docname)
                continue
            if exists is None or docname in scheduled or exists(docname):
                continue
            missing = say("missing_link", shown=shown, hint=hint(docname))
            report(path, line, missing, "link", docname)
