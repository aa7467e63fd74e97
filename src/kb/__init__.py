"""kb: the Sphinx extension behind the research knowledge base.

Data flows one way: posts → catalog → outputs (see ``src/kb/README.md`` for the map). Each
feature is a package with a ``setup_<feature>(app)``; this ``setup()`` registers them in that
order: settings, the ground floor (ablog adapter, catalog, checks, freshness), what posts are
written in, then every output that reads the catalog.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx

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
    # The features are imported here, by a build, and not with the package: ``kb check``,
    # ``kb new`` and the search index's background worker (``python -m kb.search.worker``)
    # import only what they use, not Sphinx's application and every feature (0.5 s).
    from . import benchmark, config, feeds, markup, meta, notebooks, pages
    from .core import (
        ablog,
        buildlog,
        catalog,
        configvalues,
        datasets,
        drafts,
        finding,
        links,
        output,
        state,
        validation,
    )
    from .incremental import collector, copies, doctrees, freshness, templatecache, tocs
    from .search import index as search_index
    from .search import stems as search_stems

    state.setup_state(app)  # first: every handler below reads and writes the build state
    app.connect("config-inited", _config_inited)
    config.setup_config(app)
    buildlog.setup_buildlog(app)  # a successful build is a few lines
    configvalues.setup_configvalues(app)  # a no-change rebuild finds no config change
    # The ground floor: posts become the catalog.
    collector.setup_collector(app)
    doctrees.setup_doctrees(app)
    tocs.setup_tocs(app)
    output.setup_output(app)
    templatecache.setup_templatecache(app)
    finding.setup_finding(app)
    drafts.setup_drafts(app)
    ablog.setup_ablog_adapter(app)
    validation.setup_validation(app)
    catalog.setup_catalog(app)
    datasets.setup_datasets(app)
    links.setup_links(app)
    freshness.setup_freshness(app)
    copies.setup_copies(app)
    # What posts are written in.
    markup.setup_math(app)
    markup.setup_highlighting(app)
    markup.setup_uniqueids(app)
    markup.setup_scrolling(app)
    markup.setup_files(app)
    markup.setup_rawhtml(app)
    markup.setup_headings(app)
    markup.setup_option_comments(app)
    markup.setup_players(app)
    benchmark.setup_benchmark(app)
    benchmark.setup_peaks(app)
    notebooks.setup_notebooks(app)
    # Outputs, each reading the catalog.
    pages.setup_postpage(app)  # the post page, then the parts others add to it
    pages.setup_series(app)
    pages.setup_citation(app)
    pages.setup_related(app)
    pages.setup_evergreen(app)
    pages.setup_navigation(app)
    pages.setup_assettags(app)
    pages.setup_backlinks(app)
    pages.setup_glossary(app)
    pages.setup_listings(app)
    pages.setup_postlist(app)  # ablog's postlist, before ablog fills it
    pages.setup_redirects(app)
    pages.setup_ablogrefs(app)
    pages.setup_datasets(app)
    pages.setup_benchmarks(app)
    pages.setup_sidebars(app)
    feeds.setup_feeds(app)
    meta.setup_previews(app)
    meta.setup_sitemap(app)
    meta.setup_notfound(app)
    search_index.setup_search(app)
    search_stems.setup_stems(app)
    app.add_css_file("kb.css")
    return {
        "version": __version__,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
        "env_version": 12,  # bump when what kb stores in doctrees or the environment changes
    }
