"""WavSource on generated files; MicSource against a fake sounddevice (missing device, errors, stalls)."""

from __future__ import annotations

import time
import wave
from typing import Any

import numpy as np
import pytest

from appliance.audio import mic as mic_module
from appliance.audio.mic import MicSource, WavSource
from appliance.config import AudioConfig
from tests.fixtures.fake_stream import ToneStream
from tests.fixtures.waits import WAIT_S, wait_for


def write(path, samples: np.ndarray, rate: int, width: int = 2) -> None:
    data = samples if samples.ndim == 2 else samples[:, None]
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(data.shape[1])
        wav.setsampwidth(width)
        wav.setframerate(rate)
        if width == 1:
            wav.writeframes((data * 127 + 128).astype(np.uint8).tobytes())
        else:
            wav.writeframes((data * 32767).astype("<i2").tobytes())


@pytest.mark.parametrize("rate,channels,width", [(16000, 1, 2), (44100, 2, 2), (8000, 1, 1), (48000, 2, 2)])
def test_wav_source_gives_80ms_chunks_of_16k_mono(tmp_path, rate, channels, width) -> None:
    t = np.arange(int(rate * 1.03)) / rate
    sine = 0.5 * np.sin(2 * np.pi * 400 * t)
    write(tmp_path / "a.wav", np.stack([sine] * channels, axis=1), rate, width)
    source = WavSource(tmp_path / "a.wav")
    chunks = list(source)
    assert len(chunks) == 13  # 1.03 s -> 12.9 chunks, the last one padded with silence
    assert all((c.rate, c.channels, c.width, c.frames) == (16000, 1, 2, 1280) for c in chunks)
    assert source.frames_read == 13 and source.eof and source.read(0.1) is None
    mono = np.concatenate([c.to_int16() for c in chunks]).astype(float)[:16000]
    assert abs(np.argmax(np.abs(np.fft.rfft(mono))) - 400) <= 1


class StreamClock:
    """Stands in for the time module: sleep() moves the clock on at once, so pacing costs no wall time."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps = 0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        self.now += seconds


def test_wav_source_paced_in_real_time_hands_out_each_chunk_when_it_is_due(tmp_path, monkeypatch) -> None:
    write(tmp_path / "a.wav", np.zeros(16000 // 2), 16000)
    clock = StreamClock()
    monkeypatch.setattr(mic_module, "time", clock)
    assert len(list(WavSource(tmp_path / "a.wav"))) == 7  # 0.5 s in 80 ms chunks
    assert clock.sleeps == 0  # not paced: it never waits
    paced = WavSource(tmp_path / "a.wav", realtime=True)
    handed_at = []
    assert paced.read() is not None
    handed_at.append(clock.now)
    assert paced.read(timeout=0.05) is None  # the next chunk is 80 ms away: a short read gives up
    assert clock.now == pytest.approx(handed_at[0] + 0.05)
    while paced.read() is not None:
        handed_at.append(clock.now)
    assert handed_at == pytest.approx([100.0 + 0.08 * k for k in range(7)])  # each at its time in the file


class FakeStream(ToneStream):
    """The USB microphone's stream: it flows while `sd.delivering`, and fails when `sd.fail_streams`."""

    def __init__(self, sd: FakeSd, samplerate, channels, blocksize, callback, finished_callback, **_) -> None:
        super().__init__("input", samplerate, channels, blocksize, callback, finished_callback)
        self.sd = sd

    def step(self) -> bool | None:
        return None if self.sd.fail_streams else self.sd.delivering

    def status(self) -> Any:
        if self.sd.overflow_once:  # samples were lost before this block
            self.sd.overflow_once = False
            return type("Flags", (), {"input_overflow": True})()
        return None


class FakeSd:
    """Enough of sounddevice for MicSource: a USB mic that only does 48 kHz stereo, and may vanish."""

    def __init__(self) -> None:
        self.default = type("default", (), {"device": [1, 0]})  # input 1 (the USB mic), output 0
        self.present = False
        self.delivering = True
        self.fail_streams = False
        self.overflow_once = False
        self.opens = 0
        self.rescans = 0

    def query_devices(self, device=None, kind=None):
        devices = [{"name": "Speaker", "max_input_channels": 0, "default_samplerate": 48000}]
        if self.present:
            devices.append({"name": "USB PnP Sound Device", "max_input_channels": 2, "default_samplerate": 48000})
        return devices if device is None else devices[device]

    def check_input_settings(self, device, samplerate, channels, dtype) -> None:
        if samplerate != 48000 or channels != 2:
            raise ValueError("Invalid sample rate")

    def RawInputStream(self, **kwargs):
        self.opens += 1
        return FakeStream(self, **kwargs)

    def _terminate(self) -> None:
        self.rescans += 1

    def _initialize(self) -> None:
        pass


def wait_reading(predicate, mic: MicSource) -> None:
    """wait_for, reading the microphone meanwhile (its keeper thread reopens it; read() takes the audio)."""
    wait_for(predicate, "the microphone", between=lambda: mic.read(0.1))


def test_missing_device_is_retried_with_backoff_and_resumes(caplog) -> None:
    sd = FakeSd()
    cfg = AudioConfig(input_device="usb", retry_backoff_s=[0.05, 0.1, 0.2], stall_timeout_s=0.5)
    with MicSource(cfg, sd_module=sd) as mic:
        assert mic.read(0.5) is None
        assert mic.status() == "Waiting for microphone 'usb'"
        tries = sd.rescans
        assert tries >= 2  # it kept trying (re-scanning for a hot-plugged device)
        sd.present = True
        wait_reading(lambda: mic.frames_read >= 5, mic)
        assert mic.status() == "ok"
        chunk = mic.read(WAIT_S)
        assert (chunk.rate, chunk.channels, chunk.frames) == (16000, 1, 1280)  # 48 kHz stereo converted
        spectrum = np.abs(np.fft.rfft(chunk.to_int16().astype(float)))
        assert abs(np.argmax(spectrum) * 16000 / 1280 - 1000) <= 13  # one FFT bin is 12.5 Hz
    lost = [r for r in caplog.records if "cannot open" in r.getMessage().lower() and r.levelname == "WARNING"]
    assert len(lost) == 1, "logged once, not once per retry"


def test_a_stalled_or_failed_stream_is_reopened() -> None:
    sd = FakeSd()
    sd.present = True
    cfg = AudioConfig(input_device="USB", retry_backoff_s=[0.05], stall_timeout_s=0.5)
    with MicSource(cfg, sd_module=sd) as mic:
        wait_reading(lambda: mic.status() == "ok", mic)
        sd.delivering = False  # frames stop: the stall is noticed and the stream reopened
        wait_reading(lambda: sd.opens >= 2, mic)
        sd.delivering = True
        wait_reading(lambda: mic.status() == "ok", mic)
        before = mic.frames_read
        sd.fail_streams = True  # the stream reports that it finished (device error)
        wait_reading(lambda: sd.opens >= 4, mic)
        sd.fail_streams = False
        wait_reading(lambda: mic.frames_read > before + 5, mic)
        assert mic.reopens >= 2


def test_overflows_are_counted_when_the_reader_falls_behind() -> None:
    sd = FakeSd()
    sd.present = True
    with MicSource(AudioConfig(queue_chunks=4), sd_module=sd) as mic:
        wait_for(lambda: mic.overflows > 0, "an overflow")  # nobody reads: the bounded queue fills up
        assert mic.read(1.0) is not None  # and reading still works


def test_each_chunk_says_when_it_was_captured(monkeypatch) -> None:
    class RealTime(FakeStream):  # blocks as a device gives them: one every 80 ms
        def step(self) -> bool | None:
            time.sleep(self.block / self.rate)
            return super().step()

    sd = FakeSd()
    sd.present = True
    monkeypatch.setattr(sd, "RawInputStream", lambda **kwargs: RealTime(sd, **kwargs))
    with MicSource(AudioConfig(), sd_module=sd) as mic:
        chunks = [mic.read(WAIT_S) for _ in range(6)]
        read_at = time.monotonic()
    stamps = [c.captured_at for c in chunks]
    assert all(s is not None and read_at - 1.0 < s <= read_at for s in stamps), (stamps, read_at)
    # One after another, each 80 ms after the one before: the samples' own time, not when they were read.
    assert np.diff(stamps) == pytest.approx([0.08] * 5, abs=0.002)
