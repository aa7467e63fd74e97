"""Posts on disk: their text, their images, the checks they pass, and writing without overwriting.

Images below ``--uploads`` (matched by the path after ``uploads/`` in their address, or the
full-size original when WordPress's ``-1024x576`` variant is missing) are copied into a folder
named after the post, ``posts/<year>/<slug>/``, and linked from the post by that relative path;
other images keep their address and are reported. Each text goes through the very checks of
``kb check`` (:func:`kb.site.check_files`) with every other post of the site and of the
import before anything is written; files are opened with mode ``"x"``, so nothing on disk is
ever replaced.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from ..checks.frontmatter import read_front_matter
from ..checks.slugs import slugify as page_slug
from ..site import Site, check_files
from . import media
from .excerpts import describe
from .model import Item
from .posts import escape_title, old_path, redirect_docname

#: What --uploads may copy next to a post: images (and the players' media), never a file that
#: Sphinx would build as a page (.md, .ipynb, .rst) or run (.py).
COPIED_SUFFIXES = {
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".avif", ".bmp",
    ".mp3", ".ogg", ".oga", ".wav", ".m4a", ".mp4", ".webm", ".ogv", ".mov",
}  # fmt: skip


_AFTER_DESCRIPTION = ("external_link:", "redirect:", "source_id:")


@dataclass
class Post:
    item: Item
    path: Path  # posts/<year>/<slug>.md under the site
    relpath: str
    fields: list[str]  # front-matter lines, without the --- around them
    title: str
    body_html: str = ""
    text: str = ""
    images: dict[str, Path] = field(default_factory=dict)  # file name in the folder -> source
    notes: list[str] = field(default_factory=list)
    seen: dict[str, str] = field(default_factory=dict)  # each image's address, looked up once
    noted: set[str] = field(default_factory=set)  # images reported as not copied
    missing: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (host, why) -> urls
    fixed_notes: list[str] = field(default_factory=list)  # from the item, not its HTML
    page: bool = False  # a WordPress page, written under pages/

    @property
    def folder(self) -> Path:
        return self.path.with_suffix("")


@dataclass
class Existing:
    """What the site already has: posts by source id, by old path, and tag spellings."""

    by_source: dict[str, str] = field(default_factory=dict)
    by_old_path: dict[str, str] = field(default_factory=dict)  # "2025/01/14/x" -> relpath
    tags: dict[str, str] = field(default_factory=dict)  # ablog's slug -> the site's spelling

    @classmethod
    def read(cls, site: Site) -> Existing:
        found = cls()
        for path in [*site.post_paths(), *site.page_paths()]:
            try:
                fields, _, _ = read_front_matter(path.read_text(encoding="utf-8-sig"))
            except (OSError, UnicodeDecodeError):
                continue
            relpath = site.relpath(path)
            tags = fields.get("tags")
            for tag in _tag_names(tags.value if tags else None):
                found.tags.setdefault(_tag_slug(tag), tag)
            source = fields.get("source_id")
            if source is not None and str(source.value or "").strip():
                found.by_source[str(source.value).strip()] = relpath
            redirect = fields.get("redirect")
            for name in str(redirect.value if redirect else "").split(","):
                name = name.strip().removesuffix("/index")
                if name:
                    found.by_old_path[name] = relpath
        return found


def _tag_names(value) -> list[str]:
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    return (
        [str(name) for name in value if isinstance(name, str | int)]
        if isinstance(value, list)
        else []
    )


def _tag_slug(tag: str) -> str:
    return page_slug(tag)  # the page a tag gets (ablog's rule): one spelling per page


class Renderer:
    """Renders posts: body conversion with local images and links between imported posts."""

    def __init__(
        self,
        site_url: str,
        uploads: Path | None,
        settings: tuple = (),
        attachments: dict[str, dict] | None = None,
    ):
        self.site_url, self.uploads = site_url.rstrip("/"), uploads
        self.settings, self.attachments = settings, attachments or {}

    def render(self, post: Post, links: dict[str, str], by_id: dict[str, str]) -> None:
        from .convert import to_myst  # BeautifulSoup and markdownify: only when importing
        from .proof import prove

        post.images, post.notes, post.seen, post.noted = {}, list(post.fixed_notes), {}, set()
        post.missing = {}
        conversion = to_myst(
            post.body_html,
            raw=post.item.raw,
            image=functools.partial(self._image, post),
            link=lambda href: self._link(href, links, by_id),
            gallery=lambda options: media.gallery_html(
                options, self.attachments, post.item.post_id
            ),
        )
        prove(conversion.markdown, conversion.emitted, self.settings)
        for (host, where), urls in post.missing.items():
            shown = f"image {urls[0]}" if len(urls) == 1 else f"{len(urls)} images ({urls[0]}, ...)"
            post.notes.append(
                f"{shown} {'is' if len(urls) == 1 else 'are'} {where}: the post links to "
                f"{'it' if len(urls) == 1 else 'them'} on {host}; copy "
                f"{'it' if len(urls) == 1 else 'them'} next to the post and show "
                f"{'it' if len(urls) == 1 else 'them'} with ![alt](file)"
            )
        post.notes += conversion.notes
        if not post.page and not any(f.startswith("description:") for f in post.fields):
            found = describe(conversion.markdown, post.title, self.settings)
            if found:
                at = next(
                    (i for i, f in enumerate(post.fields) if f.startswith(_AFTER_DESCRIPTION)),
                    len(post.fields),
                )
                post.fields.insert(at, f"description: {json.dumps(found, ensure_ascii=False)}")
        post.notes += _math_notes(conversion.math)
        body = conversion.markdown if conversion.markdown.strip() else ""
        head = ["---", *post.fields, "---", "", f"# {escape_title(post.title)}", ""]
        post.text = "\n".join(head) + ("\n" + body if body else "")

    def _absolute(self, address: str) -> str:
        return urljoin(self.site_url + "/", address) if self.site_url else address

    def _image(self, post: Post, src: str, note: bool = True) -> str:
        if src.startswith("data:"):
            return src
        url = self._absolute(src.strip())
        if url not in post.seen or note and post.seen[url] == url and url not in post.noted:
            post.seen[url] = self._find(post, url, note)
        return post.seen[url]

    def _find(self, post: Post, url: str, note: bool) -> str:
        file = self._uploaded(url)
        if file is not None:
            return f"{post.folder.name}/{_add_image(post, file)}"
        if not note:
            return url
        post.noted.add(url)
        host = urlsplit(url).netloc or "another site"
        where = (
            f"not in {self.uploads}" if self.uploads is not None else "not copied (no --uploads)"
        )
        post.missing.setdefault((host, where), []).append(url)
        return url

    def _uploaded(self, url: str) -> Path | None:
        """The image at ``url`` in the uploads folder, or None (not there, or no folder)."""
        if self.uploads is None:
            return None
        for candidate in media.upload_path(url):
            file = (self.uploads / candidate).resolve()
            if (
                file.suffix.lower() in COPIED_SUFFIXES
                and file.is_relative_to(self.uploads.resolve())
                and file.is_file()
            ):
                return file
        return None

    def _link(self, href: str, links: dict[str, str], by_id: dict[str, str]) -> str:
        if href.startswith(("#", "mailto:")):
            return href
        url = self._absolute(href)
        parts = urlsplit(url)
        post_id = re.search(r"(?:^|&)p=(\d+)(?:&|$)", parts.query)
        target = by_id.get(post_id.group(1)) if post_id else None
        path = old_path(url.split("#")[0], self.site_url) if self.site_url else ""
        target = target or links.get(redirect_docname(path).removesuffix("/index"))
        if target:
            # The old page's anchors (#...) need not exist in the new one, where MyST would warn.
            return f"/{target}"
        return url


def _add_image(post: Post, file: Path) -> str:
    """The image's file name in the post's folder: unique, and never one that holds other bytes."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", file.stem).strip("-") or "image"
    suffix = re.sub(r"[^A-Za-z0-9.]", "", file.suffix.lower())
    for number in range(1, 1000):
        name = f"{stem}{'' if number == 1 else f'-{number}'}{suffix}"
        taken = post.images.get(name)
        on_disk = post.folder / name
        if taken == file or (taken is None and not on_disk.exists()):
            post.images[name] = file
            return name
        if taken is None and on_disk.read_bytes() == file.read_bytes():
            post.images[name] = file  # an earlier, interrupted import copied it already
            return name
    raise OSError(f"too many images named {file.name}")


def _math_notes(math: list[tuple[str, bool]]) -> list[str]:
    from ..markup.math import MathError, tex_to_mathml

    notes = []
    for tex, display in math:
        try:
            tex_to_mathml(tex, display)
        except MathError as error:
            notes.append(f"the site cannot render the TeX `{tex}` ({error}): fix it in the post")
    return notes


class _PendingSite(Site):
    """The site as it will be once the posts being imported are written."""

    def __init__(self, site: Site, posts: list[Post]):
        super().__init__(site.root, site.conf)
        self.pending = {post.relpath.removesuffix(".md") for post in posts}
        # The images each post's text names, copied beside it when it is written.
        self.images = frozenset(
            Path(os.path.normpath(post.folder / name)) for post in posts for name in post.images
        )

    def exists(self, docname: str) -> bool:
        return docname in self.pending or super().exists(docname)

    def arriving_files(self) -> frozenset[Path]:
        return self.images


def baseline(site: Site) -> set[tuple[str, int, str]]:
    """The errors the site's own posts have before the import: not the import's doing."""
    found = check_files(site, site.post_paths(), None)
    return {(relpath, p.line, p.message) for relpath, p in found if p.is_error}


def check(site: Site, posts: list[Post], before: set) -> dict[str, list[str]]:
    """The errors ``kb check`` would find in each post, checked with the site and each other;
    a post that would give one of the site's own posts an error (an older post claims its slug,
    title or tag spelling) has that error too: the site's posts come first."""
    drafts = {post.path: post.text for post in posts}
    errors: dict[str, list[str]] = {}
    found = check_files(_PendingSite(site, posts), site.post_paths(), None, drafts)
    for relpath, problem in found:
        if not problem.is_error:
            continue
        if relpath in {post.relpath for post in posts}:
            errors.setdefault(relpath, []).append(f"line {problem.line}: {problem.message}")
        elif (relpath, problem.line, problem.message) not in before:
            for post in posts:
                if post.relpath in problem.message:
                    message = f"it would give {relpath}:{problem.line} an error: {problem.message}"
                    errors.setdefault(post.relpath, []).append(message)
    return errors


def write(post: Post) -> int:
    """Write the post and copy its images; the number of images copied."""
    copied = 0
    post.path.parent.mkdir(parents=True, exist_ok=True)
    for name, source in post.images.items():
        target = post.folder / name
        if target.exists():
            continue  # the same bytes, checked when the name was chosen
        post.folder.mkdir(exist_ok=True)
        with open(source, "rb") as reading, open(target, "xb") as writing:
            shutil.copyfileobj(reading, writing)
        copied += 1
    with open(post.path, "x", encoding="utf-8") as handle:
        handle.write(post.text)
    return copied
