"""The proof list: every everyday request a kitchen speaker gets (tests/fixtures/everyday_requests.txt),
answered by `appliance ask` with the real model, without Home Assistant and the internet. No answer
claims an action that did not happen; a request to do what nothing here can gets the truth about it; a
device request gets the honest device reply; the local skills answer theirs; general questions reach
the model."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from typing import Any, Final

import pytest

from appliance.thinking import honesty
from tests.fixtures.honesty import ACT_TRUTHS, EVERYDAY_FILE, claims_action, everyday
from tests.fixtures.waits import LOAD_WAIT_S

# kind -> (route, the intents it may have) every answer of that kind must have.
EXPECTED: Final[dict[str, tuple[str, frozenset[str]]]] = {
    "time": ("skill", frozenset({"time"})),
    "date": ("skill", frozenset({"date", "day"})),
    "timer": ("skill", frozenset({"timer_set", "timer_left", "timer_list", "timer_cancel"})),
    "volume": ("skill", frozenset({"volume"})),
    "stop": ("skill", frozenset({"stop"})),
    "device": ("skill", frozenset({"no_home_assistant"})),
    "act": ("skill", frozenset({honesty.CANNOT_DO, "no_home_assistant"})),
    "internet": ("skill", frozenset({"no_internet", honesty.CANNOT_DO})),
    "general": ("llm", frozenset({""})),
    "alarm": ("skill", frozenset({"alarm_set", "alarm_list", "alarm_cancel", "alarm_clarify"})),
    "reminder": ("skill", frozenset({"reminder_set", "reminder_list", "reminder_cancel", "reminder_clarify"})),
    "list": ("skill", frozenset({"list_add", "list_remove", "list_clear", "list_read", "list_count", "list_has"})),
}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Every line of the list answered once, each on its own, as `appliance ask --json` prints it."""
    folder = tmp_path_factory.mktemp("everyday")
    config = folder / "appliance.yaml"
    config.write_text(f"llm:\n  seed: 1234\nlogging:\n  level: WARNING\nservice:\n  state_dir: {folder / 'state'}\n",
                      encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "appliance.cli", "ask", "--config", str(config),
                           "--file", str(EVERYDAY_FILE), "--independent", "--json"],
                          capture_output=True, text=True, timeout=LOAD_WAIT_S * 4, check=False)
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["question"] for r in out] == [text for text, _kind, _what in everyday()]
    return out


def test_the_list_covers_every_kind_with_at_least_150_requests() -> None:
    lines = everyday()
    kinds = Counter(kind for _text, kind, _what in lines)
    assert len(lines) >= 150 and set(kinds) == set(EXPECTED), kinds
    assert {what for _text, kind, what in lines if kind == "act"} == set(ACT_TRUTHS)


def test_no_answer_claims_an_action_that_did_not_happen(records: list[dict[str, Any]], capsys) -> None:
    # A local answer says what it did; only the model's words could claim what nobody did.
    claimed = [(r["question"], r["answer"]) for r in records if r["route"] == "llm" and claims_action(r["answer"])]
    checked = sum(1 for r in records if r["stop_reason"] == "claim")
    with capsys.disabled():
        print(f"\n{len(records)} everyday requests: {Counter(r['route'] for r in records)}; "
              f"{checked} model answers replaced by the truth for a claimed action")
    assert claimed == []


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_kind_gets_the_answer_it_should(records: list[dict[str, Any]], kind: str) -> None:
    wrong = [record for record, (text, line_kind, what) in zip(records, everyday(), strict=True)
             if line_kind == kind and not _as_expected(record, text, kind, what)]
    assert wrong == []


def _as_expected(record: dict[str, Any], text: str, kind: str, what: str) -> bool:
    """Whether the answer to `text` is what EXPECTED asks of its kind."""
    route, intents = EXPECTED[kind]
    if record["route"] != route or record["intent"] not in intents:
        return False
    if route == "skill" and record["prompt_tokens"] != 0:
        return False  # the model was asked
    if kind == "act":
        return record["answer"].startswith(ACT_TRUTHS[what])
    if kind == "device":
        return record["answer"] == honesty.NO_HOME_ASSISTANT
    if kind == "internet":
        truth = honesty.cannot_do(text)
        return record["answer"] in (honesty.NO_INTERNET, truth.text if truth is not None else None)
    return True
