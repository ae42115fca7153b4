"""The question's audio starts after the pause that follows the wake word (tones stand in for words)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np

from appliance.audio import AudioChunk
from appliance.config import AsrConfig, Config
from appliance.hearing.asr import _BaseRecognizer
from appliance.hearing.wake_end import KEEP_S, PAUSE_S, question_start
from tests.fixtures.speech import RATE, mix_noise, silence, tone

TAIL_HZ, QUESTION_HZ = 300.0, 700.0  # "...vis" of the wake word, and the question
CHUNK = 1280  # 80 ms


def clip(*parts: tuple[str, float]) -> np.ndarray:
    """("tail" | "question" | "pause", seconds) in a row."""
    make = {"tail": lambda s: tone(TAIL_HZ, s), "question": lambda s: tone(QUESTION_HZ, s), "pause": silence}
    return np.concatenate([make[kind](seconds) for kind, seconds in parts])


def test_the_question_starts_just_before_the_end_of_the_pause() -> None:
    audio = clip(("tail", 0.2), ("pause", 0.15), ("question", 0.13))
    start = question_start(audio, RATE)
    assert 0.2 * RATE <= start <= 0.35 * RATE  # in the pause: none of the wake word, all of the question
    assert 0.35 * RATE - start >= (KEEP_S - 0.02) * RATE  # some of the pause is kept before the first sound


def test_a_pause_that_runs_to_the_end_is_cut_short_too() -> None:
    start = question_start(clip(("tail", 0.3), ("pause", 0.18)), RATE)
    assert 0.3 * RATE <= start < 0.48 * RATE


def test_without_a_pause_nothing_is_cut() -> None:
    assert question_start(clip(("tail", 0.3), ("question", 0.18)), RATE) == 0  # words that run on
    assert question_start(clip(("tail", 0.2), ("pause", PAUSE_S / 2), ("question", 0.2)), RATE) == 0  # a stop
    assert question_start(silence(0.48), RATE) == 0
    assert question_start(clip(("question", 0.48)), RATE) == 0
    assert question_start(np.zeros(10), RATE) == 0


def test_a_pause_is_found_in_a_noisy_room() -> None:
    audio = mix_noise(clip(("tail", 0.2), ("pause", 0.15), ("question", 0.13)), snr_db=15, seed=4)
    assert 0.18 * RATE <= question_start(audio, RATE) <= 0.35 * RATE


class ToneEngine:
    """Hears the wake word's tail and the question by their pitch: the text names what it heard."""

    reuses_early = True
    paced = True

    def __init__(self) -> None:
        self.audio: list[np.ndarray] = []

    def accept(self, chunk: AudioChunk) -> None:
        self.audio.append(chunk.to_float()[:, 0])

    def partial(self) -> Callable[[], str]:
        return self.final()

    def early(self) -> Callable[[], str]:
        return self.final()

    def final(self) -> Callable[[], str]:
        heard = np.concatenate(self.audio) if self.audio else np.zeros(0)
        return lambda: " ".join(word for word, hz in (("service", TAIL_HZ), ("lights on", QUESTION_HZ))
                                if _has(heard, hz))


def _has(audio: np.ndarray, hz: float) -> bool:
    """Any 10 ms of `audio` loud at `hz`."""
    t = np.arange(len(audio)) / RATE
    product = np.abs(np.convolve(audio * np.exp(-2j * np.pi * hz * t), np.ones(160) / 160, mode="valid"))
    return bool(len(product)) and float(product.max()) > 0.05


class LoudnessVad:
    """Speech wherever a chunk is loud."""

    def probability(self, chunk: AudioChunk) -> float:
        return 0.9 if float(np.sqrt(np.mean(chunk.to_float() ** 2))) > 0.01 else 0.05

    def reset(self) -> None:
        pass


class ToneRecognizer(_BaseRecognizer):
    name = "tones"

    def _load_model(self) -> object:
        return object()

    def _load_completion(self) -> None:
        return None  # tones, not speech: the silence alone ends them

    def _engine(self, hint: str = "") -> ToneEngine:
        return ToneEngine()


def _hear(audio: np.ndarray, preroll_s: float) -> str:
    """The transcript of `audio`: its first `preroll_s` are the pre-roll, the rest follows the wake word."""
    cfg = dataclasses.replace(Config(), asr=AsrConfig(early_silence_s=0.0, endpoint_silence_s=0.4))
    rec = ToneRecognizer(cfg, Path("/nowhere"), vad_factory=LoudnessVad)
    chunks = [AudioChunk.from_int16((audio[i:i + CHUNK] * 32767).astype(np.int16), RATE)
              for i in range(0, len(audio), CHUNK)]
    pre = round(preroll_s / 0.08)
    utterance = rec.start(chunks[:pre])
    for chunk in chunks[pre:]:
        if (result := utterance.feed(chunk)) is not None:
            return result.text
    result = utterance.finish()
    assert result is not None
    return result.text


def test_the_wake_words_end_in_the_preroll_is_not_transcribed() -> None:
    # 0.32 s of pre-roll: the end of the wake word and the start of a pause that goes on after it fired.
    audio = clip(("tail", 0.24), ("pause", 0.2), ("question", 0.8), ("pause", 1.0))
    assert _hear(audio, preroll_s=0.32) == "lights on"


def test_a_question_that_runs_on_from_the_wake_word_keeps_its_start() -> None:
    audio = clip(("tail", 0.16), ("question", 1.1), ("pause", 1.0))
    assert _hear(audio, preroll_s=0.32) == "service lights on"  # the text is left to strip_wake_echo


def test_a_follow_up_has_no_preroll_and_loses_nothing() -> None:
    audio = clip(("question", 0.48), ("pause", 1.04))
    assert _hear(audio, preroll_s=0.0) == "lights on"
