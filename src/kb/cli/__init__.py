"""The ``kb`` command: ``kb new``, ``kb check``, ``kb serve`` (:mod:`.main`), over the site on
disk as :mod:`.site` reads it, without a build."""

from .main import main

__all__ = ["main"]
