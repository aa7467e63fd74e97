"""The arguments of ``kb import`` (:func:`add_parser`) and the mappings they give.

``--map-category OLD=NEW``, ``--map-author LOGIN=KEY``, ``--map FILE.toml`` (tables
``[categories]``, ``[authors]`` and ``[tags]`` of ``"old" = "new"``) and
``--default-category`` are checked before anything is read: a category must be one of
``kb_categories`` and an author a key of ``blog_authors``, or the command stops with exit
status 2.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from ..checks.bounded import read_bounded
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
        "--map",
        type=Path,
        metavar="FILE.toml",
        help='[categories], [authors] and [tags] tables of "old" = "new"',
    )
    command.add_argument(
        "--default-category",
        metavar="CATEGORY",
        help="the category of every post whose categories are not the site's (or that has none)",
    )
    command.add_argument(
        "--categories-as-tags",
        action="store_true",
        help="keep the categories that are not the site's as tags",
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


def _map_file(path: Path | None) -> dict[str, dict[str, str]]:
    if path is None:
        return {}
    try:
        tables = tomllib.loads(read_bounded(path, 1024 * 1024).decode("utf-8"))
    except OSError as error:
        raise UsageError(f"--map {path}: cannot read it ({error.strerror or error})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise UsageError(f"--map {path}: not TOML ({' '.join(str(error).split())})") from None
    found = {}
    for table in ("categories", "authors", "tags"):
        pairs = tables.pop(table, {})
        if not isinstance(pairs, dict) or not all(
            isinstance(v, str) and v.strip() for v in pairs.values()
        ):
            raise UsageError(f'--map {path}: [{table}] holds "old" = "new" lines, new not empty')
        found[table] = {old.strip().casefold(): new.strip() for old, new in pairs.items()}
    if tables:
        unknown = ", ".join(sorted(tables))
        raise UsageError(f"--map {path}: [{unknown}]: only [categories], [authors], [tags]")
    return found


def names_from(args, site) -> Names:
    """The site's categories and authors with the user's mappings; bad mappings refused."""
    categories, blog_authors = site.categories, dict(site.conf.get("blog_authors") or {})
    mapped = _map_file(getattr(args, "map", None))
    names = Names(
        categories,
        {
            key: (value[0] if isinstance(value, tuple | list) else str(value))
            for key, value in blog_authors.items()
        },
        {**mapped.get("categories", {}), **_pairs(args.map_category, "--map-category")},
        {**mapped.get("authors", {}), **_pairs(args.map_author, "--map-author")},
        tag_map=mapped.get("tags", {}),
        default_category=getattr(args, "default_category", None) or "",
        categories_as_tags=bool(getattr(args, "categories_as_tags", False)),
    )
    if names.default_category and names.default_category not in categories:
        raise UsageError(
            f'--default-category: "{names.default_category}" is not a category of the site '
            f"({', '.join(categories)})"
        )
    for new in names.category_map.values():
        if new not in categories:
            raise UsageError(
                f'--map-category (or --map): "{new}" is not a category of the site '
                f"({', '.join(categories)})"
            )
    for new in names.author_map.values():
        if blog_authors and new not in blog_authors:
            raise UsageError(
                f'--map-author (or --map): "{new}" is not a key of blog_authors '
                f"({', '.join(blog_authors)})"
            )
    return names
