"""The converter's block half: figures, galleries, tables, embeds, players (:mod:`.convert`).

WordPress's blocks become what a reader of the old site expects: a captioned image a
``{figure}``, a table a pipe table when it has a header row and a ``{list-table}`` without
one otherwise, an embed from another site a link card (an ``{admonition}`` with its caption,
URL and host) that loads nothing, a cover block its image and text, audio and video a
``{video}`` or ``{audio}`` player (:mod:`kb.markup.players`) when the file is the site's, a
link when it is another host's; a gallery its figures in a grid (a ``{container}``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from bs4 import Tag

from . import escape, media
from .inline import (
    FROM_TEXT,
    IMAGE_FILE,
    InlineConverter,
    alt_text,
    is_remote,
    remote_image_link,
    unbreak,
)

#: What becomes a block of its own (a directive, a fence), never inside one line.
_BLOCKS = {"table", "figure", "iframe", "video", "audio", "object", "embed"}


class Converter(InlineConverter):
    def process_tag(self, node, parent_tags=None):
        parent_tags = parent_tags or set()
        classes = node.get("class") or []
        # Elements shown from their own text: their children are never converted (what they
        # would write, a directive in a <code>, say, would be thrown away unread).
        lone_image = (
            node.name == "a" and len(node.find_all("img")) == 1 and not node.get_text(strip=True)
        )
        if node.name in FROM_TEXT or lone_image:
            convert = self.get_conv_fn_cached(node.name)
            if convert is not None:  # always: each has its convert_ method (convert_code, ...)
                return convert(node, "", parent_tags)
        # A block inside a heading or a table cell (one line of Markdown): its text.
        if "_inline" in parent_tags and (node.name in _BLOCKS or "wp-caption" in classes):
            return " " + escape.text(" ".join(node.get_text().split())) + " "
        if node.name in ("figure",) or "wp-caption" in classes:
            return self._figure(node, parent_tags)
        if node.name == "table":
            return self._table(node, parent_tags)
        if node.name == "div" and "wp-block-cover" in classes:
            return self._cover(node, parent_tags)
        if node.name == "div" and "kb-gallery" in classes:
            return self._gallery(node, parent_tags)
        if node.name == "p" and "kb-embed" in classes:
            return self._card(node.get_text().strip(), "")
        if (
            node.name == "p"
            and media.embed_host(node.get_text().strip())
            and not node.find(lambda tag: tag.name not in ("a", "br"))
        ):
            return self._card(node.get_text().strip(), "")
        return super().process_tag(node, parent_tags)

    def _caption(self, el: Tag, parent_tags) -> str:
        caption = el.find(["figcaption"]) or el.find(class_="wp-caption-text")
        if caption is None:
            return ""
        caption.name, caption.attrs = "p", {}
        text = unbreak(super().process_tag(caption, parent_tags))
        caption.decompose()
        return text

    def _figure(self, el, parent_tags):
        classes = el.get("class") or []
        if "wp-block-embed" in classes or el.find("iframe"):
            wrapper = el.find(class_="wp-block-embed__wrapper")
            frame = el.find("iframe")
            address = (wrapper.get_text().strip() if wrapper else "") or (
                str(frame.get("src") or "") if frame else ""
            )
            caption = self._caption(el, parent_tags)
            return self._card(address, caption) if address else f"\n\n{caption}\n\n"
        caption_md = self._caption(el, parent_tags)
        table, images = el.find("table"), el.find_all("img")
        if table is not None:
            return self._table(table, parent_tags, caption_md)
        player = el.find(["video", "audio"])
        if player is not None:
            return self._player(player, caption_md)
        if len(images) != 1 or not images[0].get("src"):
            el.name, el.attrs = "div", {}
            inner = super().process_tag(el, parent_tags).strip()
            return f"\n\n{inner}\n\n{caption_md}\n\n"
        image = images[0]
        if "latex.php" in str(image.get("src")):
            return f"\n\n{self.convert_img(image, '', parent_tags)}\n\n{caption_md}\n\n"
        anchor = image.find_parent("a")
        if anchor is not None and el not in list(anchor.parents):
            anchor = None  # a figure inside a link: the link is the page's, not the image's
        if anchor is not None and str(anchor.get("href") or "").strip():
            return self._linked_image(image, str(anchor["href"]).strip(), caption_md)
        src = self.image(str(image.get("src")))
        alt = alt_text(image)
        if is_remote(src) or src.startswith("data:"):
            return f"\n\n{remote_image_link(src, alt)}\n\n{caption_md}\n\n"
        if not caption_md:
            return f"\n\n![{escape.text(alt)}]({escape.url(src)})\n\n"
        options = f":alt: {escape.option(alt)}\n\n" if alt else ""
        return self.directive("figure", escape.url(src), options + caption_md) + "\n\n"

    def _gallery(self, el, parent_tags):
        """A gallery (``[gallery]``, made by :func:`.media.gallery_html`): its figures in a
        ``{container}`` that the site's stylesheet lays out as a grid."""
        el.name, el.attrs = "section", {}
        inner = super().process_tag(el, parent_tags).strip()
        return self.directive("container", "kb-gallery", inner) + "\n\n" if inner else ""

    def _cover(self, el, parent_tags):
        """A cover block: its background image, then its text."""
        image = el.find("img")
        background = media.background_image(el)
        picture = ""
        if image is not None:
            picture = self.convert_img(image, "", parent_tags)
            image.decompose()
        elif background:
            picture = self.convert_img(Tag(name="img", attrs={"src": background}), "", parent_tags)
        el.name, el.attrs = "section", {}
        inner = super().process_tag(el, parent_tags).strip()
        return f"\n\n{picture}\n\n{inner}\n\n"

    def _card(self, address: str, caption: str) -> str:
        """Something embedded from another site: a visible link to it, loading nothing."""
        address = address.strip()
        if not is_remote(address):
            return f"\n\n{caption}\n\n" if caption else ""
        host = urlsplit(address).hostname or address
        self.notes.append(f"an embed from {host} became a link card")
        title = caption or f"Embedded from {escape.text(host)}"
        link = f"[{escape.text(address)}]({escape.url(address)}) ({escape.text(host)})"
        return self.directive("admonition", title, f":class: kb-embed\n\n{link}") + "\n\n"

    def _player(self, el, caption: str) -> str:
        src = str(el.get("src") or "")
        source = el.find("source")
        if not src and source is not None:
            src = str(source.get("src") or "")
        if not src.strip():
            return f"\n\n{caption}\n\n" if caption else ""
        kind = "Video" if el.name == "video" else "Audio"
        local = self.image(src) if not IMAGE_FILE.search(src) else src
        name = urlsplit(src).path.rsplit("/", 1)[-1] or src
        if is_remote(local):
            # Another host's file: a link (a player would load from that host).
            line = f"[{kind}: {escape.text(name)}]({escape.url(local)})"
            return f"\n\n{line}\n\n{caption}\n\n"
        options = ""
        poster = str(el.get("poster") or "").strip() if el.name == "video" else ""
        if poster:
            poster = self.image(poster)
            if not is_remote(poster):
                options = f":poster: {escape.url(poster)}\n\n"
        return self.directive(el.name, escape.url(local), options + caption) + "\n\n"

    def convert_video(self, el, text, parent_tags):
        return self._player(el, "")

    convert_audio = convert_video

    def convert_iframe(self, el, text, parent_tags):
        return self._card(str(el.get("src") or ""), "")

    convert_embed = convert_iframe

    def convert_object(self, el, text, parent_tags):
        return self._card(str(el.get("data") or ""), "")

    def _table(self, el, parent_tags, caption: str = ""):
        """Any table as a ``{list-table}``: each cell is Markdown of its own (no ``|`` to
        escape), and a table without header cells keeps no header row."""
        if not caption and el.find("caption") is not None:
            found = el.find("caption")
            found.name, found.attrs = "span", {}
            caption = super().process_tag(found, parent_tags | {"_inline"}).strip()
            found.decompose()
        rows = [row for row in el.find_all("tr") if row.find_parent("table") is el]
        grid = []
        for row in rows:
            found = row.find_all(["td", "th"], recursive=False)
            head = row.find_parent("thead") is not None or all(c.name == "th" for c in found)
            cells = []
            for cell in found:
                cell.name, cell.attrs = "div", {}
                cells.append(unbreak(super().process_tag(cell, parent_tags)))
            if cells:
                grid.append((cells, head))
        if not grid:
            return ""
        width = max(len(cells) for cells, _ in grid)
        header = 0
        for _, head in grid:
            if not head:
                break
            header += 1
        header = header if header < len(grid) else 0
        if header == 1 and all("\n" not in cell for cells, _ in grid for cell in cells):
            return self._pipe_table(
                [cells + [""] * (width - len(cells)) for cells, _ in grid], caption
            )
        lines = [f":header-rows: {header}", ""]
        for cells, _ in grid:
            for index, cell in enumerate(cells + [""] * (width - len(cells))):
                marker = "* - " if index == 0 else "  - "
                cell_lines = cell.split("\n") if cell else [""]
                lines.append((marker + cell_lines[0]).rstrip())
                lines += [("    " + line).rstrip() for line in cell_lines[1:]]
        caption = " ".join(caption.split())
        return self.directive("list-table", caption, "\n".join(lines)) + "\n\n"

    def _pipe_table(self, rows: list[list[str]], caption: str) -> str:
        lines = ["| " + " | ".join(escape.table_cell(c) or " " for c in row) + " |" for row in rows]
        lines.insert(1, "| " + " | ".join("---" for _ in rows[0]) + " |")
        table = "\n".join(lines)
        if caption and "\n" not in caption:
            return self.directive("table", caption, table) + "\n\n"
        return f"\n\n{table}\n\n{caption}\n\n"

    def convert_dt(self, el, text, parent_tags):
        return f"\n\n**{text.strip()}**\n\n" if text.strip() else ""

    def convert_dd(self, el, text, parent_tags):
        return f"\n\n{text.strip()}\n\n" if text.strip() else ""

    def convert_hr(self, el, text, parent_tags):
        return "\n\n---\n\n"

    def convert_form(self, el, text, parent_tags):
        self.notes.append("a form was left out")
        return ""
