"""The site on disk, for the ``kb`` command: its configuration and its posts, without a build.

``conf.py`` is evaluated the way Sphinx evaluates it (``sphinx.config.eval_config_file``), which
takes milliseconds; nothing is built. The posts are the files matching ``blog_post_pattern``,
as ablog finds them: Markdown files, MyST text notebooks and ``.ipynb`` notebooks, each checked by
:func:`kb.checks.notebook.check_source`.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
import unicodedata
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from .checks.bounded import DEFAULT_LIMIT, read_bounded
from .checks.dates import ABLOG_DATE_FORMAT
from .checks.frontmatter import PostFacts, Problem, Rules, decode_source
from .checks.glossary import glossary_entries, unknown_terms
from .checks.ignored import ignored_sources
from .checks.messages import say
from .checks.namedfiles import NamedFiles
from .checks.notebook import check_source, is_ipynb, read_ipynb
from .checks.oldaddresses import read_old_addresses_file, site_problems
from .checks.outputs import output_problems
from .checks.pages import check_page, says_blogpost
from .checks.rawhtml import markdown_problems
from .checks.sanitize import Policy
from .checks.sitechecks import DOC_SUFFIXES, check_site, unicode_names
from .checks.sourcefiles import Unsafe, excluded_by, is_left_out, unsafe_sources
from .config import KbConfig
from .upstream.ablog import pattern_matches

DEFAULT_PATTERN = "posts/**/*.md"


class SiteError(Exception):
    """The site cannot be found or its configuration cannot be read."""


@dataclass
class Site:
    root: Path
    conf: dict

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(self.conf.get("kb_categories", KbConfig.categories))

    @property
    def authors(self) -> tuple[str, ...]:
        return tuple(self.conf.get("blog_authors") or {})

    @property
    def own_host(self) -> str | None:
        return urlsplit(str(self.conf.get("html_baseurl") or "")).hostname

    @property
    def raw_html_hosts(self) -> tuple[str, ...]:
        """Hosts a post's HTML and images may load from: the setting, and the site's own."""
        own = self.own_host
        return (*self.conf.get("kb_allow_raw_html_hosts", ()), *([own] if own else []))

    @property
    def allow_raw_scripts(self) -> bool:
        return bool(self.conf.get("kb_allow_raw_scripts", False))

    def rules(self, today: date | None) -> Rules:
        return Rules(self.categories, self.authors, today, self.date_format)

    @property
    def date_format(self) -> str:
        return str(self.conf.get("post_date_format") or ABLOG_DATE_FORMAT)

    def arriving_files(self) -> frozenset[Path]:
        """Files a command is about to write beside the sources it checks (none here)."""
        return frozenset()

    @property
    def max_file_bytes(self) -> int:
        return self.conf.get("kb_max_file_bytes", DEFAULT_LIMIT)

    @functools.cached_property
    def unsafe(self) -> Unsafe:
        """Posts and post folders never read (links out or round, FIFOs, files too large),
        as the build finds them (kb.checks.sourcefiles)."""
        from sphinx.project import EXCLUDE_PATHS

        return unsafe_sources(
            self.root,
            self.conf.get("blog_post_pattern") or [DEFAULT_PATTERN],
            DOC_SUFFIXES,
            self.max_file_bytes,
            excluded=excluded_by([*self.conf.get("exclude_patterns", []), *EXCLUDE_PATHS]),
        )

    def post_paths(self) -> list[Path]:
        patterns = self.conf.get("blog_post_pattern") or [DEFAULT_PATTERN]
        found = {
            Path(self.root, relpath)
            for relpath in pattern_matches(self.root, patterns)  # as ablog globs, and the build
            if relpath.endswith(DOC_SUFFIXES) and os.path.isfile(os.path.join(self.root, relpath))
        }
        if self.unsafe.left_out:  # what the build never reads, nor walks into
            found = {
                path
                for path in found
                if not is_left_out(
                    os.path.relpath(path, self.root).replace(os.sep, "/"), self.unsafe.left_out
                )
            }
        return sorted(found)

    def documents(self) -> set[str]:
        """The docname of every source Sphinx reads, found as Sphinx finds them."""
        from sphinx.project import EXCLUDE_PATHS
        from sphinx.util.matching import get_matching_files

        conf = self.conf
        excluded = [
            *conf.get("exclude_patterns", []),
            *conf.get("templates_path", []),
            *conf.get("html_static_path", []),
            *conf.get("html_extra_path", []),
            *EXCLUDE_PATHS,
            # Never walked by the build either; a pattern that matches only itself.
            *(re.sub(r"([*?\[])", r"[\1]", name) for name in self.unsafe.left_out),
        ]
        suffixes: tuple[str, ...] = (".md", ".rst")
        if {"myst_nb", "nbsphinx"} & set(conf.get("extensions", [])):
            suffixes += (".ipynb",)
        included = conf.get("include_patterns", ["**"])
        return {
            posixpath.splitext(name)[0]
            for name in get_matching_files(self.root, included, excluded)
            if name.endswith(suffixes)
        }

    def page_paths(self) -> list[Path]:
        """Every source the build reads that is not a post: the home page, ``pages/``."""
        posts = {self.relpath(path) for path in self.post_paths()}
        found = []
        for docname in self.documents():
            for suffix in DOC_SUFFIXES:
                path = self.root / f"{docname}{suffix}"
                if path.is_file() and self.relpath(path) not in posts:
                    found.append(path)
        return sorted(found)

    def posts_by_their_text(self, paths: list[Path]) -> list[Path]:
        """Those of ``paths`` (sources ablog's pattern does not match) that are posts all the
        same: their front matter says ``blogpost: true``, or they hold a ``post`` directive
        (the build checks them as posts)."""
        found = []
        for path in paths:
            try:
                text = read_bounded(path, self.max_file_bytes).decode("utf-8-sig")
            except (OSError, UnicodeDecodeError):
                continue  # not read as a post: the build reports it where it reads it
            if says_blogpost(text.replace("\r\n", "\n"), rst=path.suffix == ".rst"):
                found.append(path)
        return found

    def glossary_terms(self) -> set[str]:
        """Every term the site's glossaries define (``{glossary}`` in a page), casefolded."""
        terms: set[str] = set()
        for path in self.page_paths():
            try:
                text = read_bounded(path, self.max_file_bytes).decode("utf-8-sig")
            except (OSError, UnicodeDecodeError):
                continue  # reported where the page itself is checked
            if "{glossary}" in text:
                terms.update(key for entry in glossary_entries(text) for key in entry.keys)
        return terms

    @property
    def output_policy(self) -> Policy:
        """The sanitizer's policy for notebook outputs, as the build makes it: the site's
        allowed hosts, no scripts (kb.notebooks.outputs)."""
        hosts = tuple(self.conf.get("kb_allow_raw_html_hosts", ()) or ())
        return Policy.make(hosts, self.own_host, False, "output")

    def old_address_problems(self) -> tuple[str, list[Problem]]:
        """The site's old-addresses file (``kb_old_addresses``) and its problems, in the build's
        words (kb.pages.redirects). A new address under the blog's folder is taken on trust:
        which archives exist is known to the build, which checks them."""
        name = str(self.conf.get("kb_old_addresses", KbConfig.old_addresses) or "")
        path = self.root / name if name else None
        if path is None or not (path.exists() or path.is_symlink()):
            return "", []
        shown = self.relpath(path)
        addresses, problems = read_old_addresses_file(path, self.max_file_bytes, self.root)
        documents = self.documents()
        blog = str(self.conf.get("blog_path") or "blog").strip("/") + "/"
        problems += site_problems(
            addresses, documents.__contains__, lambda d: d in documents or d.startswith(blog)
        )
        return shown, sorted(problems, key=lambda problem: problem.line)

    def ignored(self) -> list[tuple[str, str]]:
        """Each Markdown file or notebook the build never reads (outside ``include_patterns``,
        not excluded on purpose), with the build's warning (:mod:`kb.checks.ignored`)."""
        from sphinx.project import EXCLUDE_PATHS
        from sphinx.util.matching import compile_matchers

        included = self.conf.get("include_patterns", ["**"])
        if list(included) == ["**"]:
            return []
        conf = self.conf
        excluded = compile_matchers(
            [
                *conf.get("exclude_patterns", []),
                *EXCLUDE_PATHS,
                *conf.get("templates_path", []),
                *conf.get("html_static_path", []),
                "_build",
            ]
        )
        matches = compile_matchers(included)
        shown = ", ".join(included)
        return [
            (relpath, say("ignored_file", path=relpath, included=shown))
            for relpath in ignored_sources(
                self.root,
                DOC_SUFFIXES,
                lambda path: any(match(path) for match in matches),
                lambda path: any(match(path) for match in excluded),
            )
        ]

    def relpath(self, path: Path) -> str:
        """A path relative to the site root, as messages and links name it."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path.resolve().as_posix()

    def exists(self, docname: str) -> bool:
        return any((self.root / f"{docname}{suffix}").is_file() for suffix in DOC_SUFFIXES)


def find_site(start: Path) -> Site:
    """The site whose ``conf.py`` is in ``start`` or the nearest folder above it."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / "conf.py").is_file():
            return Site(folder, load_conf(folder))
    raise SiteError(
        f"no conf.py in {start} or any folder above it: run kb inside the site, or give --root DIR"
    )


def open_site(root: Path) -> Site:
    """The site in ``root`` exactly (``--root``): no search upwards."""
    if not (root / "conf.py").is_file():
        raise SiteError(f"{root} has no conf.py: --root must name the site folder")
    return Site(root.resolve(), load_conf(root.resolve()))


def load_conf(root: Path) -> dict:
    from sphinx.config import eval_config_file
    from sphinx.errors import ConfigError
    from sphinx.util.tags import Tags

    try:
        return eval_config_file(root / "conf.py", Tags())
    except ConfigError as error:
        raise SiteError(f"{root / 'conf.py'}: {error}") from error


def notebook_output_problems(text: str, policy: Policy) -> list[Problem]:
    """What the build drops of an .ipynb's stored outputs, at each cell's line (nothing for a
    notebook it cannot read: that is reported where the notebook is checked)."""
    notebook, unreadable = read_ipynb(text)
    if notebook is None or unreadable:
        return []
    return output_problems(notebook.cells, lambda index: notebook.lines.get(("cells", index), 1),
                           policy)  # fmt: skip


def notebook_file_problems(text: str, site: Site, relpath: str) -> list[Problem]:
    """The files the images and raw HTML of an .ipynb's markdown cells name, judged as the
    build judges them, at the notebook's own lines (the build's other findings in the cells,
    HTML and hosts, are its own)."""
    notebook, unreadable = read_ipynb(text)
    if notebook is None or unreadable:
        return []
    problems = []
    for cell, line in notebook.markdown_cells():
        files = NamedFiles(site.root, relpath, site.max_file_bytes, arriving=site.arriving_files())
        markdown_problems(
            cell,
            site.raw_html_hosts,
            site.allow_raw_scripts,
            myst_extensions=site.conf.get("myst_enable_extensions", ()),
            own_host=site.own_host,
            files=files,
        )
        problems += [replace(problem, line=line(problem.line)) for problem in files.problems]
    return problems


def scheduled_posts(facts: dict[str, PostFacts], today: date | None) -> dict[str, str]:
    """Docname -> day of the posts dated after ``today`` (none when ``today`` is None), and
    of the undated ones (an empty day): the drafts that the build leaves out."""
    if today is None:
        return {}
    return {
        posixpath.splitext(relpath)[0]: post.date
        for relpath, post in facts.items()
        if post.undated or (post.date and date.fromisoformat(post.date) > today)
    }


def check_files(
    site: Site, targets: list[Path], today: date | None, drafts: dict[Path, str] | None = None
) -> list[tuple[str, Problem]]:
    """Problems in ``targets``, checked against every post of the site: ``(path, problem)``.

    ``drafts`` are texts not yet on disk (``kb new`` checks a post before writing it).
    """
    rules = site.rules(today)
    drafts = drafts or {}
    wanted = {site.relpath(path) for path in (*targets, *drafts)}
    found_posts = {site.relpath(path): path for path in site.post_paths()}  # globbed once
    everything = {**found_posts, **{site.relpath(path): path for path in (*targets, *drafts)}}
    facts: dict[str, PostFacts] = {}
    pages: dict[str, PostFacts] = {}  # evergreen pages: a title, links, safety (checks.pages)
    posts = set(found_posts)
    terms: set[str] | None = None  # the glossary's, read when a target links a term
    found: list[tuple[str, Problem]] = []
    # A name that is not NFC is never read by Sphinx: reported, and not checked further.
    unicode = unicode_names(everything)
    unread: set[str] = set()  # docnames the build leaves out, as it does
    unsafe = site.unsafe
    whole = posts <= wanted  # the whole site is checked: report what it never reads
    for relpath, path in everything.items():
        if relpath in unicode:
            found += [(relpath, problem) for problem in unicode[relpath]]
            nfc = unicodedata.normalize("NFC", relpath)
            if nfc not in everything:
                unread.add(posixpath.splitext(nfc)[0])
            continue
        if relpath in unsafe.problems:
            unread.add(posixpath.splitext(relpath)[0])
            continue  # never read: reported below, as the build reports it
        try:
            data = (
                drafts[path].encode("utf-8")
                if path in drafts
                else read_bounded(path, site.max_file_bytes)
            )
        except OSError as error:
            found.append((relpath, Problem(1, say("cannot_read", error=error.strerror or error))))
            continue
        text, unreadable = decode_source(data)
        if unreadable:
            found += [(relpath, problem) for problem in unreadable]
            unread.add(posixpath.splitext(relpath)[0])
            continue
        # Universal newlines, as Sphinx reads a source: a lone CR ends a line too.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        rst = relpath.endswith(".rst")
        if relpath not in posts and not is_ipynb(relpath) and not says_blogpost(text, rst):
            pages[relpath], problems = check_page(text)
        else:
            facts[relpath], problems = check_source(relpath, text, rules)
        if "{term}" in text and relpath in wanted:
            terms = site.glossary_terms() if terms is None else terms
            problems += unknown_terms(text, terms)
        if is_ipynb(relpath):  # its stored outputs, as the build judges them when it reads it
            problems += notebook_output_problems(text, site.output_policy)
            problems += notebook_file_problems(text, site, relpath)
        if not is_ipynb(relpath):  # a notebook's raw HTML is found by the build, in its cells
            # The images and raw HTML files it names, judged as the build judges them.
            files = NamedFiles(
                site.root, relpath, site.max_file_bytes, arriving=site.arriving_files()
            )
            if rst:  # MyST's tokens are no reading of rst (a literal block is no raw HTML)
                files.rst(text)
            else:
                problems += markdown_problems(
                    text,
                    site.raw_html_hosts,
                    site.allow_raw_scripts,
                    myst_extensions=site.conf.get("myst_enable_extensions", ()),
                    own_host=site.own_host,
                    files=files,
                )
            problems += files.problems
        found += [(relpath, problem) for problem in problems]
    scheduled = scheduled_posts(facts, today)  # the build leaves them out, as here
    across = check_site(
        facts,
        exists=lambda docname: docname not in unread and site.exists(docname),
        blog_path=site.conf.get("blog_path", "blog"),
        documents=site.documents() - unread - set(scheduled),
        generated=(site.conf.get("notfound_pagename", "404"),),
        scheduled=scheduled,
        pages=pages,
    )
    found += [(relpath, problem) for relpath, problems in across.items() for problem in problems]
    found = [(relpath, problem) for relpath, problem in found if relpath in wanted]
    found += [
        (relpath, problem)
        for relpath, problems in unsafe.problems.items()
        if whole or relpath in wanted
        for problem in problems
    ]
    if whole and not drafts:  # the whole site: its old addresses, as the build judges them
        shown, problems = site.old_address_problems()
        found += [(shown, problem) for problem in problems]
    if whole and not drafts:  # the whole site: the files it would never read, as the build says
        found += [
            (relpath, Problem(1, message, level="warning")) for relpath, message in site.ignored()
        ]
    return sorted(found, key=lambda item: (item[0], item[1].line))
