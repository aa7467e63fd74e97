"""What the posts say, checked mechanically: everything is derived from the posts themselves.

- An external post's ``external_link`` is the article's address, not a site's front page.
- A post links in its prose only to posts dated no later than itself. A link to a newer post
  may only sit inside a dated Update note (an admonition titled ``Update, YYYY-MM-DD``, or a
  section headed ``Update, YYYY-MM-DD ...``) dated after the post it links to. Every such note
  is dated after its own post, and the post's ``updated:`` date covers it and is not in the future.
- The metadata JSON that ``benchmark`` directives show give software versions as dotted
  versions (``9.19.0``), not as the integers some libraries return (``91900``).
- Every post in the Benchmarks category shows figures: a ``benchmark`` directive, a table of
  numbers, or figures quoted next to a link to their source.
- Every essay post (a post of its own, not an external one, in some category besides
  Benchmarks) cites at least two primary sources with ``{footcite}`` and shows them in a
  References list (``{footbibliography}``): entries of the site's BibTeX files that say where the
  source itself is (a ``url``, ``doi`` or ``eprint``). The built page lists them as footnotes with
  links.

Posts are read as the site reads them: the front matter with PyYAML, the body with markdown-it
and the MyST plugins (roles, fences and directives, math), so a link in a code block or in math
is not a link, and a link inside a directive's body is found where MyST would find it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_role import myst_role_plugin
from sitefacts import SITE, skeleton

from kb.checks.sitechecks import link_docname

REPO = Path(__file__).resolve().parents[2]
POSTS_DIR = REPO / "posts"
BENCHMARKS = "Benchmarks"

#: "Update, 2026-11-30" or "Update 2026-11-30: what changed", as a heading or an admonition title.
UPDATE = re.compile(r"^\s*Update\b[\s,:.—–-]*(\d{4}-\d{2}-\d{2})\b")
#: Directives whose body is code or data, not Markdown (so links there are not links).
OPAQUE = {
    "code",
    "code-block",
    "code-cell",
    "sourcecode",
    "literalinclude",
    "math",
    "raw",
    "csv-table",
    "mermaid",
    "graphviz",
    "benchmark",
}
DOC_ROLE = re.compile(r"^(?:[^<]*<([^>]+)>|(.+))$", re.S)
#: sphinxcontrib-bibtex's per-page citation roles: {footcite}, {footcite:p}, {footcite:t}, ...
FOOTCITE = re.compile(r"^footcite(:\w+)?$")
#: The fields of a BibTeX entry that say where the source itself can be read.
PRIMARY_FIELDS = ("url", "doi", "eprint")
#: The least number of primary sources an essay post cites.
MIN_PRIMARY = 2
#: Keys of a metadata JSON that the benchmark caption shows as software versions.
VERSION_KEYS = {
    "torch",
    "torch_version",
    "pytorch",
    "cuda",
    "cuda_version",
    "torch_cuda",
    "torch_cuda_version",
    "cudnn",
    "cudnn_version",
    "driver",
    "driver_version",
    "nvidia_driver",
    "triton",
    "triton_version",
    "flash_attn",
    "flash_attn_version",
}
DOTTED_VERSION = re.compile(r"^\d+(\.\d+)+([+.-][0-9A-Za-z.+-]*)?$")
#: A table cell that is a number, optionally with a unit: "4.8 TB/s", "69%", "~683", "9 KiB".
NUMBER_CELL = re.compile(r"^[~≈<>]?\s*[-+]?\d[\d,]*(\.\d+)?\s*(%|[A-Za-zµ/]+(/s)?)?$")
#: A figure in running text: a number with a unit or a percentage.
QUOTED_FIGURE = re.compile(
    r"\d+(\.\d+)?\s*(%|×|TFLOP/s|GFLOP/s|PFLOP/s|TB/s|GB/s|ms\b|µs\b|MHz|GHz|W\b|times\b)"
)


def markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    for plugin in (myst_role_plugin, dollarmath_plugin, amsmath_plugin, colon_fence_plugin):
        md.use(plugin)
    return md


MD = markdown()


@dataclass
class Link:
    target: str  # as written; {doc} roles as "{doc}target"
    line: int
    update: date | None  # the date of the innermost Update note around it


@dataclass
class Directive:
    name: str
    argument: str
    options: dict[str, str]
    line: int


@dataclass
class Body:
    links: list[Link] = field(default_factory=list)
    citations: list[tuple[str, int]] = field(default_factory=list)  # footcite keys, their lines
    directives: list[Directive] = field(default_factory=list)
    tables: list[list[list[str]]] = field(default_factory=list)  # body rows of each table
    paragraphs: list[tuple[str, list[str], int]] = field(default_factory=list)  # text, hrefs
    updates: list[tuple[date, int]] = field(default_factory=list)  # each note's date, line


@dataclass
class Post:
    path: Path
    docname: str  # posts/2025/slug
    meta: dict
    body: Body
    body_line: int  # the file's line of the body's first line

    @property
    def date(self) -> date:
        return as_date(self.meta["date"])

    @property
    def categories(self) -> set[str]:
        return {c.strip() for c in str(self.meta.get("category", "")).split(",") if c.strip()}

    def where(self, line: int) -> str:
        return f"{self.path.relative_to(REPO)}:{self.body_line + line}"


def as_date(value) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def split_front_matter(text: str) -> tuple[dict, str, int]:
    lines = text.split("\n")
    assert lines[0].strip() == "---", "a post starts with front matter"
    end = next(i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---")
    meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    return meta, "\n".join(lines[end + 1 :]), end + 2


def directive_parts(content: str) -> tuple[dict[str, str], str, int]:
    """A directive's options (``:key: value`` lines or a ``---`` YAML block) and its body."""
    lines = content.split("\n")
    options: dict[str, str] = {}
    if lines and lines[0].strip() == "---":
        end = next(i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---")
        options = {
            str(k): str(v) for k, v in (yaml.safe_load("\n".join(lines[1:end])) or {}).items()
        }
        start = end + 1
    else:
        start = 0
        while start < len(lines):
            match = re.match(r"^:([\w-]+):\s*(.*)$", lines[start])
            if not match:
                break
            options[match.group(1)] = match.group(2).strip()
            start += 1
    return options, "\n".join(lines[start:]), start


def read_body(text: str, found: Body | None = None, offset: int = 0, update=None) -> Body:
    """Links, directives, tables and paragraphs of Markdown ``text`` (recursing into directives)."""
    found = found if found is not None else Body()
    tokens = MD.parse(text)
    section: tuple[int, date] | None = None  # (heading level, date) of an Update section
    i = 0
    while i < len(tokens):
        token = tokens[i]
        line = offset + (token.map[0] + 1 if token.map else 0)
        if token.type == "heading_open":
            level, title = int(token.tag[1:]), tokens[i + 1].content
            if section and level <= section[0]:
                section = None
            match = UPDATE.match(title)
            if match:
                section = (level, date.fromisoformat(match.group(1)))
                found.updates.append((section[1], line))
        current = section[1] if section else update
        if token.type in ("fence", "colon_fence"):
            match = re.match(r"^\{([\w:-]+)\}\s*(.*)$", token.info.strip())
            if match:
                name, argument = match.group(1), match.group(2).strip()
                options, content, skipped = directive_parts(token.content)
                found.directives.append(Directive(name, argument, options, line))
                if name not in OPAQUE:
                    note = UPDATE.match(argument)
                    inner = current
                    if note:
                        inner = date.fromisoformat(note.group(1))
                        found.updates.append((inner, line))
                    read_body(content, found, line + skipped, inner)
        elif token.type == "table_open":
            rows, row, in_body = [], None, False
            while tokens[i].type != "table_close":
                kind = tokens[i].type
                if kind == "tbody_open":
                    in_body = True
                elif kind == "tr_open" and in_body:
                    row = []
                elif kind == "tr_close" and row is not None:
                    rows.append(row)
                    row = None
                elif kind == "inline" and row is not None:
                    row.append(tokens[i].content.strip())
                i += 1
            found.tables.append(rows)
        elif token.type == "inline":
            hrefs = []
            for child in token.children or []:
                if child.type == "link_open":
                    href = str(child.attrs.get("href", ""))
                    hrefs.append(href)
                    found.links.append(Link(href, line, current))
                elif child.type == "myst_role" and child.meta.get("name") == "doc":
                    role = DOC_ROLE.match(child.content.strip())
                    target = (role.group(1) or role.group(2)).strip()
                    found.links.append(Link("{doc}" + target, line, current))
                elif child.type == "myst_role" and FOOTCITE.match(child.meta.get("name", "")):
                    for key in child.content.split(","):
                        if key.strip():
                            found.citations.append((key.strip(), line))
            if i > 0 and tokens[i - 1].type == "paragraph_open":
                found.paragraphs.append((token.content, hrefs, line))
        i += 1
    return found


def read_post(path: Path) -> Post:
    meta, body, body_line = split_front_matter(path.read_text(encoding="utf-8"))
    docname = path.relative_to(REPO).with_suffix("").as_posix()
    return Post(path, docname, meta, read_body(body), body_line - 1)


def all_posts() -> dict[str, Post]:
    posts = (read_post(path) for path in sorted(POSTS_DIR.glob("*/*.md")))
    return {post.docname: post for post in posts if post.meta.get("blogpost", True)}


POSTS = all_posts()


def ids(posts):
    return [post.docname for post in posts]


# -- The rules, as functions of the posts, so they can be tried on examples too ------------------


def later_links(posts: dict[str, Post]) -> list[str]:
    """Every prose link to a newer post that no Update note dated after that post covers."""
    problems = []
    for post in posts.values():
        for link in post.body.links:
            target = posts.get(link_docname(link.target, post.docname) or "")
            if target is None or target.date <= post.date:
                continue
            if link.update is not None and link.update > target.date:
                continue
            where = "outside any Update note"
            if link.update is not None:
                where = f"in an Update note dated {link.update}, not after it"
            problems.append(
                f"{post.where(link.line)}: {post.docname} ({post.date}) links to "
                f"{target.docname} ({target.date}) {where}"
            )
    return problems


def update_note_problems(post: Post, today: date) -> list[str]:
    problems = []
    updated = post.meta.get("updated")
    for when, line in post.body.updates:
        if when <= post.date:
            problems.append(f"{post.where(line)}: Update note dated {when}, not after the post")
        if updated is None:
            problems.append(f"{post.where(line)}: Update note but no `updated:` in front matter")
        elif when > as_date(updated):
            problems.append(f"{post.where(line)}: Update note dated {when}, after `updated:`")
    if updated is not None and as_date(updated) > today:
        problems.append(f"{post.path.relative_to(REPO)}: `updated: {updated}` is in the future")
    return problems


def metadata_files(post: Post) -> list[Path]:
    base = post.path.parent
    return sorted(
        {
            (base / d.options["metadata"]).resolve()
            for d in post.body.directives
            if d.name == "benchmark" and "metadata" in d.options
        }
    )


def version_problems(data: dict, shown: str) -> list[str]:
    problems = []
    levels = [("", data)] + [
        (f"{key}.", value) for key, value in data.items() if isinstance(value, dict)
    ]
    for prefix, level in levels:
        for key, value in level.items():
            if key.lower() not in VERSION_KEYS or value is None:
                continue
            if not (isinstance(value, str) and DOTTED_VERSION.match(value)):
                problems.append(f"{shown}: {prefix}{key} is {value!r}, not a dotted version")
    return problems


def has_figures(post: Post) -> bool:
    body = post.body
    if any(d.name == "benchmark" for d in body.directives):
        return True
    if any(NUMBER_CELL.match(cell) for table in body.tables for row in table for cell in row):
        return True
    return any(
        QUOTED_FIGURE.search(text) and any(urlsplit(h).scheme in ("http", "https") for h in hrefs)
        for text, hrefs, _ in body.paragraphs
    )


def is_essay(post: Post) -> bool:
    """A post of the site's own (not a pointer to an article elsewhere) in a category besides
    Benchmarks: an Article, whatever a fork calls its categories. A post still as ``kb new``
    wrote it is no essay yet."""
    own = not post.meta.get("external_link")
    own = own and not (post.path.is_file() and skeleton(post.path))
    return own and bool(post.categories - {BENCHMARKS})


def bibliography() -> dict[str, set[str]]:
    """Each entry of the site's BibTeX files (``bibtex_bibfiles`` in conf.py): its fields."""
    from pybtex.database import parse_file

    entries: dict[str, set[str]] = {}
    for name in SITE.conf.get("bibtex_bibfiles", []):
        data = parse_file(str(REPO / name), bib_format="bibtex")
        for key, entry in data.entries.items():
            entries[key] = {f.lower() for f in entry.fields}
    return entries


def citation_problems(post: Post, entries: dict[str, set[str]]) -> list[str]:
    """What keeps ``post`` from showing at least MIN_PRIMARY primary sources in a References
    list: too few distinct keys that resolve to entries with a url, doi or eprint, a key that is
    not in the BibTeX files, or citations with no {footbibliography} to list them."""
    problems = []
    primary = set()
    for key, line in post.body.citations:
        if key not in entries:
            problems.append(f"{post.where(line)}: cites {key!r}, which no BibTeX file defines")
        elif entries[key] & set(PRIMARY_FIELDS):
            primary.add(key)
    if len(primary) < MIN_PRIMARY:
        problems.append(
            f"{post.path.relative_to(REPO)}: cites {len(primary)} primary source(s) "
            f"({', '.join(sorted(primary)) or 'none'}), fewer than {MIN_PRIMARY}: add "
            "entries with a url, doi or eprint to references.bib and cite them with "
            "{footcite:p}`key`"
        )
    if post.body.citations and not any(d.name == "footbibliography" for d in post.body.directives):
        problems.append(
            f"{post.path.relative_to(REPO)}: cites sources but shows no References list; end the "
            "post with a ```{footbibliography}``` directive"
        )
    return problems


# -- The real posts ---------------------------------------------------------------------------


def test_there_are_posts_to_check():
    assert POSTS, "no posts under posts/"


EXTERNAL = [post for post in POSTS.values() if post.meta.get("external_link")]


@pytest.mark.parametrize("post", EXTERNAL, ids=ids(EXTERNAL))
def test_external_link_is_the_article_not_a_front_page(post):
    url = urlsplit(str(post.meta["external_link"]))
    assert url.scheme in ("http", "https") and url.netloc, post.meta["external_link"]
    assert url.path.strip("/"), (
        f"{post.docname}: external_link {post.meta['external_link']} is a site's front page; "
        "give the address of the article itself"
    )


def test_no_prose_link_to_a_later_post():
    assert later_links(POSTS) == []


@pytest.mark.parametrize("post", list(POSTS.values()), ids=list(POSTS))
def test_update_notes_are_dated_after_the_post_and_covered_by_updated(post):
    assert update_note_problems(post, date.today()) == []


WITH_METADATA = [post for post in POSTS.values() if metadata_files(post)]


@pytest.mark.parametrize("post", WITH_METADATA, ids=ids(WITH_METADATA))
def test_versions_in_benchmark_metadata_are_dotted(post):
    problems = []
    for path in metadata_files(post):
        assert path.is_file(), f"{post.docname}: metadata {path} not found"
        data = json.loads(path.read_text(encoding="utf-8"))
        problems += version_problems(data, str(path.relative_to(REPO)))
    assert problems == []


BENCHMARK_POSTS = [post for post in POSTS.values() if BENCHMARKS in post.categories]


@pytest.mark.parametrize("post", BENCHMARK_POSTS, ids=ids(BENCHMARK_POSTS))
def test_benchmarks_post_shows_figures(post):
    assert has_figures(post), (
        f"{post.docname} is in {BENCHMARKS} but shows no figures: add a benchmark directive, a "
        "table of numbers, or figures quoted with a link to their source"
    )


ESSAYS = [post for post in POSTS.values() if is_essay(post)]


@pytest.mark.parametrize("post", ESSAYS, ids=ids(ESSAYS))
def test_essay_post_cites_primary_sources(post):
    assert citation_problems(post, bibliography()) == []


def test_essay_pages_list_their_primary_sources(built_site):
    """The built page of every published essay post lists, under its References heading, a
    footnote with a link for each primary source it cites."""
    entries = bibliography()
    problems = []
    for post in ESSAYS:
        if post.date > date.today():
            continue  # a draft has no page
        page = BeautifulSoup(
            (built_site / f"{post.docname}.html").read_text(encoding="utf-8"), "lxml"
        )
        keys = {
            key for key, _ in post.body.citations if entries.get(key, set()) & {*PRIMARY_FIELDS}
        }
        linked = {
            note["id"].removeprefix("footcite-")
            for note in page.select("aside.footnote[id^=footcite-]")
            if note.select_one("a.reference.external[href^=http]")
        }
        headings = [h.get_text().rstrip("¶").strip() for h in page.select("article h2")]
        if len(keys & linked) < MIN_PRIMARY:
            problems.append(f"{post.docname}: the page links {sorted(keys & linked)}")
        if "References" not in headings:
            problems.append(f"{post.docname}: no References heading")
    assert problems == []


# -- The rules on examples, so that a fork's posts are judged the same way ---------------------


def example(docname: str, when: str, body: str, **meta) -> Post:
    meta = {"date": date.fromisoformat(when), **meta}
    return Post(REPO / f"{docname}.md", docname, meta, read_body(body), 0)


def test_a_link_to_a_newer_post_needs_an_update_note_dated_after_it():
    new = example("posts/2026/new", "2026-05-01", "New.")
    plain = example("posts/2026/old", "2026-01-01", "See [new](/posts/2026/new.md).")
    role = example("posts/2026/old", "2026-01-01", "See {doc}`the new one </posts/2026/new>`.")
    relative = example("posts/2026/old", "2026-01-01", "See [new](new.md#part).")
    assert len(later_links({"posts/2026/new": new, "posts/2026/old": plain})) == 1
    assert len(later_links({"posts/2026/new": new, "posts/2026/old": role})) == 1
    assert len(later_links({"posts/2026/new": new, "posts/2026/old": relative})) == 1

    noted = example(
        "posts/2026/old",
        "2026-01-01",
        "Text.\n\n```{admonition} Update, 2026-05-02\n:class: note\n\n"
        "See [new](/posts/2026/new.md).\n```\n",
        updated=date(2026, 5, 2),
    )
    assert later_links({"posts/2026/new": new, "posts/2026/old": noted}) == []
    assert update_note_problems(noted, date(2026, 6, 1)) == []
    assert update_note_problems(noted, date(2026, 5, 1)) != []  # updated in the future

    early = example(
        "posts/2026/old",
        "2026-01-01",
        ":::{admonition} Update, 2026-04-30\nSee [new](/posts/2026/new.md).\n:::\n",
    )
    assert len(later_links({"posts/2026/new": new, "posts/2026/old": early})) == 1
    assert update_note_problems(early, date(2026, 6, 1)) != []  # no `updated:`

    section = example(
        "posts/2026/old",
        "2026-01-01",
        "## Update, 2026-05-02: more\n\nSee [new](/posts/2026/new.md).\n\n"
        "## Next\n\nAgain [new](/posts/2026/new.md).\n",
        updated=date(2026, 5, 2),
    )
    problems = later_links({"posts/2026/new": new, "posts/2026/old": section})
    assert len(problems) == 1 and "outside any Update note" in problems[0]


def test_links_in_code_math_and_older_posts_are_fine():
    new = example("posts/2026/new", "2026-05-01", "New.")
    body = (
        "Older: [old](/posts/2025/older.md), same day [twin](/posts/2026/twin.md), "
        "away [site](https://example.org/posts/2026/new.md).\n\n"
        "```markdown\n[new](/posts/2026/new.md)\n```\n\n"
        "$$\n[new](/posts/2026/new.md)\n$$\n\n"
        "`[new](/posts/2026/new.md)`\n"
    )
    old = example("posts/2026/old", "2026-05-01", body)
    older = example("posts/2025/older", "2025-01-01", "Old.")
    twin = example("posts/2026/twin", "2026-05-01", "Twin.")
    posts = {p.docname: p for p in (new, old, older, twin)}
    assert later_links(posts) == []


def test_versions_must_be_dotted():
    assert version_problems({"cudnn_version": "9.19.0", "torch_version": "2.11.0+cu130"}, "x") == []
    assert version_problems({"nvidia_smi": {"driver_version": "580.159.04"}}, "x") == []
    assert len(version_problems({"cudnn_version": 91900}, "x")) == 1
    assert len(version_problems({"software": {"cudnn": "91900"}}, "x")) == 1
    assert version_problems({"torch_git_version": "70d99e9", "cudnn_version": None}, "x") == []


def test_what_counts_as_figures():
    plain = example("posts/2026/a", "2026-01-01", "We ran it, and it was fast.")
    assert not has_figures(plain)
    table = example("posts/2026/a", "2026-01-01", "| a | b |\n|---|---|\n| x | 4.8 TB/s |\n")
    words = example("posts/2026/a", "2026-01-01", "| a | b |\n|---|---|\n| x | fast |\n")
    quoted = example(
        "posts/2026/a", "2026-01-01", "Up to 30% faster ([source](https://example.org/article))."
    )
    unsourced = example("posts/2026/a", "2026-01-01", "Up to 30% faster.")
    chart = example("posts/2026/a", "2026-01-01", "```{benchmark} data/x.csv\n:y: v\n```\n")
    assert has_figures(table) and has_figures(quoted) and has_figures(chart)
    assert not has_figures(words) and not has_figures(unsourced)


def test_what_counts_as_an_essay_and_its_primary_sources():
    article = example("posts/2026/a", "2026-01-01", "Text.", category="Article, Benchmarks")
    bench = example("posts/2026/b", "2026-01-01", "Text.", category="Benchmarks")
    away = example(
        "posts/2026/c", "2026-01-01", "Text.", category="Article", external_link="https://x.org/a"
    )
    assert is_essay(article) and not is_essay(bench) and not is_essay(away)

    entries = {"paper": {"url", "eprint"}, "doc": {"doi"}, "book": {"publisher"}}
    listed = "\n\n```{footbibliography}\n```\n"
    two = example(
        "posts/2026/a", "2026-01-01", "A {footcite:p}`paper` and {footcite}`doc`." + listed
    )
    assert citation_problems(two, entries) == []
    both = example("posts/2026/a", "2026-01-01", "A {footcite:t}`paper,doc`." + listed)
    assert citation_problems(both, entries) == []
    # The same source twice, a source with nowhere to read it, a key not defined, no list.
    once = example("posts/2026/a", "2026-01-01", "{footcite:p}`paper` {footcite:p}`paper`" + listed)
    assert len(citation_problems(once, entries)) == 1
    unread = example(
        "posts/2026/a", "2026-01-01", "{footcite:p}`paper` {footcite:p}`book`" + listed
    )
    assert len(citation_problems(unread, entries)) == 1
    missing = example("posts/2026/a", "2026-01-01", "{footcite:p}`paper,doc,nope`" + listed)
    assert [p for p in citation_problems(missing, entries) if "nope" in p]
    unlisted = example("posts/2026/a", "2026-01-01", "{footcite:p}`paper` {footcite:p}`doc`")
    assert ["References" in p for p in citation_problems(unlisted, entries)] == [True]
    # In code, a role is not a citation.
    code = example("posts/2026/a", "2026-01-01", "```md\n{footcite:p}`paper`\n```\n" + listed)
    assert code.body.citations == []


def control_characters(text: str) -> list[str]:
    """Control characters other than line ends: a "\\t" or "\\f" that a script wrote into a
    post as a tab or form feed, where TeX wanted ``\\text`` or ``\\frac``."""
    return [
        f"line {text.count(chr(10), 0, i) + 1}: {ch!r}"
        for i, ch in enumerate(text)
        if ord(ch) < 32 and ch not in "\n\r"
    ]


def test_control_characters_are_found():
    assert control_characters("$1/n_{\text{active}}$\nok\n") == ["line 1: '\\t'"]


@pytest.mark.parametrize("path", sorted(POSTS_DIR.rglob("*.md")), ids=lambda p: p.name)
def test_posts_hold_no_control_characters(path):
    assert control_characters(path.read_text(encoding="utf-8")) == []
