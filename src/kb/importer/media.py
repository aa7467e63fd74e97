"""What WordPress embeds and uploads: embed providers, cover backgrounds, galleries, uploads.

- :func:`embed_host`: a URL alone in a paragraph is an embed on WordPress (its "oEmbed"
  providers: YouTube, Vimeo, Twitter, ...); the site shows a link card instead, loading nothing.
- :func:`upload_path`: where an image lives under ``wp-content/uploads`` whatever host served
  it: the site itself, ``<site>.files.wordpress.com``, or a ``i0.wp.com`` proxy (whose path
  holds the original host). Size variants (``-300x200``) fall back to the original.
- :func:`gallery_html`: a ``[gallery]`` shortcode as figures, from the export's attachments.
"""

from __future__ import annotations

import html
import re
from urllib.parse import unquote, urlsplit

#: oEmbed providers WordPress embeds from a bare URL (wp-includes/class-wp-oembed.php).
EMBED_HOSTS = (
    "youtube.com",
    "youtu.be",
    "vimeo.com",
    "twitter.com",
    "x.com",
    "facebook.com",
    "instagram.com",
    "wordpress.tv",
    "videopress.com",
    "soundcloud.com",
    "spotify.com",
    "flickr.com",
    "tiktok.com",
    "dailymotion.com",
    "slideshare.net",
    "speakerdeck.com",
    "ted.com",
    "tumblr.com",
    "reddit.com",
    "imgur.com",
    "mixcloud.com",
    "scribd.com",
    "kickstarter.com",
    "issuu.com",
    "screencast.com",
    "animoto.com",
    "cloudup.com",
    "crowdsignal.com",
    "polldaddy.com",
    "smugmug.com",
    "amazon.com",
    "pinterest.com",
    "wolframcloud.com",
    "pocketcasts.com",
)
_URL = re.compile(r"^https?://\S+$")
_BACKGROUND = re.compile(r"background(?:-image)?\s*:[^;]*url\(\s*['\"]?([^'\")]+)", re.I)
#: The path of an upload: wp-content/uploads/2013/03/x.jpg, files/2013/03/x.jpg (multisite)...
_UPLOADS = re.compile(r"/(?:wp-content/uploads|wp-content/blogs\.dir/\d+/files|files)/(.+)$")
#: ...or, on a WordPress.com host, the bare date path: /2013/03/x.jpg.
_DATE_PATH = re.compile(r"^/((?:19|20)\d\d/[01]\d/[^/]+)$")
_SIZE_VARIANT = re.compile(r"-\d+x\d+(\.\w+)$")


def embed_host(text: str) -> str:
    """The provider's host when ``text`` is a URL WordPress would embed, else ""."""
    if not _URL.match(text):
        return ""
    host = (urlsplit(text).hostname or "").lower()
    return host if any(host == h or host.endswith("." + h) for h in EMBED_HOSTS) else ""


def background_image(el) -> str:
    """The address of a background image set in ``el``'s own style or a child's."""
    for element in [el, *el.find_all(style=True)]:
        found = _BACKGROUND.search(str(element.get("style") or ""))
        if found:
            return html.unescape(found.group(1).strip())
    return ""


def upload_path(url: str) -> list[str]:
    """The paths below ``uploads/`` where ``url``'s file may be: as named, then the original."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    host = (parts.hostname or "").lower()
    if re.fullmatch(r"i\d\.wp\.com", host):  # Jetpack's proxy: /<host>/<path>
        path = "/" + path.lstrip("/").partition("/")[2]
    found = _UPLOADS.search(path) or _DATE_PATH.match(path)
    if not found:
        return []
    wanted = found.group(1)
    original = _SIZE_VARIANT.sub(r"\1", wanted)
    return list(dict.fromkeys([wanted, original]))


def gallery_html(options: dict[str, str], attachments: dict[str, dict], parent: str) -> str:
    """``[gallery ids="1,2"]`` (or the post's own attached images) as figures."""
    ids = [i.strip() for i in options.get("ids", "").split(",") if i.strip()]
    if not ids:
        ids = [key for key, a in attachments.items() if a.get("parent") == parent and a["image"]]
    figures = []
    for key in ids:
        attachment = attachments.get(key)
        if not attachment or not attachment.get("url"):
            continue
        alt = html.escape(attachment.get("alt") or attachment.get("title") or "")
        caption = html.escape(attachment.get("caption") or "")
        image = f'<img src="{html.escape(attachment["url"])}" alt="{alt}">'
        inner = f"<figcaption>{caption}</figcaption>" if caption else ""
        figures.append(f"<figure>{image}{inner}</figure>")
    return f'<div class="kb-gallery">{"".join(figures)}</div>' if figures else ""
