"""The front-matter checks inside ``sphinx-build``: the same checks as ``kb check``, as warnings.

Each post's source is checked by :func:`kb.checks.notebook.check_source` (Markdown, text
notebook or ``.ipynb``) while Sphinx reads it, in a transform that runs before ablog's
``CheckFrontMatter`` (priority 800) reads the front matter.
Every problem becomes a warning at ``posts/2025/x.md:3`` (type ``kb``, subtype
``frontmatter``), so ``-W`` stops the build there. A value ablog would crash on or misread
(a date with a time zone, a YAML list as category, ``nocomments``) is then dropped from the
document, so the build goes on and reports every problem instead of ending in a traceback.

Before Sphinx reads anything, a source that is not UTF-8 (which would end the build in a
traceback naming no file) is reported at its line 1 and left unread, and so is a post whose
file name is not in Unicode NFC form (Sphinx would look for it under another name). A post
whose front matter YAML cannot read is given to MyST without it (MyST would drop it anyway,
with a vague "Malformed YAML" at line 1): the checks say what is wrong, at its line.

The checks across posts (:mod:`kb.checks.sitechecks`) run on every build, once all posts are
read and before the catalog is built: the redirects they accept are the only ones kb writes
(:mod:`kb.pages.redirects`), so no old address ever replaces a page or lands outside the
output folder. A link to a page that does not exist, or to a draft, is reported by the same
check as in ``kb check``, at the link's own line and with its "did you mean"; the link becomes
its text before MyST or Sphinx would warn about it a second time, at the paragraph's line.
``kb serve``'s standby runs these checks while it waits (:func:`check_across_posts_ahead`); its
build takes what they found only where nothing they read changed, and reports it the same way.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

from ..checks.frontmatter import (
    ABLOG_KEYS,
    Problem,
    Rules,
    decode_source,
    redirect_problem,
    unreadable_front_matter,
)
from ..checks.model import PostFacts
from ..checks.notebook import check_source
from ..checks.postforms import fields_as_text
from ..checks.sitechecks import (
    DOC_SUFFIXES,
    Problems,
    check_site,
    link_docname,
    unicode_names,
)
from ..checks.sourcefiles import is_left_out
from ..upstream.ablog import pattern_matches
from ..upstream.sphinx_read import source_relpaths
from . import ablog, events
from .catalog import source
from .finding import leave_out, scanned
from .state import build_state, env_state

logger = logging.getLogger(__name__)

#: docutils turns these front-matter keys into nodes of their own, not generic fields.
_BIBLIOGRAPHIC = {"date": nodes.date, "author": nodes.author}


def _warn(problem: Problem, docname: str = "", path: Path | None = None) -> None:
    """Warn at the problem's line of ``docname``, or of ``path`` (a file Sphinx does not read)."""
    location = f"{path}:{problem.line}" if path is not None else (docname, problem.line)
    logger.warning(problem.message, location=location, type="kb", subtype="frontmatter")


class CheckPostSource(SphinxTransform):
    """Check a post's source text, report each problem, and drop values ablog cannot take."""

    default_priority = 790  # before ablog's CheckFrontMatter (800), which reads the docinfo

    def apply(self) -> None:
        docname = self.env.docname
        docinfo = next(iter(self.document.findall(nodes.docinfo)), None)
        directives = ablog.post_directives(self.document)
        if not directives and not _is_post(self.config, docname, docinfo):
            return
        directives = ablog.keep_posts(self.document, directives)
        ablog.mark_directive_excerpts(self.document, directives)
        path = Path(self.env.doc2path(docname))
        facts, problems = check_source(
            path.name, path.read_text(encoding="utf-8-sig"), _rules(self.config)
        )
        errors = [p for p in problems if p.is_error]
        for problem in errors:
            _warn(problem, docname)
        record = source(self.env, docname)
        record.facts, record.flawed = facts, bool(errors)
        for key in {p.key for p in errors if p.key in ABLOG_KEYS}:
            _drop_field(docinfo, key)
            self.env.metadata[docname].pop(key, None)
            for directive in directives:
                ablog.drop_post_option(directive, key)
        if errors and self.config.post_auto_orphan:
            # ablog may no longer see a post here (no title, unreadable front matter), and then
            # Sphinx would add "not in any toctree" to warnings that already say what to fix.
            self.env.metadata[docname]["orphan"] = True


class QuietEmptyPostFields(SphinxTransform):
    """An rst post's empty ``:date:`` or ``:author:`` field is left out before docutils'
    ``DocInfo`` warns "Cannot extract empty bibliographic field": :class:`CheckPostSource`
    reports it at the same line in ``kb check``'s words, with what to write instead."""

    default_priority = 339  # just before docutils' DocInfo (340) reads the field list

    def apply(self) -> None:
        index = self.document.first_child_not_matching_class(nodes.PreBibliographic)
        if index is None or not isinstance(self.document[index], nodes.field_list):
            return
        fields = self.document[index]
        names = {field[0].astext() for field in fields.findall(nodes.field)}
        if "blogpost" not in names and self.env.docname not in ablog.matched_posts(self.config):
            return
        for field in list(fields.children):
            empty = len(field) == 2 and not len(field[-1])
            if empty and nodes.fully_normalize_name(field[0].astext()) in _BIBLIOGRAPHIC:
                fields.remove(field)


def _is_post(config, docname: str, docinfo: nodes.docinfo | None) -> bool:
    if docname in ablog.matched_posts(config):
        return True
    return docinfo is not None and any(
        field[0].astext() == "blogpost" for field in docinfo.findall(nodes.field)
    )


def _rules(config) -> Rules:
    # No ``today``: a post dated in the future is scheduled, no problem for the build (ablog
    # keeps it as a draft), and the build's output never depends on the clock.
    categories, authors = tuple(config.kb_categories), tuple(config.blog_authors or {})
    return Rules(categories, authors, date_format=config.post_date_format)


def _drop_field(docinfo: nodes.docinfo | None, key: str) -> None:
    if docinfo is None:
        return
    special = _BIBLIOGRAPHIC.get(key)
    for child in list(docinfo.children):
        if (special and isinstance(child, special)) or (
            isinstance(child, nodes.field) and child[0].astext() == key
        ):
            docinfo.remove(child)


# -- Before reading: what Sphinx cannot read ------------------------------------------------------


def _before_read(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Report and leave out the sources Sphinx would crash on or never find."""
    srcdir = Path(env.srcdir)
    # Of the files a walk refused (kb.checks.sourcefiles), only why it refused them is said,
    # as kb check says it: they are not in the list of names either (kb.site.Site.post_paths).
    refused = build_state(app).refused_sources
    named = [path for path in _post_files(app) if not is_left_out(path, refused)]
    for relpath, problems in unicode_names(named).items():
        for problem in problems:
            _warn(problem, path=srcdir / relpath)
    for docname in list(docnames):
        path = Path(env.doc2path(docname))
        try:
            path.read_bytes().decode(app.config.source_encoding)
            continue
        except OSError:
            continue  # Sphinx says so itself
        except UnicodeDecodeError:
            _, problems = decode_source(path.read_bytes())
        for problem in problems:
            _warn(problem, docname)
        # Unread, it stays out of this build: what an earlier build read of it is forgotten, as
        # for a deleted file, and no page is written for it. The next build finds it again,
        # and says so again.
        docnames.remove(docname)
        build_state(app).unread_docs.add(docname)  # for link checks
        app.emit("env-purge-doc", env, docname)
        env.clear_doc(docname)
        env.found_docs.discard(docname)


def _leave_out_unfindable(app: Sphinx, config) -> None:
    """A post whose name is not NFC, alone: Sphinx would look for its NFC name, which is no
    file, and warn with no line and the wrong file name. It is left out; ``_before_read``
    says why at the file's line 1. (Of two names for one post, Sphinx reads the NFC one.)"""
    leave_out(app, scanned(app, "unfindable posts", partial(_unfindable_posts, app)))


def _unfindable_posts(app: Sphinx) -> list[str]:
    return [
        unicodedata.normalize("NFC", relpath)
        for relpath in _post_files(app)
        if not unicodedata.is_normalized("NFC", relpath)  # an NFC name is found as it is
        and not (Path(app.srcdir) / unicodedata.normalize("NFC", relpath)).is_file()
    ]


def _post_files(app: Sphinx) -> list[str]:
    """Every post file ablog finds (``blog_post_pattern``), relative to the source folder;
    looked for once per build (both checks that need the list run before reading)."""
    state = build_state(app)
    found = state.post_files
    if found is None:
        found = state.post_files = sorted(
            relpath
            for relpath in pattern_matches(app.srcdir, app.config.blog_post_pattern)
            if relpath.endswith(DOC_SUFFIXES) and os.path.isfile(os.path.join(app.srcdir, relpath))
        )
    return found


def _quiet_unreadable_front_matter(app: Sphinx, docname: str, source: list[str]) -> None:
    """A post's front matter that YAML cannot read reaches MyST as ``{}``, line for line.

    MyST would drop it all the same, adding "Malformed YAML" at line 1; the checks report the
    real problem at its line (they read the file itself). Only in memory: the file is never
    changed.
    """
    if docname not in ablog.matched_posts(app.config):
        return
    text = source[0].split("\n")
    if text[0].strip() == "---" and not any(line.strip() in ("---", "...") for line in text[1:]):
        # Never closed: MyST reads the opening line as a horizontal rule, which docutils
        # before 0.22 rejects at a document's start with a second, vaguer error at line 1.
        text[0] = ""
        source[0] = "\n".join(text)
        return
    lines = unreadable_front_matter(source[0])
    if lines is None:
        return
    text[lines.start : lines.stop] = ["{}"] + [""] * (len(lines) - 1)
    source[0] = "\n".join(text)


def _rst_fields_as_text(app: Sphinx, docname: str, source: list[str]) -> None:
    """An rst post's fields reach docutils as the text ``kb check`` reads, never as markup
    (``:redirect: ????`` would be a transition, docutils' error beside the checks' words).
    Only in memory: the file is never changed."""
    if not str(app.env.doc2path(docname, base=False)).endswith(".rst"):
        return
    source[0] = fields_as_text(source[0])


# -- Across posts, on every build ---------------------------------------------------------------


def _check_across_posts(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The checks across posts, and no redirect page but those they accept.

    On every build (``env-updated``), not only when a post was read: a problem between two
    posts keeps failing ``-W`` until it is fixed, and ablog writes its pages later.
    """
    posts = env_state(env).posts
    facts, by_path = _posts_facts(env)
    drafts = _check_drafts(app)
    facts.update(drafts)
    state = build_state(app)
    ahead, state.site_checks_ahead = state.site_checks_ahead, None  # one build takes it
    inputs = _SiteInputs.of(app, env, drafts)
    if ahead is not None and ahead.inputs == inputs and _same_facts(ahead.facts, facts):
        problems = ahead.problems
    else:
        problems = _check_site(env, facts, inputs)
    srcdir = Path(env.srcdir)
    rejected: dict[str, set[str]] = {}
    reported_links: dict[str, set[str]] = {}
    for path, found in sorted(problems.items()):
        for problem in found:
            if path in drafts:
                _warn(problem, path=srcdir / path)
                continue
            _warn(problem, by_path[path])
            if problem.key == "redirect":
                rejected.setdefault(by_path[path], set()).add(problem.subject)
            if problem.key == "link":
                reported_links.setdefault(by_path[path], set()).add(problem.subject)
    # Per build, read by ReportedLinksAsText (a transform reaches env, not app, in Sphinx 9).
    env_state(env).reported_links = reported_links
    allowed = {}
    for docname, record in posts.items():
        names = set(record.facts.redirects) if record.facts is not None else set()
        names -= rejected.get(docname, set())
        allowed[docname] = {name for name in names if not redirect_problem(name)}
    state.allowed_redirects = allowed  # per build: a rejection may be lifted later
    return []


@dataclass(frozen=True)
class _SiteInputs:
    """What the checks across posts read besides the posts' facts: equal inputs and facts give
    equal problems (:func:`kb.checks.sitechecks.check_site` is a function of them: whether a
    linked document exists is asked of the documents found, and Sphinx finds no other)."""

    documents: frozenset[str]
    unread: frozenset[str]
    left_out: frozenset[str]
    scheduled: tuple[tuple[str, str], ...]
    blog_path: str
    generated: str

    @classmethod
    def of(cls, app: Sphinx, env: BuildEnvironment, drafts: dict) -> _SiteInputs:
        state = build_state(app)
        return cls(
            frozenset(env.found_docs),
            frozenset(state.unread_docs),
            frozenset(state.left_out),
            tuple(sorted((os.path.splitext(path)[0], post.date) for path, post in drafts.items())),
            app.config.blog_path,
            getattr(app.config, "notfound_pagename", "404"),
        )


@dataclass
class SiteChecksAhead:
    """The checks across posts as ``kb serve``'s standby found them before the change
    (:func:`check_across_posts_ahead`): the build takes them where its inputs and every post's
    facts are the same (an edit that changed no title, tag, link or line the checks read),
    and checks again otherwise."""

    inputs: _SiteInputs
    facts: dict[str, PostFacts]
    problems: Problems


def check_across_posts_ahead(app: Sphinx) -> None:
    """While ``kb serve``'s standby waits: the checks across posts of the posts as the last
    build read them (0.12 s at 10,000 posts), and of the drafts as they are (read quietly: the
    build reads them again, and says what is wrong with them)."""
    env, state = app.env, build_state(app)
    state.site_checks_ahead = None
    facts, _ = _posts_facts(env)
    drafts = _check_drafts(app, warn=False)
    facts.update(drafts)
    inputs = _SiteInputs.of(app, env, drafts)
    state.site_checks_ahead = SiteChecksAhead(inputs, facts, _check_site(env, facts, inputs))


def _posts_facts(env: BuildEnvironment) -> tuple[dict[str, PostFacts], dict[str, str]]:
    """The facts of the posts read, by path, and their docnames by path."""
    posts = env_state(env).posts
    known = {name: s.facts for name, s in posts.items() if s.facts is not None}
    by_path = {relpath: docname for docname, relpath in source_relpaths(env, known).items()}
    return {path: known[docname] for path, docname in by_path.items()}, by_path


def _same_facts(before: dict[str, PostFacts], now: dict[str, PostFacts]) -> bool:
    """Whether every post's facts are equal (a post not read again keeps its very record)."""
    if before.keys() != now.keys():
        return False
    return all(facts is before[path] or facts == before[path] for path, facts in now.items())


def _check_site(
    env: BuildEnvironment, facts: dict[str, PostFacts], inputs: _SiteInputs
) -> Problems:
    """:func:`kb.checks.sitechecks.check_site` of ``facts`` and ``inputs``."""
    folder = os.fspath(env.srcdir)
    unread, left_out = inputs.unread, inputs.left_out
    return check_site(
        facts,
        # As kb check asks (kb.site.Site.exists, less what it cannot read): is there a source
        # file of that name that the build reads? (Text paths: one check a link of every post.)
        exists=lambda docname: (
            docname not in unread
            and any(
                os.path.isfile(os.path.join(folder, docname + suffix))
                and docname + suffix not in left_out
                for suffix in DOC_SUFFIXES
            )
        ),
        blog_path=inputs.blog_path,
        documents=env.found_docs,
        generated=(inputs.generated,),
        scheduled=dict(inputs.scheduled),
    )


def _check_drafts(app: Sphinx, warn: bool = True) -> dict:
    """Check the drafts the build leaves unread (:mod:`kb.core.drafts`), as ``kb check`` does:
    a draft that kb check rejects fails the build too, before its day comes. Their facts, by
    path, join the checks across posts. ``warn``: say what is wrong with them."""
    srcdir = Path(app.srcdir)
    facts = {}
    state = build_state(app)
    refused = state.refused_sources  # never read: refused at line 1 (kb.core.finding)
    for relpath in state.draft_sources:
        if unicodedata.normalize("NFC", relpath) != relpath or relpath in refused:
            continue  # reported for its name alone (_before_read), as kb check does
        try:
            text, problems = decode_source((srcdir / relpath).read_bytes())
        except OSError:
            continue
        if not problems:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            facts[relpath], problems = check_source(relpath, text, _rules(app.config))
        for problem in problems:
            if problem.is_error and warn:
                _warn(problem, path=srcdir / relpath)
    return facts


def _env_get_outdated(app: Sphinx, env: BuildEnvironment, added, changed, removed) -> list[str]:
    # Sphinx reports a warning only when it reads the file; a post with problems is read
    # again on every build, so a second `sphinx-build -W` cannot pass without a fix.
    flawed = {name for name, record in env_state(env).posts.items() if record.flawed}
    return sorted(flawed - set(removed))


class ReportedLinksAsText(SphinxPostTransform):
    """A link the checks reported (a missing page, a draft) becomes its text, as MyST and
    Sphinx leave an unresolved link, but without their second warning for it."""

    default_priority = 8  # before MyST's resolver (9) and Sphinx's (10)

    def run(self, **kwargs) -> None:
        reported = env_state(self.env).reported_links.get(self.env.docname)
        if not reported:
            return
        # Relative as Sphinx keeps it: an absolute path made relative again cost 0.1 ms a post.
        relpath = source_relpaths(self.env, [self.env.docname])[self.env.docname]
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") == "myst" and node.get("refdomain") == "doc":
                docname = node["reftarget"]  # MyST found the file: a docname already
            elif node.get("reftype") == "myst":
                docname = link_docname(node["reftarget"], relpath)
            elif node.get("reftype") == "doc":
                docname = link_docname("{doc}" + node["reftarget"], relpath)
            else:
                continue
            if docname in reported and len(node):
                node.replace_self(node[0].deepcopy())


def setup_validation(app: Sphinx) -> None:
    app.add_transform(CheckPostSource)
    app.add_transform(QuietEmptyPostFields)
    app.add_post_transform(ReportedLinksAsText)
    app.connect("env-get-outdated", _env_get_outdated)
    app.connect("config-inited", _leave_out_unfindable, priority=events.LEAVE_OUT_UNFINDABLE)
    app.connect("env-before-read-docs", _before_read)
    app.connect("source-read", _quiet_unreadable_front_matter)
    app.connect("source-read", _rst_fields_as_text)
    # Before the catalog is built from the posts (priority 400).
    app.connect("env-updated", _check_across_posts, priority=events.CHECK_ACROSS_POSTS)
