"""The echo cancellers the microphone path can run: Speex's adaptive filter (the default) and WebRTC's AEC3.

Each takes one 10 ms block of the microphone and the same block of what the speaker played (int16),
and gives back the microphone's block with the echo taken out; appliance/audio/echo.py aligns them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol

import numpy as np

BLOCK_MS: Final = 10  # ms per block the canceller takes (WebRTC's unit of work)


class BlockCanceller(Protocol):
    """One near-end block of 10 ms in, the same block with the echo removed out."""

    def process(self, near: np.ndarray, far: np.ndarray) -> Any: ...


def webrtc_engine(rate: int) -> BlockCanceller:
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


def speex_engine(rate: int) -> BlockCanceller:
    return SpeexEngine(rate, rate * BLOCK_MS // 1000)


ENGINES: Final[dict[str, Callable[[int], BlockCanceller]]] = {"speex": speex_engine, "webrtc": webrtc_engine}
