"""`appliance ask` as a subprocess with SmolLM2: streamed text, JSON records, one model for many questions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Final

from tests.fixtures.waits import LOAD_WAIT_S

KEYS: Final = {"question", "answer", "route", "sentences", "prompt_tokens", "cached_prompt_tokens",
               "ttft_ms", "tokens", "tokens_per_s"}


def run_ask(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "appliance.yaml"
    config.write_text("llm:\n  seed: 1234\nlogging:\n  level: WARNING\n", encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "appliance.cli", "ask", "--config", str(config), *args],
                          capture_output=True, text=True, timeout=LOAD_WAIT_S, check=False)


def test_json_answer_has_paris_and_timings(tmp_path: Path) -> None:
    done = run_ask(tmp_path, "--json", "What is the capital of France?")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert KEYS <= set(record)
    assert record["route"] == "llm" and "Paris" in record["answer"]
    assert record["ttft_ms"] > 0 and record["tokens"] > 0 and record["tokens_per_s"] > 0
    assert record["sentences"] and "Paris" in " ".join(record["sentences"])
    assert record["cached_prompt_tokens"] > 0  # the system prompt was warmed at load


def test_plain_answer_is_streamed_text(tmp_path: Path) -> None:
    done = run_ask(tmp_path, "What is the capital of France?")
    assert done.returncode == 0, done.stderr
    assert "Paris" in done.stdout and not done.stdout.lstrip().startswith("{")


def test_file_is_one_conversation_unless_independent(tmp_path: Path) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text("What is the capital of France?\nAnd what is the capital of Italy?\n", encoding="utf-8")
    together = [json.loads(x) for x in run_ask(tmp_path, "--json", "--file", str(questions)).stdout.splitlines()]
    apart = [json.loads(x) for x in
             run_ask(tmp_path, "--json", "--independent", "--file", str(questions)).stdout.splitlines()]
    assert [r["question"] for r in together] == [r["question"] for r in apart] == [
        "What is the capital of France?", "And what is the capital of Italy?"]
    # In one conversation the second prompt carries the first turn, and reuses it from the cache.
    assert together[1]["prompt_tokens"] > apart[1]["prompt_tokens"]
    assert together[1]["cached_prompt_tokens"] > together[0]["cached_prompt_tokens"]
    # On its own, the second question reuses the system prompt only (as much as the first did).
    assert apart[1]["cached_prompt_tokens"] == apart[0]["cached_prompt_tokens"]


def test_missing_questions_file_is_a_clear_error(tmp_path: Path) -> None:
    done = run_ask(tmp_path, "--file", str(tmp_path / "nope.txt"))
    assert done.returncode == 66
    assert "questions file not found" in done.stderr and "Traceback" not in done.stderr
