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
    "tests.fixtures.fresh_setup",
    "tests.fixtures.durations",
    "tests.fixtures.alone",
]

ROOT = Path(__file__).resolve().parent.parent


BEGUN_AHEAD: Final = frozenset({"home_assistant", "satellite_venv", "fresh_set_up"})
"""Fixtures whose set-up tests/fixtures/ahead.py begins at collection: their files run last of their tier."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "minutes: takes minutes of the CPU on its own (install.sh compiling "
                                       "llama.cpp); started right after the unit tier, so the other files run beside it")


def _tier(item: pytest.Item) -> str:
    parts = Path(str(item.fspath)).relative_to(ROOT / "tests").parts
    return parts[0] if parts else ""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier from its folder, so `-m "not e2e"` selects tiers, and order the run.

    The fast tier first; then the files marked `minutes`; then the end-to-end files, which mostly wait on
    real time (a daemon listening, an alarm's minute), one by one between the model files, which keep a
    core busy, so that side by side each core has work; an end-to-end file waiting on a venv begun ahead
    comes last of its tier. Whole files move, never single tests, so a file's module fixtures are made once.
    """
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        if _tier(item) in ("models", "e2e"):
            item.add_marker(getattr(pytest.mark, _tier(item)))
        files.setdefault(str(item.fspath), []).append(item)

    def kind(path: str) -> str:
        first = files[path][0]
        if any(i.get_closest_marker("minutes") is not None for i in files[path]):
            return "minutes"
        return _tier(first)

    late = {path for path, tests in files.items()
            if any(BEGUN_AHEAD & set(getattr(i, "fixturenames", ())) for i in tests)}
    e2e = sorted((p for p in files if kind(p) == "e2e"), key=lambda p: p in late)  # stable: late ones last
    models = [p for p in files if kind(p) == "models"]
    mixed = [p for pair in zip(e2e, models) for p in pair] + e2e[len(models):] + models[len(e2e):]
    ordered = ([p for p in files if kind(p) == "unit"] + [p for p in files if kind(p) == "minutes"] + mixed
               + [p for p in files if kind(p) not in ("unit", "minutes", "e2e", "models")])
    items[:] = [item for path in ordered for item in files[path]]
