"""The order kb's handlers run in, event by event, read top to bottom.

Sphinx calls the handlers of one event by priority (lower first; 500 is the default and the
priority of every upstream handler named here), then in the order they were connected, which
is the order of ``kb.setup()``. Each module connects its handlers with a name from this table,
never with a number of its own, so the order lives here, with the reason for each place.
A handler not named here runs at 500, in ``setup()``'s order.
"""

from __future__ import annotations

#: Every upstream handler (ablog, MyST, furo) and every kb handler without a name below.
DEFAULT = 500

# -- config-inited: before Sphinx unpickles the environment ------------------------------------
#: incremental.collector: the cycle collector pauses while the environment loads.
COLLECTOR_PAUSE = 0
#: core.output: the build locks its folders, before anything reads them.
LOCK_FOLDERS = 1
#: core.finding: unsafe sources (links out, FIFOs, huge files) left out before any is read.
LEAVE_OUT_UNSAFE = 300
#: core.drafts: drafts found by each post's date, then left out.
FIND_DRAFTS = 400
#: core.validation: sources Sphinx could not find by their name, left out (with ablog, which
#: matches the posts at DEFAULT).
LEAVE_OUT_UNFINDABLE = DEFAULT
#: core.finding: a post's own folder, once ablog has matched the posts.
LEAVE_OUT_COMPANIONS = 600
#: core.output: kb serve's standby waits for the environment the last build saves, once the
#: sources are scanned, and before finding.has_saved_environment asks whether there is one.
WAIT_FOR_SAVED_ENVIRONMENT = 800
#: core.finding: what is left out joins exclude_patterns while Sphinx finds files; and
#: core.configvalues: the values Sphinx compares with the last build's, made stable.
AFTER_LEAVING_OUT = 900

# -- builder-inited: the environment is loaded -------------------------------------------------
#: incremental.collector: the collector resumes; core.state: the environment's state is ready.
ENVIRONMENT_LOADED = 0
#: core.state: kb's settings read.
READ_SETTINGS = 100
#: core.output: kb serve's standby, which loaded the environment while the last build
#: finished, makes what it can of that environment alone until the build ends, with the
#: settings read; then takes the lock it did not take at config-inited, before any handler
#: reads the build's records.
LOCK_ONCE_LOADED = 110
#: incremental.freshness: the journal opened, the build's records.
OPEN_JOURNAL = 120
#: core.output: the builder writes whole pages, before any handler could make it write one.
WHOLE_PAGES = 150
#: core.configvalues: after sphinx-copybutton has added its static folder (DEFAULT).
AFTER_EXTENSIONS_INITED = 900

# -- env-get-outdated ------------------------------------------------------------------------
#: core.finding: Sphinx has found the files; exclude_patterns is given back before any other
#: handler looks at it.
FILES_FOUND = 0

# -- env-before-read-docs ------------------------------------------------------------------------
#: incremental.freshness: last, after every handler that adds documents to read.
LAST_TO_ADD_READS = 999
#: incremental.collector: the documents to read counted, once every handler has added its own.
COUNT_READS = 1000

# -- env-purge-doc: before a document is read (Sphinx has not made its new doctree yet) --------
#: incremental.doctrees: the last doctree read dropped from memory past the limit, first.
DROP_DOCTREE_READ = 0
#: incremental.collector: what the last document left, collected, then frozen; after the
#: drop, so that a doctree dropped is collected and not frozen.
FREEZE_DOCUMENT_READ = 1

# -- doctree-read: a document was just read ----------------------------------------------------
#: markup.rawhtml: raw HTML judged before ablog (DEFAULT) stores the post and its excerpt.
RAW_HTML = 400
#: core.ablog: ablog's copy of the post's doctree dropped, after ablog stored it.
AFTER_ABLOG_STORED = 550
#: core.catalog, benchmark.facts, pages.postlist: what ablog stored, read into kb's records.
READ_POST_RECORDS = 600

# -- env-updated: every document is read ---------------------------------------------------------
#: incremental.doctrees: before anything loads a doctree again.
BEFORE_DOCTREES_LOADED = 0
#: incremental.collector: what the reading made, frozen before the catalog is built.
FREEZE_WHAT_WAS_READ = 1
#: core.validation: the checks across posts, before the catalog is built from the posts.
CHECK_ACROSS_POSTS = 300
#: incremental.freshness: the pages whose links lead elsewhere now (kb.core.links), found
#: before the catalog renders the excerpts, some of them again.
FIND_RELINKED = 350
#: core.catalog: the catalog, then the event kb-catalog-built.
BUILD_CATALOG = 400
#: incremental.freshness: every page signed, after the catalog and what derives from it.
SIGN_PAGES = 700

# -- kb-catalog-built ----------------------------------------------------------------------------
#: pages.datasets: the datasets' entries, before pages.sidebars (DEFAULT) links their page.
DATASET_ENTRIES = 450

# -- missing-reference ---------------------------------------------------------------------------
#: pages.ablogrefs: before ablog's own handler (DEFAULT), which answers for each of its labels.
ABLOG_LABELS = 400

# -- doctree-resolved ----------------------------------------------------------------------------
#: pages.postlist: the list filled before ablog (DEFAULT) would fill it.
FILL_POSTLIST = 400

# -- html-page-context: a page is about to be written ------------------------------------------
#: pages.navigation: the shared navigation, before furo (DEFAULT) renders its tree.
SHARED_NAVIGATION = 400
#: pages.assettags: Sphinx's own tag makers wrapped, before any extension (DEFAULT) swaps
#: them for its own (sphinx-notfound-page on the 404 page).
SHARED_ASSET_TAGS = 400
#: meta.notfound, meta.previews: after furo and kb.pages.sidebars (DEFAULT) set the context.
AFTER_PAGE_CONTEXT = 600
#: search: last, when every other handler has finished the page's body.
SEARCH_RECORD = 950

# -- html-collect-pages ---------------------------------------------------------------------------
#: incremental.freshness: the pages of the other documents that are not there whole written,
#: first: the search indexer lists every page.
WRITE_NOT_WHOLE = 50
#: search: Pagefind starts once the documents are written, before the generated pages.
START_INDEXING = 100
#: incremental.freshness: the other documents' changed parts put in place (the related lists
#: made), while Pagefind runs: no search record changes.
PUT_PARTS_IN_PLACE = 150

# -- build-finished ------------------------------------------------------------------------------
#: search: the background indexer (kb serve) told whether the build succeeded, once every
#: handler that writes has written (its word lets it fill the search page in).
TELL_BACKGROUND_INDEXER = 990
#: core.output: the folders released, after every handler that writes.
RELEASE_FOLDERS = 999
#: incremental.collector: last of all; what is left is frozen for the process's end.
FREEZE_LEFTOVERS = 1000
