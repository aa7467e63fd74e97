"""Each document's table of contents kept pickled between builds
(:class:`kb.upstream.sphinx_tocs.PickledTocs`): a build that writes a few pages unpickles
only their tocs, and pickles again only those it read or set, where Sphinx's dictionary made
every build pickle and unpickle them all (at 10,000 posts, half of the time to pickle the
environment and 40% of the time to load it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..upstream.sphinx_tocs import keep_tocs_pickled

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def _builder_inited(app: Sphinx) -> None:
    # The environment is loaded or new (Sphinx.__init__: _init_env, then _init_builder), and
    # nothing has read a document yet.
    keep_tocs_pickled(app.env)


def setup_tocs(app: Sphinx) -> None:
    app.connect("builder-inited", _builder_inited)
