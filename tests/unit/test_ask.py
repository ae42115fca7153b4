"""`appliance ask` with a fake chat: routing, sentences cleaned for speech, JSON records, questions files."""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from appliance import EXIT_DATAERR, EXIT_NOINPUT, EXIT_USAGE, ApplianceError, cli
from appliance.commands.ask import Asker, Record, read_questions
from appliance.config import Config
from appliance.contracts import AnswerStats


class FakeChat:
    """Streams a fixed answer in small chunks and remembers how it was used."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.questions: list[str] = []
        self.resets = 0
        self._stats = AnswerStats()

    def stream(self, question: str, cancel: threading.Event) -> Iterator[str]:
        self.questions.append(question)
        self._stats = AnswerStats(prompt_tokens=40, cached_prompt_tokens=30 if len(self.questions) > 1 else 0,
                                  tokens=12, ttft_ms=12.5, tokens_per_s=80.0, stop_reason="stop")
        for i in range(0, len(self.answer), 3):
            yield self.answer[i:i + 3]

    @property
    def last_stats(self) -> AnswerStats:
        return self._stats

    def reset(self) -> None:
        self.resets += 1

    def forget(self, question: str) -> bool:
        return False


def test_answer_streams_and_becomes_spoken_sentences() -> None:
    chat = FakeChat("**Paris** is the capital of France. 🇫🇷 See https://example.com for more.\n- It is big.")
    asker = Asker(Config(), chat_factory=lambda: chat)
    deltas: list[str] = []
    said: list[str] = []
    record = asker.ask("What is the capital of France?", deltas.append, said.append)
    assert "".join(deltas) == chat.answer  # streamed as generated, untouched
    assert record.answer == chat.answer
    assert record.route == "llm"
    assert record.sentences == said
    assert said[0] == "Paris is the capital of France."
    assert all("*" not in s and "http" not in s and "🇫🇷" not in s and not s.startswith("-") for s in said)
    assert said[-1] == "It is big."
    data = json.loads(record.json())
    assert set(data) >= {"question", "answer", "route", "sentences", "prompt_tokens", "cached_prompt_tokens",
                         "ttft_ms", "tokens", "tokens_per_s"}
    assert data["ttft_ms"] == 12.5 and data["prompt_tokens"] == 40 and data["tokens_per_s"] == 80.0


def test_model_is_loaded_once_and_only_when_needed() -> None:
    loads: list[int] = []

    def factory() -> FakeChat:
        loads.append(1)
        return FakeChat("Yes.")

    asker = Asker(Config(), chat_factory=factory)
    asker.reset()  # nothing loaded yet: nothing to reset, no load
    assert loads == []
    for q in ("one", "two", "three"):
        asker.ask(q, lambda d: None)
    assert loads == [1]
    second = asker.ask("four", lambda d: None)
    assert second.cached_prompt_tokens == 30


def _args(**kw: object) -> argparse.Namespace:
    base = {"question": None, "file": None}
    base.update(kw)
    return argparse.Namespace(**base)


def test_questions_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("What is two plus two?\n\n# a comment\n  Where is Paris?  \n", encoding="utf-8")
    assert read_questions(_args(file=str(path))) == ["What is two plus two?", "Where is Paris?"]
    assert read_questions(_args(question="  hi there ")) == ["hi there"]


@pytest.mark.parametrize(
    ("kw", "code"),
    [({}, EXIT_USAGE), ({"question": "   "}, EXIT_USAGE), ({"file": "/nonexistent/q.txt"}, EXIT_NOINPUT),
     ({"question": "x", "file": "y"}, EXIT_USAGE)],
)
def test_bad_input_is_a_clear_error(kw: dict, code: int) -> None:
    with pytest.raises(ApplianceError) as info:
        read_questions(_args(**kw))
    assert cli.exit_code(info.value) == code
    assert str(info.value)


def test_unreadable_or_empty_file(tmp_path: Path) -> None:
    binary = tmp_path / "b.txt"
    binary.write_bytes(b"\xff\xfe\x00bad")
    empty = tmp_path / "e.txt"
    empty.write_text("\n# only a comment\n", encoding="utf-8")
    for path in (binary, empty):
        with pytest.raises(ApplianceError) as info:
            read_questions(_args(file=str(path)))
        assert cli.exit_code(info.value) == EXIT_DATAERR


def test_record_json_is_one_line() -> None:
    line = Record(question="Wie geht's?\nok", answer="Gut.", sentences=["Gut."], ttft_ms=1.234).json()
    assert "\n" not in line
    assert json.loads(line)["question"] == "Wie geht's?\nok" and json.loads(line)["ttft_ms"] == 1.2


def test_json_says_what_a_skill_did(tmp_path: Path) -> None:
    from dataclasses import replace

    cfg = Config()
    asker = Asker(replace(cfg, service=replace(cfg.service, state_dir=str(tmp_path))),
                  chat_factory=lambda: FakeChat("unused"))
    records = [json.loads(asker.ask(q, lambda d: None).json())
               for q in ("set an alarm for 6:45 on weekdays", "remind me to buy milk", "what is the capital")]
    assert (records[0]["route"], records[0]["intent"]) == ("skill", "alarm_set")
    assert records[0]["answer"] == "Alarm set for 6:45 AM on weekdays."
    assert [(a["time"], a["days"]) for a in records[0]["data"]["alarms"]] == [("06:45", [0, 1, 2, 3, 4])]
    assert (records[1]["intent"], records[1]["answer"]) == ("reminder_clarify", "When should I remind you?")
    assert (records[2]["route"], records[2]["intent"], records[2]["data"]) == ("llm", "", {})
