"""The site on disk, for the ``kb`` command: its configuration and its posts, without a build.

``conf.py`` is evaluated the way Sphinx evaluates it (``sphinx.config.eval_config_file``), which
takes milliseconds; nothing is built. The posts are the files matching ``blog_post_pattern``,
as ablog finds them: Markdown files, MyST text notebooks and ``.ipynb`` notebooks, each checked by
:func:`kb.checks.notebook.check_source`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from glob import glob
from pathlib import Path

from .checks.frontmatter import PostFacts, Problem, Rules
from .checks.notebook import check_source
from .checks.sitechecks import DOC_SUFFIXES, check_site
from .config import KbConfig

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

    def rules(self, today: date | None) -> Rules:
        return Rules(categories=self.categories, authors=self.authors, today=today)

    def post_paths(self) -> list[Path]:
        patterns = self.conf.get("blog_post_pattern") or [DEFAULT_PATTERN]
        if isinstance(patterns, str):
            patterns = [patterns]
        found = {
            Path(match)
            for pattern in patterns
            for match in glob(os.path.join(self.root, pattern), recursive=True)
            if match.endswith(DOC_SUFFIXES)
        }
        return sorted(found)

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


def check_files(
    site: Site, targets: list[Path], today: date | None, drafts: dict[Path, str] | None = None
) -> list[tuple[str, Problem]]:
    """Problems in ``targets``, checked against every post of the site: ``(path, problem)``.

    ``drafts`` are texts not yet on disk (``kb new`` checks a post before writing it).
    """
    rules = site.rules(today)
    drafts = drafts or {}
    wanted = {site.relpath(path) for path in (*targets, *drafts)}
    everything = {site.relpath(path): path for path in (*site.post_paths(), *targets, *drafts)}
    facts: dict[str, PostFacts] = {}
    found: list[tuple[str, Problem]] = []
    for relpath, path in everything.items():
        try:
            text = drafts[path] if path in drafts else path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            found.append((relpath, Problem(1, f"cannot read this file ({error})")))
            continue
        facts[relpath], problems = check_source(relpath, text, rules)
        found += [(relpath, problem) for problem in problems]
    across = check_site(facts, exists=site.exists, blog_path=site.conf.get("blog_path", "blog"))
    found += [(relpath, problem) for relpath, problems in across.items() for problem in problems]
    found = [(relpath, problem) for relpath, problem in found if relpath in wanted]
    return sorted(found, key=lambda item: (item[0], item[1].line))
