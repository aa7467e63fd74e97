"""The ground floor of the build: posts become one catalog that every output reads.

:mod:`.ablog` is the only module that knows ablog; :mod:`.catalog` turns what it read into
the records of :mod:`.posts` (one per post, series grouped once) and announces them with the
``kb-catalog-built`` event; :mod:`.validation` runs the checks inside the build;
:mod:`.fragments` writes excerpts once; :mod:`.freshness` decides what an incremental build
rewrites; :mod:`.urls` and :mod:`.fileio` know where files go and how to write them whole;
:mod:`.compat` holds the little that needs another package's internals; :mod:`.collector` keeps
Python's cycle collector off the objects that live for the whole build and :mod:`.doctrees`
bounds how many read doctrees wait in memory for the writing phase; :mod:`.templatecache`
keeps compiled templates between builds.
"""
