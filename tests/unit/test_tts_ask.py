"""`appliance ask --out/--speak` with a fake model and a fake voice: speech starts before the answer ends."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from appliance import cli
from appliance.audio import AudioChunk, read_wav
from appliance.contracts import AnswerStats
from tests.fixtures.waits import WAIT_S

RATE = 22050
SENTENCE_AUDIO_S = 0.4  # seconds of tone the fake voice makes per sentence


class ToneVoice:
    """A synthesizer that answers every sentence with a tone and remembers what, in order."""

    rate = RATE

    def __init__(self) -> None:
        self.spoken: list[str] = []
        self.first_played = threading.Event()
        """Set once the first sentence's audio has been handed to the sink."""

    def synthesize(self, text: str) -> Iterator[AudioChunk]:
        self.spoken.append(text)
        t = np.arange(int(SENTENCE_AUDIO_S * RATE)) / RATE
        yield AudioChunk.from_float(0.3 * np.sin(2 * np.pi * 330 * t), RATE)
        self.first_played.set()  # the worker asks for more only after it played the chunk


class SlowChat:
    """Writes three sentences, a few characters every 20 ms, like a small model on a slow board.

    With `hold_end` set it writes the last few only once the voice has played the first sentence.
    """

    answer = "The Moon is Earth's only natural satellite. It is about 4.5 billion years old. It has no air."

    def __init__(self, voice: ToneVoice) -> None:
        self.voice = voice
        self.hold_end = False
        self.first_played_before_the_end = False

    def stream(self, question: str, cancel: threading.Event, **_: Any) -> Iterator[str]:
        for i in range(0, len(self.answer), 4):
            if cancel.is_set():
                return
            if self.hold_end and i + 4 >= len(self.answer):
                self.first_played_before_the_end = self.voice.first_played.wait(WAIT_S)
            time.sleep(0.02)
            yield self.answer[i:i + 4]

    @property
    def last_stats(self) -> AnswerStats:
        return AnswerStats(tokens=25, stop_reason="stop")

    def reset(self) -> None: ...


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> tuple[SlowChat, ToneVoice]:
    from appliance.commands import ask
    from appliance.speaking import tts

    voice = ToneVoice()
    chat = SlowChat(voice)
    monkeypatch.setattr(ask.Asker, "_load_chat", lambda self: chat)
    monkeypatch.setattr(tts.PiperSynthesizer, "from_config", classmethod(lambda cls, cfg: voice))
    return chat, voice


def test_out_writes_each_sentence_and_starts_before_the_answer_ends(
        fakes: tuple[SlowChat, ToneVoice], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chat, voice = fakes
    chat.hold_end = True
    out = tmp_path / "reply.wav"
    assert cli.main(["ask", "--out", str(out), "Tell me a short fact about the moon."]) == 0
    # the first piece leaves before "is" (conversation.first_phrase_max_words), then whole sentences
    assert voice.spoken == ["The Moon", "is Earth's only natural satellite.", "It is about 4.5 billion years old.",
                            "It has no air."]
    assert chat.first_played_before_the_end
    audio = read_wav(out)
    assert audio.rate == RATE and audio.duration_s == pytest.approx(4 * SENTENCE_AUDIO_S, abs=0.01)
    assert "(speech started before the answer was complete)" in capsys.readouterr().err  # the log line


def test_speak_and_out_together_feed_both(fakes: tuple[SlowChat, ToneVoice], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from appliance.audio import speaker

    played: list[AudioChunk] = []

    class FakeSpeaker:
        def __init__(self, cfg: Any, rate: int | None = None, volume: Any = None) -> None:
            self.first: float | None = None

        def wait_ready(self, timeout: float) -> bool:
            return True

        def play(self, chunk: AudioChunk) -> None:
            self.first = self.first or time.monotonic()
            played.append(chunk)

        def stop(self) -> None: ...

        def drain(self, timeout: float) -> bool:
            return True

        def first_audio_at(self) -> float | None:
            return self.first

        def mark_turn(self) -> None:
            self.first = None

        def close(self) -> None: ...

    monkeypatch.setattr(speaker, "SpeakerSink", FakeSpeaker)
    out = tmp_path / "both.wav"
    assert cli.main(["ask", "--speak", "--out", str(out), "Moon?"]) == 0
    assert len(played) == 4  # "The Moon", then the three sentences (one chunk each)
    assert read_wav(out).duration_s == pytest.approx(sum(c.duration_s for c in played), abs=0.01)


def test_without_speech_options_no_voice_is_loaded(fakes: tuple[SlowChat, ToneVoice]) -> None:
    _chat, voice = fakes
    assert cli.main(["ask", "Moon?"]) == 0
    assert voice.spoken == []
