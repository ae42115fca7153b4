"""Thinking while they speak: partial transcripts at a pace, their stable words handed to the chat's prefill.

The real model's side (the same answer token for token, the rollback to the common prefix) is
in tests/models/test_llm_prefill.py.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path

from appliance.config import AsrConfig, Config
from appliance.conversation.conductor import State
from appliance.conversation.early import Prefill, stable_words
from appliance.hearing.asr_worker import Run
from tests.fixtures.fakes import FakeChat, Harness, cfg_with, early_harness
from tests.fixtures.waits import WAIT_S, wait_for
from tests.unit.test_asr_endpoint import FakeRecognizer, ScriptedVad, chunk


class StepRunner:
    """Runs jobs at once, like Vosk's inline runner, but says it is busy when the test says so."""

    def __init__(self) -> None:
        self.idle = True
        self.runs = 0

    def submit(self, job: Callable[[], str]) -> Run:
        self.runs += 1
        run = Run(job)
        run.execute()
        return run


def paced(script: str, prefill: bool = True) -> FakeRecognizer:
    """A Whisper-shaped recognizer (partials cost a run) with a 0.4 s pace: one partial per 5 chunks."""
    base = Config()
    cfg = dataclasses.replace(base, asr=AsrConfig(early_silence_s=0.24, endpoint_silence_s=0.64),
                              conversation=dataclasses.replace(base.conversation, prefill=prefill,
                                                               prefill_pace_s=0.4))
    rec = FakeRecognizer(cfg, Path("/nowhere"), vad_factory=lambda: ScriptedVad(script))
    rec.runner = StepRunner()
    return rec


def test_partials_come_at_the_pace_while_speaking_and_never_in_a_pause() -> None:
    rec = paced("#" * 12 + "." * 4 + "#" * 3 + "." * 20)
    utterance = rec.start([])
    partials = []
    for _ in range(19):
        utterance.feed(chunk())
        partials.append(utterance.partial)
    # speech counts from the 2nd voiced chunk; a partial every 5 chunks of stream time after that
    assert partials[5] == "" and partials[6] == "partial at 7" and partials[11] == "partial at 12"
    assert partials[12:16] == ["partial at 12"] * 4  # the pause: no run
    assert partials[16] == "partial at 17"  # speaking again, and the pace is due
    assert rec.engine.early_calls == [13]  # the pause's early transcript, made as it began


def test_no_partial_while_the_recognizer_is_busy_so_nothing_queues_before_an_early_transcript() -> None:
    rec = paced("#" * 20 + "." * 20)
    utterance = rec.start([])
    runner = rec.runner
    assert isinstance(runner, StepRunner)
    for _ in range(7):
        utterance.feed(chunk())
    assert utterance.partial == "partial at 7"
    runner.idle = False
    for _ in range(7):
        utterance.feed(chunk())
    assert utterance.partial == "partial at 7"
    runner.idle = True
    utterance.feed(chunk())
    assert utterance.partial == "partial at 15"  # taken as soon as the recognizer is free


def test_no_partials_when_prefill_is_off() -> None:
    rec = paced("#" * 12 + "." * 20, prefill=False)
    utterance = rec.start([])
    for _ in range(12):
        utterance.feed(chunk())
    assert utterance.partial == "" and rec.runner.runs == 0


def test_stable_words_are_those_two_partials_agree_on() -> None:
    assert stable_words("what is the".split(), "What is the capital".split()) == 0
    assert stable_words("what is the".split(), "what is the capital".split()) == 3
    assert stable_words("what time.".split(), "what time is it".split()) == 2  # punctuation aside
    assert stable_words("how long should I boil a leg".split(), "how long should I boil an egg".split()) == 5


def test_only_stable_words_are_read_in_and_a_change_is_handed_over() -> None:
    chat = FakeChat()
    prefill = Prefill(chat)
    for partial in ["How", "How long", "How long should I boil a", "How long should I boil a leg",
                    "How long should I boil an egg", "How long should I boil an egg."]:
        prefill.heard(partial)
        wait_for(lambda: prefill._worker.idle, "the prefill thread")
    wait_for(lambda: chat.prefilled[-1:] == ["How long should I boil an egg"], "the last prefill")
    assert chat.prefilled[0] == "How"  # "How" heard twice
    assert "How long should I boil a leg" not in chat.prefilled  # never heard twice
    assert "How long should I boil a" in chat.prefilled


def test_the_conductor_reads_the_question_in_while_it_is_spoken_and_stops_at_the_pause() -> None:
    h = early_harness()
    h.feed("WAKE", "SAY:what", "SAY:is", "SAY:the", "SAY:capital", "SAY:of", "SAY:France")
    wait_for(lambda: h.chat.prefilled[-1:] == ["what is the capital of"], "the prefill")
    assert set(h.chat.prefilled) <= {"what", "what is", "what is the", "what is the capital",
                                     "what is the capital of"}
    assert h.c.answers.prefill is not None
    h.feed("SIL", "SIL")
    h.wait_idle()
    assert h.chat.questions == ["what is the capital of France"]
    assert h.c.answers.prefill._asked == ""  # the pause ended its work for this question


def test_no_prefill_when_it_is_off() -> None:
    h = Harness(cfg_with(prefill=False))
    h.feed("WAKE", "SAY:what", "SAY:is", "SAY:the", "SAY:capital", "SIL", "SIL")
    h.wait_idle()
    assert h.chat.prefilled == [] and h.c.answers.prefill is None
    assert h.chat.questions == ["what is the capital"]


def test_a_failing_prefill_is_logged_and_the_next_one_still_runs(caplog) -> None:
    chat = FakeChat()
    calls: list[str] = []

    def flaky(heard: str, stop: Callable[[], bool]) -> int:
        calls.append(heard)
        if len(calls) == 1:
            raise RuntimeError("llama_decode returned -1")
        return 3

    chat.prefill = flaky  # type: ignore[method-assign]
    prefill = Prefill(chat)
    prefill.heard("what is")
    prefill.heard("what is")
    prefill.heard("what is the")
    wait_for(lambda: len(calls) == 1, "the first prefill")
    prefill.heard("what is the capital")
    wait_for(lambda: prefill.tokens == 3, "the second prefill", timeout=WAIT_S)
    assert "Reading the question into the model ahead failed: llama_decode returned -1" in caplog.text


def test_the_turn_entry_records_the_tokens_read_ahead_and_those_left() -> None:
    h = Harness()
    h.feed("WAKE", "SAY:what", "SAY:is", "SAY:the", "SAY:capital")
    wait_for(lambda: h.chat.prefilled[-1:] == ["what is the"], "the prefill")
    h.feed("SAY:of", "SAY:France", "SIL", "SIL")
    h.wait_idle()
    fields = h.records[0].journal_fields()
    assert fields["PREFILLED_TOKENS"] in ("3", "4", "5") and fields["LEFT_TOKENS"] == "10"


def test_a_prefill_that_never_returns_holds_up_neither_the_answer_nor_a_barge_in() -> None:
    chat = FakeChat("One. Two. Three. Four. Five. Six. Seven. Eight.", delay_s=0.05)
    stuck, inside = threading.Event(), threading.Event()

    def hang(heard: str, stop: Callable[[], bool]) -> int:
        inside.set()
        stuck.wait(WAIT_S)
        return 0

    chat.prefill = hang  # type: ignore[method-assign]
    h = Harness(chat=chat)
    try:
        h.feed("WAKE", "SAY:what", "SAY:is", "SAY:the")
        assert inside.wait(WAIT_S)
        h.feed("SAY:capital", "SIL", "SIL")
        h.wait(lambda: h.c.state is State.SPEAKING)  # answered while the prefill hangs
        h.feed("BARGE")
        assert h.c.state is State.LISTENING and chat.cancelled.wait(WAIT_S)
    finally:
        stuck.set()


def test_a_pause_stops_the_prefill_and_speaking_again_resumes_it() -> None:
    chat = FakeChat()
    calls: list[str] = []
    stopped = threading.Event()

    def slow(heard: str, stop: Callable[[], bool]) -> int:
        calls.append(heard)
        if len(calls) == 1:
            wait_for(stop, "the prefill told to stop")  # the first one runs until the pause
            stopped.set()
        return 1

    chat.prefill = slow  # type: ignore[method-assign]
    prefill = Prefill(chat)
    prefill.heard("what is")
    prefill.heard("what is the")
    wait_for(lambda: calls == ["what is"], "the first prefill")
    prefill.heard("what is the", speaking=False)  # the person pauses: the recognizer needs the cores
    assert stopped.wait(WAIT_S)
    prefill.heard("what is the capital of")
    wait_for(lambda: calls[-1:] == ["what is the"], "the prefill after the pause")
