"""The ``kb_*`` settings: declared once, validated once at ``builder-inited``."""

from __future__ import annotations

from dataclasses import dataclass, fields
from string import Formatter
from typing import TYPE_CHECKING, Literal

from sphinx.errors import ConfigError

if TYPE_CHECKING:  # the search index's background worker reads the settings without Sphinx's app
    from sphinx.application import Sphinx

from .checks.bounded import DEFAULT_LIMIT


@dataclass(frozen=True)
class KbConfig:
    """Settings of the knowledge base; each field is the ``kb_<name>`` config value."""

    #: The categories a post may use; anything else is an error with the list in the message.
    categories: tuple[str, ...] = ("Article", "Benchmarks")
    #: Entries per numbered listing page; the archive's own URL shows its newest posts, from
    #: this many to twice as many less one. Numbered pages count from the oldest post, so a
    #: numbered page keeps its posts as the archive grows (kb.pages.listings.paginate).
    page_size: int = 10
    #: Posts shown by the ``latest-posts`` directive when it gives no count.
    home_posts: int = 10
    #: Recent posts in every page's sidebar, at most: sidebars stay bounded, so a post page
    #: does not grow with the site.
    sidebar_recent: int = 5
    #: Tags in the sidebar, at most: the most used first.
    sidebar_tags: int = 12
    #: Series in the sidebar, at most.
    sidebar_series: int = 8
    #: Link previews (Open Graph): the site's card image, a path in the output (or a URL),
    #: shown for a post that names no ``og:image`` of its own; empty for none.
    og_image: str = ""
    #: The card image's alt text, for readers who cannot see it.
    og_image_alt: str = ""
    #: Site name used in feed footers and titles; empty means ``project``.
    site_name: str = ""
    #: Items per feed (src/kb/feeds/): the newest posts.
    feed_length: int = 20
    #: Which feed formats to write and link from pages: some of ``"rss"``, ``"atom"``,
    #: ``"json"`` (RSS 2.0, Atom 1.0, JSON Feed 1.1), each once.
    feed_formats: tuple[str, ...] = ("rss", "atom", "json")
    #: Also write one feed per tag, at ``feeds/tag/<slug>/``.
    feed_tags: bool = False
    #: Also write one feed per author, at ``feeds/author/<slug>/``.
    feed_authors: bool = False
    #: Full text of each post in its feed item instead of the excerpt.
    feed_fulltext: bool = False
    #: The line after each item's content; ``{post_link}`` and ``{site_link}`` are links.
    feed_footer: str = "The post {post_link} appeared first on {site_link}."
    #: The same for a post whose article lives elsewhere (``external_link``).
    feed_footer_external: str = "The post {post_link} was listed on {site_link}."
    #: Full-text search with Pagefind (src/kb/search/); False keeps Sphinx's built-in search.
    search: bool = True
    #: Let furo's search box open Read the Docs' server-side search (set on Read the Docs).
    search_readthedocs: bool = False
    #: Index in a background process after the build returns (``kb serve`` sets it).
    search_defer: bool = False
    #: Pages per shard of the search index, at most: a larger site is indexed in shards, and
    #: a change indexes only its shard again (kb/search/shards.py). 0: one shard always.
    #: 48, not 64: shards are a power of two in number, and 48 cuts 1000 pages into 32 shards
    #: of about 31 (Pagefind over one: 0.12 s, against 0.23 s for 16 of 63), while 10,000
    #: pages stay 256 shards of about 39 (more shards make every merge longer).
    search_shard_size: int = 48
    #: Read and show posts dated after today (``kb serve --drafts``); off, a build skips them.
    drafts: bool = False
    #: Pages left out of sitemap.xml: shell patterns over page paths (``blog/drafts/*``).
    sitemap_excludes: tuple[str, ...] = ("404.html", "search.html", "genindex.html")
    #: Hosts that raw HTML in a post (``<iframe src>``, ``<img src>``, …) and its images may
    #: load from, as exact host names (``"www.youtube-nocookie.com"``); the site's own host
    #: always may. Any other host is a warning and the HTML or image is left out
    #: (kb/markup/rawhtml.py).
    allow_raw_html_hosts: tuple[str, ...] = ()
    #: Let raw HTML in posts run scripts (``<script>``, ``on…`` attributes, ``javascript:``).
    allow_raw_scripts: bool = False
    #: The category whose pages link the benchmarks page (``benchmarks.html``) under their
    #: heading; "" for none.
    benchmarks_category: str = "Benchmarks"
    #: Related posts at the end of each post's page (kb/pages/related.py); 0 for none.
    related_posts: int = 5
    #: Read doctrees kept in memory for the writing phase, at most (kb/incremental/doctrees.py); the
    #: others are read back from disk as each page is written. Lower it if a clean build of
    #: a large site runs out of memory.
    doctrees_in_memory: int = 1000
    #: The largest file, in bytes, that a post, a notebook or ``kb import`` may read: the
    #: post itself, ``{include}``, ``{literalinclude}``, ``{csv-table}``, images, downloads,
    #: benchmark data. A larger file is refused at the line that names it, and never read
    #: past the limit (kb/checks/bounded.py). 32 MiB by default.
    max_file_bytes: int = DEFAULT_LIMIT
    #: The old site's addresses, a TOML file beside conf.py that ``kb import`` writes: each
    #: ``"/category/cuda/" = "/blog/category/cuda.html"`` of its ``[redirects]`` table becomes
    #: a page at the old address that sends the reader on (kb/pages/redirects.py). Read only
    #: if it exists; "" for none.
    old_addresses: str = "redirects.toml"
    #: Reuse what earlier builds wrote (kb/incremental/freshness.py): pages whose inputs did not
    #: change are kept, parts of pages are replaced in place, the search index is made again
    #: only for the shards a change touched, and converted formulas, related posts and
    #: compiled templates are kept. False reuses nothing but Sphinx's own environment: every
    #: page, generated page, feed and the whole search index is written anew, as a clean
    #: build writes them (a way to rule kb's machinery out when a page looks stale).
    incremental: bool = True


#: What Sphinx does again when a setting changes (add_config_value's ``rebuild``): read
#: every document ("env"), write every page ("html"), or nothing ("").
Rebuild = Literal["", "env", "html"]

REBUILD: dict[str, Rebuild] = {
    "categories": "env",
    "drafts": "env",
    "page_size": "html",
    "home_posts": "html",
    # Only when the index is written, not what any page holds: switching it (kb serve does)
    # must not rewrite every page.
    "search_defer": "",
    # How the index is cut, not what it finds.
    "search_shard_size": "",
    # Memory, not output.
    "doctrees_in_memory": "",
    # Raw HTML is checked when a post is read: a changed allowance reads every post again.
    "allow_raw_html_hosts": "env",
    "allow_raw_scripts": "env",
    # Files are judged when a post is read.
    "max_file_bytes": "env",
    # Pages written from the file, not from any post.
    "old_addresses": "",
    # What is written again, not what is read: kb's freshness decides it.
    "incremental": "",
}


def setup_config(app: Sphinx) -> None:
    for field in fields(KbConfig):
        default = field.default
        if isinstance(default, tuple):
            default = list(default)
        app.add_config_value(
            f"kb_{field.name}",
            default,
            REBUILD.get(field.name, "html"),
            types=frozenset({list, tuple})
            if isinstance(default, list)
            else frozenset({type(default)}),
        )


def _positive(name: str, value: int) -> int:
    if not isinstance(value, int) or value < 1:
        raise ConfigError(f"kb_{name} must be a positive integer, got {value!r}.")
    return value


def _not_negative(name: str, value: int) -> int:
    if not isinstance(value, int) or value < 0:
        raise ConfigError(f"kb_{name} must be 0 or a positive integer, got {value!r}.")
    return value


FEED_FORMATS = ("rss", "atom", "json")
FOOTER_FIELDS = {"post_link", "site_link"}


def _footer(name: str, value: str) -> str:
    try:
        used = {field for _, field, _, _ in Formatter().parse(value) if field is not None}
    except ValueError as error:
        raise ConfigError(f"kb_{name} is not a valid format string ({error}): {value!r}.") from None
    if not used <= FOOTER_FIELDS:
        raise ConfigError(
            f"kb_{name} may only use {{post_link}} and {{site_link}}, got "
            f"{', '.join(sorted('{' + f + '}' for f in used - FOOTER_FIELDS))} in {value!r}."
        )
    return value


def _feed_settings(sphinx_config) -> dict:
    formats = tuple(sphinx_config.kb_feed_formats)
    if not formats or not set(formats) <= set(FEED_FORMATS) or len(set(formats)) != len(formats):
        raise ConfigError(
            f"kb_feed_formats must list some of {', '.join(FEED_FORMATS)} once each, "
            f"got {sphinx_config.kb_feed_formats!r}."
        )
    values: dict[str, object] = {"feed_formats": formats}
    for name in ("feed_tags", "feed_authors", "feed_fulltext"):
        values[name] = bool(getattr(sphinx_config, f"kb_{name}"))
    for name in ("feed_footer", "feed_footer_external"):
        values[name] = _footer(name, getattr(sphinx_config, f"kb_{name}"))
    return values


def _hosts(value) -> tuple[str, ...]:
    hosts = tuple(value)
    bad = [h for h in hosts if not isinstance(h, str) or not h or "/" in h or ":" in h]
    if bad:
        raise ConfigError(
            f"kb_allow_raw_html_hosts must list host names such as "
            f"'www.youtube-nocookie.com' (no scheme, path or port), got {bad[0]!r}."
        )
    return tuple(host.lower() for host in hosts)


def _switch(name: str, value) -> bool:
    """True or False, also as ``-D kb_incremental=0`` gives it (a string)."""
    if isinstance(value, str) and value.strip().casefold() in ("0", "1", "false", "true"):
        return value.strip().casefold() in ("1", "true")
    if not isinstance(value, bool):
        raise ConfigError(f"kb_{name} must be True or False, got {value!r}.")
    return value


def _whole_number(name: str, value) -> int:
    if isinstance(value, str) and value.strip().isdigit():  # -D kb_search_shard_size=64
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"kb_{name} must be a whole number >= 0, got {value!r}.")
    return value


def read_config(sphinx_config) -> KbConfig:
    """Validate the ``kb_*`` values of a Sphinx config and return them as one object."""
    categories = tuple(sphinx_config.kb_categories)
    if not categories or not all(isinstance(c, str) and c.strip() for c in categories):
        raise ConfigError(
            f"kb_categories must be a non-empty list of names, got {sphinx_config.kb_categories!r}."
        )
    values = {
        "categories": categories,
        "site_name": sphinx_config.kb_site_name or sphinx_config.project,
        "og_image": str(sphinx_config.kb_og_image or ""),
        "og_image_alt": str(sphinx_config.kb_og_image_alt or ""),
        "search": bool(sphinx_config.kb_search),
        "search_readthedocs": bool(sphinx_config.kb_search_readthedocs),
        "search_defer": bool(sphinx_config.kb_search_defer),
        "search_shard_size": _whole_number("search_shard_size", sphinx_config.kb_search_shard_size),
        "doctrees_in_memory": _whole_number(
            "doctrees_in_memory", sphinx_config.kb_doctrees_in_memory
        ),
        "drafts": bool(sphinx_config.kb_drafts),
        "sitemap_excludes": tuple(str(p) for p in sphinx_config.kb_sitemap_excludes),
        "allow_raw_html_hosts": _hosts(sphinx_config.kb_allow_raw_html_hosts),
        "allow_raw_scripts": bool(sphinx_config.kb_allow_raw_scripts),
        "benchmarks_category": str(sphinx_config.kb_benchmarks_category),
        "related_posts": _not_negative("related_posts", sphinx_config.kb_related_posts),
        "max_file_bytes": _positive("max_file_bytes", sphinx_config.kb_max_file_bytes),
        "old_addresses": str(sphinx_config.kb_old_addresses or ""),
        "incremental": _switch("incremental", sphinx_config.kb_incremental),
    }
    positive = ("page_size", "home_posts", "sidebar_recent", "sidebar_tags", "sidebar_series")
    for name in (*positive, "feed_length"):
        values[name] = _positive(name, getattr(sphinx_config, f"kb_{name}"))
    values.update(_feed_settings(sphinx_config))
    return KbConfig(**values)
