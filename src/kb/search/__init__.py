"""Full-text search with Pagefind, indexed by ``sphinx-build`` itself.

:mod:`.index` marks what is searchable, keeps a small record of each searchable page and
runs Pagefind over the records (:mod:`.pagefind`; :mod:`.worker` runs it after the build for
``kb serve``; :mod:`.bundle` publishes the bundle whole and checks it before reuse);
:mod:`.stems` speeds up Sphinx's own index when ``kb_search = False``.

Nothing is imported with the package: the background worker imports only what it runs.
"""
