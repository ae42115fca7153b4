"""Whisper tiny.en in a short encoder window (appliance.hearing.whisper_fast) on real speech, against the 30 s one."""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Final

import numpy as np
import pytest

from appliance.config import Config
from appliance.hearing import whisper_fast
from appliance.hearing.asr import WhisperRecognizer, choose_engine
from tests.fixtures.speech import RATE, load, noise, word_errors, words

SAME_WORDS = ["what time is it", "set a timer for ten minutes", "turn on the kitchen lights",
              "what is the weather like tomorrow", "how far away is the moon", "stop the timer"]
SHORT_FRAMES: Final = 1000  # encoder frames of the 10 s window (MIN_CONTEXT_S) every question here fits
FULL_FRAMES: Final = 3000  # encoder frames of the library's 30 s window
# Seconds in the short window over seconds in the full one, summed over the questions of one run: about
# 0.25 measured; a question redone in the 30 s window costs both, so this also bounds how many are redone.
MAX_TIME_RATIO: Final = 0.6


@pytest.fixture(scope="session")
def model() -> Any:
    """The faster-whisper WhisperModel the appliance loads (int8, asr.threads threads)."""
    cfg = dataclasses.replace(Config(), asr=dataclasses.replace(Config().asr, engine="whisper"))
    recognizer = WhisperRecognizer(cfg, choose_engine(cfg)[1]).load()
    return recognizer._model


class EncoderSpy:
    """Stands in for the CTranslate2 model and records the frames of every window it encodes."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.frames: list[int] = []

    def encode(self, features: Any, to_cpu: bool = False) -> Any:
        self.frames.append(int(features.shape[-1]))
        return self.real.encode(features, to_cpu=to_cpu)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@pytest.fixture
def spy(model, monkeypatch) -> EncoderSpy:
    spy = EncoderSpy(model.model)
    monkeypatch.setattr(model, "model", spy)
    return spy


def question(speech, text: str, voice: str = "piper") -> np.ndarray:
    """A question as the endpointer hands it over: 0.3 s before, 0.6 s of silence after."""
    return load(speech.join([0.3, speech(text, voice=voice), 0.6]))


@pytest.mark.parametrize("voice", ["piper", "espeak:en-us"])
def test_short_window_is_as_accurate_as_the_full_window_and_faster(model, speech, spy, voice) -> None:
    # A borderline word can flip either way between CPUs (the bench, on Piper's own random variation,
    # measured 5 more errors and some fewer over ~350 words): the check is on the errors over all the
    # questions, not on every word of every one. Whether a question is settled in the short window or
    # redone in the 30 s one turns on the model's own confidence, whose last digits differ between
    # CPUs: what is checked is what the user gets, the words and the time.
    errors = {"short": 0, "full": 0}
    seconds = {"short": 0.0, "full": 0.0}
    paths = []
    total = 0
    for text in SAME_WORDS:
        samples = question(speech, text, voice)
        spy.frames.clear()
        started = time.perf_counter()
        short = whisper_fast.transcribe(model, samples)
        between = time.perf_counter()
        full = whisper_fast.transcribe_full(model, samples)
        seconds["short"] += between - started
        seconds["full"] += time.perf_counter() - between
        assert spy.frames[0] == SHORT_FRAMES, (text, spy.frames)  # tried in the 10 s window first
        paths.append(short.path)
        errors["short"] += word_errors(text, short.text)[0]
        errors["full"] += word_errors(text, full)[0]
        total += len(words(text))
    assert errors["full"] <= 2, errors  # both recognise these plain questions
    assert errors["short"] <= errors["full"] + 2, (errors, total)
    # Interleaved in one run, so a busy machine slows both alike.
    assert seconds["short"] <= MAX_TIME_RATIO * seconds["full"], (seconds, paths)


def test_silence_and_noise_give_empty_text(model) -> None:
    # Whether the short window settles these or the 30 s window redoes them is borderline by nature:
    # the model's average log-probability on silence lands within a few hundredths of the -1.0 it is
    # compared with, on one side or the other depending on the CPU's kernels. The text is the contract.
    for name, samples in (("silence", np.zeros(2 * RATE, dtype=np.float32)),
                          ("pink noise", 0.03 * noise("pink", 2 * RATE, seed=1)),
                          ("brown noise", 0.1 * noise("brown", 4 * RATE, seed=3))):
        result = whisper_fast.transcribe(model, samples)
        assert result.text == "", (name, result)


def test_more_than_thirty_seconds_goes_to_the_library_in_30_s_windows(model, speech, spy) -> None:
    first, second = "what time is it", "turn on the kitchen lights"
    samples = load(speech.join([0.3, speech(first), 29.0, speech(second), 0.6]))
    assert len(samples) > 30 * RATE
    result = whisper_fast.transcribe(model, samples)
    assert result.path == "long"
    assert set(spy.frames) == {FULL_FRAMES} and len(spy.frames) >= 2
    # Both questions come out, the one past 30 s too (losing it would be 5 edits); a word or two may differ.
    edits, _n = word_errors(f"{first} {second}", result.text)
    assert edits <= 2, result


def test_a_loop_in_a_too_short_window_is_never_returned(model, speech, spy, monkeypatch) -> None:
    """With 2 s of context tiny.en often says "Good night. Good night. Good night..."; the guard
    redoes that in the 30 s window. Not every rendering of the voice loops, and which of the guard's
    reasons fires on one that does (a repeat, the token budget, a low log-probability) turns on the
    model's numerics, which differ between CPUs, so the check is that no loop comes out;
    tests/unit/test_whisper_fast_guards.py proves each reason on a scripted model."""
    monkeypatch.setattr(whisper_fast, "MIN_CONTEXT_S", 2.0)
    samples = question(speech, "good night")
    short_frames = whisper_fast.context_frames(len(samples) // model.feature_extractor.hop_length,
                                               model.frames_per_second)
    assert short_frames < SHORT_FRAMES  # the window really is shorter than the appliance ever uses
    result = whisper_fast.transcribe(model, samples)
    assert "".join(words(result.text)) == "goodnight", result  # said once: "Good night." or "Goodnight."
    assert spy.frames[0] == short_frames and spy.frames[1:] in ([], [FULL_FRAMES]), (result, spy.frames)
