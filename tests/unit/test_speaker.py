"""SpeakerSink over a fake sounddevice that calls back in real time; Playback and WavSink on their own."""

from __future__ import annotations

import logging
import threading
import time
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from appliance.audio import AudioChunk, read_wav
from appliance.audio.playback import FADE_MS, Playback, WavSink
from appliance.audio.speaker import REST_TRIALS, SpeakerSink
from appliance.config import AudioConfig
from tests.fixtures.waits import WAIT_S, returns, wait_for

RATE = 22050  # Hz, the voice's rate


def sine(freq: float, dur_s: float, rate: int = RATE, amp: float = 0.5, phase_s: float = 0.0) -> np.ndarray:
    t = phase_s + np.arange(int(rate * dur_s)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def chunk_of(samples: np.ndarray, rate: int = RATE) -> AudioChunk:
    return AudioChunk.from_float(samples, rate)


DAC_DELAY_S = 0.03  # seconds the fake card reports from a callback until its samples reach the DAC


@dataclass
class TimeInfo:
    currentTime: float = 0.0  # noqa: N815 - PortAudio's names
    outputBufferDacTime: float = 0.0  # noqa: N815


@dataclass
class Status:
    """PortAudio's callback flags, as far as the speaker reads them."""

    output_underflow: bool = False  # the card ran dry before this callback


@dataclass
class Block:
    """One callback of the fake card: when it was made, when it returned, and what it was given."""

    called: float
    returned: float
    samples: np.ndarray
    due: float = 0.0
    """When the card's own clock wanted it (its samples sound DAC_DELAY_S later): a callback a busy core
    runs late does not move when its samples sound."""


class FakeStream:
    """A sound card: calls back every block in real time and keeps what it was given."""

    def __init__(self, sd: FakeSD, samplerate: int, channels: int, blocksize: int, callback: Any,
                 finished_callback: Any = None, **_: Any) -> None:
        self.sd, self.rate, self.channels, self.blocksize = sd, samplerate, channels, blocksize
        self.callback, self.finished_callback = callback, finished_callback
        stalls = sd.start_stall_s if isinstance(sd.start_stall_s, tuple) else (sd.start_stall_s,)
        self.stall_s = stalls[min(len(sd.streams), len(stalls) - 1)]
        self.blocks: list[Block] = []
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.active = False

    def start(self) -> None:
        self.active = True
        self._thread.start()

    def _run(self) -> None:
        next_at = time.monotonic()
        calls = 0
        while not self._halt.is_set():
            calls += 1
            if calls == 4 and self.stall_s:  # a burst filling its buffer, then a stall
                self._halt.wait(self.stall_s)
                next_at = time.monotonic()
            if self.sd.dead:  # the device went away: no more callbacks, the stream is no longer active
                self.active = False
                return
            out = np.zeros((self.blocksize, self.channels), dtype=np.float32)
            called = time.monotonic()
            self.sd.callbacks += 1
            status = Status(output_underflow=True) if self.sd.callbacks in self.sd.underflow_at else None
            self.callback(out, self.blocksize, TimeInfo(called, next_at + DAC_DELAY_S), status)
            self.blocks.append(Block(called, time.monotonic(), out[:, 0].copy(), next_at))
            if self.stall_s and calls < 3:
                continue
            next_at += self.blocksize / self.rate
            self._halt.wait(max(0.0, next_at - time.monotonic()))

    def output(self) -> np.ndarray:
        return np.concatenate([b.samples for b in self.blocks]) if self.blocks else np.zeros(0, np.float32)

    def abort(self) -> None:
        self._halt.set()

    def close(self) -> None:
        self._halt.set()
        self.active = False


class FakeSD:
    """Just enough of the sounddevice module for SpeakerSink."""

    def __init__(self, rates: tuple[int, ...] = (RATE, 48000), default_rate: int = 48000,
                 start_stall_s: float | tuple[float, ...] = 0.0) -> None:
        self.rates, self.default_rate = rates, default_rate
        self.start_stall_s = start_stall_s
        """Seconds each new stream stalls after its first three callbacks, made at once to fill its
        buffer (as PulseAudio's ALSA plug-in does); a tuple gives the first streams' stalls in turn,
        its last one every stream after them."""
        self.underflow_at: set[int] = set()
        """The callbacks (counted from 1, on every stream) that report an output underflow."""
        self.callbacks = 0
        self.dead = False
        self.unplugged = False
        self.failed_opens = 0
        self.streams: list[FakeStream] = []
        self.default = type("Default", (), {"device": (0, 0)})()

    def query_devices(self, device: Any = None, kind: Any = None) -> Any:
        info = {"name": "Fake USB speaker", "max_output_channels": 2, "max_input_channels": 0,
                "default_samplerate": float(self.default_rate)}
        return info if (device is not None or kind is not None) else [info]

    def check_output_settings(self, device: Any = None, samplerate: float = 0, channels: int = 1,
                              dtype: str = "float32") -> None:
        if int(samplerate) not in self.rates:
            raise ValueError("Invalid sample rate")

    def OutputStream(self, **kwargs: Any) -> FakeStream:  # noqa: N802 - sounddevice's name
        if self.unplugged:
            self.failed_opens += 1
            raise OSError("Error opening OutputStream: Device unavailable")
        stream = FakeStream(self, **kwargs)
        self.streams.append(stream)
        return stream


def config(**kw: Any) -> AudioConfig:
    defaults = {"output_latency_ms": 20, "stall_timeout_s": 0.5, "retry_backoff_s": [0.1, 0.2]}
    return AudioConfig(**{**defaults, **kw})


def first_sound(samples: np.ndarray, threshold: float = 1e-4) -> int:
    return int(np.argmax(np.abs(samples) > threshold))


def last_sound(samples: np.ndarray, threshold: float = 1e-4) -> int:
    loud = np.nonzero(np.abs(samples) > threshold)[0]
    return int(loud[-1]) if len(loud) else -1


def test_chunks_play_back_to_back_sample_exact() -> None:
    sd = FakeSD()
    parts = [sine(440, 0.3, phase_s=0.0), sine(440, 0.25, phase_s=0.3), sine(440, 0.2, phase_s=0.55)]
    with SpeakerSink(config(), sd_module=sd) as sink:
        for part in parts:
            sink.play(chunk_of(part))
        assert sink.drain(WAIT_S)
    stream = sd.streams[0]
    assert stream.rate == RATE  # the device takes the voice's rate: no resampling
    out = stream.output()
    expected = np.concatenate([chunk_of(p).to_float()[:, 0] for p in parts])
    start = first_sound(out) - first_sound(expected)
    played = out[start:start + len(expected)]
    np.testing.assert_allclose(played, expected, atol=1e-6)  # no gap, no repeat, no click between chunks
    assert not np.any(np.abs(out[start + len(expected):]) > 1e-4)  # and nothing after it


def test_stop_falls_silent_within_100_ms_with_a_fade() -> None:
    sd = FakeSD()
    with SpeakerSink(config(), sd_module=sd) as sink:
        sink.mark_turn()
        sink.play(chunk_of(sine(300, 3.0)))
        wait_for(lambda: sd.streams and len(sd.streams[0].output()) > RATE * 0.5, "half a second played")
        stream = sd.streams[0]
        handed_out = len(stream.blocks)  # these blocks were all taken before stop()
        sink.stop()
        wait_for(lambda: len(stream.blocks) >= handed_out + 15, "0.3 s of blocks after the stop")
        out = stream.output()
        before = sum(len(b.samples) for b in stream.blocks[:handed_out])
        end = last_sound(out)
        after_s = (end - before) / RATE  # audio time, counted in samples the card was given
        assert after_s < 0.1, f"sound went on for {after_s * 1000:.0f} ms after stop()"
        # The last few milliseconds fade to zero rather than cut off mid-wave (a click).
        fade = np.abs(out[end - RATE * FADE_MS // 1000 + 1: end + 1])
        edge = np.max(np.abs(out[end - 3 * RATE * FADE_MS // 1000: end - RATE * FADE_MS // 1000]))
        assert np.max(fade[-len(fade) // 4:]) < 0.3 * edge
        # A stopped sink plays the next turn in full.
        sink.mark_turn()
        sink.play(chunk_of(sine(500, 0.2)))
        assert sink.drain(WAIT_S)
        tail = stream.output()[len(out):]
        assert np.sum(np.abs(tail) > 1e-4) >= int(0.2 * RATE) - 10


def test_device_without_the_voice_rate_is_resampled() -> None:
    sd = FakeSD(rates=(48000,), default_rate=48000)
    with SpeakerSink(config(), sd_module=sd) as sink:
        sink.play(chunk_of(sine(440, 0.5)))
        sink.play(chunk_of(sine(440, 0.5, phase_s=0.5)))
        assert sink.drain(WAIT_S)
    stream = sd.streams[0]
    assert stream.rate == 48000
    out = stream.output()
    sound = out[first_sound(out):last_sound(out) + 1]
    assert abs(len(sound) - 48000) < 48000 * 0.01  # one second, whole, tail flushed from the resampler
    spectrum = np.abs(np.fft.rfft(sound))
    assert abs(np.argmax(spectrum) * 48000 / len(sound) - 440) < 3


def test_first_audio_and_playback_end_are_reported() -> None:
    sd = FakeSD()
    with SpeakerSink(config(), sd_module=sd) as sink:
        sink.mark_turn()
        assert sink.first_audio_at() is None
        queued_at = time.monotonic()
        sink.play(chunk_of(np.full(int(0.5 * RATE), 0.25, np.float32)))  # half a second, no zero sample
        assert sink.drain(WAIT_S)
        first, ended = sink.first_audio_at(), sink.playback_ended_at()
        assert first is not None and ended is not None
        assert queued_at <= first < ended
        # Both are the moment the card took the sample plus the delay it reported until the DAC:
        # the first sample at the start of its block, the last one where its block stops sounding.
        stream = sd.streams[0]
        sounding = [b for b in stream.blocks if np.any(b.samples)]
        assert sum(np.count_nonzero(b.samples) for b in sounding) == int(0.5 * RATE)  # all of it, once
        head, tail = sounding[0], sounding[-1]  # (the hub reads the card's delay at its own time in the callback)
        assert 0.0 <= first - DAC_DELAY_S - head.due <= head.returned - head.called
        tail_s = np.count_nonzero(tail.samples) / RATE
        assert 0.0 <= ended - DAC_DELAY_S - tail_s - tail.due <= tail.returned - tail.called
        sink.mark_turn()
        assert sink.first_audio_at() is None


def test_lost_speaker_is_logged_once_then_reopened(caplog: pytest.LogCaptureFixture) -> None:
    sd = FakeSD()
    caplog.set_level(logging.INFO, logger="appliance.audio.speaker")
    with SpeakerSink(config(), sd_module=sd) as sink:
        sink.play(chunk_of(sine(440, 0.1)))
        assert sink.drain(WAIT_S)
        sd.dead, sd.unplugged = True, True
        wait_for(lambda: sink.status() != "ok", "the speaker to be lost")
        wait_for(lambda: sd.failed_opens >= 3, "three reopen attempts to fail")
        lost = [r for r in caplog.records if r.levelno == logging.WARNING and "lost" in r.getMessage()]
        assert len(lost) == 1, [r.getMessage() for r in caplog.records]
        sink.play(chunk_of(sine(440, 1.0)))  # dropped, not queued for a device that is not there
        # drain() does not wait out its hour for a device that is not there
        assert returns(lambda: sink.drain(3600.0), "drain() of a lost speaker") is False
        assert sink.dropped_s == pytest.approx(1.0, abs=0.01)
        sd.dead, sd.unplugged = False, False
        # The keeper publishes the new stream (status "ok") before it logs and counts the reopen:
        # the count is the last step, so wait for that.
        wait_for(lambda: sink.reopens >= 1, "the speaker to be back")
        assert sink.reopens == 1 and sink.status() == "ok"
        assert any("is back" in r.getMessage() for r in caplog.records)
        sink.play(chunk_of(sine(440, 0.2)))
        assert sink.drain(WAIT_S)
        assert np.sum(np.abs(sd.streams[-1].output()) > 1e-4) >= int(0.2 * RATE) - 10


def test_a_speaker_with_nothing_to_play_rests_and_plays_the_next_sound_in_full() -> None:
    sd = FakeSD()
    with SpeakerSink(config(speaker_rest_s=0.3), sd_module=sd) as sink:
        sink.play(chunk_of(sine(440, 0.1)))
        assert sink.drain(WAIT_S)
        wait_for(lambda: sink.rests == 1, "the speaker to rest")
        first = sd.streams[0]
        assert not first.active and sink.status() == "ok"
        calls = len(first.blocks)
        time.sleep(0.1)
        assert len(first.blocks) == calls and len(sd.streams) == 1  # no callbacks while it rests
        sink.mark_turn()
        sink.play(chunk_of(sine(440, 0.3)))  # the next sound opens it again and is queued meanwhile
        assert sink.drain(WAIT_S)
        assert len(sd.streams) == 2 and sink.dropped_s == 0.0
        assert np.sum(np.abs(sd.streams[1].output()) > 1e-4) >= int(0.3 * RATE) - 10
        assert sink.first_audio_at() is not None and sink.start_s is not None and sink.start_s < 0.15


def test_a_speaker_that_has_played_nothing_yet_rests_once_it_is_measured() -> None:
    sd = FakeSD()
    with SpeakerSink(config(speaker_rest_s=30.0), rate=RATE, sd_module=sd) as sink:  # opened at start-up
        wait_for(lambda: sink.rests == 1, "the speaker to rest")
        assert len(sd.streams) == 1 and not sd.streams[0].active and sink.status() == "ok"
        sink.play(chunk_of(sine(440, 0.2)))
        assert sink.drain(WAIT_S)
        assert np.sum(np.abs(sd.streams[-1].output()) > 1e-4) >= int(0.2 * RATE) - 10
        time.sleep(0.3)  # now it has played, it waits speaker_rest_s before resting again
        assert sink.rests == 1 and sd.streams[-1].active


def test_a_resting_speaker_whose_device_went_away_says_so_at_the_next_sound_and_comes_back(
        caplog: pytest.LogCaptureFixture) -> None:
    sd = FakeSD()
    caplog.set_level(logging.INFO, logger="appliance.audio.speaker")
    with SpeakerSink(config(speaker_rest_s=30.0), rate=RATE, sd_module=sd) as sink:
        wait_for(lambda: sink.rests == 1, "the speaker to rest")
        sd.unplugged = True  # gone while closed: nothing can tell until it is opened again
        assert sink.status() == "ok"
        sink.play(chunk_of(sine(440, 0.5)))  # wakes it; the open fails
        wait_for(lambda: sink.status() != "ok", "the speaker to be lost")
        assert sink.status().startswith("Waiting for speaker")
        # drain() does not wait out its hour for a device that is not there
        assert returns(lambda: sink.drain(3600.0), "drain() of a lost speaker") is False
        assert sink.dropped_s == pytest.approx(0.5, abs=0.01)  # what it could not play is counted
        sd.unplugged = False
        wait_for(lambda: sink.reopens == 1, "the speaker to be back")
        sink.play(chunk_of(sine(440, 0.2)))
        assert sink.drain(WAIT_S)
        assert np.sum(np.abs(sd.streams[-1].output()) > 1e-4) >= int(0.2 * RATE) - 10
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 2 and warned[0].startswith("Cannot open speaker") and "is back" in warned[1], warned


def test_a_speaker_slow_only_at_its_first_start_is_measured_again_and_rests() -> None:
    sd = FakeSD(start_stall_s=(0.4, 0.0))  # a sound server's sink, slow while it was idle itself
    with SpeakerSink(config(speaker_rest_s=0.2), rate=RATE, sd_module=sd) as sink:
        wait_for(lambda: sink.rests == 1, "the speaker to rest")
        assert len(sd.streams) == 2 and not any(s.active for s in sd.streams)
        assert sink.start_s is not None and sink.start_s < 0.15
        sink.play(chunk_of(sine(440, 0.2)))
        assert sink.drain(WAIT_S) and sink.dropped_s == 0.0
        assert np.sum(np.abs(sd.streams[-1].output()) > 1e-4) >= int(0.2 * RATE) - 10


@pytest.mark.parametrize(("stall_s", "rest_s"), [(0.4, 0.2), (0.0, 0.0)], ids=["slow to start", "rest off"])
def test_a_speaker_slow_to_start_or_told_not_to_rest_stays_open(
        caplog: pytest.LogCaptureFixture, stall_s: float, rest_s: float) -> None:
    sd = FakeSD(start_stall_s=stall_s)
    caplog.set_level(logging.INFO, logger="appliance.audio.speaker")
    with SpeakerSink(config(speaker_rest_s=rest_s), sd_module=sd) as sink:
        sink.play(chunk_of(sine(440, 0.1)))
        assert sink.drain(WAIT_S)
        opens = 1 + (REST_TRIALS if stall_s else 0)  # measured again while nothing plays, then kept open
        wait_for(lambda: len(sd.streams) == opens and sink.start_s is not None, "the last measurement")
        time.sleep(0.6)  # three times the rest it would have taken
        assert sink.rests == 0 and sd.streams[-1].active and len(sd.streams) == opens
        sink.play(chunk_of(sine(440, 0.2)))
        assert sink.drain(WAIT_S) and sink.dropped_s == 0.0
    said = [r.getMessage() for r in caplog.records if "stays open" in r.getMessage()]
    assert len(said) == (1 if stall_s else 0), said


def test_playback_joins_chunks_and_stop_keeps_only_a_fade() -> None:
    playback = Playback(1000)
    playback.push(np.ones(30, np.float32))
    playback.push(np.full(30, 2.0, np.float32))
    out = playback.pull(50)
    assert list(out[:30]) == [1.0] * 30 and list(out[30:50]) == [2.0] * 20
    playback.stop()
    rest = playback.pull(50)
    fade = rest[: playback.fade_samples]
    assert fade[0] == pytest.approx(2.0) and fade[-1] == 0.0 and np.all(np.diff(fade) <= 0)
    assert not np.any(rest[playback.fade_samples:])
    assert playback.ended_at() is not None


def test_playback_push_waits_for_room_then_gives_up() -> None:
    playback = Playback(1000, max_buffer_s=0.05)
    assert playback.push(np.zeros(50, np.float32))
    assert not playback.push(np.ones(10, np.float32), timeout=0.05)  # full, and nobody takes any
    assert playback.queued_samples == 50  # what was refused is not queued either
    pushed: list[bool] = []
    producer = threading.Thread(target=lambda: pushed.append(playback.push(np.ones(10, np.float32),
                                                                           timeout=WAIT_S)))
    producer.start()
    assert not np.any(playback.pull(50))  # the card takes the silence: room for the waiting push
    producer.join(WAIT_S)
    assert pushed == [True]
    assert list(playback.pull(10)) == [1.0] * 10


def test_wav_sink_writes_the_stream(tmp_path: Path) -> None:
    path = tmp_path / "out.wav"
    a, b = sine(440, 0.3), sine(660, 0.2)
    with WavSink(path) as sink:
        sink.mark_turn()
        sink.play(chunk_of(a))
        sink.play(chunk_of(b))
        assert sink.first_audio_at() is not None
        assert sink.drain(WAIT_S)
    audio = read_wav(path)
    assert audio.rate == RATE and audio.channels == 1
    expected = np.concatenate([chunk_of(a).to_int16(), chunk_of(b).to_int16()])
    np.testing.assert_array_equal(audio.to_int16(), expected)


def test_realtime_wav_sink_records_the_gaps_a_listener_would_hear(tmp_path: Path) -> None:
    path = tmp_path / "rt.wav"
    tone = sine(440, 0.2, phase_s=0.25 / 440)  # starts at a crest, so its first sample counts as sound
    with WavSink(path, realtime=True) as sink:
        sink.play(chunk_of(tone))
        # The producer falls behind: wait until the clock has written 0.3 s of silence after the tone
        # (a block of silence may come before it, too).
        wait_for(lambda: sink.frames_written >= RATE // 50 + len(tone) + int(0.3 * RATE), "0.3 s of silence")
        late_from = sink.frames_written
        sink.play(chunk_of(tone))
        late_to = sink.frames_written
        assert sink.drain(WAIT_S)
    with wave.open(str(path)) as wav:
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").astype(np.float32) / 32768
    loud = np.flatnonzero(np.abs(samples) > 1e-3)
    starts = loud[np.flatnonzero(np.diff(loud) > RATE // 100) + 1]  # sound after 10 ms or more of silence
    assert len(starts) == 1, "two tones with one gap between them"
    second = int(starts[0])
    first_end = int(loud[loud < second][-1])
    assert (second - first_end) / RATE >= 0.3  # the silence the listener would hear is in the file
    assert late_from <= second <= late_to  # and the second tone sits where the clock was when it came
