"""The typed build state: everything kb keeps for one build, declared in one place.

Two objects, each one attribute of an object Sphinx owns:

* :class:`BuildState` on the application (``build_state(app)``): made by kb's ``setup()``,
  so every Sphinx application (a second build in one process, as the tests make) starts with
  a fresh one; never pickled. Most of it is made again at an event of each build (the comment
  of each field says which), as it was when these were attributes of the application.
* :class:`EnvState` in Sphinx's environment (``env_state(env)``): what is read from sources
  and must survive between builds, pickled with the environment. Each table is per document;
  a collector (:mod:`.collectors`) in the module named in its comment removes a document's
  entry (``clear_doc``) and copies it from a parallel reader (``merge_other``).

:func:`build_state` and :func:`env_state` are the only way modules reach them; nothing hangs
undeclared attributes on the application, the environment or the builder
(``tests/test_state.py``). Each field says who writes it and who reads it. The types it names
are plain records below it (:mod:`.records`), so the import graph still points down and has
no circle.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ..config import KbConfig, read_config
from ..upstream.sphinx_read import AnsweredAhead
from . import events
from .fileio import BackgroundWrites
from .journal import Journal
from .posts import Catalog, Post
from .records import (
    CheckedAhead,
    DatasetEntry,
    DocumentDatasets,
    LinkedBefore,
    ListingPage,
    NotebookRecord,
    Outgoing,
    PagePart,
    PostPart,
    PostsByDocument,
    PostSource,
    Region,
    SearchRun,
    Signer,
)

#: The attribute of the application and of the environment that holds kb's state.
_ATTRIBUTE = "kb"

#: A freshness record (``kb.core.journal``): section ("docs", "parts", "pages", "regions",
#: "files") -> key -> signature.
Record = dict[str, dict[str, Any]]


@dataclass(eq=False)
class BuildState:
    """What kb keeps for one build, on the application."""

    # -- Settings, locks and the collector (config-inited, builder-inited) ----------------------
    # core.state at builder-inited (priority 100, read_config); every feature reads .config.
    settings: KbConfig | None = None
    # core.output at config-inited (first handler); core.output releases them at build-finished,
    # cli.buildworker hands them on (held_descriptors).
    locks: list[Path] = field(default_factory=list)
    # incremental.collector at config-inited (before the environment loads); read at builder-inited.
    collector_was_enabled: bool = True
    # incremental.collector at config-inited (whether this build freezes what it keeps: the
    # process's first build does); read at builder-inited and build-finished.
    collector_freezes: bool = False
    # incremental.collector at env-before-read-docs: whether it also freezes as the build reads
    # (a build that reads many documents).
    collector_freezes_reading: bool = False

    # -- Sources left out of the build (config-inited, env-before-read-docs) ------------------
    # core.finding.leave_out (config-inited: finding, drafts, validation); finding._exclude and
    # validation's checks across posts read it.
    left_out: list[str] = field(default_factory=list)
    # core.finding: exclude_patterns as conf.py set it, while the left-out names join the
    # setting (builder-inited to the first env-get-outdated); None outside that window.
    configured_excludes: list[str] | None = None
    # core.drafts at config-inited; core.validation checks them at env-updated.
    draft_sources: list[str] = field(default_factory=list)
    # core.finding at config-inited: the sources refused unread (links out, FIFOs, too large,
    # a second file of one page), each reported at its line 1; the drafts' checks skip them.
    refused_sources: set[str] = field(default_factory=set)
    # core.finding.scanned, by each config-inited step that reads the contents of the source
    # folder (unsafe sources, drafts, a post's companion files): the scan, and what it found.
    # kb serve's prepared application is used only if each finds the same again
    # (incremental.standby).
    source_scans: dict[str, tuple[Callable[[], Any], Any]] = field(default_factory=dict)
    # core.validation: every post file ablog finds, looked for once per build (config-inited).
    post_files: list[str] | None = None
    # core.validation at env-before-read-docs (sources it could not decode); its link checks.
    unread_docs: set[str] = field(default_factory=set)
    # core.validation at env-updated (300): the old addresses the checks accepted, by docname;
    # core.catalog reads them building the catalog (400).
    allowed_redirects: dict[str, set[str]] = field(default_factory=dict)
    # core.validation, in kb serve's standby before the change (check_across_posts_ahead): the
    # checks across posts of the posts before it, taken by the build where nothing they read
    # changed. A kb.core.validation.SiteChecksAhead, typed Any: that module imports this one.
    site_checks_ahead: Any = None

    # core.fragments: docutils settings for fragment documents (excerpts), made when first
    # asked; read by every fragment it renders.
    writer_settings: Any = None

    # -- The catalog (env-updated, 400) ----------------------------------------------------------
    # core.catalog; every output reads it (get_catalog, has_catalog).
    catalog: Catalog | None = None
    # core.catalog, in kb serve's standby before the change (make_ahead): the posts' records
    # made ahead, taken (and dropped) by the build's catalog. A kb.core.catalog.CatalogAhead,
    # typed Any: that module imports this one, and the imports point down.
    catalog_ahead: Any = None
    # kb serve's standby before the change (kb.cli.buildworker.work_ahead): Sphinx's questions
    # before the read, answered; incremental.standby tells them what changed since, and the
    # standby's build asks them.
    questions_ahead: AnsweredAhead | None = None
    # pages.related, in kb serve's standby before the change (make_ahead): what the related
    # lists choose from, taken once (RelatedAhead.take) by the build. A RelatedAhead, typed Any:
    # pages imports core.
    related_ahead: Any = None

    # -- Freshness (kb.incremental.freshness) -------------------------------------------------
    # Outputs' add_signer in their setup; freshness signs every document with them (env-updated).
    signers: list[Signer] = field(default_factory=list)
    # Outputs' add_page_part in their setup; freshness signs and refreshes them.
    page_parts: list[PagePart] = field(default_factory=list)
    # Outputs' set_region at kb-catalog-built (reset at builder-inited); freshness.
    regions: dict[str, Region] = field(default_factory=dict)
    # Outputs' set_site_signature at kb-catalog-built (reset at builder-inited); freshness.
    site_signatures: dict[str, str] = field(default_factory=dict)
    # freshness in kb serve's standby before the change: the documents' doctrees and pages, as
    # it found them (the build's check before the read and its signing take them).
    checked_ahead: CheckedAhead | None = None
    # freshness at env-before-read-docs: the documents Sphinx reads (and so writes) this build.
    docs_read: set[str] = field(default_factory=set)
    # freshness at env-get-outdated: the documents this build removes from the environment.
    docs_removed: set[str] = field(default_factory=set)
    # freshness at env-get-outdated: where links led before this build's reading
    # (kb.core.links.links_before), for the pages whose links now lead elsewhere.
    links_before: LinkedBefore | None = None
    # freshness at env-updated: the documents not read whose links now lead elsewhere.
    relinked: set[str] = field(default_factory=set)
    # incremental.copies at env-get-outdated: the images and downloads the environment listed
    # before removed documents were purged; compared and cleared at env-updated.
    copies_before: set[str] | None = None
    # freshness at env-updated: the documents whose pages are kept, not written by Sphinx
    # (their parts and regions put in place at html-collect-pages, after the written ones).
    pages_to_keep: list[str] = field(default_factory=list)
    # freshness at env-updated: regions whose signature changed; put into kept pages.
    changed_regions: list[Region] = field(default_factory=list)
    # freshness at builder-inited; its in-place refreshes, waited for at build-finished.
    background_writes: BackgroundWrites | None = None
    # freshness at builder-inited; freshness and core.output's whole-page builder begin it.
    journal: Journal | None = None
    # freshness at env-updated: the last successful build's record (for removing gone pages).
    state_previous: Record | None = None
    # freshness at env-updated: the record pages are compared with (empty when distrusted).
    state_old: Record = field(default_factory=dict)
    # freshness at env-updated, filled by should_write and is_current; committed at the end.
    state_new: Record | None = None
    # freshness at env-updated: what every page's signature starts with (page_signature).
    base_signature: str = ""
    # What features keep between builds in the state file (kb.core.journal), by section:
    # markup.math (builder-inited) and pages.related (kb-catalog-built) put what makes their
    # section; freshness asks each at build-finished and commits them with its record. The
    # last build's section is journal.kept(name). Reset at builder-inited.
    kept_sections: dict[str, Callable[[], Any]] = field(default_factory=dict)

    # -- Outputs, each its own (kb-catalog-built unless said) ----------------------------------
    # pages.postpage.add_post_part in outputs' setup; pages.postpage at doctree-resolved.
    post_parts: list[PostPart] = field(default_factory=list)
    # pages.listings: every listing page by docname, made when first asked for (listing_pages);
    # listings, redirects, ablogrefs read it.
    listing_pages: dict[str, ListingPage] | None = None
    # pages.related: each post's related posts; related's signer, page part and post part.
    related: PostsByDocument = field(default_factory=dict[str, list[Post]])
    # pages.glossary: the posts that link each term; glossary's signer and entries.
    term_uses: dict[str, list[Post]] = field(default_factory=dict)
    # pages.glossary: the documents that define a term; glossary's signer and entries.
    glossary_docs: set[str] = field(default_factory=set)
    # pages.backlinks: the posts that link each document; backlinks' part.
    backlinks: dict[str, list[Post]] = field(default_factory=dict)
    # pages.sidebars: the blog sidebar's lists, links from the root (None before
    # kb-catalog-built, "" with no sidebar); written to its shared file.
    sidebar_html: str | None = None
    # pages.sidebars: what every page holds of the sidebar (its headings and "All …" links),
    # with kb's markers; its page context.
    sidebar_outline: str = ""
    # pages.sidebars: the outline relocated for each depth of page, made as pages ask.
    sidebar_by_prefix: dict[str, str] = field(default_factory=dict)
    # pages.navigation at html-page-context: the documents in the toctree (None until asked).
    navigation_in_tree: set[str] | None = None
    # pages.navigation at html-page-context: the toctree rendered once per folder and options.
    navigation_rendered: dict[tuple[str, tuple[tuple[str, Any], ...]], str] = field(
        default_factory=dict
    )
    # pages.assettags at html-page-context: each stylesheet and script tag, by folder.
    asset_tags: dict[tuple, str] = field(default_factory=dict)
    # pages.datasets: the site's dataset catalog; pages.datasets and pages.benchmarks.
    dataset_entries: list[DatasetEntry] = field(default_factory=list)
    # pages.redirects at html-collect-pages: the old addresses' pages; meta.sitemap leaves
    # them out.
    old_address_pages: set[str] = field(default_factory=set)
    # feeds: each feed's title by path (None before kb-catalog-built); feeds' page context.
    feed_titles: dict[str, str] | None = None
    # feeds: the feed path of each archive with a feed of its own, by the archive's docname.
    feed_archives: dict[str, str] = field(default_factory=dict)
    # feeds: each feed's kind (tag, category, ...) by path; feeds' subscribe line.
    feed_kinds: dict[str, str] = field(default_factory=dict)
    # search.index at env-updated (or build-finished): the pages Pagefind indexes.
    search_sources: dict[str, str] = field(default_factory=dict)
    # search.index at env-updated: Pagefind running beside the writes; waited for at the end.
    search_run: SearchRun | None = None
    # search.index at html-collect-pages (kb_search_defer): the pipe on which build-finished
    # tells the background indexer whether the build succeeded.
    search_go: int | None = None
    # markup.mystlog at builder-inited: filters on MyST's logger (markup.headings,
    # markup.optioncomments), removed at build-finished.
    myst_filters: list[logging.Filter] = field(default_factory=list)
    # meta.sitemap at html-page-context (reset at builder-inited): every page written.
    sitemap_seen: set[str] = field(default_factory=set)

    @property
    def config(self) -> KbConfig:
        """kb's settings, read at ``builder-inited``."""
        if self.settings is None:
            raise RuntimeError("kb's settings are read at builder-inited")
        return self.settings


@dataclass(eq=False)
class EnvState:
    """What kb keeps in Sphinx's environment, per document, between builds."""

    # core.catalog at doctree-read (purged, merged); the catalog, validation, search.marking.
    posts: dict[str, PostSource] = field(default_factory=dict)
    # core.catalog: each post's excerpt HTML, rendered once per reading (purged; not merged:
    # made at env-updated, after the merge).
    excerpts: dict[str, str] = field(default_factory=dict)
    # core.validation at env-updated (per build, not per document): links its checks reported;
    # its ReportedLinksAsText post-transform (a transform reaches env, not app) reads them.
    reported_links: dict[str, set[str]] = field(default_factory=dict)
    # core.datasets.record while a benchmark figure is read (purged, merged); pages.datasets,
    # pages.benchmarks, benchmark.compare.
    datasets: dict[str, DocumentDatasets] = field(default_factory=dict)
    # core.links' EnvironmentCollector (clear_doc, merge_other); backlinks, glossary.
    links: dict[str, Outgoing] = field(default_factory=dict)
    # notebooks.download at doctree-read (purged, merged); its downloads and page context.
    notebooks: dict[str, NotebookRecord] = field(default_factory=dict)
    # notebooks.parser: notebooks whose reading warned (purged, merged); read again each build.
    flawed_notebooks: set[str] = field(default_factory=set)
    # core.paths.read_again while a document is read: a file it names was refused (purged,
    # merged); read again on every build, so the warning stays until it is fixed.
    read_again: set[str] = field(default_factory=set)
    # pages.postlist at doctree-read: documents with ablog's postlist (purged, merged).
    postlist_docs: set[str] = field(default_factory=set)
    # pages.listings' latest-posts directive (purged, merged): each list's count as written
    # (0: the site's kb_home_posts), by document; its signer.
    latest_docs: dict[str, list[int]] = field(default_factory=dict)
    # pages.related at doctree-read: each document's most frequent words (purged, merged).
    related_terms: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    # pages.related: a signature of each document's terms (purged; merged with the terms).
    related_signs: dict[str, str] = field(default_factory=dict)

    def __getstate__(self) -> dict:
        """What is pickled: the same, each (word, count) pair of the documents' terms as one
        object however many documents keep it (the pickle then writes it again as a reference
        to the first, and loads it as one object). At 10,000 posts (the benchmark's posts, 233
        words and 1334 pairs in 400,000) the terms pickled in 0.22 s and loaded in 0.13 s;
        shared, in 0.008 s and 0.006 s, for 0.06 s of sharing: ``kb serve`` pickles and loads
        the environment on every save (``benchmarks/RESULTS.md``, thirteenth stop)."""
        pairs: dict[tuple[str, int], tuple[str, int]] = {}
        share = pairs.setdefault
        terms = {
            document: tuple([share(pair, pair) for pair in kept])
            for document, kept in self.related_terms.items()
        }
        return {**self.__dict__, "related_terms": terms}


def build_state(app: Sphinx) -> BuildState:
    """This build's state (made by :func:`setup_state`, from kb's ``setup()``)."""
    state = getattr(app, _ATTRIBUTE, None)
    if not isinstance(state, BuildState):
        raise RuntimeError("kb's build state is made by kb's setup(): is kb an extension?")
    return state


def env_state(env: BuildEnvironment) -> EnvState:
    """kb's part of the environment; an environment Sphinx has just made gets an empty one."""
    state = getattr(env, _ATTRIBUTE, None)
    if not isinstance(state, EnvState):
        state = EnvState()
        setattr(env, _ATTRIBUTE, state)
    return state


def _read_settings(app: Sphinx) -> None:
    build_state(app).settings = read_config(app.config)


def _environment_ready(app: Sphinx) -> None:
    env_state(app.env)  # a fresh environment gets its (empty) state before anything reads


def setup_state(app: Sphinx) -> None:
    """Give the application a fresh build state; call first in kb's ``setup()``."""
    setattr(app, _ATTRIBUTE, BuildState())
    # Settings are checked once the configuration is final (a ConfigError stops the build).
    app.connect("builder-inited", _read_settings, priority=events.READ_SETTINGS)
    app.connect("builder-inited", _environment_ready, priority=events.ENVIRONMENT_LOADED)
