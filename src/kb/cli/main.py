"""The ``kb`` command: start a post, check posts, preview the site.

``kb new`` writes ``posts/<year>/<slug>.md`` (or, with ``--notebook``, a notebook) with
complete front matter and never overwrites; ``kb check`` runs the checks of
:mod:`kb.checks.frontmatter`, :mod:`kb.checks.notebook` and :mod:`kb.checks.sitechecks` on the
files, without a build; ``kb serve`` previews the site on 127.0.0.1 (:mod:`.serve`). Exit
status: 0 when all is well, 1 when ``kb check`` found an error, 2 for a usage error or a refusal.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import sys
from datetime import date
from pathlib import Path

import yaml

from .. import importer
from ..checks.schedule import today
from ..checks.sitechecks import post_slug
from ..site import Site, SiteError, check_files, find_site, open_site
from . import notebook, serve
from .files import (
    OK,
    PROBLEMS,
    USAGE,
    Refusal,
    one_line,
    refuse_what_is_there,
    shown,
    site_relpath,
    slug_for,
    write_new,
)

#: What ``kb --help`` says first: plain text, as a terminal shows it (the module docstring is
#: reStructuredText for the docs).
DESCRIPTION = "The kb command: start a post, check posts, preview the site."


def today_utc() -> date:
    # Front-matter dates are UTC; SOURCE_DATE_EPOCH's day when set, as for the build.
    return today()


# -- kb new ---------------------------------------------------------------------------------


def _check_values(args: argparse.Namespace) -> None:
    one_line("the title", args.title)
    for option in ("category", "tag", "author"):
        for value in getattr(args, option):
            one_line(f"--{option} {value!r}", value)
    for option in ("description", "series", "part", "external", "date"):
        one_line(f"--{option}", getattr(args, option))


def _scalar(text: str, flow: bool = False) -> str:
    """``text`` as YAML reads it back unchanged: plain when that is safe, quoted otherwise."""
    probe = f"[{text}]" if flow else f"k: {text}"
    expected = [text] if flow else {"k": text}
    try:
        if text == text.strip() and yaml.safe_load(probe) == expected:
            return text
    except yaml.YAMLError:
        pass
    return json.dumps(text, ensure_ascii=False)


def render_post(args: argparse.Namespace, day: date, relpath: str) -> str:
    lines = ["---", "blogpost: true", f"date: {day.isoformat()}"]
    lines.append(f"category: {_scalar(', '.join(args.category))}")
    lines.append(f"tags: [{', '.join(_scalar(tag.strip(), flow=True) for tag in args.tag)}]")
    if args.author:
        lines.append(f"author: {_scalar(', '.join(args.author))}")
    lines.append(f"description: {json.dumps(args.description or '', ensure_ascii=False)}")
    if args.series:
        lines.append(f"series: {_scalar(args.series)}")
    if args.part:
        lines.append(
            f"part: {_scalar(args.part)}" if args.part == "supplement" else f"part: {args.part}"
        )
    if args.external:
        lines.append(f"external_link: {_scalar(args.external)}")
    lines += [
        "---",
        "",
        f"# {args.title.strip()}",
        "",
        "% Write the post here. The first paragraph opens the post; `description` above is",
        "% the excerpt that listings and feeds show (leave it empty and kb check reminds you).",
        f"% Check the post, without a build, with: kb check {relpath}",
        "",
    ]
    return "\n".join(lines)


def cmd_new(args: argparse.Namespace, site: Site) -> int:
    if args.page:
        from .page import new_page

        return new_page(args, site)
    if not args.category:
        raise Refusal(
            "--category is missing: add --category NAME, one of "
            f"{', '.join(site.categories)} (kb_categories in conf.py); repeat it for several"
        )
    _check_values(args)
    day = _parse_day(args.date) if args.date else today_utc()
    if args.part and not args.series:
        raise Refusal("--part needs --series NAME: a part is a part of a series")
    if args.format and not args.notebook:
        raise Refusal("--format chooses a notebook's format: add --notebook")
    slug = slug_for(args.title)
    if not slug:
        raise Refusal(f'the title "{args.title}" has no letters or digits to make a file name from')
    suffix = ".ipynb" if args.notebook and args.format != "md" else ".md"
    path = site.root / "posts" / str(day.year) / f"{slug}{suffix}"
    relpath = site_relpath(site, path)
    refuse_what_is_there(site, path)
    # Every post the site finds, and every Markdown file or notebook under posts/ (where kb new
    # writes).
    posts = site.root / "posts"
    under_posts = (*posts.rglob("*.md"), *posts.rglob("*.ipynb")) if posts.is_dir() else ()
    candidates = sorted({*site.post_paths(), *under_posts})
    taken = [p for p in candidates if post_slug(site.relpath(p)) == slug]
    if taken:
        raise Refusal(
            f'the slug "{slug}" is taken by {site.relpath(taken[0])}: two posts with one '
            "slug share a label; choose another title"
        )
    if not args.notebook:
        text = render_post(args, day, relpath)
    elif suffix == ".md":
        text = notebook.render_text_notebook(args, day, relpath)
    else:
        text = notebook.render_ipynb(args, day, relpath)
    problems = check_files(site, [], today=None, drafts={path: text})
    refusals = [p for _, p in problems if p.is_error and p.key != "description"]
    if refusals:
        raise Refusal("\n".join(p.message for p in refusals))
    _refuse_no_author(args, site)
    write_new(site, path, text)
    print(shown(path))
    return OK


def _refuse_no_author(args: argparse.Namespace, site: Site) -> None:
    """A post with no author is listed under nobody: when the site has authors, name one."""
    if not args.author and site.authors:
        raise Refusal(
            f"--author is missing: add --author KEY, one of {', '.join(site.authors)} "
            "(keys of blog_authors in conf.py); repeat it for several authors"
        )


def _parse_day(text: str) -> date:
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise Refusal(f'--date "{text}" is not a day: write it as YYYY-MM-DD, e.g. 2025-03-14')


# -- kb check -----------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace, site: Site) -> int:
    # Every post, wherever it is, and every page in pages/ (checked as the build checks them:
    # kb.checks.pages; check_files tells a post in pages/ by its text).
    pages: list[Path] = []
    others: list[Path] = []
    for path in [] if args.paths else site.page_paths():
        (pages if site.relpath(path).startswith("pages/") else others).append(path)
    elsewhere = site.posts_by_their_text(others)
    targets = _expand(args.paths) if args.paths else [*site.post_paths(), *elsewhere, *pages]
    problems = check_files(site, targets, today=today_utc())
    errors = scheduled = undated = warnings = 0
    for relpath, problem in problems:
        errors += problem.is_error or args.strict
        scheduled += problem.level == "scheduled"
        undated += problem.level == "draft"
        warnings += problem.level == "warning"
        print(f"{shown(site.root / relpath)}:{problem.line}: {problem.message}")
    verdict = f"{errors} error(s)" if errors else "no errors"
    if scheduled:
        verdict += f", {scheduled} scheduled post(s)"
    if undated:
        verdict += f", {undated} undated draft(s)"
    if warnings:
        verdict += f", {warnings} warning(s)"
    counted = (
        f"{len(targets) - len(pages)} post(s), {len(pages)} page(s)"
        if pages and not args.paths
        else f"{len(targets)} post(s)"
    )
    print(f"kb check: {counted}, {verdict}", file=sys.stderr)
    return PROBLEMS if errors else OK


def _expand(paths: list[str]) -> list[Path]:
    files = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found = [*path.rglob("*.md"), *path.rglob("*.ipynb")]
            files += sorted(p for p in found if ".ipynb_checkpoints" not in p.parts)
        elif path.is_file():
            files.append(path)
        else:
            raise Refusal(f"{name}: no such file or folder")
    return files


# -- kb serve -----------------------------------------------------------------------------------


def cmd_serve(args: argparse.Namespace, site: Site) -> int:
    _refuse_port_in_use(args.port)
    print(f"Serving {site.root} at http://127.0.0.1:{args.port}/ (Ctrl-C stops)", file=sys.stderr)
    return serve.serve(
        site, args.port, drafts=args.drafts, cold=args.cold, prepare=not args.unprepared
    )


def _refuse_port_in_use(port: int) -> None:
    """Say so before building, not after: the server binds only once the first build is done."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As the server binds: a port left in TIME_WAIT by a server that stopped is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as error:
            reason = error.strerror or str(error)
            raise Refusal(
                f"port {port} on 127.0.0.1 is in use ({reason}): stop what serves there "
                "(another kb serve?), or choose another port with --port N"
            ) from None


def _port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: write a number from 1 to 65535")
    return int(text)


# -- Arguments ----------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--root", type=Path, help="the site folder (default: the nearest with conf.py)"
    )
    main_parser = argparse.ArgumentParser(prog="kb", description=DESCRIPTION)
    commands = main_parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new", parents=[common], help="start a post: posts/<year>/<slug>.md")
    new.add_argument("title")
    new.add_argument("--category", action="append", help="repeat for several (not with --page)")
    new.add_argument("--tag", action="append", default=[], help="repeat for several")
    new.add_argument(
        "--author",
        action="append",
        default=[],
        help="a key of blog_authors in conf.py (required when it has any); repeat for several",
    )
    new.add_argument("--description", help="the excerpt shown in listings and feeds")
    new.add_argument("--series")
    new.add_argument("--part", help="a positive whole number, or supplement")
    new.add_argument("--external", help="the URL where the full article lives")
    new.add_argument("--date", help="YYYY-MM-DD (default: today, UTC)")
    new.add_argument("--notebook", action="store_true", help="a Jupyter notebook post")
    new.add_argument("--page", action="store_true", help="an evergreen page: pages/<slug>.md")
    new.add_argument(
        "--format", choices=notebook.FORMATS, help="with --notebook: .ipynb (default) or .md"
    )
    check = commands.add_parser("check", parents=[common], help="check posts without a build")
    check.add_argument("paths", nargs="*", help="files or folders (default: every post)")
    check.add_argument("--strict", action="store_true", help="a future date is an error too")
    serve_parser = commands.add_parser("serve", parents=[common], help="live preview on 127.0.0.1")
    serve_parser.add_argument("--port", type=_port, default=8000, help="default: 8000")
    serve_parser.add_argument(
        "--drafts",
        action="store_true",
        help="also show posts dated after today (built into _build/drafts/)",
    )
    serve_parser.add_argument(
        "--cold",
        action="store_true",
        help="build each change in a new Python process (slower; the warm worker is the default)",
    )
    serve_parser.add_argument(
        "--unprepared",
        action="store_true",
        help="do not make the next build's Sphinx application ahead of the change (slower)",
    )
    importer.add_parser(commands, common)
    return main_parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    handler = {"new": cmd_new, "check": cmd_check, "serve": cmd_serve, "import": importer.run}[
        args.command
    ]
    try:
        site = find_site(Path.cwd()) if args.root is None else open_site(args.root)
        return handler(args, site)
    except (Refusal, SiteError) as error:
        for line in str(error).splitlines():
            print(f"kb {args.command}: {line}", file=sys.stderr)
        return USAGE


if __name__ == "__main__":
    sys.exit(main())
