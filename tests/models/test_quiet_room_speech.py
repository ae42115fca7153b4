"""Skipping a quiet room's frames (wake.quiet_gate) on real speech: the same score on the same frame as without it, and far fewer frames scored.

Each case runs one stream through two detectors, skipping and not, loaded from the same
random start (openWakeWord fills its first features with random audio) so that their scores can
be compared frame by frame.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

from appliance.audio import AudioChunk
from appliance.audio.mic import WavSource
from appliance.config import Config
from appliance.hearing.wake import WakeWord
from tests.fixtures.speech import RATE, SpeechMaker, noise

VOICES = [("piper", 1.0), ("espeak:en-us", 1.0), ("espeak:en-us+f3", 0.9)]
LEAD_S = 8.0  # enough of the room for the detector to know its floor and skip


def detector(quiet_gate: bool) -> WakeWord:
    base = Config()
    np.random.seed(11)  # the same first features in both detectors
    return WakeWord(dataclasses.replace(base, wake=dataclasses.replace(base.wake, quiet_gate=quiet_gate))).load()


@pytest.fixture(scope="module")
def pair() -> tuple[WakeWord, WakeWord]:
    return detector(False), detector(True)


def run(wake: WakeWord, chunks: Iterable[AudioChunk], reset_at: int | None = None) -> tuple[list, list, int]:
    """Each frame's score, the frames that fired, and how many frames the models skipped."""
    wake.reset(new_stream=True)
    skipped_before = wake.quiet_room.skipped_frames if wake.quiet_room is not None else 0
    scores, hits = [], []
    for n, chunk in enumerate(chunks):
        if n == reset_at:
            wake.reset(new_stream=True)  # as the conductor does after each turn
        if wake.process(chunk) is not None:
            hits.append(n)
        scores.append(wake.last_score)
    skipped = (wake.quiet_room.skipped_frames if wake.quiet_room is not None else 0) - skipped_before
    return scores, hits, skipped


def compare(pair: tuple[WakeWord, WakeWord], wav: Path, reset_at: int | None = None) -> int:
    """Asserts the run that skips fires on the same frames with the same scores; the frames it skipped."""
    off, on = pair
    chunks = list(WavSource(wav))
    plain, plain_hits, _ = run(off, chunks, reset_at)
    skipping, skipping_hits, skipped = run(on, chunks, reset_at)
    assert plain_hits and skipping_hits == plain_hits
    scored = [n for n, score in enumerate(skipping) if score != 0.0]
    assert scored, "the models never scored a frame"
    np.testing.assert_allclose([skipping[n] for n in scored], [plain[n] for n in scored], atol=1e-6)
    quiet = [plain[n] for n in range(len(chunks)) if skipping[n] == 0.0]
    assert max(quiet, default=0.0) < off.cfg.threshold / 10  # what it skipped scores nothing without it
    return skipped


@pytest.mark.parametrize(("voice", "speed"), VOICES)
def test_after_silence_the_quiet_is_skipped_and_fires_on_the_same_frame(pair, speech: SpeechMaker,
                                                                            voice: str, speed: float) -> None:
    hey = speech("hey jarvis", voice=voice, speed=speed)
    wav = speech.join([LEAD_S, hey, 0.3, speech("what time is it", voice=voice, speed=speed), 1.0])
    skipped = compare(pair, wav)
    assert skipped >= (LEAD_S - 5.0 - 1.6) / 0.08 - 2  # all of the lead once the floor is known and the hang over


@pytest.mark.parametrize("snr_db", [20, 10, 5])
def test_in_steady_room_noise_it_fires_on_the_same_frame(pair, speech: SpeechMaker, snr_db: int) -> None:
    hey = speech("hey jarvis")
    room = speech.samples(0.02 * noise("pink", int(RATE * LEAD_S), seed=2), "room-pink")
    wav = speech.noisy(speech.join([room, hey, 0.3, speech("what time is it"), 1.0]), snr_db, "pink", seed=4)
    compare(pair, wav)


def test_a_new_detector_scores_every_frame_until_it_knows_the_room(speech: SpeechMaker) -> None:
    wav = speech.join([0.3, speech("hey jarvis"), 0.3, speech("what time is it"), 1.0])
    assert compare((detector(False), detector(True)), wav) == 0


@pytest.mark.parametrize("quiet_s", [0.5, 1.0, 4.0], ids=["shorter than what is replayed", "about as long",
                                                            "longer"])
def test_right_after_a_turn_it_fires_on_the_same_frame(pair, speech: SpeechMaker, quiet_s: float) -> None:
    """The detector is reset at the end of a turn; the next wake word comes after `quiet_s` of quiet."""
    hey = speech("hey jarvis")
    wav = speech.join([LEAD_S, speech("the capital of france is paris"), quiet_s, hey, 0.3,
                       speech("what time is it"), 1.0])
    end_of_answer = int((LEAD_S + 2.0) / 0.08)
    compare(pair, wav, reset_at=end_of_answer)
