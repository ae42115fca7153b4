"""`appliance ask` in a subprocess keeps the lists on the hub without Home Assistant: one process puts
things on, the next reads them back from the state folder, and --json shows what the skill did.

No models are installed: a question that missed the skill and went to the model would fail loudly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.waits import SLOW_WAIT_S

APPLIANCE = [sys.executable, "-m", "appliance.cli"]


@pytest.fixture()
def config(tmp_path: Path) -> Path:
    (tmp_path / "no-models").mkdir()
    path = tmp_path / "appliance.yaml"
    path.write_text(f"service:\n  state_dir: {tmp_path / 'state'}\n"
                    f"models:\n  dir: {tmp_path / 'no-models'}\n  dev_packages: false\n", encoding="utf-8")
    return path


def ask(config: Path, *args: str) -> list[dict[str, Any]]:
    """`appliance ask --json`: one record per question."""
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_CONFIG", "JOURNAL_STREAM")}
    done = subprocess.run([*APPLIANCE, "--config", str(config), "ask", "--json", *args], capture_output=True,
                          text=True, timeout=SLOW_WAIT_S, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_one_process_adds_milk_and_the_next_reads_it_back(config: Path, tmp_path: Path) -> None:
    [added] = ask(config, "add milk to my shopping list")
    assert (added["route"], added["intent"], added["answer"]) == ("skill", "list_add",
                                                                   "I've added milk to your shopping list.")
    assert added["data"] == {"list": "shopping", "kept": "here", "added": ["milk"], "already": []}
    stored = json.loads((tmp_path / "state" / "lists.json").read_text())
    assert stored["lists"] == {"shopping": {"items": [{"text": "milk"}]}}
    [read] = ask(config, "what's on my shopping list")
    assert (read["intent"], read["answer"]) == ("list_read", "You have one thing on your shopping list: milk.")


def test_questions_from_a_file_share_the_lists(config: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text("Add eggs, bread and butter to the shopping list.\n"
                         "Take bread off my list.\n"
                         "Make a note to call the plumber.\n"
                         "Is butter on my shopping list?\n"
                         "Read my notes.\n"
                         "How many things are on my shopping list?\n", encoding="utf-8")
    records = ask(config, "--file", str(questions))
    assert [r["answer"] for r in records] == [
        "I've added eggs, bread and butter to your shopping list.",
        "I've taken bread off your shopping list.",
        "Noted: call the plumber.",
        "Yes, your shopping list has butter.",
        "You have one note. Call the plumber.",
        "You have 2 things on your shopping list.",
    ]
    assert [r["intent"] for r in records] == ["list_add", "list_remove", "list_add", "list_has", "list_read",
                                              "list_count"]
