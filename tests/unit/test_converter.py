"""Converter: the microphone's audio to the pipeline's 16 kHz mono int16, in a stream of chunks."""

from __future__ import annotations

import numpy as np

from appliance.audio import AudioChunk, Converter
from appliance.chunk import float_to_int16


def speechlike(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(-32768, 32768, n).astype("<i2")


def test_pipeline_format_passes_unchanged_and_equals_the_float_round_trip() -> None:
    samples = speechlike(1280)
    chunk = AudioChunk.from_int16(samples, 16000)
    out = Converter(16000).convert(chunk)
    assert out.rate == 16000 and out.channels == 1
    assert np.array_equal(out.to_int16(), samples)
    assert np.array_equal(out.to_int16(), float_to_int16(chunk.to_float()[:, 0]))  # what converting gave


def test_stereo_is_mixed_down_and_another_rate_resampled_in_a_stream() -> None:
    left, right = speechlike(960, 1), speechlike(960, 2)
    stereo = AudioChunk(np.stack([left, right], axis=1).astype("<i2").tobytes(), 16000, 2, 2)
    mixed = Converter(16000).convert(stereo).to_int16()
    expected = float_to_int16((left.astype(np.float32) + right.astype(np.float32)) / 65536.0)
    assert np.array_equal(mixed, expected)
    converter = Converter(16000)
    tone = (0.3 * np.sin(2 * np.pi * 440 * np.arange(48000) / 48000)).astype(np.float32)
    parts = [converter.convert(AudioChunk.from_float(tone[i:i + 3840], 48000)) for i in range(0, 48000, 3840)]
    parts.append(converter.convert(AudioChunk(b"", 48000), last=True))
    out = np.concatenate([p.to_int16() for p in parts])
    assert abs(len(out) - 16000) <= 1 and all(p.rate == 16000 for p in parts)
    assert 0.28 < np.abs(out[2000:14000]).max() / 32768 < 0.32  # the tone's level kept
