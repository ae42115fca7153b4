"""Test tiers by folder (unit, models, e2e) and the shared session fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

pytest_plugins = [
    "tests.fixtures.speech",
    "tests.fixtures.pulse",
    "tests.fixtures.journal",
    "tests.fixtures.llm",
    "tests.fixtures.tts",
    "tests.fixtures.home_assistant",
    "tests.fixtures.wyoming_satellite",
    "tests.fixtures.debian_root",
    "tests.fixtures.durations",
    "tests.fixtures.alone",
]

ROOT = Path(__file__).resolve().parent.parent


TIERS: Final = ("unit", "models", "e2e")
BEGUN_AHEAD: Final = frozenset({"home_assistant", "satellite_venv", "debian_root"})
"""Fixtures whose set-up tests/fixtures/ahead.py begins at collection: their tests run last, by when it is done."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier from its folder, so `-m "not e2e"` selects tiers; run the fast tiers
    first, and last the tests whose set-up was begun ahead, so that it runs beside the others."""
    def tier(item: pytest.Item) -> str:
        parts = Path(str(item.fspath)).relative_to(ROOT / "tests").parts
        return parts[0] if parts else ""

    for item in items:
        if tier(item) in ("models", "e2e"):
            item.add_marker(getattr(pytest.mark, tier(item)))
    # Whole files move, never single tests, so a file's module fixtures are still made once.
    late = {str(item.fspath) for item in items if BEGUN_AHEAD & set(getattr(item, "fixturenames", ()))}
    order = {item.nodeid: n for n, item in enumerate(items)}
    items.sort(key=lambda item: (TIERS.index(tier(item)) if tier(item) in TIERS else len(TIERS),
                                 str(item.fspath) in late, order[item.nodeid]))
