"""PiperSynthesizer around a fake voice, and the SpeechWorker with fake synthesizers and sinks."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from appliance import cli
from appliance.audio import AudioChunk
from appliance.audio.playback import BLOCK_MS, Playback
from appliance.config import TtsConfig
from appliance.speaking.tts import PiperSynthesizer, SpeechWorker, VoiceError, load_voice
from tests.fixtures.waits import WAIT_S, wait_for

RATE = 22050


@dataclass
class FakePiperChunk:
    audio_int16_bytes: bytes
    sample_rate: int = RATE
    sample_width: int = 2
    sample_channels: int = 1


@dataclass
class FakeVoice:
    """Stands in for piper.PiperVoice: one chunk per '.'-separated sentence, 0.1 s each."""

    config: Any = field(default_factory=lambda: SimpleNamespace(sample_rate=RATE))
    texts: list[str] = field(default_factory=list)
    syn_configs: list[Any] = field(default_factory=list)

    def synthesize(self, text: str, syn_config: Any = None) -> Any:
        self.texts.append(text)
        self.syn_configs.append(syn_config)
        for _sentence in [s for s in text.split(".") if s.strip()]:
            yield FakePiperChunk(np.full(int(0.1 * RATE), 1000, dtype="<i2").tobytes())


def test_synthesizer_speaks_the_text_as_given_with_the_configured_settings() -> None:
    voice = FakeVoice()
    marker = object()
    synth = PiperSynthesizer(voice, TtsConfig(), syn_config=marker)
    chunks = list(synth.synthesize("Hello there. It is 20 degrees Celsius."))
    assert voice.texts == ["Hello there. It is 20 degrees Celsius."]
    assert voice.syn_configs == [marker]
    assert [c.rate for c in chunks] == [RATE, RATE] and synth.rate == RATE
    assert all(c.duration_s == pytest.approx(0.1, abs=0.001) for c in chunks)


def test_blank_text_means_no_audio_and_no_model_run() -> None:
    voice = FakeVoice()
    synth = PiperSynthesizer(voice, TtsConfig(), syn_config=object())
    assert list(synth.synthesize(" \n ")) == []
    assert voice.texts == []


def test_missing_voice_config_is_a_clear_error(tmp_path: Path) -> None:
    model = tmp_path / "voice.onnx"
    model.write_bytes(b"not a model")
    with pytest.raises(VoiceError, match=r"voice\.onnx\.json is missing") as info:
        load_voice(model, threads=1)
    assert cli.exit_code(info.value) == 78


def test_damaged_voice_is_a_clear_error(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("piper")
    model = tmp_path / "voice.onnx"
    model.write_bytes(b"not a model")
    (tmp_path / "voice.onnx.json").write_text(
        '{"num_symbols": 10, "num_speakers": 1, "audio": {"sample_rate": 22050},'
        ' "espeak": {"voice": "en-us"}, "phoneme_id_map": {}, "phoneme_type": "espeak"}')
    with pytest.raises(VoiceError, match="cannot be loaded.*download it again"):
        load_voice(model, threads=1)


def tone(seconds: float) -> AudioChunk:
    t = np.arange(int(seconds * RATE)) / RATE
    return AudioChunk.from_float(0.3 * np.sin(2 * np.pi * 220 * t), RATE)


class Card:
    """A speaker over the buffer real sinks play from, whose sound card takes a block each tick().

    Nothing plays by itself: the card's time moves only when a test (or a synthesizer at work)
    ticks it, so what it heard depends on the order of events alone, never on the wall clock.
    """

    def __init__(self) -> None:
        self.playback = Playback(RATE)
        self.heard: list[np.ndarray] = []
        self.chunks = 0  # chunks the speech worker has handed over
        self.stopped = 0
        self._lock = threading.Lock()

    def tick(self) -> np.ndarray:
        """The card takes one block: what is queued, silence where the buffer runs dry."""
        with self._lock:
            block = self.playback.pull(RATE * BLOCK_MS // 1000)
            self.heard.append(block)
        return block

    def output(self) -> np.ndarray:
        with self._lock:
            return np.concatenate(self.heard)

    def play(self, chunk: AudioChunk) -> None:
        self.playback.push(chunk.to_float()[:, 0])
        self.chunks += 1

    def stop(self) -> None:
        self.stopped += 1
        self.playback.stop()

    def drain(self, timeout: float) -> bool:
        return self.playback.wait_empty(timeout)

    def first_audio_at(self) -> float | None:
        return self.playback.first_audio_at()

    def mark_turn(self) -> None:
        self.playback.mark_turn()

    def close(self) -> None: ...


class WorkingSynth:
    """A synthesizer whose work on a sentence lasts `work_blocks` of the card's blocks (the card plays
    on meanwhile; what it played then is kept per sentence), then gives `audio_s` of a tone."""

    rate = RATE

    def __init__(self, card: Card, audio_s: float, work_blocks: int = 7) -> None:
        self.card, self.audio_s, self.work_blocks = card, audio_s, work_blocks
        self.heard_meanwhile: dict[str, list[np.ndarray]] = {}

    def synthesize(self, text: str) -> Any:
        self.heard_meanwhile[text] = [self.card.tick() for _ in range(self.work_blocks)]
        yield tone(self.audio_s)


class GatedSynth:
    """A synthesizer that finishes each sentence only once the test lets one more through."""

    rate = RATE

    def __init__(self) -> None:
        self.started: list[str] = []
        self.go = threading.Semaphore(0)

    def synthesize(self, text: str) -> Any:
        self.started.append(text)
        assert self.go.acquire(timeout=WAIT_S), f"{text!r} was never let through"
        yield tone(1.0)


class RecordingSink:
    def __init__(self) -> None:
        self.played: list[AudioChunk] = []
        self.stopped = 0
        self.marks = 0

    def play(self, chunk: AudioChunk) -> None:
        self.played.append(chunk)

    def stop(self) -> None:
        self.stopped += 1

    def drain(self, timeout: float) -> bool:
        return True

    def first_audio_at(self) -> float | None:
        return None

    def mark_turn(self) -> None:
        self.marks += 1

    def close(self) -> None: ...


def sounding(block: np.ndarray) -> bool:
    return float(np.sqrt(np.mean(block ** 2))) > 0.01


def inner_silence_s(samples: np.ndarray, frame_ms: int = 5) -> float:
    """Seconds of silent 5 ms frames between the first and the last sound: the gaps a listener hears."""
    n = RATE * frame_ms // 1000
    rms = np.sqrt(np.mean(samples[: len(samples) // n * n].reshape(-1, n) ** 2, axis=1))
    loud = np.flatnonzero(rms > 0.01)
    return float(np.sum(rms[loud[0]:loud[-1] + 1] <= 0.01) * frame_ms / 1000)


def test_worker_synthesizes_the_next_sentence_while_the_current_plays() -> None:
    card = Card()
    synth = WorkingSynth(card, audio_s=0.6)
    worker = SpeechWorker(synth, card).start()
    for text in ("one", "two", "three"):
        worker.say(text)
    worker.finish()
    wait_for(lambda: card.chunks == 3, "every sentence handed to the speaker")
    wait_for(lambda: worker.wait(0), "the speech to be played out", between=card.tick)
    # While "two" and "three" were being synthesized the card was playing the sentence before them.
    assert all(sounding(b) for b in synth.heard_meanwhile["two"] + synth.heard_meanwhile["three"])
    heard = card.output()
    assert inner_silence_s(heard) == 0.0
    # Silence while the first sentence was synthesized, then the three back to back, each once.
    lead = synth.work_blocks * RATE * BLOCK_MS // 1000
    spoken = np.concatenate([tone(0.6).to_float()[:, 0]] * 3)
    np.testing.assert_array_equal(heard[lead:lead + len(spoken)], spoken)
    assert not np.any(heard[:lead]) and not np.any(heard[lead + len(spoken):])
    assert [t.text for t in worker.stats.sentences] == ["one", "two", "three"]


def test_a_worker_that_waits_for_playback_would_leave_gaps() -> None:
    """The measurement above can fail: speaking one sentence at a time leaves audible gaps."""
    card = Card()
    synth = WorkingSynth(card, audio_s=0.3)
    for text in ("one", "two"):
        for chunk in synth.synthesize(text):
            card.play(chunk)
        while card.playback.ended_at() is None:  # until the sentence has been heard
            card.tick()
    assert not any(sounding(b) for b in synth.heard_meanwhile["two"])  # the card had nothing to play
    assert inner_silence_s(card.output()) > 0.1


def test_cancel_stops_synthesis_and_the_sink_at_once() -> None:
    synth = GatedSynth()
    sink = RecordingSink()
    cancel = threading.Event()
    worker = SpeechWorker(synth, sink, cancel).start()
    for n in range(20):
        worker.say(f"sentence {n}")
    synth.go.release(2)
    wait_for(lambda: len(synth.started) == 3, "the third sentence in synthesis")
    cancel.set()
    synth.go.release()  # its synthesis ends after the cancel
    assert worker.wait(WAIT_S)
    assert worker.stats.cancelled and sink.stopped >= 1 and sink.marks == 1
    assert synth.started == ["sentence 0", "sentence 1", "sentence 2"]  # not one sentence more
    assert len(sink.played) == 2  # and the sentence synthesized across the cancel is not played


def test_cancel_while_draining_stops_the_sink() -> None:
    class EndlessDrain(RecordingSink):
        """A speaker that never finishes playing."""

        def __init__(self) -> None:
            super().__init__()
            self.draining = threading.Event()
            self._never = threading.Event()

        def drain(self, timeout: float) -> bool:
            self.draining.set()
            return self._never.wait(timeout)

    sink = EndlessDrain()
    cancel = threading.Event()
    worker = SpeechWorker(WorkingSynth(Card(), audio_s=0.1, work_blocks=0), sink, cancel).start()
    worker.say("only")
    worker.finish()
    assert sink.draining.wait(WAIT_S)
    cancel.set()
    assert worker.wait(WAIT_S)
    assert worker.stats.cancelled and sink.stopped == 1


class RealTimeSink(RecordingSink):
    """A speaker that plays what it is handed in real time, each chunk after the one before it."""

    def __init__(self, stalls: bool = False) -> None:
        super().__init__()
        self.stalls = stalls
        self.ends_at = 0.0
        self._never = threading.Event()

    def play(self, chunk: AudioChunk) -> None:
        super().play(chunk)
        self.ends_at = max(self.ends_at, time.monotonic()) + chunk.duration_s

    def drain(self, timeout: float) -> bool:
        left = float("inf") if self.stalls else self.ends_at - time.monotonic()
        self._never.wait(max(0.0, min(timeout, left)))
        return left <= timeout


class InstantSynth:
    """Writes each sentence's audio at once, far ahead of the speaker, as Piper does on a fast CPU."""

    rate = RATE

    def __init__(self, audio_s: float) -> None:
        self.audio_s = audio_s

    def synthesize(self, text: str) -> Any:
        yield tone(self.audio_s)


def test_a_long_answer_written_at_once_is_waited_for_until_it_has_played() -> None:
    """The wait for the speaker counts from when the audio written is due to end, not from when the
    last sentence was written: here 2 s of answer are written at once and the grace is 0.3 s."""
    sink = RealTimeSink()
    worker = SpeechWorker(InstantSynth(audio_s=0.5), sink, drain_timeout_s=0.3).start()
    for n in range(4):
        worker.say(f"sentence {n}")
    worker.finish()
    assert worker.wait(WAIT_S) is True
    assert worker.played and not worker.stats.cancelled and sink.stopped == 0
    assert len(sink.played) == 4 and time.monotonic() >= sink.ends_at


def test_a_speaker_that_stalls_is_given_up_on_after_the_grace() -> None:
    sink = RealTimeSink(stalls=True)
    worker = SpeechWorker(InstantSynth(audio_s=0.2), sink, drain_timeout_s=0.3).start()
    worker.say("only")
    worker.finish()
    assert worker.wait(WAIT_S) is False
    assert not worker.played and not worker.stats.cancelled


def test_worker_hands_synthesis_errors_to_wait() -> None:
    class Broken:
        rate = RATE

        def synthesize(self, text: str) -> Any:
            raise RuntimeError("onnxruntime fell over")
            yield  # pragma: no cover

    sink = RecordingSink()
    worker = SpeechWorker(Broken(), sink).start()
    worker.say("hello")
    worker.finish()
    with pytest.raises(RuntimeError, match="fell over"):
        worker.wait(WAIT_S)
    assert sink.stopped == 1
