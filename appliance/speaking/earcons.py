"""Earcons: the short wake, thinking, error and timer sounds, generated with numpy (no downloaded assets)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

import numpy as np

from appliance.audio import AudioChunk
from appliance.config import Config
from appliance.contracts import Earcons
from appliance.contracts import Sink

_LOGGER = logging.getLogger(__name__)

DEFAULT_RATE: Final = 22050  # Hz: Piper medium voices, so earcons and speech share one stream
PEAK: Final = 0.35  # full scale fraction: clearly audible beside speech normalised to 1.0, never harsh
EDGE_MS: Final = 8  # milliseconds of raised-cosine fade at each tone's ends: no clicks
NAMES: Final = ("wake", "thinking", "error", "timer")


def tone(rate: int, freq_hz: float, dur_s: float, harmonics: tuple[float, ...] = (1.0,),
         decay_per_s: float = 0.0) -> np.ndarray:
    """A tone with optional harmonics and exponential decay, faded in and out (float32, peak 1)."""
    t = np.arange(int(rate * dur_s)) / rate
    wave = sum(amp * np.sin(2 * np.pi * freq_hz * (k + 1) * t) for k, amp in enumerate(harmonics))
    wave = np.asarray(wave, dtype=np.float64) * np.exp(-decay_per_s * t)
    edge = min(len(t) // 2, int(rate * EDGE_MS / 1000))
    if edge:
        ramp = 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, edge))
        wave[:edge] *= ramp
        wave[-edge:] *= ramp[::-1]
    peak = np.max(np.abs(wave)) or 1.0
    return (wave / peak).astype(np.float32)


def silence(rate: int, dur_s: float) -> np.ndarray:
    return np.zeros(int(rate * dur_s), dtype=np.float32)


def _wake(rate: int) -> np.ndarray:
    """Two quick rising notes (E6, B6): 'I'm listening'."""
    return np.concatenate([tone(rate, 1318.5, 0.07), silence(rate, 0.02), tone(rate, 1975.5, 0.09)])


def _thinking(rate: int) -> np.ndarray:
    """A soft, low double pulse (C5): 'still working on it', quieter than the others."""
    pulse = 0.6 * tone(rate, 523.25, 0.12, harmonics=(1.0, 0.2), decay_per_s=8.0)
    return np.concatenate([pulse, silence(rate, 0.1), pulse])


def _error(rate: int) -> np.ndarray:
    """Two falling, slightly buzzy notes (A4, E4): 'that went wrong'."""
    buzz = (1.0, 0.0, 0.3, 0.0, 0.15)
    return np.concatenate([tone(rate, 440.0, 0.15, buzz), silence(rate, 0.03), tone(rate, 329.6, 0.25, buzz)])


STRIKE: Final = 0.3  # the mallet's noise against the bell's peak
STRIKE_S: Final = 0.004  # seconds in which it dies away


def _timer(rate: int) -> np.ndarray:
    """Three bell strikes (C6 with partials, decaying): 'your timer is done'.

    Each strike starts with the mallet's soft noise, dying within milliseconds under the fade-in, as a
    struck bell does. It is also what the echo canceller finds the ring's echo by when the ring begins
    somewhere else than the last sound did: a bell's partials alone match themselves at many delays
    (measured: the ring passed uncancelled for 1.6 s, against 0.9 s with the strike)."""
    bell = tone(rate, 1046.5, 0.35, harmonics=(1.0, 0.5, 0.25), decay_per_s=6.0)
    t = np.arange(len(bell)) / rate
    noise = np.random.default_rng(1046).standard_normal(len(bell)) * np.exp(-t / STRIKE_S)
    edge = int(rate * EDGE_MS / 1000)
    noise[:edge] *= 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, edge))
    bell = bell + STRIKE * noise.astype(np.float32)
    bell /= np.max(np.abs(bell))
    gap = silence(rate, 0.12)
    return np.concatenate([bell, gap, bell, gap, bell])


_MAKERS: Final = {"wake": _wake, "thinking": _thinking, "error": _error, "timer": _timer}


class ToneEarcons:
    """The four sounds at one rate (the voice's, so they join its stream), made once and cached."""

    def __init__(self, cfg: Config | None = None, rate: int = DEFAULT_RATE) -> None:
        self.rate = rate
        volume = cfg.tts.volume if cfg is not None else 1.0
        self.gain = PEAK * min(volume, 1.0 / PEAK)
        self._cache: dict[str, AudioChunk] = {}

    def get(self, name: str) -> AudioChunk:
        """The earcon called `name` (one of NAMES) as a mono int16 chunk."""
        chunk = self._cache.get(name)
        if chunk is None:
            maker = _MAKERS.get(name)
            if maker is None:
                raise KeyError(f"no earcon named {name!r}; known: {', '.join(NAMES)}")
            chunk = AudioChunk.from_float(maker(self.rate) * self.gain, self.rate)
            self._cache[name] = chunk
            _LOGGER.debug("Earcon %s: %.0f ms", name, chunk.duration_s * 1000.0)
        return chunk


class Chimes:
    """Plays the turn's earcons on the speaker when conversation.earcons is on; a failing one is
    reported (`on_error`) and skipped, never raised into the turn."""

    def __init__(self, earcons: Earcons | None, sink: Sink, enabled: bool,
                 on_error: Callable[[str, Exception], None]) -> None:
        self.earcons, self.sink, self.enabled, self.on_error = earcons, sink, enabled, on_error

    def play(self, name: str) -> None:
        if self.earcons is None or not self.enabled:
            return
        try:
            chunk = self.earcons.get(name)
            if chunk is not None:
                self.sink.play(chunk)
        except Exception as exc:
            self.on_error(name, exc)
