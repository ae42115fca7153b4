"""The real Piper voice: heard back by Whisper, spoken gap-free by the worker, silenced by stop()."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from appliance.assembly import NoAnswer
from appliance.audio import concat, read_wav
from appliance.audio.playback import WavSink
from appliance.conversation.responder import Responder
from appliance.speaking.sentences import SentenceSplitter
from appliance.speaking.tts import SpeechWorker
from tests.fixtures.speech import heard_name
from tests.fixtures.waits import SLOW_WAIT_S, wait_for

MAX_EXTRA_GAP_S = 0.030  # seconds of silence playback may add to any pause Piper made itself

SENTENCES = [
    "The Moon is the only natural satellite of the Earth.",
    "It is about three hundred and eighty thousand kilometres away.",
    "Its surface is covered in fine grey dust.",
]


class Collect:
    """A sink that keeps what it is given."""

    def __init__(self) -> None:
        self.chunks: list[Any] = []

    def play(self, chunk: Any) -> None:
        self.chunks.append(chunk)

    def stop(self) -> None: ...

    def drain(self, timeout: float) -> bool:
        return True

    def first_audio_at(self) -> float | None:
        return None

    def mark_turn(self) -> None: ...

    def close(self) -> None: ...


def said(piper: Any, text: str) -> list[Any]:
    """The audio of `text` spoken as an answer by the Responder (no model: a fixed text)."""
    sink = Collect()
    answer = Responder(NoAnswer(), piper, SentenceSplitter, time.monotonic).say([text], sink)
    wait_for(lambda: answer.next_update(0.05) is None and answer.done, "the answer to be spoken", SLOW_WAIT_S)
    return sink.chunks


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("The Moon orbits the Earth about every twenty seven days.", {"moon", "orbits", "earth", "days"}),
        ("The capital of **France** is Paris, a big city 🇫🇷, see https://example.org.",
         {"capital", "france", "paris", "city"}),
        ("Today it is 20°C & sunny in the garden.", {"degrees", "celsius", "sunny", "garden"}),
    ],
)
def test_piper_speech_is_heard_back_by_whisper(piper: Any, transcribe: Any, text: str,
                                               words: set[str]) -> None:
    """Said through the answer path (which cleans text for speech), as every answer is; the voice's
    variation is off (the `piper` fixture), and a word heard a little wrong or split still counts."""
    chunks = said(piper, text)
    assert chunks and all(c.rate == piper.rate for c in chunks)
    heard = transcribe(concat(chunks))
    missing = {w for w in words if not heard_name(heard, w)}
    assert len(missing) <= len(words) // 4, f"heard {heard!r}"  # Whisper tiny may miss one word in four
    for junk in ("asterisk", "https", "example", "emoji", "flag"):
        assert junk not in heard, heard


class Recording:
    """Wraps the synthesizer and keeps every chunk it hands out (what the sink was given)."""

    def __init__(self, synth: Any) -> None:
        self.synth, self.rate, self.chunks = synth, synth.rate, []

    def synthesize(self, text: str) -> Any:
        for chunk in self.synth.synthesize(text):
            self.chunks.append(chunk)
            yield chunk


def test_three_sentences_play_without_gaps_beyond_pipers_own(piper: Any, tmp_path: Path) -> None:
    synth = Recording(piper)
    sink = WavSink(tmp_path / "reply.wav", realtime=True)  # played against a clock, like a sound card
    worker = SpeechWorker(synth, sink).start()
    for sentence in SENTENCES:  # arriving one by one, as the model writes them
        worker.say(sentence)
        time.sleep(0.2)
    worker.finish()
    assert worker.wait(SLOW_WAIT_S)
    sink.close()
    given = concat(synth.chunks).to_float()[:, 0]
    played = read_wav(tmp_path / "reply.wav").to_float()[:, 0]
    assert len(synth.chunks) == 3
    # Sample for sample, not in RMS frames: the frame grid shifts with any silence the clock adds, and
    # a frame at the edge of a sound can then count as loud or quiet either way. Every sound sample
    # Piper made is played, in order and unchanged, and playback only ever adds silence between them.
    given_at, played_at = np.flatnonzero(given), np.flatnonzero(played)
    assert np.array_equal(played[played_at], given[given_at]), "the played sound is not the sound given"
    extra_s = (np.diff(played_at) - np.diff(given_at)) / piper.rate
    assert extra_s.max() <= MAX_EXTRA_GAP_S, f"silence added beyond Piper's own: {sorted(extra_s)[-3:]} s"


def test_stop_mid_sentence_ends_the_audio_within_100_ms(piper: Any, tmp_path: Path) -> None:
    text = "This is a long sentence that goes on and on, so that there is plenty of time to stop it halfway."
    chunk = concat(list(piper.synthesize(text)))
    assert chunk.duration_s > 3.0
    sink = WavSink(tmp_path / "stopped.wav", realtime=True)
    sink.mark_turn()
    sink.play(chunk)
    wait_for(lambda: sink.frames_written >= chunk.rate * 1.5, "1.5 s of the sentence played", SLOW_WAIT_S)
    at_stop = sink.frames_written
    sink.stop()
    assert sink.drain(SLOW_WAIT_S)
    time.sleep(0.2)
    sink.close()
    played = read_wav(tmp_path / "stopped.wav").to_float()[:, 0]
    loud = np.flatnonzero(np.abs(played) > 1e-3)
    after_s = (loud[-1] - at_stop) / chunk.rate
    assert after_s <= 0.100, f"sound went on for {after_s * 1000:.0f} ms after stop()"
    assert len(played) < chunk.frames * 0.75  # the rest of the sentence was dropped
    # what did play is the sentence itself, sample for sample
    np.testing.assert_allclose(played[:at_stop], chunk.to_float()[:at_stop, 0], atol=1e-4)
