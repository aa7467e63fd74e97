"""``kb new --page "Title"``: start an evergreen page, ``pages/<slug>.md``.

A page needs only its title (:mod:`kb.checks.pages`): no date, category or author, and it is
in the navigation through ``index.md``'s toctree of ``pages/*``. Written as ``kb new`` writes a
post: never over anything that is there (a file, a folder, a link), refused with the same
words, and checked before it is written.
"""

from __future__ import annotations

import argparse

from ..site import Site, check_files
from .files import (
    OK,
    Refusal,
    one_line,
    refuse_what_is_there,
    shown,
    site_relpath,
    slug_for,
    write_new,
)

#: Options of ``kb new`` that only a post has.
POST_ONLY: tuple[str, ...] = (
    "category",
    "tag",
    "author",
    "description",
    "series",
    "part",
    "external",
    "date",
)
POST_ONLY += ("notebook", "format")

FOLDER = "pages"


def render_page(title: str, relpath: str) -> str:
    return "\n".join(
        [
            f"# {title.strip()}",
            "",
            "% Write the page here. A page is kept current rather than dated: it is never listed",
            "% or in a feed, and it is in the navigation (index.md lists every page in pages/).",
            f"% Check it, without a build, with: kb check {relpath}",
            "",
        ]
    )


def new_page(args: argparse.Namespace, site: Site) -> int:
    one_line("the title", args.title)
    given = [name for name in POST_ONLY if getattr(args, name, None)]
    if given:
        options = ", ".join(f"--{name}" for name in given)
        raise Refusal(f"a page has no {options} (only posts do): leave it out, or drop --page")
    slug = slug_for(args.title)
    if not slug:
        raise Refusal(f'the title "{args.title}" has no letters or digits to make a file name from')
    folder = site.root / FOLDER
    if folder.is_symlink() and not folder.exists():
        raise Refusal(
            f"{FOLDER} is a broken symbolic link: kb new --page writes pages into {FOLDER}/; "
            "remove the link, or make it a folder"
        )
    if folder.exists() and not folder.is_dir():
        raise Refusal(
            f"{FOLDER} is a file, not a folder: kb new --page writes pages into {FOLDER}/; "
            "move that file away"
        )
    path = folder / f"{slug}.md"
    relpath = site_relpath(site, path)
    refuse_what_is_there(site, path)
    text = render_page(args.title, relpath)
    problems = check_files(site, [], today=None, drafts={path: text})
    refusals = [problem for _, problem in problems if problem.is_error]
    if refusals:
        raise Refusal("\n".join(problem.message for problem in refusals))
    write_new(site, path, text)
    print(shown(path))
    return OK
