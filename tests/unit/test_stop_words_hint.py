"""The plain-stop detector's use of the recognizer's hint, with a scripted voice detector and recognizer."""

from __future__ import annotations

import logging

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


def test_words_heard_untold_are_heard_again_told_and_a_stop_so_counts(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="appliance.hearing.stop_words")
    hits, hints = hear("Council.", "Cancel.")
    assert [h.text for h in hits] == ["Cancel."] and hints == ["", HINT]
    assert "heard 'Council.' untold, 'Cancel.' told to expect a stop" in caplog.text  # which of the two stopped it


@pytest.mark.parametrize("untold", ["", " ", "..."])
def test_a_sound_with_no_words_in_it_is_never_heard_told(untold: str) -> None:
    """Told, Whisper heard the timer's chime alone as "Be quiet."; untold, it heard nothing."""
    hits, hints = hear(untold, "Be quiet.")
    assert hits == [] and hints == [""]


def test_told_and_still_no_stop_is_no_stop() -> None:
    hits, hints = hear("What time is it?", "What time is it?")
    assert hits == [] and hints == ["", HINT]


ANNOUNCED = "Your 5 second timer is done."


def ran_on(untold: str, said: list[str]) -> tuple[list[StopHit], list[str]]:
    """2.5 s of sound with no pause, armed and told `said` as the hub's own words: a stop the hub's voice ran
    on into; the stops found and the hints the recognizer was given."""
    recognizer = Scripted(untold, untold)
    detector = StopWords(Config(), recognizer, vad_factory=LoudIsSpeech).load()  # type: ignore[arg-type]
    sound = np.concatenate([np.zeros(int(0.4 * RATE)), 0.1 * np.sin(np.arange(int(2.5 * RATE)) * 0.2),
                            np.zeros(int(0.8 * RATE))]).astype(np.float32)
    return feed(detector, sound, said=said), recognizer.hints


def test_a_stop_that_ran_on_into_the_hubs_own_words_is_a_stop() -> None:
    """Over a ringing timer, "stop" and the announcement right after it are one stretch, too long to be a stop:
    it is heard as far as it went when it became too long, and what follows the phrase is the hub's."""
    hits, hints = ran_on("Stop your 5 seconds", [ANNOUNCED])
    assert [h.text for h in hits] == ["stop"] and hints == [""]


def test_a_stop_is_heard_where_half_the_words_after_it_are_the_hubs() -> None:
    """Heard over the ring as the echo moved: "stop" and "Your 5 second" came out as "stop your advice"."""
    hits, _ = ran_on("stop your advice", [ANNOUNCED])
    assert [h.text for h in hits] == ["stop"]


@pytest.mark.parametrize("said", [[], [ANNOUNCED]], ids=["ringing", "over the hub's words"])
@pytest.mark.parametrize("untold", ["Stop, stop, stop.", "Stop it. Stop it. Stop it.", "Cancel, cancel."])
def test_a_stop_said_again_and_again_is_a_stop_though_it_ran_on(untold: str, said: list[str]) -> None:
    """Someone calling "stop, stop, stop" at a ringing alarm, with no pause between: too long for one stop."""
    hits, hints = ran_on(untold, said)
    assert [h.text for h in hits] == [untold] and hints == [""]


def test_a_stretch_that_ran_on_while_the_hub_has_said_nothing_is_no_stop_with_other_words_in_it() -> None:
    hits, hints = ran_on("Stop your 5 seconds", [])
    assert hits == [] and hints == [""]  # heard once, untold


def test_stops_the_hub_says_again_and_again_are_its_own() -> None:
    hits, _ = ran_on("Stop, stop, stop.", ["Stop, stop, stop! That is what the sign says."])
    assert hits == []


@pytest.mark.parametrize(("untold", "said"), [
    ("Stop the car at the", "Stop the car at the red light."),  # the hub's own words, stop and all
    ("Stop by the bakery on your way", ANNOUNCED),  # the person's talk: not the hub's words after the stop
    ("Your 5 second timer is done", ANNOUNCED),  # the hub alone
    ("Stop your", ANNOUNCED),  # too little after the stop to tell whose it is
])
def test_a_stretch_that_ran_on_is_no_stop_unless_the_hubs_words_follow_a_stop(untold: str, said: str) -> None:
    hits, _ = ran_on(untold, [said])
    assert hits == []
