"""Without Home Assistant and the internet, `appliance ask` with the real model never claims to have
acted or invents what only the internet knows: every request a new owner says gets the truth.

The model alone (no guard in front of it) is measured on the same list and the count printed, for
the record: a small model claims actions ("I'll lock the front door") and makes up the weather.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from appliance.thinking import honesty
from tests.fixtures.honesty import REQUESTS_FILE, claims, requests
from tests.fixtures.waits import LOAD_WAIT_S


def test_every_request_gets_the_truth_and_no_answer_claims_an_action(tmp_path: Path) -> None:
    config = tmp_path / "appliance.yaml"
    state = tmp_path / "state"
    config.write_text(f"llm:\n  seed: 1234\nlogging:\n  level: WARNING\nservice:\n  state_dir: {state}\n",
                      encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "appliance.cli", "ask", "--config", str(config),
                           "--file", str(REQUESTS_FILE), "--independent", "--json"],
                          capture_output=True, text=True, timeout=LOAD_WAIT_S, check=False)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    expected = requests()
    assert [r["question"] for r in records] == [text for text, _kind in expected]
    truth = {"control": honesty.NO_HOME_ASSISTANT, "question": honesty.NO_HOME_ASSISTANT,
             "internet": honesty.NO_INTERNET}
    for record, (_text, kind) in zip(records, expected, strict=True):
        assert record["route"] == "skill", record
        assert record["answer"] == truth[kind], record
        assert record["prompt_tokens"] == 0, record  # the model was never asked
    claimed = [r for r in records if claims(r["answer"])]
    assert claimed == []


def test_with_home_assistant_down_every_request_still_gets_the_truth(tmp_path: Path) -> None:
    token = tmp_path / "ha_token"
    token.write_text("not-a-real-token\n", encoding="utf-8")
    config = tmp_path / "appliance.yaml"
    config.write_text(f"llm:\n  seed: 1234\nlogging:\n  level: WARNING\nservice:\n  state_dir: {tmp_path / 'state'}\n"
                      f"home_assistant:\n  enabled: true\n  url: http://127.0.0.1:9\n  token_file: {token}\n"
                      "  timeout_s: 1\n", encoding="utf-8")  # nothing listens on port 9: Home Assistant is down
    done = subprocess.run([sys.executable, "-m", "appliance.cli", "ask", "--config", str(config),
                           "--file", str(REQUESTS_FILE), "--independent", "--json"],
                          capture_output=True, text=True, timeout=LOAD_WAIT_S, check=False)
    assert done.returncode == 0, done.stderr
    assert "not-a-real-token" not in done.stdout + done.stderr  # the token never reaches a log
    records = [json.loads(line) for line in done.stdout.splitlines()]
    truth = {"control": honesty.HOME_ASSISTANT_DOWN, "question": honesty.HOME_ASSISTANT_DOWN,
             "internet": honesty.NO_INTERNET}
    for record, (_text, kind) in zip(records, requests(), strict=True):
        assert record["answer"] == truth[kind], record
        assert record["prompt_tokens"] == 0, record  # the model was never asked
    assert [r for r in records if claims(r["answer"])] == []


def test_the_model_alone_is_measured_on_the_same_requests(llm, capsys) -> None:
    answers = []
    for text, kind in requests():
        llm.reset()
        answers.append((text, kind, "".join(llm.stream(text, threading.Event())).strip()))
    assert all(answer for _text, _kind, answer in answers)
    claimed = [(text, answer) for text, kind, answer in answers if claims(answer, kind)]
    with capsys.disabled():
        print(f"\nThe model alone claims an action or an invented fact in {len(claimed)} of {len(answers)} "
              f"answers (system prompt {llm.system_tokens} tokens):")
        for text, answer in claimed:
            print(f"  {text} -> {answer[:100]!r}")
