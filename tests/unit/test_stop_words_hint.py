"""The plain-stop detector's use of the recognizer's hint, with a scripted voice detector and recognizer."""

from __future__ import annotations

import numpy as np
import pytest

from appliance.audio import AudioChunk
from appliance.config import Config
from appliance.contracts import StopHit
from appliance.hearing.stop_words import StopWords
from appliance.language import pack
from tests.fixtures.stop_feed import feed

RATE = 16000
HINT = pack(Config().language).skills.plain_stop_hint


class LoudIsSpeech:
    """The voice detector: a chunk louder than the room is speech."""

    def probability(self, chunk: AudioChunk) -> float:
        samples = chunk.to_float()[:, 0]
        return 1.0 if float(np.sqrt(np.mean(samples * samples))) > 0.01 else 0.0

    def reset(self) -> None:
        pass


class Scripted:
    """A recognizer that hears `untold`, or `told` when given a hint; each hint it was given is kept."""

    name = "scripted"
    takes_hint = True

    def __init__(self, untold: str, told: str) -> None:
        self.untold, self.told = untold, told
        self.hints: list[str] = []

    def recognize(self, audio: AudioChunk, hint: str = "") -> str:
        self.hints.append(hint)
        return self.told if hint else self.untold


def hear(untold: str, told: str) -> tuple[list[StopHit], list[str]]:
    """Half a second of sound between pauses, armed: the stops found and the hints the recognizer was given."""
    recognizer = Scripted(untold, told)
    detector = StopWords(Config(), recognizer, vad_factory=LoudIsSpeech).load()  # type: ignore[arg-type]
    sound = np.concatenate([np.zeros(int(0.4 * RATE)), 0.1 * np.sin(np.arange(int(0.5 * RATE)) * 0.2),
                            np.zeros(int(0.8 * RATE))]).astype(np.float32)
    hits = feed(detector, sound)
    return hits, recognizer.hints


def test_the_language_pack_has_a_hint() -> None:
    assert HINT


def test_a_stop_heard_untold_needs_no_hint() -> None:
    hits, hints = hear("Stop.", "Stop.")
    assert [h.text for h in hits] == ["Stop."] and hints == [""]


def test_words_heard_untold_are_heard_again_told_and_a_stop_so_counts() -> None:
    hits, hints = hear("Council.", "Cancel.")
    assert [h.text for h in hits] == ["Cancel."] and hints == ["", HINT]


@pytest.mark.parametrize("untold", ["", " ", "..."])
def test_a_sound_with_no_words_in_it_is_never_heard_told(untold: str) -> None:
    """Told, Whisper heard the timer's chime alone as "Be quiet."; untold, it heard nothing."""
    hits, hints = hear(untold, "Be quiet.")
    assert hits == [] and hints == [""]


def test_told_and_still_no_stop_is_no_stop() -> None:
    hits, hints = hear("What time is it?", "What time is it?")
    assert hits == [] and hints == ["", HINT]
