"""MyST-NB's settings (``nb_*`` in ``conf.py``), declared without importing its Sphinx extension.

MyST-NB's own ``setup()`` imports its whole parser (a second and more); kb declares the same
settings from MyST-NB's configuration dataclass (a few milliseconds) and builds MyST-NB's
configuration for each build as MyST-NB's extension would, with two defaults of its own:
nothing runs (``nb_execution_mode = "off"``; a post opts in with ``kb_execute``), and no
widget scripts from another host (``nb_ipywidgets_js = {}``). The executed-notebook cache is
``_build/.jupyter_cache`` and MyST-NB's files (notebooks as read, figures) go to
``_build/jupyter_execute``, beside the output folder.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Set
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.environment.collectors import EnvironmentCollector
from sphinx.errors import ConfigError, ExtensionError

from ..core import paths
from ..core.collectors import forget, take_over

#: MyST-NB settings kb does not offer: notebooks in other text formats need parsers of their
#: own (an unknown setting is reported by Sphinx rather than ignored); the metadata key of a
#: notebook's own MyST-NB settings stays ``mystnb``, which the checks refuse in every notebook
#: (kb.checks.notebook), so no notebook can override ``nb_execution_mode``.
NOT_OFFERED = frozenset({"custom_formats", "metadata_key"})
#: kb's defaults where MyST-NB's differ.
DEFAULTS = {"execution_mode": "off", "ipywidgets_js": {}}
OUTPUT_FOLDER = "jupyter_execute"
CACHE_FOLDER = ".jupyter_cache"
CHECKPOINTS = "**/.ipynb_checkpoints"


@functools.cache
def _names() -> tuple[tuple[str, Any], ...]:
    from myst_nb.core.config import NbParserConfig  # a dataclass: milliseconds, in builds only

    return tuple(
        (name, DEFAULTS.get(name, default))
        for name, default, field in NbParserConfig().as_triple()
        if not field.metadata.get("sphinx_exclude") and name not in NOT_OFFERED
    )


def _exclude_checkpoints(app: Sphinx, config) -> None:
    # Jupyter's autosaves are notebooks too; a new list, as the default list is shared.
    if CHECKPOINTS not in config.exclude_patterns:
        config.exclude_patterns = [*config.exclude_patterns, CHECKPOINTS]


def _make_config(app: Sphinx) -> None:
    """MyST-NB's configuration for this build (what ``myst_nb.sphinx_ext`` makes)."""
    from myst_nb.core.config import NbParserConfig

    values = {name: app.config[f"nb_{name}"] for name, _ in _names()}
    try:
        config = NbParserConfig(**values)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"MyST-NB's settings (nb_* in conf.py): {error}") from error
    build = Path(app.outdir).parent
    output_folder = (build / OUTPUT_FOLDER).resolve()
    paths.note_generated_folder(app.env, output_folder)
    # MyST-NB's own attribute of the environment, undeclared in Sphinx's types.
    app.env.mystnb_config = config.copy(  # type: ignore[attr-defined]
        output_folder=str(output_folder),
        execution_cache_path=str(config.execution_cache_path or (build / CACHE_FOLDER).resolve()),
    )


class NotebookMetadataCollector(EnvironmentCollector):
    """MyST-NB keeps per-notebook data (execution reports) in ``env.nb_metadata``; its
    collector is part of the module kb imports lazily, so kb keeps that data in step with the
    documents."""

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        forget(getattr(env, "nb_metadata", {}), docname)

    def merge_other(
        self, app: Sphinx, env: BuildEnvironment, docnames: Set[str], other: BuildEnvironment
    ) -> None:
        theirs = getattr(other, "nb_metadata", {})
        ours = getattr(env, "nb_metadata", None)
        if ours is None:  # MyST-NB's own attribute of the environment, undeclared by Sphinx
            ours = env.nb_metadata = defaultdict(dict)  # type: ignore[attr-defined]
        take_over(ours, theirs, docnames)

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        """Nothing: MyST-NB writes it while the notebook is read."""


def setup_settings(app: Sphinx) -> None:
    if "myst_nb" in app.config.extensions:
        raise ExtensionError(
            "kb reads notebooks with MyST-NB itself, importing it only when a notebook is "
            'read: remove "myst_nb" from extensions in conf.py and keep "myst_parser"'
        )
    app.setup_extension("myst_parser")
    for name, default in _names():
        app.add_config_value(f"nb_{name}", default, "env", Any)
    app.connect("config-inited", _exclude_checkpoints)
    app.connect("builder-inited", _make_config)
    app.add_env_collector(NotebookMetadataCollector)
