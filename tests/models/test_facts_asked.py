"""What a household tells the hub, and asks it after (tests/models/facts_set.py), through one `appliance ask
--file --independent --json` with the real model: every telling kept, every question about a kept fact
answered from it (the newer words where they replaced older ones, the day said for what was told days
before), "You haven't told me." where nothing told answers a question about the household, every
general look-alike the model's, and no answer about the household made up by the model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.fixtures.waits import LOAD_WAIT_S
from tests.models.facts_set import FACT, GENERAL, NOT_TOLD, QUESTIONS, REPLACING, SEEDED, STEPS, TELLINGS

NOT_TOLD_SAID = "You haven't told me."
SEEDED_DAYS = 3


@pytest.fixture(scope="module")
def asked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every telling, question and step answered in one run, in that order, on a state folder that already
    holds SEEDED, told SEEDED_DAYS days before."""
    folder = tmp_path_factory.mktemp("facts")
    state = folder / "state"
    state.mkdir()
    told = datetime.now(UTC) - timedelta(days=SEEDED_DAYS)
    (state / "facts.json").write_text(json.dumps({"version": 1, "facts": [
        {"said": said, "told": told.isoformat(timespec="seconds")} for said in SEEDED]}, indent=1), encoding="utf-8")
    config = folder / "appliance.yaml"
    # A short answer is enough: who answers is decided before the model says a word.
    config.write_text(f"llm:\n  seed: 1234\n  max_new_tokens: 16\nlogging:\n  level: WARNING\n"
                      f"service:\n  state_dir: {state}\n", encoding="utf-8")
    said = [*TELLINGS, *(q for q, _kind, _what in QUESTIONS), *(s for s, _intent in STEPS)]
    questions = folder / "said.txt"
    questions.write_text("\n".join(said) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "APPLIANCE_CONFIG"} | {"TZ": "UTC"}
    done = subprocess.run([sys.executable, "-m", "appliance.cli", "ask", "--config", str(config), "--file",
                           str(questions), "--independent", "--json"], capture_output=True, text=True,
                          timeout=LOAD_WAIT_S * 4, env=env, check=False)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["question"] for r in records] == said
    tellings, rest = records[:len(TELLINGS)], records[len(TELLINGS):]
    return {"tellings": tellings, "questions": rest[:len(QUESTIONS)], "steps": rest[len(QUESTIONS):],
            "seeded_day": told.strftime("%A"), "state": state}


def _heard(record: dict[str, Any], kind: str, what: str) -> bool:
    """Whether the answer is what a question of `kind` must get."""
    answer = " ".join(record["answer"].lower().replace(",", " ").replace(".", " ").split())
    if kind == GENERAL:
        return record["route"] == "llm"
    if kind == NOT_TOLD:
        return record["route"] == "skill" and record["answer"] == NOT_TOLD_SAID
    wanted, _, never = what.partition("!")
    return (record["route"] == "skill" and record["intent"] in ("fact_answer", "fact_recall")
            and all(" ".join(w.split()) in answer for w in wanted.split(",")) and not (never and never in answer))


def test_the_set_is_large_enough() -> None:
    kinds = Counter(kind for _q, kind, _w in QUESTIONS)
    assert len(TELLINGS) >= 60 and len(QUESTIONS) >= 120 and min(kinds.values()) >= 25, kinds


def test_every_telling_is_kept_and_confirmed_in_a_few_words(asked: dict[str, Any]) -> None:
    wrong = [(r["question"], r["intent"], r["answer"]) for r in asked["tellings"]
             if r["route"] != "skill" or r["intent"] != "fact_told" or not r["answer"].startswith("I'll remember: ")]
    assert wrong == []
    replaced = [r for r in asked["tellings"] if r["data"].get("replaced")]
    assert [r["question"] for r in replaced] == TELLINGS[-REPLACING:]


def test_each_question_gets_what_it_must_and_nothing_is_made_up(asked: dict[str, Any], capsys) -> None:
    records = asked["questions"]
    got = Counter()
    wrong = []
    for record, (question, kind, what) in zip(records, QUESTIONS, strict=True):
        ok = _heard(record, kind, what)
        got[kind, ok] += 1
        if not ok:
            wrong.append((question, kind, record["route"], record["intent"], record["answer"]))
    made_up = [r["question"] for r, (_q, kind, _w) in zip(records, QUESTIONS, strict=True)
               if kind != GENERAL and r["route"] == "llm"]
    with capsys.disabled():
        print(f"\n{len(TELLINGS)} tellings, {len(QUESTIONS)} questions: answered from what was told "
              f"{got[FACT, True]}/{got[FACT, True] + got[FACT, False]}, \"You haven't told me.\" "
              f"{got[NOT_TOLD, True]}/{got[NOT_TOLD, True] + got[NOT_TOLD, False]}, general look-alikes to the "
              f"model {got[GENERAL, True]}/{got[GENERAL, True] + got[GENERAL, False]}, made up by the model "
              f"{len(made_up)}")
    assert made_up == []
    assert wrong == []


def test_what_was_told_days_before_is_said_with_its_day(asked: dict[str, Any]) -> None:
    seeded = [r for r in asked["questions"] if r["data"].get("facts")
              and r["intent"] == "fact_answer" and r["data"]["facts"][0]["said"] in SEEDED]
    assert len(seeded) == 4, [r["question"] for r in seeded]
    for record in seeded:
        assert record["answer"].startswith(f"On {asked['seeded_day']} you told me "), record


def test_forgetting_then_asking(asked: dict[str, Any]) -> None:
    assert [(r["question"], r["intent"]) for r in asked["steps"]] == STEPS
    assert json.loads((asked["state"] / "facts.json").read_text())["facts"] == []
