"""furo's code colours, which furo writes at the very end of a build.

Sphinx writes its own ``_static/pygments.css`` when it copies the static files (before the
pages), and furo writes its light-and-dark one over it at ``build-finished``. ``kb serve``
shows the edited pages before the build has finished (:mod:`kb.cli.reloads`): it writes
furo's file first, so that the page is shown with the colours the finished build gives it.
"""

from __future__ import annotations

from typing import Any


def pygments_stylesheet(app: Any) -> str | None:
    """The ``pygments.css`` furo writes at the end of ``app``'s build (furo's module-level
    ``get_pygments_stylesheet``, which its ``build-finished`` handler writes), or None when
    the build's theme is not furo."""
    if getattr(app.config, "html_theme", None) != "furo":
        return None
    import furo

    return furo.get_pygments_stylesheet()
