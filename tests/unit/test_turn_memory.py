"""Freed heap goes back to the system after every turn (a long day of turns must not creep up)."""

from __future__ import annotations

import sys

import pytest

from appliance.conversation import conductor, turn
from tests.fixtures.fakes import Harness


def test_release_memory_reaches_glibc_malloc_trim() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("malloc_trim is glibc's")
    assert turn._malloc_trim() is not None  # noqa: SLF001
    turn.release_memory()  # must not raise; returns nothing


def test_every_finished_turn_releases_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[None] = []
    monkeypatch.setattr(conductor, "release_memory", lambda: calls.append(None))
    h = Harness()
    h.ask()
    h.wait_idle()
    assert len(h.records) == 1 and len(calls) == 1
    h.ask()
    h.wait_idle()
    assert len(h.records) == 2 and len(calls) == 2
