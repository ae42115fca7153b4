"""Test tiers by folder (unit, models, e2e) and the shared session fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = [
    "tests.fixtures.speech",
    "tests.fixtures.pulse",
    "tests.fixtures.journal",
    "tests.fixtures.llm",
    "tests.fixtures.tts",
    "tests.fixtures.home_assistant",
    "tests.fixtures.wyoming_satellite",
]

ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier from its folder, so `-m "not e2e"` selects tiers."""
    for item in items:
        parts = Path(str(item.fspath)).relative_to(ROOT / "tests").parts
        if parts and parts[0] in ("models", "e2e"):
            item.add_marker(getattr(pytest.mark, parts[0]))
