"""Pin each direct dependency of pyproject.toml to the oldest or newest version it allows.

``python .ci/constraints.py oldest`` prints ``name==lower-bound`` for every dependency (and
the test extras) that declares a lower bound; ``latest`` prints nothing to pin, so pip takes
the newest releases the ranges allow. ``make test-oldest`` and ``make test-latest`` install
with these constraints into virtual environments of their own and run the whole suite.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
_NAME = re.compile(r"^\s*([A-Za-z0-9_.-]+)")
_LOWER = re.compile(r">=\s*([^,;\s]+)")


def requirements() -> list[str]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["test"]]


def oldest(specs: list[str]) -> list[str]:
    """``name==lower bound`` for each requirement that has one."""
    pins = {}
    for spec in specs:
        lower = _LOWER.search(spec)
        if lower:
            pins[_NAME.match(spec).group(1).lower()] = lower.group(1)
    return [f"{name}=={version}" for name, version in sorted(pins.items())]


def main(which: str) -> int:
    if which not in ("oldest", "latest"):
        print("usage: constraints.py oldest|latest", file=sys.stderr)
        return 2
    if which == "oldest":
        print("\n".join(oldest(requirements())))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2] or [""]))
