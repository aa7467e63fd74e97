"""Pygments' lexers with their rules compiled, which a forked build inherits.

A ``RegexLexer`` class compiles its token rules (dozens of regular expressions) the first time
it is made, into the class's own ``_tokens`` (``RegexLexerMeta.__call__``). ``kb serve`` forks
each build from a warm worker (:mod:`kb.cli.buildworker`), which never highlights code itself:
every build compiled Python's rules again, and those of each other language its pages show.
The worker now compiles the lexers its builds compiled, once, and each later build inherits
them compiled.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any


def compiled_lexers() -> list[str]:
    """The regular-expression lexer classes this process has compiled, as ``module:Class``
    (none when Pygments is not imported)."""
    if "pygments.lexer" not in sys.modules:
        return []
    from pygments.lexer import RegexLexer

    found, pending, seen = [], [RegexLexer], set()
    while pending:
        for subclass in pending.pop().__subclasses__():
            if subclass in seen:
                continue
            seen.add(subclass)
            pending.append(subclass)
            named = "<locals>" not in subclass.__qualname__  # one the worker can find again
            if named and "_tokens" in subclass.__dict__:
                found.append(f"{subclass.__module__}:{subclass.__qualname__}")
    return sorted(found)


def compile_lexers(names: list[str]) -> bool:
    """Compile the rules of each lexer named as :func:`compiled_lexers` names them, by making
    one; True if one was not compiled yet. A lexer that cannot be found or made here is left
    to the build, which makes it as before."""
    compiled = False
    for name in names:
        module_name, _, qualname = name.partition(":")
        try:
            found: Any = importlib.import_module(module_name)
            for part in qualname.split("."):
                found = getattr(found, part)
            if "_tokens" not in found.__dict__:
                found()
                compiled = True
        except Exception:  # noqa: BLE001  (only a head start: the build reports its own errors)
            continue
    return compiled
