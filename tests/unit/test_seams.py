"""The silence around spoken pieces: cut before an answer's first word and after a piece cut mid-sentence,
kept where a sentence or a clause ends (the voice's own pause)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np

from appliance.audio import AudioChunk
from appliance.speaking import seams
from appliance.speaking.tts import SpeechWorker
from tests.fixtures.waits import WAIT_S

RATE = 22050


def spoken(lead_s: float, voice_s: float, tail_s: float) -> AudioChunk:
    """A clip as Piper makes one: silence, a voiced stretch, silence."""
    t = np.arange(int(voice_s * RATE)) / RATE
    voice = 0.3 * np.sin(2 * np.pi * 220 * t)
    samples = np.concatenate([np.zeros(int(lead_s * RATE)), voice, np.zeros(int(tail_s * RATE))])
    return AudioChunk.from_int16((samples * 32767).astype(np.int16), RATE)


class ClipVoice:
    rate = RATE

    def synthesize(self, text: str) -> Iterator[AudioChunk]:
        yield spoken(0.05, 0.4, 0.2)


class Recorder:
    def __init__(self) -> None:
        self.clips: list[AudioChunk] = []

    def play(self, chunk: AudioChunk) -> None:
        self.clips.append(chunk)

    def stop(self) -> None:
        pass

    def drain(self, timeout: float) -> bool:
        return True

    def first_audio_at(self) -> float | None:
        return None

    def mark_turn(self) -> None:
        pass


def test_the_silence_is_cut_to_what_is_kept() -> None:
    clip = spoken(0.05, 0.4, 0.2)
    assert abs(seams.trimmed(clip, lead=True).duration_s - (0.4 + 0.2 + seams.LEAD_KEPT_S)) < 0.011
    assert abs(seams.trimmed(clip, tail=True).duration_s - (0.05 + 0.4 + seams.SEAM_KEPT_S)) < 0.011
    assert seams.trimmed(clip).duration_s == clip.duration_s
    quiet = spoken(0.3, 0.0, 0.0)
    assert seams.trimmed(quiet, lead=True, tail=True).duration_s == quiet.duration_s


def test_a_piece_cut_mid_sentence_is_told_from_one_that_ends_a_clause() -> None:
    assert seams.cut_mid_sentence("The moon")
    assert not seams.cut_mid_sentence("Bees make honey,")
    assert not seams.cut_mid_sentence("It is Paris.")
    assert not seams.cut_mid_sentence('He said "yes."')


def test_the_answer_starts_with_its_first_word_and_a_mid_sentence_seam_is_a_word_gap() -> None:
    sink = Recorder()
    worker = SpeechWorker(ClipVoice(), sink, threading.Event()).start()
    for piece in ("The moon", "is about 384,000 kilometres away.", "It circles the Earth."):
        worker.say(piece)
    worker.finish()
    assert worker.wait(WAIT_S)
    first, second, third = (c.duration_s for c in sink.clips)
    assert abs(first - (seams.LEAD_KEPT_S + 0.4 + seams.SEAM_KEPT_S)) < 0.015  # both ends cut
    assert second == third == spoken(0.05, 0.4, 0.2).duration_s  # a sentence's own pause is kept
