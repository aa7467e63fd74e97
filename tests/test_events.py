"""The order of kb's handlers lives in one table (kb.core.events): no module connects a handler
with a priority of its own, and the table reads top to bottom in the order it runs."""

from __future__ import annotations

import ast
from pathlib import Path

from kb.core import events

SOURCE = Path(events.__file__).parent.parent


def _numeric_priorities() -> list[str]:
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr != "connect":
                continue
            for keyword in node.keywords:
                if keyword.arg == "priority" and not isinstance(keyword.value, ast.Attribute):
                    found.append(f"{path.relative_to(SOURCE)}:{node.lineno}")
    return found


def test_every_priority_is_a_name_of_the_table() -> None:
    assert _numeric_priorities() == []


def test_the_table_reads_in_the_order_it_runs() -> None:
    # Within each event's section, the names come in the order of their priorities.
    text = Path(events.__file__).read_text(encoding="utf-8")
    for section in text.split("\n# -- ")[1:]:
        values = [
            getattr(events, line.split(" = ")[0])
            for line in section.splitlines()
            if " = " in line and line.split(" = ")[0].isupper()
        ]
        assert values == sorted(values), section.splitlines()[0]
