"""Endpointing and the utterance flow with a scripted VAD and a fake engine (no models)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from appliance import cli
from appliance.audio import AudioChunk
from appliance.config import AsrConfig, Config
from appliance.hearing.asr import _BaseRecognizer, make_recognizer
from appliance.hearing.asr_worker import Worker
from appliance.hearing.endpoint import Endpointer
from appliance.hearing.wake_text import strip_wake_echo, wake_name, wake_words
from appliance.setup.models import ModelMissing
from tests.fixtures.waits import WAIT_S

CHUNK_S = 0.08


class ScriptedVad:
    """Speech probability from a script: '#' = speech, '.' = silence, one character per chunk."""

    def __init__(self, script: str) -> None:
        self.script = script
        self.i = 0
        self.resets = 0

    def probability(self, chunk: AudioChunk) -> float:
        p = 0.9 if self.i < len(self.script) and self.script[self.i] == "#" else 0.05
        self.i += 1
        return p

    def reset(self) -> None:
        self.resets += 1


def chunk() -> AudioChunk:
    return AudioChunk.from_int16(np.zeros(1280, dtype=np.int16), 16000)


def feed_until_end(endpointer: Endpointer, limit: int = 1000) -> tuple[str, int]:
    for n in range(1, limit):
        if (outcome := endpointer.feed(chunk())) is not None:
            return outcome, n
    raise AssertionError("never ended")


def test_ends_after_trailing_silence() -> None:
    cfg = AsrConfig(endpoint_silence_s=0.64)
    outcome, n = feed_until_end(Endpointer(cfg, ScriptedVad("..#####" + "." * 100)))
    assert outcome == "speech"
    assert n == 7 + 8  # 7 chunks up to the end of speech, then 8 x 80 ms of silence


def test_short_pauses_inside_speech_do_not_end_it() -> None:
    cfg = AsrConfig(endpoint_silence_s=0.6)
    script = "####....####.....###" + "." * 50
    outcome, n = feed_until_end(Endpointer(cfg, ScriptedVad(script)))
    assert outcome == "speech" and n == 20 + 8


def test_a_click_is_not_speech_and_the_no_speech_timeout_fires() -> None:
    cfg = AsrConfig(no_speech_timeout_s=2.0)
    endpointer = Endpointer(cfg, ScriptedVad("...#" + "." * 100))
    outcome, n = feed_until_end(endpointer)
    assert outcome == "no_speech" and n == 25  # 25 x 80 ms = 2.0 s
    assert not endpointer.heard_speech


def test_max_length_fires_on_endless_speech() -> None:
    cfg = AsrConfig(max_utterance_s=3.2)
    outcome, n = feed_until_end(Endpointer(cfg, ScriptedVad("#" * 1000)))
    assert outcome == "max_length" and n == 40


def test_preroll_is_judged_but_not_counted() -> None:
    vad = ScriptedVad("####" + "." * 100)
    endpointer = Endpointer(AsrConfig(no_speech_timeout_s=1.6), vad)
    for _ in range(4):
        endpointer.preroll(chunk())
    outcome, n = feed_until_end(endpointer)
    assert outcome == "no_speech" and n == 20  # speech in the pre-roll alone is the wake word's tail


class FakeEngine:
    """Its jobs say how many chunks it had taken when they were made."""

    reuses_early = True
    paced = True

    def __init__(self) -> None:
        self.accepted = 0
        self.early_calls: list[int] = []
        self.final_calls: list[int] = []

    def accept(self, c: AudioChunk) -> None:
        self.accepted += 1

    def partial(self) -> Callable[[], str]:
        n = self.accepted
        return lambda: f" partial at {n} "

    def early(self) -> Callable[[], str]:
        n = self.accepted
        self.early_calls.append(n)
        return lambda: f" early at {n} "

    def final(self) -> Callable[[], str]:
        n = self.accepted
        self.final_calls.append(n)
        return lambda: f" heard {n} chunks "


class FakeRecognizer(_BaseRecognizer):
    name = "fake"

    def _load_model(self) -> object:
        return object()

    def _load_completion(self) -> None:
        return None  # the completion detector's own tests hand it a fake

    def _engine(self, hint: str = "") -> FakeEngine:
        self.engine = FakeEngine()
        return self.engine


def test_utterance_feeds_preroll_then_chunks_and_reports_once() -> None:
    vad = ScriptedVad("##" + "####" + "." * 50)  # 2 pre-roll, 4 speech, 8 x 80 ms >= 0.6 s silence
    cfg = dataclasses.replace(Config(), asr=AsrConfig(early_silence_s=0.0))
    rec = FakeRecognizer(cfg, Path("/nowhere"), vad_factory=lambda: vad)
    utterance = rec.start([chunk(), chunk()])
    assert vad.resets == 1
    results = [utterance.feed(chunk()) for _ in range(14)]
    done = [r for r in results if r is not None]
    assert done and all(r is done[0] for r in done)  # the same Transcript once it has ended
    assert done[0].text == "heard 14 chunks" and done[0].outcome == "speech"
    assert done[0].speech_end_s == pytest.approx(4 * CHUNK_S)
    assert utterance.finish() is done[0]


def test_no_speech_skips_the_engine_and_finish_reports_what_was_heard() -> None:
    cfg = dataclasses.replace(Config(), asr=AsrConfig(no_speech_timeout_s=1.0))
    rec = FakeRecognizer(cfg, Path("/nowhere"), vad_factory=lambda: ScriptedVad(""))
    utterance = rec.start([])
    results = [utterance.feed(chunk()) for _ in range(13)]
    assert results[11] is None and results[12] is not None
    assert (results[12].outcome, results[12].text, rec.engine.final_calls) == ("no_speech", "", [])
    rec2 = FakeRecognizer(cfg, Path("/nowhere"), vad_factory=lambda: ScriptedVad("###"))
    u2 = rec2.start([])
    for _ in range(3):
        assert u2.feed(chunk()) is None
    assert u2.finish().outcome == "speech"


def early_recognizer(script: str, early_s: float = 0.24, endpoint_s: float = 0.64,
                     prefill: bool = True) -> FakeRecognizer:
    base = Config()
    cfg = dataclasses.replace(base, asr=AsrConfig(early_silence_s=early_s, endpoint_silence_s=endpoint_s),
                              conversation=dataclasses.replace(base.conversation, prefill=prefill))
    return FakeRecognizer(cfg, Path("/nowhere"), vad_factory=lambda: ScriptedVad(script))


def test_early_transcript_after_a_short_pause_becomes_the_final_one() -> None:
    rec = early_recognizer("####" + "." * 50)
    utterance = rec.start([])
    seen = []
    for _ in range(12):
        result = utterance.feed(chunk())
        seen.append(utterance.early.text if utterance.early else None)
        if result is not None:
            break
    # Made once, as the pause begins (chunk 5), and heard once it has lasted 0.24 s (3 chunks).
    assert rec.engine.early_calls == [5]
    assert seen[5] is None and seen[6] == "early at 5"
    assert result is not None and result.outcome == "speech" and len(seen) == 12
    assert result.text == "early at 5" and rec.engine.final_calls == []  # not decoded twice


def test_without_prefill_the_early_transcript_is_made_once_the_pause_has_lasted() -> None:
    rec = early_recognizer("####" + "." * 50, prefill=False)
    utterance = rec.start([])
    seen = []
    while (result := utterance.feed(chunk())) is None:
        seen.append(utterance.early.text if utterance.early else None)
    assert rec.engine.early_calls == [7]  # 3 chunks (0.24 s) of silence after 4 of speech
    assert seen[5] is None and seen[6] == "early at 7" and result.text == "early at 7"


def test_speech_after_the_early_transcript_withdraws_it_and_the_end_decodes_everything() -> None:
    rec = early_recognizer("####...###" + "." * 50)
    utterance = rec.start([])
    results = []
    for i in range(30):
        results.append(utterance.feed(chunk()))
        if i == 6:
            assert utterance.early is not None and utterance.early.text == "early at 5"
        if i == 7:
            assert utterance.early is None  # the person went on
        if results[-1] is not None:
            break
    assert rec.engine.early_calls == [5, 11]  # one early text per pause, made as it begins
    final = results[-1]
    assert final is not None and final.text == "early at 11"


def test_early_transcript_off_and_no_speech_never_make_one() -> None:
    rec = early_recognizer("####" + "." * 50, early_s=0.0)
    utterance = rec.start([])
    while utterance.feed(chunk()) is None:
        pass
    assert rec.engine.early_calls == [] and len(rec.engine.final_calls) == 1
    cfg = dataclasses.replace(Config(), asr=AsrConfig(no_speech_timeout_s=1.0, early_silence_s=0.2))
    silent = FakeRecognizer(cfg, Path("/nowhere"), vad_factory=lambda: ScriptedVad(""))
    u2 = silent.start([])
    while u2.feed(chunk()) is None:
        pass
    assert silent.engine.early_calls == []


WAKE = wake_words("hey_jarvis")


def test_strip_wake_echo() -> None:
    assert strip_wake_echo("Jarvis. What time is it?", WAKE) == "What time is it?"
    assert strip_wake_echo("hey jarvis, lights on", WAKE) == "lights on"
    assert strip_wake_echo("What is Jarvis?", WAKE) == "What is Jarvis?"
    assert strip_wake_echo("Jarvis.", WAKE) == ""


def test_strip_wake_echo_cuts_a_soundalike_of_the_name_only_when_it_stands_alone() -> None:
    assert strip_wake_echo("Service. What time is it?", WAKE) == "What time is it?"  # Whisper on "jarvis"
    assert strip_wake_echo("Service the car on Monday.", WAKE) == "Service the car on Monday."
    assert strip_wake_echo("Lights, on please.", WAKE) == "Lights, on please."
    assert strip_wake_echo("Alexa. Lights on.", wake_words("alexa")) == "Lights on."
    assert strip_wake_echo("Jarvis. Lights on.", wake_words("alexa")) == "Jarvis. Lights on."


def test_the_wake_name_comes_from_the_model() -> None:
    assert wake_name("/var/lib/appliance/models/hey_jarvis_v0.1.onnx") == "hey_jarvis"
    assert wake_words("hey_mycroft_v0.1.onnx") == ("hey", "mycroft") and wake_words("alexa") == ("alexa",)


def test_every_transcript_of_an_utterance_loses_the_wake_echo() -> None:
    rec = early_recognizer("####" + "." * 50)
    engine = FakeEngine()
    engine.early = lambda: (lambda: "Jarvis, what time is it?")  # type: ignore[method-assign]
    rec._engine = lambda: engine  # type: ignore[method-assign]
    utterance = rec.start([])
    while (final := utterance.feed(chunk())) is None:
        early = utterance.early
    assert early is not None and early.text == "What time is it?" and final.text == "What time is it?"


def test_an_engine_without_its_model_is_a_config_error(tmp_path) -> None:
    cfg = dataclasses.replace(Config(), asr=AsrConfig(engine="vosk"),
                              models=dataclasses.replace(Config().models, dir=str(tmp_path), dev_packages=False))
    with pytest.raises(ModelMissing) as info:
        make_recognizer(cfg)
    assert cli.exit_code(info.value) == 78 and "asr.vosk_model" in str(info.value)


class GatedEngine(FakeEngine):
    """Its jobs wait for `go`: a transcription that is still running on the worker."""

    def __init__(self) -> None:
        super().__init__()
        self.go = threading.Event()

    def early(self) -> Callable[[], str]:
        job = super().early()
        return lambda: self.go.wait(WAIT_S) and job()

    def final(self) -> Callable[[], str]:
        job = super().final()
        return lambda: self.go.wait(WAIT_S) and job()


def test_on_a_worker_nothing_waits_and_the_early_run_in_flight_becomes_the_final_one() -> None:
    rec = early_recognizer("####" + "." * 50)
    engine = GatedEngine()
    rec._engine = lambda: engine  # type: ignore[method-assign]
    rec.runner = Worker("test-asr")
    utterance = rec.start([])
    results = [utterance.feed(chunk()) for _ in range(12)]  # past the early point and the endpoint
    assert results == [None] * 12 and utterance.ended and utterance.busy and utterance.early is None
    assert utterance.poll() is None
    engine.go.set()
    final = utterance.wait(WAIT_S)
    assert final is not None and final.text == "early at 5" and final.outcome == "speech"
    assert engine.early_calls == [5] and engine.final_calls == []  # the pause's one run, not a second
    assert not utterance.busy and utterance.feed(chunk()) is final
