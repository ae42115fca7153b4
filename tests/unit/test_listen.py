"""Hearing (wake word, pre-roll, question) with fake stages; the --json record's shape."""

from __future__ import annotations

import numpy as np

from appliance.audio import AudioChunk
from appliance.commands.listen import Heard, Hearing, preroll_chunks
from appliance.contracts import Transcript, WakeHit


def chunk(value: int) -> AudioChunk:
    return AudioChunk.from_int16(np.full(1280, value, dtype=np.int16), 16000)


class ListSource:
    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.frames_read = 0

    @property
    def eof(self) -> bool:
        return not self.values

    def read(self, timeout: float) -> AudioChunk | None:
        if not self.values:
            return None
        self.frames_read += 1
        return chunk(self.values.pop(0))

    def status(self) -> str:
        return "ok"

    def close(self) -> None: ...


class FakeWake:
    """Fires on the chunk whose samples are 99."""

    def __init__(self) -> None:
        self.resets = 0
        self.seen = 0

    def process(self, c: AudioChunk, threshold: float | None = None) -> WakeHit | None:
        self.seen += 1
        return WakeHit("hey_jarvis", 0.97, self.seen * 0.08) if c.to_int16()[0] == 99 else None

    def reset(self, new_stream: bool = False) -> None:
        self.resets += 1


class FakeUtterance:
    early = None  # no early transcripts

    def __init__(self, preroll: list[AudioChunk]) -> None:
        self.values = [int(c.to_int16()[0]) for c in preroll]

    @property
    def heard_speech(self) -> bool:
        return bool(self.values)

    def feed(self, c: AudioChunk) -> Transcript | None:
        v = int(c.to_int16()[0])
        if v == 0:  # silence ends it
            return Transcript(" ".join(map(str, self.values)))
        self.values.append(v)
        return None

    def finish(self) -> Transcript:
        return Transcript(" ".join(map(str, self.values)), outcome="speech")


class FakeRecognizer:
    name = "fake"

    def start(self, preroll: list[AudioChunk]) -> FakeUtterance:
        self.utterance = FakeUtterance(preroll)
        return self.utterance


def test_question_gets_the_preroll() -> None:  # the wake echo: the recognizer's (test_asr_endpoint)
    source = ListSource([1, 2, 3, 4, 99, 5, 6, 0, 7])
    wake = FakeWake()
    heard = Hearing(source, wake, FakeRecognizer(), preroll_chunks=3).hear()
    assert heard.wake == WakeHit("hey_jarvis", 0.97, 0.4)
    assert heard.transcript.text == "3 4 99 5 6"  # the last 3 chunks up to the detection, then the question
    assert wake.resets == 1 and source.values == [7]
    assert heard.record() == {"wake": {"word": "hey_jarvis", "score": 0.97, "at_s": 0.4},
                              "transcript": "3 4 99 5 6"}


def test_source_ending_mid_question_finishes_it_and_no_wake_gives_nulls() -> None:
    heard = Hearing(ListSource([99, 5, 6]), FakeWake(), FakeRecognizer(), preroll_chunks=1).hear()
    assert heard.transcript.text == "99 5 6"
    nothing = Hearing(ListSource([1, 2, 3]), FakeWake(), FakeRecognizer(), preroll_chunks=1).hear()
    assert nothing == Heard() and nothing.record() == {"wake": None, "transcript": None}


def test_preroll_chunks_rounds_up() -> None:
    assert preroll_chunks(0.3, 80) == 4 and preroll_chunks(0.0, 80) == 0 and preroll_chunks(0.32, 80) == 4
