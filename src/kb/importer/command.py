"""``kb import FILE``: the run from items to files, and its report.

Every item gets one line, ``FILE:LINE: what happened``: written (or, with ``--dry-run``, would
be written), already imported, not imported and why, or an error with what to do; notes
follow (remote images, unknown shortcodes). The summary on stderr counts each kind. Exit
status: 0 when all went well, 1 when posts were left out because of errors, 2 for bad usage
or a file that cannot be read.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..checks.oldaddresses import read_old_addresses_file
from ..checks.pages import check_page
from ..checks.rawhtml import shorten
from ..checks.slugs import slugify as page_slug
from .arguments import UsageError, names_from
from .detect import read
from .model import ImportFileError, Item, Source
from .oldaddresses import (
    OLD_ADDRESSES_FILE,
    archive_redirects,
    blocked,
    feed_redirects,
    html_path,
    old_addresses_toml,
    page_worthy,
    print_redirects,
)
from .posts import (
    ItemError,
    ItemErrors,
    Names,
    authors,
    categories_and_tags,
    clean_tag,
    front_matter,
    not_published,
    old_path,
    page_front_matter,
    plain_text,
    redirect_docname,
    slugify,
    title_text,
)
from .proof import ProofError, site_settings
from .report import Report
from .write import Existing, Post, Renderer, baseline, check, write

OK, PROBLEMS, USAGE = 0, 1, 2


def run(args: argparse.Namespace, site) -> int:
    try:
        names = names_from(args, site)
        uploads = args.uploads
        if uploads is not None and not uploads.is_dir():
            raise UsageError(f"--uploads {uploads}: no such folder")
        source = read(Path(args.file), args.file)
    except UsageError as error:
        print(f"kb import: {error}", file=sys.stderr)
        return USAGE
    except ImportFileError as error:  # path:line:column: what is wrong, as editors read it
        print(error, file=sys.stderr)
        return USAGE
    names.author_names = source.author_names
    return Import(site, source, names, uploads, args).run()


class Import:
    def __init__(self, site, source: Source, names: Names, uploads: Path | None, args):
        self.site, self.source, self.names, self.args = site, source, names, args
        self.renderer = Renderer(
            source.site_url, uploads, site_settings(site.conf), source.attachments
        )
        self.existing = Existing.read(site)
        self.report = Report(args.file, dry_run=args.dry_run or args.rtd_redirects)
        self.redirects: list[tuple[str, str, str]] = []  # (old path, new path, what)
        self.listed: list[Item] = []  # the posts of the site from this file, new or not

    def run(self) -> int:
        posts: list[Post] = []
        taken: dict[str, Item] = {}
        for item in self.source.items:
            is_page = item.kind == "page" and item.status == "publish" and not item.password
            reason, why = ("", "") if is_page else not_published(item)
            if reason:
                self.report.skip(item, reason, why)
                continue
            if item.source_id and item.source_id in self.existing.by_source:
                relpath = self.existing.by_source[item.source_id]
                self.report.counts["already imported"] += 1
                self.report.say(item, f"already imported: {item.label} is {relpath}")
                self._redirect(item, relpath)
                self.listed += [item] if item.kind == "post" else []
                continue
            try:
                post = self.prepare(item, taken, page=is_page)
            except ItemErrors as errors:
                for error in errors.errors:
                    self.report.error(item, str(error), error.kind, error.subject)
                continue
            except ItemError as error:
                self.report.error(item, str(error), error.kind, error.subject)
                continue
            except (OSError, ValueError) as error:  # a name the file system refuses, ...
                self.report.error(item, f"cannot import it ({error})", "file")
                continue
            posts.append(post)
        posts = self.render_and_check(posts)
        for post in posts:
            self.finish(post)
        return self.summary(posts)

    def prepare(self, item: Item, taken: dict[str, Item], page: bool = False) -> Post:
        errors: list[ItemError] = []
        title, notes = title_text(item.title), []
        if not title:  # WordPress shows such a post; so does the site, titled by its first words
            words = plain_text(item.content).split()
            day = item.date.date().isoformat() if item.date else ""
            title = " ".join(words[:8]) + (" …" if len(words) > 8 else "") or f"Untitled {day}"
            notes.append(f'it had no title: titled "{title}" from its text; change it if you like')
        if item.date is None and not page:
            raise ItemError("it has no date (or one that cannot be read)", "date")
        slug = slugify(item.slug) or slugify(title)
        if not slug:
            errors.append(ItemError("no letters or digits to make a file name from", "slug"))
            raise ItemErrors(errors)
        # item.date is None only for a page here: a post without one was refused above.
        if page or item.date is None:
            relpath = self._page_path(item, slug)
        else:
            relpath = f"posts/{item.date.year}/{slug}.md"
        if (self.site.root / relpath).exists():
            errors.append(
                ItemError(f"{relpath} already exists (and kb import never overwrites)", "file")
            )
        elif relpath in taken:
            first = taken[relpath]
            errors.append(
                ItemError(
                    f"{relpath} is also the file of {first.label} (line {first.line})", "file"
                )
            )
        taken.setdefault(relpath, item)
        categories: list[str] = []
        tags: list[str] = []
        keys: list[str] = []
        if not page:
            try:
                categories, tags = categories_and_tags(item, self.names)
            except ItemError as error:
                errors.append(error)
            try:
                keys = authors(item, self.names)
            except ItemError as error:
                errors.append(error)
        # A feed item with only its summary, or a teaser ending in [...], lives at its old
        # address: an external post that links there (a WXR post never does).
        teaser = is_teaser(item.content)
        summary_only = (not item.raw and not item.content.strip()) or teaser
        external = item.link if summary_only and item.link.startswith(("http:", "https:")) else ""
        description = plain_text(item.excerpt) if item.excerpt.strip() else ""
        description = description or (plain_text(item.content) if teaser else "")
        if summary_only and not external and not page:
            shown = shorten(item.link) or "none"
            errors.append(
                ItemError(
                    f"only a summary and no web address to link to (its link: {shown}): an "
                    "external post needs an http(s) address; import the full feed or export",
                    "summary",
                )
            )
        if external and not description:
            errors.append(ItemError("a feed item with neither its text nor a summary", "summary"))
        if errors:
            raise ItemErrors(errors)
        path = old_path(item.link, self.source.site_url)
        redirect = "" if external or page else redirect_docname(path)
        if redirect and blocked(redirect, self.site):
            new = html_path(relpath)
            self.redirects.append(("/" + path.lstrip("/"), new, "post"))
            notes.append(
                f"no redirect page at {path}: the site's own {blocked(redirect, self.site)}/ is "
                "there; set this redirect at the host (kb import --rtd-redirects prints it)"
            )
            redirect = ""
        elif redirect and self.site.exists(redirect):
            notes.append(f"no redirect from {path}: the site has a page {redirect} already")
            redirect = ""
        elif path and not external and not redirect and not page:
            notes.append(f"no redirect from {path}: not a path a file can have")
        if page or item.date is None:  # (a page: a post has its date, see above)
            fields = page_front_matter(item.source_id)
            if path and html_path(relpath) != "/" + path.strip("/") + ".html":
                self.redirects.append(("/" + path.lstrip("/"), html_path(relpath), "page"))
        else:
            day = item.date.date().isoformat()
            updated = item.modified.date().isoformat() if item.modified else ""
            fields = front_matter(
                day,
                updated if updated > day else "",
                categories,
                self._tags(tags),
                keys,
                description,
                external,
                redirect,
                item.source_id,
            )
        body = "" if external else item.content
        post = Post(item, self.site.root / relpath, relpath, fields, title, body)
        post.fixed_notes, post.page = notes, page
        return post

    def _page_path(self, item: Item, slug: str) -> str:
        """``pages/<old path>.md`` (``/about/team/`` -> ``pages/about/team.md``)."""
        path = old_path(item.link, self.source.site_url)
        parts = [slugify(part) for part in path.split("/") if part.strip()]
        parts = [part for part in parts if part] or [slug]
        return "pages/" + "/".join(parts) + ".md"

    def _tags(self, tags: list[str]) -> list[str]:
        """Tags as ablog keeps them, spelled as the site (or an earlier item) spells them."""
        kept: dict[str, str] = {}
        for tag in tags:
            cleaned = clean_tag(tag)
            slug = page_slug(cleaned) if cleaned else ""
            if slug:
                spelling = self.existing.tags.setdefault(slug, cleaned)
                kept.setdefault(slug, spelling)
        return list(kept.values())

    def render_and_check(self, posts: list[Post]) -> list[Post]:
        """Render every post, check them all, leave out the failing ones, until none fails."""
        before = baseline(self.site)
        while True:
            links = dict(self.existing.by_old_path)
            by_id = {}
            for post in posts:
                key = redirect_docname(old_path(post.item.link, self.source.site_url))
                if key:
                    links[key.removesuffix("/index")] = post.relpath
                if post.item.post_id:
                    by_id[post.item.post_id] = post.relpath
            failed = {}
            for post in posts:
                try:
                    self.renderer.render(post, links, by_id)
                except ProofError as error:
                    failed[post.relpath] = [("markup", f"{error}: nothing was written for it")]
                except Exception as error:  # noqa: BLE001 -- any HTML at all: report, never crash
                    failed[post.relpath] = [
                        ("convert", f"its HTML cannot be converted ({error!r})")
                    ]
            found = check(self.site, [post for post in posts if not post.page], before)
            for post in posts:
                if post.page:
                    problems = [p for p in check_page(post.text)[1] if p.is_error]
                    found.update({post.relpath: [f"line {p.line}: {p.message}" for p in problems]})
            checked = {
                relpath: [("check", f"{relpath} would not pass kb check ({m})") for m in messages]
                for relpath, messages in found.items()
                if messages
            }
            errors = failed or checked
            if not errors:
                return posts
            for post in posts:
                for kind, message in errors.get(post.relpath, []):
                    self.report.error(post.item, message, kind)
            posts = [post for post in posts if post.relpath not in errors]

    def finish(self, post: Post) -> None:
        verb = "would write" if self.report.dry_run else "wrote"
        images = len(post.images)
        if verb == "wrote":
            try:
                images = write(post)
            except OSError as error:
                self.report.error(post.item, f"cannot write {post.relpath} ({error})", "file")
                return
        self.report.written(post.item, post.relpath, images, post.notes, verb)
        if post.page:
            self.report.counts["pages"] += 1
        else:
            self._redirect(post.item, post.relpath)

    def _redirect(self, item: Item, relpath: str) -> None:
        path = old_path(item.link, self.source.site_url)
        if path and redirect_docname(path) and item.content.strip():
            self.redirects.append(("/" + path.lstrip("/"), html_path(relpath), "post"))
        if item.post_id and item.kind == "post":
            self.redirects.append((f"/?p={item.post_id}", html_path(relpath), "id"))

    def summary(self, posts: list[Post]) -> int:
        listed = self.listed + [post.item for post in posts if not post.page]
        old_addresses = ""
        host = [r for r in self.redirects if r[2] in ("id",) or r[0].startswith("/?")]
        host += [r for r in self.redirects if r[2] in ("page",)]
        host += [
            r for r in self.redirects if r[2] == "post" and blocked(r[0].strip("/"), self.site)
        ]
        if listed:
            blog = str(self.site.conf.get("blog_path") or "blog")
            authors = self.site.conf.get("blog_authors") or {}
            archives = archive_redirects(
                self.names, listed, blog, authors, lambda tag: next(iter(self._tags([tag])), "")
            )
            pages = page_worthy(archives)
            handled, old_addresses = self._write_old_addresses(pages)
            host += [pair for pair in archives if pair not in pages] if handled else archives
            host += feed_redirects()
        self.report.host_redirects = host
        problems = self.report.print(self.args.rtd_redirects)
        if old_addresses:
            print(old_addresses.rstrip("\n"), file=sys.stderr)
        if self.args.rtd_redirects:
            pages = [r for r in self.redirects if r[2] == "post" and r not in host]
            print_redirects(pages + host, sys.stdout)
            if old_addresses:
                print(
                    "# The old archives (/category/, /tag/, /author/) need no host redirect: "
                    "the build writes their pages from the old addresses' file",
                    file=sys.stdout,
                )
        if problems:
            return PROBLEMS
        return OK

    def _write_old_addresses(self, archives: list[tuple[str, str, str]]) -> tuple[bool, str]:
        """The old archives' addresses into the site's ``kb_old_addresses`` file, which the
        build turns into redirect pages; never over a file that is there (what it lacks is
        printed instead, to add by hand). (False, "") when the site reads no such file;
        otherwise True and the summary's line."""
        name = str(self.site.conf.get("kb_old_addresses", OLD_ADDRESSES_FILE) or "")
        if not name or not archives:
            return False, ""
        path = self.site.root / name
        if path.exists() or path.is_symlink():
            there, _ = read_old_addresses_file(path, self.site.max_file_bytes, self.site.root)
            known = {(address.old, address.new) for address in there}
            lacking = [pair for pair in archives if pair[:2] not in known]
            if not lacking:
                return True, ""
            return True, (
                f"kb import: {name} is there and was left as it is; add these "
                f"{len(lacking)} old address(es) to its [redirects] table:\n"
                + old_addresses_toml(lacking, header=False)
            )
        if self.report.dry_run:
            return True, f"kb import: would write {name}: {len(archives)} old archive address(es)"
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(old_addresses_toml(archives))
        return True, (
            f"kb import: wrote {name}: {len(archives)} old archive address(es), each a redirect "
            "page of the build"
        )


def is_teaser(content: str) -> bool:
    """Is this only the start of a post, cut where WordPress cuts a summary ("[…]")?"""
    tail = content.strip()[-40:]
    return bool(re.search(r"\[(?:…|\.\.\.|&hellip;|&#8230;|&#x2026;)\]\s*(?:</p>)?$", tail))
