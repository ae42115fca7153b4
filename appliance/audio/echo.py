"""Echo cancellation on the microphone path: what the speaker plays is the reference, aligned by time."""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Final, Protocol

import numpy as np

from appliance.audio import PIPELINE_RATE, AudioChunk, Converter

_LOGGER = logging.getLogger(__name__)

BLOCK_MS: Final = 10  # ms per block the canceller takes (WebRTC's unit of work)
TAIL_S: Final = 1.5  # seconds after the last sample played that the room still echoes and the canceller runs
REANCHOR_S: Final = 0.03  # seconds a block's timestamp may differ from the running clock before it re-anchors
KEEP_S: Final = 3.0  # seconds of reference kept behind the microphone's clock
QUEUE_BLOCKS: Final = 1000  # speaker blocks held between two microphone reads (20 s of 20 ms blocks)


CLOCK_SMOOTH_S: Final = 2.0  # seconds over which a stream clock follows its device's timestamps
CLOCK_JUMP_S: Final = 0.2  # seconds a timestamp may differ from the stream clock before it is taken as it is


class StreamClock:
    """When each block of a stream sounds (or was captured), from the frames counted and smoothed timestamps.

    A device's samples follow one another without gaps, so one block's time is the previous one's plus
    its length; the timestamps PortAudio gives with each callback only tell where the whole stream sits,
    and one callback come late (a busy core) must not move it: each pulls the stream's offset by its
    share of CLOCK_SMOOTH_S, which still follows two devices' clocks drifting apart. A timestamp off by
    more than CLOCK_JUMP_S (frames lost to an overrun, a reopened stream) is taken as it is.
    """

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self._frames = 0
        self._offset: float | None = None  # the time of frame 0

    def stamp(self, frames: int, at: float) -> float:
        """The time of the first of the next `frames` frames, whose device timestamp is `at`."""
        counted = self._frames / self.rate
        error = at - counted - self._offset if self._offset is not None else 0.0
        if self._offset is None or abs(error) > CLOCK_JUMP_S:
            self._offset = at - counted
        else:
            self._offset += error * min(1.0, frames / self.rate / CLOCK_SMOOTH_S)
        self._frames += frames
        return self._offset + counted


class Engine(Protocol):
    """One near-end block of 10 ms in, the same block with the echo removed out."""

    def process(self, near: np.ndarray, far: np.ndarray) -> Any: ...


def webrtc_engine(rate: int) -> Engine:
    """WebRTC's AEC3 (pywebrtc-audio), with its own delay estimator over what alignment leaves.

    Its residual-echo suppressor cannot be turned off through this binding, and over a voice under
    the echo it takes the voice down with the echo: the wake word misses more than with Speex.
    """
    import pywebrtc_audio

    return pywebrtc_audio.EchoCanceller(rate, 1, 0)


SPEEX_FILTER_S: Final = 0.256  # seconds of echo path Speex models: 80 ms of delay, a reverb tail, timing slack
_SPEEX_SET_SAMPLING_RATE: Final = 24  # speex_echo.h


class SpeexEngine:
    """Speex's MDF echo canceller (Debian's libspeexdsp1, BSD) through ctypes: a linear adaptive filter
    and nothing after it, so what is not echo is left as it was; the timestamps do the alignment."""

    def __init__(self, rate: int, block: int, filter_s: float = SPEEX_FILTER_S) -> None:
        import ctypes
        import ctypes.util

        name = ctypes.util.find_library("speexdsp") or "libspeexdsp.so.1"
        try:
            lib = ctypes.CDLL(name)
        except OSError as exc:
            raise OSError(f"libspeexdsp is not installed (apt-get install libspeexdsp1): {exc}") from None
        lib.speex_echo_state_init.restype = ctypes.c_void_p
        lib.speex_echo_state_init.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.speex_echo_state_destroy.argtypes = [ctypes.c_void_p]
        lib.speex_echo_ctl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        lib.speex_echo_cancellation.argtypes = [ctypes.c_void_p] * 4
        self._lib = lib
        self._state = lib.speex_echo_state_init(block, int(filter_s * rate))
        if not self._state:
            raise OSError("speex_echo_state_init failed")
        sampling = ctypes.c_int(rate)
        lib.speex_echo_ctl(self._state, _SPEEX_SET_SAMPLING_RATE, ctypes.byref(sampling))

    def process(self, near: np.ndarray, far: np.ndarray) -> np.ndarray:
        near = np.ascontiguousarray(near, dtype="<i2")
        far = np.ascontiguousarray(far, dtype="<i2")
        out = np.empty_like(near)
        self._lib.speex_echo_cancellation(self._state, near.ctypes.data, far.ctypes.data, out.ctypes.data)
        return out

    def __del__(self) -> None:
        state, self._state = getattr(self, "_state", None), None
        if state:
            self._lib.speex_echo_state_destroy(state)


def speex_engine(rate: int) -> Engine:
    return SpeexEngine(rate, rate * BLOCK_MS // 1000)


ENGINES: Final[dict[str, Callable[[int], Engine]]] = {"speex": speex_engine, "webrtc": webrtc_engine}


class EchoCanceller:
    """Removes what the hub played from what its microphone hears; costs nothing while nothing plays.

    The speaker's device callback calls played() with each block it hands the device (after volume
    and resampling) and the monotonic time it sounds (DAC time): a copy into a bounded deque, nothing
    else. The microphone's reader calls cancel() with 16 kHz mono int16 samples and the monotonic
    time the first one was captured (ADC time); there the reference is resampled to 16 kHz, laid on
    a timeline by its timestamps, and each 10 ms block of the microphone goes through the canceller
    with the reference that sounded at the same moment. The engine's filter (Speex: 256 ms; AEC3 adds
    a delay estimator) takes up the room's delay and reverb and what the timestamps get wrong;
    both sides' times come from a StreamClock (frames counted, timestamps smoothed), which follows two
    devices' clocks drifting apart. When nothing has played for `tail_s`, cancel() returns its input
    unchanged and the canceller is not called.
    """

    def __init__(self, rate: int = PIPELINE_RATE, tail_s: float = TAIL_S,
                 engine_factory: Callable[[int], Engine] = speex_engine) -> None:
        self.rate = rate
        self.tail_s = tail_s
        self.block = rate * BLOCK_MS // 1000
        self.blocks_processed = 0
        self._engine_factory = engine_factory
        self._engine: Engine | None = None
        self._failed = False
        self._incoming: deque[tuple[np.ndarray, int, float]] = deque(maxlen=QUEUE_BLOCKS)
        self._converters: dict[int, _Resampler] = {}
        self._far = np.zeros(0, dtype=np.float32)  # the reference at `rate`, from _far_t0 on
        self._far_t0 = 0.0
        self._last_played_at: float | None = None  # when the newest reference sample sounds
        self._near_t: float | None = None  # when the next microphone sample was captured
        self._pending = np.zeros(0, dtype="<i2")  # microphone samples short of a whole block
        self._lock = threading.Lock()  # cancel() may be called from one reader at a time

    # ---- speaker side (its device callback): copy only -----------------------------------------
    def played(self, samples: np.ndarray, rate: int, at: float) -> None:
        """`samples` (float32 mono at `rate`) start to sound at monotonic time `at`."""
        self._incoming.append((np.array(samples, dtype=np.float32), rate, at))

    @property
    def active(self) -> bool:
        """Something was played within the last tail_s (of the microphone's clock)."""
        return len(self._incoming) > 0 or self._in_tail(self._near_t)

    # ---- microphone side (its reader's thread) -------------------------------------------------
    def cancel(self, samples: np.ndarray, at: float) -> np.ndarray:
        """16 kHz mono int16 samples captured from `at` on, with the hub's own sound removed."""
        with self._lock:
            if self._near_t is None or abs(at - self._near_t) > REANCHOR_S:
                self._near_t = at - len(self._pending) / self.rate
            self._take_reference()
            if self._failed or not self._in_tail(self._near_t):
                return self._pass(samples)
            near = np.concatenate([self._pending, np.asarray(samples, dtype="<i2")])
            whole = len(near) // self.block * self.block
            self._pending = near[whole:]
            out = np.empty(whole, dtype="<i2")
            for start in range(0, whole, self.block):
                out[start:start + self.block] = self._one_block(near[start:start + self.block])
            self._trim()
            return out

    def _pass(self, samples: np.ndarray) -> np.ndarray:
        samples = np.asarray(samples, dtype="<i2")
        if len(self._pending):
            samples = np.concatenate([self._pending, samples])
            self._pending = np.zeros(0, dtype="<i2")
        self._near_t = (self._near_t or 0.0) + len(samples) / self.rate
        if self._last_played_at is not None and not self._in_tail(self._near_t):
            self._far = np.zeros(0, dtype=np.float32)  # idle again: the next answer starts a new timeline
        return samples

    def _in_tail(self, t: float | None) -> bool:
        return t is not None and self._last_played_at is not None and t < self._last_played_at + self.tail_s

    def _one_block(self, near: np.ndarray) -> np.ndarray:
        assert self._near_t is not None
        start = round((self._near_t - self._far_t0) * self.rate)
        self._near_t += self.block / self.rate
        far = np.zeros(self.block, dtype=np.float32)
        lo, hi = max(0, start), min(len(self._far), start + self.block)
        if hi > lo:
            far[lo - start:hi - start] = self._far[lo:hi]
        engine = self._load()
        if engine is None:
            return near
        self.blocks_processed += 1
        far16 = (np.clip(far, -1.0, 1.0) * 32767).astype("<i2")
        return np.asarray(engine.process(near, far16)).astype("<i2", copy=False)  # int16 in, int16 out

    def _load(self) -> Engine | None:
        if self._engine is None and not self._failed:
            try:
                self._engine = self._engine_factory(self.rate)
            except Exception as exc:  # noqa: BLE001 - a missing or broken library: hear without cancelling
                self._failed = True
                _LOGGER.warning("Echo cancellation is off: %s", exc)
        return self._engine

    def _take_reference(self) -> None:
        """Move what the speaker played into the 16 kHz timeline, each block where its timestamp says."""
        while self._incoming:
            samples, rate, at = self._incoming.popleft()
            converter = self._converters.get(rate)
            if converter is None:
                converter = self._converters[rate] = _Resampler(rate, self.rate)
            block, at = converter.convert(samples, at)
            if len(block) == 0:
                continue
            end_t = self._far_t0 + len(self._far) / self.rate
            if len(self._far) == 0 or at - end_t > KEEP_S or at < self._far_t0:
                self._far, self._far_t0 = np.zeros(0, dtype=np.float32), at
            else:  # a gap (silence between sentences) is kept as it was; a clock stepped back is cut to
                keep = round((at - self._far_t0) * self.rate)
                if keep > len(self._far):
                    self._far = np.concatenate([self._far, np.zeros(keep - len(self._far), np.float32)])
                elif end_t - at > REANCHOR_S:
                    self._far = self._far[:keep]
            self._far = np.concatenate([self._far, block])
            self._last_played_at = self._far_t0 + len(self._far) / self.rate

    def _trim(self) -> None:
        assert self._near_t is not None
        old = round((self._near_t - KEEP_S - self._far_t0) * self.rate)
        if old > 0:
            self._far = self._far[old:]
            self._far_t0 += old / self.rate


class _Resampler:
    """The speaker's blocks at the pipeline's rate, each with the time its first output sample sounds.

    A streaming resampler holds back its filter's delay: the output of one call starts before the
    input given with it, by what it holds, so each output's time is worked out from the counts.
    """

    def __init__(self, in_rate: int, out_rate: int) -> None:
        self.in_rate, self.out_rate = in_rate, out_rate
        self._converter = Converter(out_rate)
        self._in = 0
        self._out = 0

    def convert(self, samples: np.ndarray, at: float) -> tuple[np.ndarray, float]:
        if self.in_rate == self.out_rate:
            return samples, at
        out = self._converter.convert(AudioChunk.from_float(samples, self.in_rate)).to_float()[:, 0]
        self._in += len(samples)
        self._out += len(out)
        held_s = self._in / self.in_rate - self._out / self.out_rate
        return out, at + len(samples) / self.in_rate - held_s - len(out) / self.out_rate
