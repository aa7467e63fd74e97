"""What makes a rebuild cheap, in one place: which pages may be kept and which parts of a
written page are replaced in place (:mod:`.freshness`, with the journal of
:mod:`kb.core.journal` that makes a stopped build harmless), compiled templates kept between
builds (:mod:`.templatecache`), the cycle collector kept off the objects a build keeps
(:mod:`.collector`), the doctrees a clean build holds in memory (:mod:`.doctrees`)
and each document's table of contents kept pickled on its own (:mod:`.tocs`).

One state file: ``kb-state.json`` in the doctree folder holds the pages' record and every
section a feature keeps between builds (``BuildState.kept_sections``), replaced whole when a
build finishes (:mod:`kb.core.journal`).

One switch: ``kb_incremental = False`` reuses nothing an earlier build wrote but Sphinx's own
environment (every page written, as a clean build writes it). This floor sits above
``core/`` (it reads the typed build state) and below the outputs, which tell freshness what
each page shows of the catalog.
"""
