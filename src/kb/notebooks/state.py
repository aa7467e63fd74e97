"""What the notebook parser and renderer share: the file type of ``.ipynb`` sources and the
notebooks whose reading warned (kept in the environment)."""

from __future__ import annotations

#: The file type Sphinx gives ``.ipynb`` sources.
NOTEBOOK_FILETYPE = "jupyter_notebook"


def flawed(env) -> set[str]:
    """Notebooks whose reading warned: read again by every build until fixed, so that a
    second ``sphinx-build -W`` cannot pass on a warning it no longer shows."""
    if not hasattr(env, "kb_notebooks_flawed"):
        env.kb_notebooks_flawed = set()
    return env.kb_notebooks_flawed
