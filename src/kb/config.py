"""The ``kb_*`` settings: declared once, validated once at ``builder-inited``."""

from __future__ import annotations

from dataclasses import dataclass, fields

from sphinx.application import Sphinx
from sphinx.errors import ConfigError


@dataclass(frozen=True)
class KbConfig:
    """Settings of the knowledge base; each field is the ``kb_<name>`` config value."""

    #: The categories a post may use; anything else is an error with the list in the message.
    categories: tuple[str, ...] = ("Article", "Benchmarks")
    #: Entries per listing page (archives, catalog pages); page 1 keeps the archive's URL.
    page_size: int = 10
    #: Posts shown by the ``latest-posts`` directive when it gives no count.
    home_posts: int = 10
    #: Bounded sidebars: how many recent posts and tags a page shows.
    sidebar_recent: int = 5
    sidebar_tags: int = 12
    #: Site name used in feed footers and titles; empty means ``project``.
    site_name: str = ""
    #: Full-text search with Pagefind (see kb/search.py); False keeps Sphinx's built-in search.
    search: bool = True
    #: Let furo's search box open Read the Docs' server-side search (set on Read the Docs).
    search_readthedocs: bool = False


REBUILD = {"categories": "env", "page_size": "html", "home_posts": "html"}


def setup_config(app: Sphinx) -> None:
    for field in fields(KbConfig):
        default = field.default
        if isinstance(default, tuple):
            default = list(default)
        app.add_config_value(
            f"kb_{field.name}",
            default,
            REBUILD.get(field.name, "html"),
            types=frozenset({list, tuple}) if isinstance(default, list) else frozenset({type(default)}),
        )
    app.connect("builder-inited", _validate, priority=100)


def _positive(name: str, value: int) -> int:
    if not isinstance(value, int) or value < 1:
        raise ConfigError(f"kb_{name} must be a positive integer, got {value!r}.")
    return value


def _validate(app: Sphinx) -> None:
    app.kb_config = read_config(app.config)


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
        "search": bool(sphinx_config.kb_search),
        "search_readthedocs": bool(sphinx_config.kb_search_readthedocs),
    }
    for name in ("page_size", "home_posts", "sidebar_recent", "sidebar_tags"):
        values[name] = _positive(name, getattr(sphinx_config, f"kb_{name}"))
    return KbConfig(**values)
