"""``kb import FILE``: the run from items to files, and its report.

Every item gets one line, ``FILE:LINE: what happened``: written (or, with ``--dry-run``, would
be written), already imported, not imported and why, or an error with what to do; notes
follow (remote images, unknown shortcodes). The summary on stderr counts each kind. Exit
status: 0 when all went well, 1 when posts were left out because of errors, 2 for bad usage
or a file that cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from ..checks.rawhtml import shorten
from .arguments import UsageError, names_from
from .detect import read
from .model import ImportFileError, Item, Source
from .posts import (
    ItemError,
    Names,
    authors,
    categories_and_tags,
    clean_tag,
    front_matter,
    not_published,
    old_path,
    plain_text,
    redirect_docname,
    slugify,
    title_text,
)
from .proof import ProofError, site_settings
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
        self.shown = args.file
        self.renderer = Renderer(
            source.site_url, uploads, site_settings(site.conf), source.attachments
        )
        self.existing = Existing.read(site)
        self.counts: Counter = Counter()
        self.redirects: list[tuple[str, str]] = []
        self.lines: list[tuple[int, int, str]] = []  # printed in the file's order at the end

    def say(self, item: Item, message: str) -> None:
        self.lines.append((item.line, len(self.lines), f"{self.shown}:{item.line}: {message}"))

    def run(self) -> int:
        posts: list[Post] = []
        taken: dict[str, Item] = {}
        for item in self.source.items:
            reason, why = not_published(item)
            if reason:
                self.counts[reason] += 1
                self.say(item, f"not imported: {item.label}: {why}")
                continue
            if item.source_id and item.source_id in self.existing.by_source:
                relpath = self.existing.by_source[item.source_id]
                self.counts["already imported"] += 1
                self.say(item, f"already imported: {item.label} is {relpath}")
                self._redirect(item, relpath)
                continue
            try:
                post = self.prepare(item, taken)
            except ItemError as error:
                self.error(item, str(error))
                continue
            except (OSError, ValueError) as error:  # a name the file system refuses, ...
                self.error(item, f"cannot import it ({error})")
                continue
            posts.append(post)
        posts = self.render_and_check(posts)
        for post in posts:
            self.finish(post)
        return self.summary()

    def error(self, item: Item, message: str) -> None:
        self.counts["error"] += 1
        self.say(item, f"error: {item.label} not imported: {message}")

    def prepare(self, item: Item, taken: dict[str, Item]) -> Post:
        if not title_text(item.title):
            raise ItemError("it has no title: give it one on WordPress and export again")
        if item.date is None:
            raise ItemError("it has no date (or one that cannot be read)")
        slug = slugify(item.slug) or slugify(item.title)
        if not slug:
            raise ItemError("its slug and title have no letters or digits to make a file name from")
        relpath = f"posts/{item.date.year}/{slug}.md"
        if (self.site.root / relpath).exists():
            raise ItemError(f"{relpath} already exists (and kb import never overwrites)")
        if relpath in taken:
            raise ItemError(
                f"{relpath} is also the file of {taken[relpath].label} (line {taken[relpath].line})"
            )
        taken[relpath] = item
        categories, tags = categories_and_tags(item, self.names)
        keys = authors(item, self.names)
        # A feed item with only its summary lives at its old address (a WXR post never does).
        summary_only = not item.raw and not item.content.strip()
        external = item.link if summary_only and item.link.startswith(("http:", "https:")) else ""
        description = plain_text(item.excerpt) if item.excerpt.strip() else ""
        if summary_only and not external:
            shown = shorten(item.link) or "none"
            raise ItemError(
                f"only a summary and no web address to link to (its link: {shown}): an "
                "external post needs an http(s) address; import the full feed or export"
            )
        if external and not description:
            raise ItemError("a feed item with neither its text nor a summary")
        path = old_path(item.link, self.source.site_url)
        redirect = "" if external else redirect_docname(path)
        notes = []
        if redirect and self.site.exists(redirect):
            notes.append(f"no redirect from {path}: the site has a page {redirect} already")
            redirect = ""
        elif path and not external and not redirect:
            notes.append(f"no redirect from {path}: not a path a file can have")
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
        post = Post(item, self.site.root / relpath, relpath, fields, item.title, item.content)
        post.fixed_notes = notes
        return post

    def _tags(self, tags: list[str]) -> list[str]:
        """Tags as ablog keeps them, spelled as the site (or an earlier item) spells them."""
        from ablog.blog import slugify as ablog_slug

        kept: dict[str, str] = {}
        for tag in tags:
            cleaned = clean_tag(tag)
            slug = ablog_slug(cleaned) if cleaned else ""
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
                    failed[post.relpath] = [f"{error}: nothing was written for it"]
                except Exception as error:  # noqa: BLE001 -- any HTML at all: report, never crash
                    failed[post.relpath] = [f"its HTML cannot be converted ({error!r})"]
            errors = failed or check(self.site, posts, before)
            if not errors:
                return posts
            for post in posts:
                for message in errors.get(post.relpath, [])[:1]:
                    if post.relpath in failed:
                        self.error(post.item, message)
                    else:
                        self.error(post.item, f"{post.relpath} would not pass kb check ({message})")
            posts = [post for post in posts if post.relpath not in errors]

    def finish(self, post: Post) -> None:
        item = post.item
        verb = "would write" if self.args.dry_run or self.args.rtd_redirects else "wrote"
        if verb == "wrote":
            try:
                self.counts["images"] += write(post)
            except OSError as error:
                self.error(item, f"cannot write {post.relpath} ({error})")
                return
        else:
            self.counts["images"] += len(post.images)
        self.counts["written"] += 1
        extra = f" and {len(post.images)} image(s) into {post.folder.name}/" if post.images else ""
        self.say(item, f"{verb} {post.relpath}{extra} from {item.label}")
        for note in post.notes:
            self.counts["notes"] += 1
            self.say(item, f"note: {post.relpath}: {note}")
        self._redirect(item, post.relpath)

    def _redirect(self, item: Item, relpath: str) -> None:
        path = old_path(item.link, self.source.site_url)
        if path and redirect_docname(path) and item.content.strip():
            self.redirects.append(
                ("/" + path.lstrip("/"), "/" + relpath.removesuffix(".md") + ".html")
            )

    def summary(self) -> int:
        stream = sys.stderr if self.args.rtd_redirects else sys.stdout
        for _, _, line in sorted(self.lines):
            print(line, file=stream)
        if self.args.rtd_redirects:
            for old, new in self.redirects:
                print(f"{old} {new}")
        counts = self.counts
        done = "would write" if self.args.dry_run or self.args.rtd_redirects else "wrote"
        line = f"kb import: {done} {counts['written']} post(s) and {counts['images']} image(s)"
        if counts["already imported"]:
            line += f"; {counts['already imported']} already imported"
        if counts["notes"]:
            line += f"; {counts['notes']} note(s) to read"
        print(line, file=sys.stderr)
        skipped = {
            k: v
            for k, v in counts.items()
            if k not in ("written", "images", "already imported", "notes", "error")
        }
        if skipped:
            listed = ", ".join(f"{number} {reason}" for reason, number in skipped.items())
            print(
                f"kb import: not imported (not published posts on WordPress): {listed}",
                file=sys.stderr,
            )
        if counts["error"]:
            print(
                f"kb import: {counts['error']} error(s): those posts were not imported; fix what "
                "the lines above say and run kb import again (it skips what it already imported)",
                file=sys.stderr,
            )
            return PROBLEMS
        return OK
