"""The front-matter checks inside ``sphinx-build``: the same checks as ``kb check``, as warnings.

Each post's source is checked by :func:`kb.checks.notebook.check_source` (Markdown, text
notebook or ``.ipynb``) while Sphinx reads it, in a
transform that runs before ablog's ``CheckFrontMatter`` (priority 800) reads the front matter.
Every problem becomes a warning at ``posts/2025/x.md:3`` (type ``kb``, subtype
``frontmatter``), so ``-W`` stops the build there. A value ablog would crash on or misread
(a date with a time zone, a YAML list as category, ``nocomments``) is then dropped from the
document, so the build goes on and reports every problem instead of ending in a traceback.

The checks across posts (:mod:`kb.sitechecks`) run once all posts are read. Links to missing
pages are left to Sphinx, which already warns about them during the build.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from ..checks.frontmatter import ABLOG_KEYS, Problem, Rules
from ..checks.notebook import check_source
from ..checks.sitechecks import check_site
from . import ablog
from .catalog import source

logger = logging.getLogger(__name__)

#: docutils turns these front-matter keys into nodes of their own, not generic fields.
_BIBLIOGRAPHIC = {"date": nodes.date, "author": nodes.author}


def _warn(problem: Problem, docname: str) -> None:
    logger.warning(
        problem.message, location=(docname, problem.line), type="kb", subtype="frontmatter"
    )


class CheckPostSource(SphinxTransform):
    """Check a post's source text, report each problem, and drop values ablog cannot take."""

    default_priority = 790  # before ablog's CheckFrontMatter (800), which reads the docinfo

    def apply(self) -> None:
        docname = self.env.docname
        docinfo = next(iter(self.document.findall(nodes.docinfo)), None)
        if not _is_post(self.config, docname, docinfo):
            return
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
        if errors and self.config.post_auto_orphan:
            # ablog may no longer see a post here (no title, unreadable front matter), and then
            # Sphinx would add "not in any toctree" to warnings that already say what to fix.
            self.env.metadata[docname]["orphan"] = True


def _is_post(config, docname: str, docinfo: nodes.docinfo | None) -> bool:
    if docname in ablog.matched_posts(config):
        return True
    return docinfo is not None and any(
        field[0].astext() == "blogpost" for field in docinfo.findall(nodes.field)
    )


def _rules(config) -> Rules:
    # No ``today``: a post dated in the future is scheduled, no problem for the build (ablog
    # keeps it as a draft), and the build's output never depends on the clock.
    return Rules(categories=tuple(config.kb_categories), authors=tuple(config.blog_authors or {}))


def _drop_field(docinfo: nodes.docinfo | None, key: str) -> None:
    if docinfo is None:
        return
    special = _BIBLIOGRAPHIC.get(key)
    for child in list(docinfo.children):
        if (special and isinstance(child, special)) or (
            isinstance(child, nodes.field) and child[0].astext() == key
        ):
            docinfo.remove(child)


# -- Across posts, once all are read ------------------------------------------------------------


def _check_consistency(app: Sphinx, env: BuildEnvironment) -> None:
    known = {name: s.facts for name, s in env.kb_posts.items() if s.facts is not None}
    by_path = {_relpath(env, docname): docname for docname in known}
    facts = {path: known[docname] for path, docname in by_path.items()}
    blog_path = app.config.blog_path
    for path, problems in sorted(check_site(facts, blog_path=blog_path).items()):
        for problem in problems:
            _warn(problem, by_path[path])


def _relpath(env: BuildEnvironment, docname: str) -> str:
    return Path(env.doc2path(docname)).relative_to(env.srcdir).as_posix()


def _env_get_outdated(app: Sphinx, env: BuildEnvironment, added, changed, removed) -> list[str]:
    # Sphinx reports a warning only when it reads the file; a post with problems is read
    # again on every build, so a second `sphinx-build -W` cannot pass without a fix.
    flawed = {name for name, record in getattr(env, "kb_posts", {}).items() if record.flawed}
    return sorted(flawed - set(removed))


def setup_validation(app: Sphinx) -> None:
    app.add_transform(CheckPostSource)
    app.connect("env-get-outdated", _env_get_outdated)
    app.connect("env-check-consistency", _check_consistency)
