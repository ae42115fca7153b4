"""Earcons: four distinct, short, click-free sounds at the voice's rate."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from appliance.config import Config
from appliance.speaking.earcons import NAMES, ToneEarcons


def dominant_hz(samples: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.argmax(spectrum) * rate / len(samples))


@pytest.mark.parametrize("rate", [16000, 22050, 48000])
def test_every_earcon_is_short_audible_and_click_free(rate: int) -> None:
    earcons = ToneEarcons(Config(), rate=rate)
    for name in NAMES:
        chunk = earcons.get(name)
        assert chunk.rate == rate and chunk.channels == 1 and chunk.width == 2
        assert 0.1 <= chunk.duration_s <= 1.5, name
        x = chunk.to_float()[:, 0]
        peak = np.max(np.abs(x))
        assert 0.1 < peak < 0.5, name  # audible, never full scale
        assert abs(x[0]) < 0.01 * peak and abs(x[-1]) < 0.01 * peak, name  # starts and ends at rest
        # No click: every note (a run between exact silences) swells in and dies out over milliseconds.
        one_ms = rate // 1000
        # Silence is a run of at least 2 ms of exact zeros (a zero crossing inside a note is shorter).
        window = np.convolve((np.abs(x) > 0).astype(float), np.ones(2 * one_ms), mode="same")
        sounding = window > 0
        edges = np.flatnonzero(np.diff(sounding.astype(int))) + 1
        bounds = np.concatenate([[0], edges, [len(x)]])
        notes = [x[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if sounding[a] and b - a > 10 * one_ms]
        assert notes, name
        for note in notes:
            assert np.max(np.abs(note[:one_ms])) < 0.3 * peak, name
            assert np.max(np.abs(note[-one_ms:])) < 0.3 * peak, name


def test_earcons_sound_different() -> None:
    earcons = ToneEarcons(Config(), rate=22050)
    pitch = {n: dominant_hz(earcons.get(n).to_float()[:, 0], 22050) for n in NAMES}
    assert pitch["wake"] > pitch["timer"] > pitch["thinking"] > pitch["error"], pitch
    durations = {n: earcons.get(n).duration_s for n in NAMES}
    assert durations["wake"] < durations["error"] < durations["timer"]


def test_volume_scales_earcons_and_cache_returns_the_same_chunk() -> None:
    quiet = ToneEarcons(dataclasses.replace(Config(), tts=dataclasses.replace(Config().tts, volume=0.5)))
    loud = ToneEarcons(Config())
    q, lo = quiet.get("wake").to_float(), loud.get("wake").to_float()
    assert np.max(np.abs(q)) == pytest.approx(0.5 * np.max(np.abs(lo)), rel=0.01)
    assert loud.get("wake") is loud.get("wake")


def test_unknown_earcon_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="wake, thinking, error, timer"):
        ToneEarcons().get("doorbell")
