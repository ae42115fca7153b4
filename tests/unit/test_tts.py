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
from appliance.config import TtsConfig
from appliance.playback import WavSink
from appliance.tts import PiperSynthesizer, SpeechWorker, VoiceError, load_voice
from tests.fixtures.waits import WAIT_S

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


class SlowSynth:
    """A synthesizer that takes `synth_s` per sentence and returns `audio_s` of a tone."""

    rate = RATE

    def __init__(self, synth_s: float, audio_s: float) -> None:
        self.synth_s, self.audio_s = synth_s, audio_s
        self.started: list[tuple[str, float]] = []

    def synthesize(self, text: str) -> Any:
        self.started.append((text, time.monotonic()))
        time.sleep(self.synth_s)
        t = np.arange(int(self.audio_s * RATE)) / RATE
        yield AudioChunk.from_float(0.3 * np.sin(2 * np.pi * 220 * t), RATE)


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


def frame_rms(path: Path, frame_ms: int = 5) -> np.ndarray:
    from appliance.audio import read_wav

    x = read_wav(path).to_float()[:, 0]
    n = RATE * frame_ms // 1000
    return np.sqrt(np.mean(x[: len(x) // n * n].reshape(-1, n) ** 2, axis=1))


def test_worker_synthesizes_the_next_sentence_while_the_current_plays(tmp_path: Path) -> None:
    synth = SlowSynth(synth_s=0.15, audio_s=0.6)
    sink = WavSink(tmp_path / "out.wav", realtime=True)
    worker = SpeechWorker(synth, sink).start()
    worker.say("one")
    time.sleep(0.05)  # the model is still writing the next sentences
    worker.say("two")
    worker.say("three")
    worker.finish()
    assert worker.wait(WAIT_S)
    sink.close()
    first_audio = sink.first_audio_at()
    assert first_audio is not None
    # "two" was being synthesized while "one" was still sounding (it sounds for 0.6 s).
    assert synth.started[1][1] < first_audio + 0.6
    rms = frame_rms(tmp_path / "out.wav")
    sounding = np.flatnonzero(rms > 0.01)
    inner_silence = np.sum(rms[sounding[0]:sounding[-1] + 1] <= 0.01) * 0.005
    assert inner_silence < 0.03, f"{inner_silence * 1000:.0f} ms of gaps between sentences"
    assert [t.text for t in worker.stats.sentences] == ["one", "two", "three"]


def test_a_worker_that_waits_for_playback_would_leave_gaps(tmp_path: Path) -> None:
    """The measurement above can fail: speaking one sentence at a time leaves audible gaps."""
    synth = SlowSynth(synth_s=0.15, audio_s=0.3)
    sink = WavSink(tmp_path / "naive.wav", realtime=True)
    for text in ("one", "two"):
        for chunk in synth.synthesize(text):
            sink.play(chunk)
        while sink.playback_ended_at() is None:
            time.sleep(0.005)
    assert sink.drain(WAIT_S)
    sink.close()
    rms = frame_rms(tmp_path / "naive.wav")
    sounding = np.flatnonzero(rms > 0.01)
    assert np.sum(rms[sounding[0]:sounding[-1] + 1] <= 0.01) * 0.005 > 0.1


def test_cancel_stops_synthesis_and_the_sink_at_once() -> None:
    synth = SlowSynth(synth_s=0.1, audio_s=1.0)
    sink = RecordingSink()
    cancel = threading.Event()
    worker = SpeechWorker(synth, sink, cancel).start()
    for n in range(20):
        worker.say(f"sentence {n}")
    time.sleep(0.25)
    cancel.set()
    started = time.monotonic()
    assert worker.wait(WAIT_S)
    assert time.monotonic() - started < 1.0  # within a sentence's synthesis, not the whole queue
    assert worker.stats.cancelled and sink.stopped >= 1
    assert len(sink.played) < 5 and sink.marks == 1


def test_cancel_while_draining_stops_the_sink() -> None:
    class SlowDrain(RecordingSink):
        def drain(self, timeout: float) -> bool:
            time.sleep(timeout)
            return False

    sink = SlowDrain()
    cancel = threading.Event()
    worker = SpeechWorker(SlowSynth(0.0, 0.1), sink, cancel).start()
    worker.say("only")
    worker.finish()
    time.sleep(0.2)
    cancel.set()
    assert worker.wait(WAIT_S)
    assert worker.stats.cancelled and sink.stopped == 1


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
