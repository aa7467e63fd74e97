"""The arguments of ``kb import`` (:func:`add_parser`) and the mappings they give.

``--map-category OLD=NEW`` and ``--map-author LOGIN=KEY`` are checked before anything is read:
NEW must be one of ``kb_categories`` and KEY a key of ``blog_authors``, or the command stops
with exit status 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .posts import Names


class UsageError(Exception):
    """Arguments the command cannot work with: exit status 2, and nothing is read."""


def add_parser(subparsers, common: argparse.ArgumentParser) -> argparse.ArgumentParser:
    command = subparsers.add_parser(
        "import", parents=[common], help="import a WordPress export (WXR), RSS or Atom feed"
    )
    command.add_argument("file", help="the export (Tools > Export) or the feed")
    command.add_argument("--uploads", type=Path, help="a copy of wp-content/uploads")
    command.add_argument("--dry-run", action="store_true", help="say what would be written")
    command.add_argument(
        "--map-category", action="append", default=[], metavar="OLD=NEW", help="repeat for each"
    )
    command.add_argument(
        "--map-author", action="append", default=[], metavar="LOGIN=KEY", help="repeat for each"
    )
    command.add_argument(
        "--rtd-redirects",
        action="store_true",
        help="write nothing; print the Read the Docs page redirects (old path, new page)",
    )
    return command


def _pairs(values: list[str], option: str) -> dict[str, str]:
    pairs = {}
    for value in values:
        old, equals, new = value.partition("=")
        if not equals or not old.strip() or not new.strip():
            raise UsageError(
                f"{option} {value!r}: write OLD=NEW, e.g. {option} 'GPU Kernels=Article'"
            )
        pairs[old.strip().casefold()] = new.strip()
    return pairs


def names_from(args, site) -> Names:
    """The site's categories and authors with the user's mappings; bad mappings refused."""
    categories, blog_authors = site.categories, dict(site.conf.get("blog_authors") or {})
    names = Names(
        categories,
        {
            key: (value[0] if isinstance(value, tuple | list) else str(value))
            for key, value in blog_authors.items()
        },
        _pairs(args.map_category, "--map-category"),
        _pairs(args.map_author, "--map-author"),
    )
    for new in names.category_map.values():
        if new not in categories:
            raise UsageError(
                f'--map-category: "{new}" is not a category of the site ({", ".join(categories)})'
            )
    for new in names.author_map.values():
        if blog_authors and new not in blog_authors:
            raise UsageError(
                f'--map-author: "{new}" is not a key of blog_authors ({", ".join(blog_authors)})'
            )
    return names
