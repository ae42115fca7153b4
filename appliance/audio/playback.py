"""What sinks play from: a gap-free sample buffer with a quick fade-out stop; WavSink (a file as speaker)."""

from __future__ import annotations

import threading
import time
import wave
from collections import deque
from pathlib import Path
from typing import Final

import numpy as np

from appliance.audio import AudioChunk, Converter, float_to_int16
from appliance.audio.volume import Volume
from appliance.errors import OutputError

FADE_MS: Final = 5  # ms of fade-out on stop(): long enough against a click, short enough to feel instant
BLOCK_MS: Final = 20  # milliseconds per device callback (and per tick of WavSink's clock)
MAX_BUFFER_S: Final = 120.0  # seconds of audio play() accepts ahead of the device before it blocks
PLAY_BLOCK_TIMEOUT_S: Final = 30.0  # play() never waits longer than this for room in the buffer
CLOSE_TIMEOUT_S: Final = 2.0  # seconds to wait for a clock thread to end


class Playback:
    """The buffer a sink plays from: chunks back to back, a short fade on stop, timing of each turn.

    push() runs on the producer's thread, pull() on the device's (or a clock's); both only copy
    under a short lock. Times are time.monotonic() plus the device's reported output delay.
    """

    def __init__(self, rate: int, max_buffer_s: float = MAX_BUFFER_S) -> None:
        self.rate = rate
        self.max_samples = int(max_buffer_s * rate)
        self.fade_samples = max(1, rate * FADE_MS // 1000)
        self._chunks: deque[np.ndarray] = deque()
        self._queued = 0
        self._lock = threading.Condition()
        self._first_at: float | None = None
        self._ended_at: float | None = None
        self._playing = False
        self.samples_played = 0
        self.last_filled = 0  # samples of sound (not silence) in the block the last pull() returned

    @property
    def queued_samples(self) -> int:
        return self._queued

    def push(self, samples: np.ndarray, timeout: float = PLAY_BLOCK_TIMEOUT_S) -> bool:
        """Append float32 mono samples; waits while the buffer is full; False if it stayed full."""
        if len(samples) == 0:
            return True
        with self._lock:
            if not self._lock.wait_for(lambda: self._queued < self.max_samples, timeout):
                return False
            self._chunks.append(np.asarray(samples, dtype=np.float32))
            self._queued += len(samples)
            self._ended_at = None
        return True

    def pull(self, frames: int, delay_s: float = 0.0) -> np.ndarray:
        """The next `frames` samples (silence where the buffer runs out); `delay_s` until they sound."""
        out = np.zeros(frames, dtype=np.float32)
        now = time.monotonic()
        with self._lock:
            filled = 0
            while filled < frames and self._chunks:
                head = self._chunks[0]
                take = min(frames - filled, len(head))
                out[filled:filled + take] = head[:take]
                filled += take
                if take == len(head):
                    self._chunks.popleft()
                else:
                    self._chunks[0] = head[take:]
            self._queued -= filled
            self.last_filled = filled
            if filled:
                if self._first_at is None:
                    self._first_at = now + delay_s
                self._playing = True
                self.samples_played += filled
            if self._playing and not self._chunks:
                self._playing = False
                self._ended_at = now + delay_s + filled / self.rate
            self._lock.notify_all()
        return out

    def stop(self) -> None:
        """Keep only a few milliseconds of what comes next, faded to zero; drop the rest."""
        with self._lock:
            head = np.zeros(0, dtype=np.float32)
            while self._chunks and len(head) < self.fade_samples:
                head = np.concatenate([head, self._chunks.popleft()])
            head = head[: self.fade_samples]
            self._chunks.clear()
            if len(head):
                head = head * np.linspace(1.0, 0.0, len(head), dtype=np.float32)
                self._chunks.append(head)
            self._queued = len(head)
            self._lock.notify_all()

    def clear(self) -> None:
        with self._lock:
            self._chunks.clear()
            self._queued = 0
            if self._playing:
                self._playing = False
                self._ended_at = time.monotonic()
            self._lock.notify_all()

    def mark_turn(self) -> None:
        with self._lock:
            self._first_at = None

    def first_audio_at(self) -> float | None:
        return self._first_at

    def ended_at(self) -> float | None:
        """When the last queued sample sounds (estimated); None while audio is still queued."""
        with self._lock:
            return None if self._chunks else self._ended_at

    def wait_empty(self, timeout: float) -> bool:
        with self._lock:
            return self._lock.wait_for(lambda: not self._chunks, timeout)


class NullSink:
    """A Sink that plays nothing: the speaker of stages that only hear (listen --hear-only)."""

    def play(self, chunk: AudioChunk) -> None:
        """Dropped."""

    def stop(self) -> None:
        """Nothing plays."""

    def drain(self, timeout: float) -> bool:
        return True

    def first_audio_at(self) -> float | None:
        return None

    def mark_turn(self) -> None:
        """No turn is heard."""

    def close(self) -> None:
        """Nothing was opened."""


class WavSink:
    """The Sink that writes what would be played into a WAV file (mono int16, the first chunk's rate).

    With realtime=True a clock thread plays the buffer like a sound card would, writing silence
    when the producer falls behind mid-turn, so gaps in the file are gaps a listener would hear.
    With a `volume`, the file is written at the hub's volume, as the speaker would play it.
    """

    def __init__(self, path: str | Path, realtime: bool = False, rate: int | None = None,
                 volume: Volume | None = None) -> None:
        self.path = Path(path)
        self.realtime = realtime
        self.volume = volume
        self._wav: wave.Wave_write | None = None
        self._playback: Playback | None = None
        self._converter: Converter | None = None
        self._first_at: float | None = None
        self._ended_at: float | None = None
        self._in_turn = False
        self._lock = threading.RLock()
        self._closed = threading.Event()
        self._clock: threading.Thread | None = None
        self.frames_written = 0
        if rate is not None:
            self._open(rate)

    def play(self, chunk: AudioChunk) -> None:
        if self._wav is None:
            self._open(chunk.rate)
        assert self._playback is not None
        with self._lock:
            if chunk.rate == self._playback.rate:
                samples = chunk.to_float()
                samples = samples.mean(axis=1) if chunk.channels > 1 else samples[:, 0]
            else:
                if self._converter is None:
                    self._converter = Converter(self._playback.rate)
                samples = self._converter.convert(chunk).to_float()[:, 0]
            if self.volume is not None:
                samples = self.volume.apply(samples)
            if not self.realtime:
                if self._first_at is None:
                    self._first_at = time.monotonic()
                self._write(samples)
                return
            self._in_turn = True
        self._playback.push(samples)

    def stop(self) -> None:
        with self._lock:
            self._converter = None
            if self._playback is not None:
                self._playback.stop()
            self._in_turn = False

    def drain(self, timeout: float) -> bool:
        if self._playback is None:
            return True
        if self.realtime:
            done = self._playback.wait_empty(timeout)
            with self._lock:
                self._in_turn = False
            return done
        self._ended_at = time.monotonic()
        return True

    def first_audio_at(self) -> float | None:
        return self._playback.first_audio_at() if self.realtime and self._playback else self._first_at

    def playback_ended_at(self) -> float | None:
        return self._playback.ended_at() if self.realtime and self._playback else self._ended_at

    def mark_turn(self) -> None:
        self._first_at = None
        if self._playback is not None:
            self._playback.mark_turn()

    def close(self) -> None:
        self._closed.set()
        if self._clock is not None:
            self._clock.join(CLOSE_TIMEOUT_S)
        with self._lock:
            if self._wav is not None:
                self._wav.close()
                self._wav = None

    def __enter__(self) -> WavSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self, rate: int) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            wav = wave.open(str(self.path), "wb")
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        self._wav = wav
        self._playback = Playback(rate)
        if self.realtime:
            self._clock = threading.Thread(target=self._tick, name="wav-clock", daemon=True)
            self._clock.start()

    def _write(self, samples: np.ndarray) -> None:
        with self._lock:
            if self._wav is not None:
                self._wav.writeframes(float_to_int16(samples).tobytes())
                self.frames_written += len(samples)

    def _tick(self) -> None:
        """Pull one block every BLOCK_MS like a device; write it while a turn is playing."""
        playback = self._playback
        assert playback is not None
        block = playback.rate * BLOCK_MS // 1000
        next_at = time.monotonic()
        while not self._closed.is_set():
            with self._lock:
                busy = playback.queued_samples > 0
                if busy or self._in_turn:
                    self._write(playback.pull(block))
            next_at += block / playback.rate
            if not busy and not self._in_turn:
                next_at = time.monotonic() + block / playback.rate  # idle: no backlog of silence
            self._closed.wait(max(0.0, next_at - time.monotonic()))
