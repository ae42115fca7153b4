"""The real Piper voice: heard back by Whisper, spoken gap-free by the worker, silenced by stop()."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from appliance.audio import concat, read_wav
from appliance.playback import WavSink
from appliance.tts import SpeechWorker

FRAME_MS = 5  # milliseconds per RMS frame when looking for silence
SILENCE_RMS = 0.004  # about -48 dBFS: below this a 5 ms frame counts as silent
MAX_EXTRA_GAP_S = 0.030  # the limit on a gap beyond Piper's own edge silence
WAIT_S = 60.0

SENTENCES = [
    "The Moon is the only natural satellite of the Earth.",
    "It is about three hundred and eighty thousand kilometres away.",
    "Its surface is covered in fine grey dust.",
]


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
    chunks = list(piper.synthesize(text))
    assert chunks and all(c.rate == piper.rate for c in chunks)
    heard = transcribe(concat(chunks))
    missing = {w for w in words if w not in heard.split()}
    assert len(missing) <= len(words) // 4, f"heard {heard!r}"  # Whisper tiny may miss one word in four
    for junk in ("asterisk", "https", "example", "emoji", "flag"):
        assert junk not in heard, heard


def frame_rms(samples: np.ndarray, rate: int) -> np.ndarray:
    n = rate * FRAME_MS // 1000
    return np.sqrt(np.mean(samples[: len(samples) // n * n].reshape(-1, n) ** 2, axis=1))


def inner_silences(samples: np.ndarray, rate: int) -> list[float]:
    """Lengths (s) of the silent runs between the first and the last sound."""
    silent = frame_rms(samples, rate) < SILENCE_RMS
    loud = np.flatnonzero(~silent)
    runs, length = [], 0
    for quiet in silent[loud[0]:loud[-1] + 1]:
        if quiet:
            length += 1
        elif length:
            runs.append(length * FRAME_MS / 1000)
            length = 0
    return runs


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
    assert worker.wait(WAIT_S)
    sink.close()
    given = concat(synth.chunks).to_float()[:, 0]
    played = read_wav(tmp_path / "reply.wav").to_float()[:, 0]
    rate = piper.rate
    expected_runs, played_runs = inner_silences(given, rate), inner_silences(played, rate)
    assert len(synth.chunks) == 3 and len(played_runs) == len(expected_runs), (expected_runs, played_runs)
    extra = [p - e for p, e in zip(played_runs, expected_runs)]
    assert max(extra) <= MAX_EXTRA_GAP_S, f"gaps beyond Piper's own silence: {extra}"
    assert np.sum(frame_rms(played, rate) >= SILENCE_RMS) == np.sum(frame_rms(given, rate) >= SILENCE_RMS)


def test_stop_mid_sentence_ends_the_audio_within_100_ms(piper: Any, tmp_path: Path) -> None:
    text = "This is a long sentence that goes on and on, so that there is plenty of time to stop it halfway."
    chunk = concat(list(piper.synthesize(text)))
    assert chunk.duration_s > 3.0
    sink = WavSink(tmp_path / "stopped.wav", realtime=True)
    sink.mark_turn()
    sink.play(chunk)
    deadline = time.monotonic() + WAIT_S
    while sink.frames_written < chunk.rate * 1.5 and time.monotonic() < deadline:
        time.sleep(0.005)
    at_stop = sink.frames_written
    sink.stop()
    assert sink.drain(WAIT_S)
    time.sleep(0.2)
    sink.close()
    played = read_wav(tmp_path / "stopped.wav").to_float()[:, 0]
    loud = np.flatnonzero(np.abs(played) > 1e-3)
    after_s = (loud[-1] - at_stop) / chunk.rate
    assert after_s <= 0.100, f"sound went on for {after_s * 1000:.0f} ms after stop()"
    assert len(played) < chunk.frames * 0.75  # the rest of the sentence was dropped
    # what did play is the sentence itself, sample for sample
    np.testing.assert_allclose(played[:at_stop], chunk.to_float()[:at_stop, 0], atol=1e-4)
