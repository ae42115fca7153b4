"""`appliance ask` in a subprocess takes the skill route: timers kept in the state folder, no model."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

import pytest

from tests.fixtures.waits import SLOW_WAIT_S

APPLIANCE = [sys.executable, "-m", "appliance.cli"]
TIMER_S: Final = 300  # seconds: the 5 minute timer
UNIT_S: Final = {"hour": 3600, "minute": 60, "second": 1}


@pytest.fixture()
def config(tmp_path: Path) -> Path:
    """State in a tmp folder; no models anywhere, so a language-model route would fail loudly."""
    (tmp_path / "no-models").mkdir()
    path = tmp_path / "appliance.yaml"
    path.write_text(
        f"service:\n  state_dir: {tmp_path / 'state'}\n"
        f"models:\n  dir: {tmp_path / 'no-models'}\n  dev_packages: false\n",
        encoding="utf-8")
    return path


def ask(config: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_CONFIG", "JOURNAL_STREAM")}
    return subprocess.run([*APPLIANCE, "--config", str(config), "ask", *args], capture_output=True, text=True,
                          timeout=SLOW_WAIT_S, env=env, check=False)


def said_seconds(text: str) -> int:
    """'4 minutes and 55 seconds' -> 295."""
    return sum(int(n) * UNIT_S[unit] for n, unit in re.findall(r"(\d+) (hour|minute|second)s?\b", text))


def test_said_seconds_reads_spoken_durations() -> None:
    assert said_seconds("4 minutes and 55 seconds") == 295
    assert said_seconds("5 minutes") == 300 and said_seconds("1 minute and 1 second") == 61


def test_timer_request_goes_through_the_skill(config: Path, tmp_path: Path) -> None:
    started = time.monotonic()
    out = ask(config, "--json", "set a timer for 5 minutes")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["route"] == "skill"
    assert record["answer"] == "Timer set for 5 minutes."
    assert record["sentences"] == ["Timer set for 5 minutes."]
    stored = json.loads((tmp_path / "state" / "timers.json").read_text())
    assert [(t["duration_s"], t["name"]) for t in stored["timers"]] == [(300.0, None)]

    # a second process reads the timer the first one kept
    left = ask(config, "--json", "how much time is left on the timer")
    elapsed_s = time.monotonic() - started
    assert left.returncode == 0, left.stderr
    record = json.loads(left.stdout)
    assert record["route"] == "skill"
    said = re.fullmatch(r"Your 5 minute timer has (.+) left\.", record["answer"])
    assert said, record["answer"]
    # The timer runs on the clock between the two processes: 5 minutes less the time since it was set,
    # which is at most the time measured around both of them here (said to the second).
    assert TIMER_S - elapsed_s - 1 <= said_seconds(said[1]) <= TIMER_S, (record["answer"], elapsed_s)

    cancelled = ask(config, "cancel the timer")
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout.strip() == "5 minute timer cancelled."
    assert json.loads((tmp_path / "state" / "timers.json").read_text())["timers"] == []


def test_several_questions_from_a_file_share_one_skill_state(config: Path, tmp_path: Path) -> None:
    questions = tmp_path / "q.txt"
    questions.write_text("set a pasta timer\neight minutes\nwhat timers do I have\nwhat day is it\n")
    out = ask(config, "--json", "--file", str(questions))
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["route"] for r in records] == ["skill"] * 4
    assert records[0]["answer"].endswith("?")
    assert records[1]["answer"] == "Pasta timer set for 8 minutes."
    assert records[2]["answer"].startswith("Your pasta timer has ")
    assert records[3]["answer"].startswith("It's ") and records[3]["answer"].endswith("day.")
