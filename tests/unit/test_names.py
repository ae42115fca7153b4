"""Names that say one thing each: no class name is defined twice in appliance/, so a name found in a
traceback, a log or a search is one class, and a protocol and what satisfies it are told apart."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path
from typing import Final


PACKAGE: Final = Path(__file__).resolve().parents[2] / "appliance"


def class_names() -> dict[str, list[str]]:
    """Every class defined in the package (nested ones too), by name: where each is defined."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found[node.name].append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return found


def test_the_package_defines_classes() -> None:
    assert {"Rings", "Timers", "TimerAnnouncement", "EngineUtterance", "QuietRoom"} <= set(class_names())


def test_no_class_name_is_defined_twice() -> None:
    twice = {name: where for name, where in class_names().items() if len(where) > 1}
    assert twice == {}, "defined more than once: " + "; ".join(
        f"{name} in {', '.join(where)}" for name, where in sorted(twice.items()))
