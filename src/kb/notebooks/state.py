"""What the notebook parser and renderer share: the file type of ``.ipynb`` sources and the
notebooks whose reading warned (kept in the environment)."""

from __future__ import annotations

from sphinx.environment import BuildEnvironment

from ..core.state import env_state

#: The file type Sphinx gives ``.ipynb`` sources.
NOTEBOOK_FILETYPE = "jupyter_notebook"


def flawed(env: BuildEnvironment) -> set[str]:
    """Notebooks whose reading warned: read again by every build until fixed, so that a
    second ``sphinx-build -W`` cannot pass on a warning it no longer shows."""
    return env_state(env).flawed_notebooks
