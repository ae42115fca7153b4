"""Audio sources: MicSource (sounddevice, survives device loss) and WavSource (any WAV file)."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Self

import numpy as np

from appliance.audio import PIPELINE_RATE, SAMPLE_WIDTH, AudioChunk, Converter, read_wav
from appliance.audio.asound import PROC
from appliance.audio.device import CLOSE_TIMEOUT_S, OPEN_GRACE_S, DeviceKeeper
from appliance.audio.echo import EchoCanceller
from appliance.audio.stream_clock import CLOCK_JUMP_S, StreamClock
from appliance.config import AudioConfig
from appliance.contracts import EventLog

_LOGGER = logging.getLogger(__name__)


class _Reblocker:
    """Cuts a stream of mono int16 samples into chunks of exactly `size` samples, each stamped with when
    its first sample was captured. The samples are counted from the first block's time, as StreamClock
    counts a device's frames: a resampler hands on a block's samples partly with the next one's (by up to
    30 ms here), so a block's own time is taken only when the count is off by more than CLOCK_JUMP_S
    (the clock itself jumped: frames lost, a reopened stream)."""

    def __init__(self, size: int, rate: int) -> None:
        self.size = size
        self.rate = rate
        self._buffer = np.zeros(0, dtype="<i2")
        self._start_at: float | None = None  # when the buffer's first sample was captured

    def push(self, samples: np.ndarray, captured_at: float | None = None) -> None:
        """Add samples whose first was captured at `captured_at` (None: not known)."""
        if captured_at is not None:
            counted = self._start_at + len(self._buffer) / self.rate if self._start_at is not None else None
            if counted is None or abs(captured_at - counted) > CLOCK_JUMP_S:
                self._start_at = captured_at - len(self._buffer) / self.rate
        self._buffer = np.concatenate([self._buffer, samples.astype("<i2", copy=False)])

    def pop(self) -> AudioChunk | None:
        if len(self._buffer) < self.size:
            return None
        out, self._buffer = self._buffer[: self.size], self._buffer[self.size:]
        at = self._start_at
        if at is not None:
            self._start_at = at + self.size / self.rate
        return replace(AudioChunk.from_int16(out, self.rate), captured_at=at)

    def clear(self) -> None:
        self._buffer = np.zeros(0, dtype="<i2")
        self._start_at = None


class WavSource:
    """A WAV file (any rate, channels, width) as 16 kHz mono int16 chunks, optionally paced in real time."""

    def __init__(self, path: str | Path, rate: int = PIPELINE_RATE, chunk_ms: int = 80,
                 realtime: bool = False) -> None:
        self.path = Path(path)
        self.rate = rate
        self.chunk_samples = rate * chunk_ms // 1000
        self.realtime = realtime
        self.frames_read = 0
        audio = read_wav(self.path)
        mono = Converter(rate).convert(audio, last=True).to_int16()
        pad = (-len(mono)) % self.chunk_samples  # the last chunk is filled with silence
        self._samples = np.concatenate([mono, np.zeros(pad, dtype="<i2")])
        self.duration_s = len(mono) / rate
        self._started: float | None = None

    @property
    def eof(self) -> bool:
        return self.frames_read * self.chunk_samples >= len(self._samples)

    @property
    def started_at(self) -> float | None:
        """time.monotonic() when the first chunk was read, paced in real time (None otherwise or before)."""
        return self._started

    def read(self, timeout: float = 1.0) -> AudioChunk | None:
        """The next chunk, or None at the end of the file."""
        if self.eof:
            return None
        if self.realtime:
            now = time.monotonic()
            if self._started is None:
                self._started = now
            due = self._started + self.frames_read * self.chunk_samples / self.rate
            if due - now > timeout:
                time.sleep(max(0.0, timeout))
                return None
            time.sleep(max(0.0, due - now))
        start = self.frames_read * self.chunk_samples
        self.frames_read += 1
        return AudioChunk.from_int16(self._samples[start:start + self.chunk_samples], self.rate)

    def __iter__(self) -> Iterator[AudioChunk]:
        while (chunk := self.read(timeout=3600.0)) is not None:
            yield chunk

    def status(self) -> str:
        return "end of file" if self.eof else "ok"

    def close(self) -> None:
        self.frames_read = len(self._samples) // self.chunk_samples


def input_format(sd: Any, device: int | None, rate: int) -> tuple[int, int]:
    """(rate, channels) to open: 16 kHz mono if the device takes it, else what the device offers."""
    info = sd.query_devices(device, "input")
    if int(info["max_input_channels"]) < 1:
        raise LookupError(f"device {info['name']!r} has no input channels")
    for channels in (1, min(2, int(info["max_input_channels"]))):
        try:
            sd.check_input_settings(device=device, samplerate=rate, channels=channels, dtype="int16")
            return rate, channels
        except Exception:  # noqa: BLE001, S112 - PortAudio says "invalid sample rate" and the like: try the next
            continue
    channels = 1 if int(info["max_input_channels"]) >= 1 else 0
    try:
        sd.check_input_settings(device=device, channels=1, dtype="int16",
                                samplerate=int(info["default_samplerate"]))
    except Exception:  # noqa: BLE001 - mono refused: open it as stereo and down-mix
        channels = min(2, int(info["max_input_channels"]))
    return int(info["default_samplerate"]), channels


class MicSource(DeviceKeeper):
    """A microphone as 80 ms chunks of 16 kHz mono int16 that keeps trying when the device goes away.

    The PortAudio callback only copies into a bounded queue. A keeper thread chooses the device
    (`audio.input_device`, else the system default if it can record, else one found: choose.py),
    opens the stream, notices errors and stalls (no frames for `stall_timeout_s`), logs each loss
    once and reopens with capped backoff. read() converts (down-mix, soxr) and re-blocks on the
    caller's thread. `events` gets which device was chosen, and why. With an `echo` canceller, the
    16 kHz samples go through it (with the time the device captured them) before anything sees them.
    """

    KIND = "microphone"
    DIRECTION = "input"

    def __init__(self, cfg: AudioConfig, sd_module: Any = None, proc: Path = PROC,
                 events: EventLog | None = None, echo: EchoCanceller | None = None) -> None:
        super().__init__(cfg.retry_backoff_s, sd_module, cfg.input_device, proc, events)
        self.cfg = cfg
        self.echo = echo
        self.chunk_samples = cfg.rate * cfg.chunk_ms // 1000
        self.frames_read = 0
        self.overflows = 0
        self.reopens = 0
        self._queue: queue.Queue[tuple[int, int, int, float, bytes]] = queue.Queue(maxsize=cfg.queue_chunks)
        self._reblock = _Reblocker(self.chunk_samples, cfg.rate)
        self._converter: Converter | None = None
        self._format: tuple[int, int, int] | None = None  # generation, rate, channels
        self._generation = 0
        self._last_frame_at = 0.0
        self._opened_at = 0.0
        self._stream_error: str | None = None
        self._status = f"Opening microphone {self._device_label()!r}"
        self._overflow_logged_at = 0.0
        self._keeper = threading.Thread(target=self._keep, name="mic-keeper", daemon=True)
        self._keeper.start()

    # ---- caller side -------------------------------------------------------------------
    @property
    def eof(self) -> bool:
        """A microphone never ends (a lost one is waited for)."""
        return False

    def read(self, timeout: float) -> AudioChunk | None:
        deadline = time.monotonic() + timeout
        while True:
            chunk = self._reblock.pop()
            if chunk is not None:
                self.frames_read += 1
                return chunk
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self._stop.is_set():
                return None
            try:
                generation, rate, channels, captured_at, data = self._queue.get(timeout=remaining)
            except queue.Empty:
                return None
            if self._format != (generation, rate, channels):  # a reopened stream: fresh resampler
                self._format = (generation, rate, channels)
                self._converter = Converter(self.cfg.rate)
            assert self._converter is not None
            raw = AudioChunk(data, rate, SAMPLE_WIDTH, channels)
            samples = self._converter.convert(raw).to_int16()
            if self.echo is not None:
                samples = self.echo.cancel(samples, captured_at)
            self._reblock.push(samples, captured_at)

    def status(self) -> str:
        """'ok' once the open stream has delivered audio; else what it is waiting for."""
        if self._stream is not None and self._last_frame_at > self._opened_at:
            return "ok"
        return self._status

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._keeper.join(timeout=CLOSE_TIMEOUT_S + 1.0)
        self._close_stream()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- PortAudio callback (its own thread): copy and count, nothing else ------------------
    def _callback_for(self, generation: int, rate: int, channels: int) -> Callable[..., None]:
        clock = StreamClock(rate)  # one late callback does not move where its samples are placed in time

        def callback(indata: Any, frames: int, time_info: Any, status: Any) -> None:
            now = self._last_frame_at = time.monotonic()
            try:  # how long ago the first sample was captured (ADC time), in PortAudio's clock
                age = float(time_info.currentTime - time_info.inputBufferAdcTime)
            except (AttributeError, TypeError, ValueError):
                age = -1.0
            if not 0.0 <= age < 1.0:  # hosts without ADC times: the block just ended
                age = frames / rate
            if status and status.input_overflow:
                self.overflows += 1
                if self.echo is not None:  # samples lost: the frames counted now run behind the room
                    self.echo.slipped()
            captured_at = min(clock.stamp(frames, now - age), now)  # never after it was handed over
            try:
                self._queue.put_nowait((generation, rate, channels, captured_at, bytes(indata)))
            except queue.Full:
                self.overflows += 1
        return callback

    def _try_open(self) -> None:
        sd = self._sounddevice()
        self._attempt += 1
        try:
            index = self._choose(sd).index
            rate, channels = input_format(sd, index, self.cfg.rate)
            generation = self._generation + 1
            blocksize = rate * self.cfg.chunk_ms // 1000
            stream = sd.RawInputStream(device=index, samplerate=rate, channels=channels, dtype="int16",
                                       blocksize=blocksize, callback=self._callback_for(generation, rate, channels),
                                       finished_callback=self._on_finished)
            stream.start()
        except Exception as exc:  # noqa: BLE001 - PortAudioError, NoDevice, ValueError: all mean "not now"
            self._lost(self._open_failed(exc))
            return
        with self._lock:
            self._generation = generation
            self._stream = stream
            self._stream_error = None
            self._opened_at = self._last_frame_at = time.monotonic()
        name = sd.query_devices(index)["name"]
        if self._lost_since is not None and self._opened_once:
            _LOGGER.warning("Microphone %r is back after %.1f s (%d Hz, %d ch)", name,
                            time.monotonic() - self._lost_since, rate, channels)
            self.reopens += 1
        else:
            _LOGGER.info("Microphone %r open at %d Hz, %d channel(s)%s", name, rate, channels,
                         "" if rate == self.cfg.rate and channels == 1 else "; resampling to 16 kHz mono")
        self._lost_since, self._opened_once = None, True
        self._attempt = 0
        self._status = f"Opening microphone {self._device_label()!r}"

    def _on_finished(self) -> None:
        self._stream_error = "the stream stopped"
        self._wake.set()

    def _check_stream(self) -> None:
        stalled_s = time.monotonic() - self._last_frame_at
        limit_s = self.cfg.stall_timeout_s
        if self._last_frame_at == self._opened_at:  # no frame yet from this stream
            limit_s = max(limit_s, OPEN_GRACE_S)
        problem = self._stream_error
        if problem is None and stalled_s > limit_s:
            problem = f"no audio for {stalled_s:.1f} s"
        if problem is None:
            problem = self._stream_problem()
        if problem is not None:
            self._close_stream()
            self._lost(f"microphone {self._device_label()!r} lost: {problem}")
            self._attempt = max(self._attempt, 1)

    def _lost(self, reason: str) -> None:
        self._note_lost(reason)
        if self._wanted is None and self._choice is None:
            self._status = "Waiting for a microphone (none found)"
        else:
            self._status = f"Waiting for microphone {self._device_label()!r}"

    def _after_watch(self) -> None:
        now = time.monotonic()
        if self.overflows and now - self._overflow_logged_at > 60.0:
            self._overflow_logged_at = now
            _LOGGER.warning("Microphone queue overflowed %d times so far (the reader falls behind)",
                            self.overflows)
