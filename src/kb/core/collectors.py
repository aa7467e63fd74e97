"""kb's per-document tables, purged and merged by Sphinx's collector machinery.

Every table of :class:`~.state.EnvState` is per document: a dict keyed by docname, or a set of
docnames. When Sphinx removes a document or reads it again it calls each collector's
``clear_doc``; after a parallel read it calls ``merge_other`` with the documents a worker read
and that worker's environment. :class:`DocumentTables` does both for the tables a subclass
names, so a module that keeps per-document data declares a collector of a few lines and
registers it with ``app.add_env_collector`` (Sphinx's public API, as MyST-NB does), instead of
connecting ``env-purge-doc`` and ``env-merge-info`` by hand (``tests/test_state.py`` checks
that no module does). :func:`forget` and :func:`take_over` serve a collector of data kept
elsewhere (another package's attribute of the environment).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Set
from typing import Any, ClassVar

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.environment.collectors import EnvironmentCollector

from .state import EnvState, env_state

#: A per-document table: entries keyed by docname, or the docnames themselves.
Table = dict[str, Any] | set[str]


def forget(table: Table, docname: str) -> None:
    """Remove ``docname``'s entry (or membership) from a per-document table."""
    if isinstance(table, dict):
        table.pop(docname, None)
    else:
        table.discard(docname)


def take_over(mine: Table, theirs: Table, docnames: Set[str]) -> None:
    """Copy into ``mine`` what a parallel reader's table holds of ``docnames``, and nothing of
    the other documents (theirs are stale copies of ours)."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for docname in docnames:
            if docname in theirs:
                mine[docname] = theirs[docname]
    elif isinstance(mine, set) and isinstance(theirs, set):
        mine.update(theirs & set(docnames))
    else:
        raise TypeError(f"tables of different kinds: {type(mine)} and {type(theirs)}")


class DocumentTables(EnvironmentCollector):
    """Purges and merges per-document tables of :class:`~.state.EnvState`, named by field.

    ``purged``: the tables a removed (or changed) document's entry leaves. ``merged``: the
    tables copied from a parallel reader, by default the purged ones; a table made after the
    merge is purged and not merged. The tables are written where the data is read (a directive,
    a ``doctree-read`` handler) unless a subclass writes them in :meth:`process_doc`.
    """

    purged: ClassVar[tuple[str, ...]] = ()
    merged: ClassVar[tuple[str, ...] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = {field.name for field in dataclasses.fields(EnvState)}
        unknown = (set(cls.purged) | set(cls.merged or ())) - fields
        if unknown:
            raise TypeError(f"{cls.__name__}: no EnvState table {', '.join(sorted(unknown))}")

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        state = env_state(env)
        for name in self.purged:
            forget(getattr(state, name), docname)

    def merge_other(
        self, app: Sphinx, env: BuildEnvironment, docnames: Set[str], other: BuildEnvironment
    ) -> None:
        mine, theirs = env_state(env), env_state(other)
        for name in self.purged if self.merged is None else self.merged:
            take_over(getattr(mine, name), getattr(theirs, name), docnames)

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        """Nothing by default: the tables are written where their data is read."""
