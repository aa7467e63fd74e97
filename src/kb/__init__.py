"""kb: the Sphinx extension behind the research knowledge base.

Each feature lives in its own module with a ``setup_<feature>(app)``; this ``setup()`` only
registers them, in the order the data flows: settings, the catalog of posts, then every
output that reads the catalog.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx

from . import (
    benchmark,
    buildspeed,
    catalog,
    citation,
    config,
    feeds,
    freshness,
    highlighting,
    listings,
    math,
    meta,
    postpage,
    search,
    series,
    sidebars,
    uniqueids,
    validation,
)

__version__ = "0.1.0"

TEMPLATES_DIR = Path(__file__).parent / "templates"
STATIC_DIR = Path(__file__).parent / "static"


def _config_inited(app: Sphinx, sphinx_config) -> None:
    # Our templates come after the project's own (_templates), so a fork can still override
    # any of them, and before the theme's, so furo never sees ablog's page.html.
    # New lists, never appended in place: an unset value is Sphinx's shared default list,
    # and a second build in the same process (tests) would see our folder twice and then
    # rewrite every page because "the configuration has changed".
    if str(TEMPLATES_DIR) not in sphinx_config.templates_path:
        sphinx_config.templates_path = [*sphinx_config.templates_path, str(TEMPLATES_DIR)]
    if str(STATIC_DIR) not in sphinx_config.html_static_path:
        sphinx_config.html_static_path = [*sphinx_config.html_static_path, str(STATIC_DIR)]


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _config_inited)
    config.setup_config(app)
    validation.setup_validation(app)
    catalog.setup_catalog(app)
    listings.setup_listings(app)
    sidebars.setup_sidebars(app)
    postpage.setup_postpage(app)
    freshness.setup_freshness(app)
    series.setup_series(app)  # after freshness: it registers a signer
    citation.setup_citation(app)
    meta.setup_meta(app)
    highlighting.setup_highlighting(app)
    feeds.setup_feeds(app)
    math.setup_math(app)
    benchmark.setup_benchmark(app)
    uniqueids.setup_uniqueids(app)
    buildspeed.setup_buildspeed(app)
    search.setup_search(app)
    app.add_css_file("kb.css")
    return {
        "version": __version__,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
        "env_version": 1,
    }
