"""Conversions between audio formats and WAV files; AudioChunk (chunk.py), the format between the parts."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

from appliance.chunk import FRAME_SAMPLES as FRAME_SAMPLES
from appliance.chunk import PIPELINE_RATE as PIPELINE_RATE
from appliance.chunk import SAMPLE_WIDTH as SAMPLE_WIDTH
from appliance.chunk import AudioChunk as AudioChunk
from appliance.chunk import float_to_int16 as float_to_int16


class Converter:
    """Streaming conversion to mono int16 at one rate: down-mix, then soxr resampling.

    Keeps the resampler's state between chunks, so a stream converts without clicks at
    chunk edges. One Converter per stream; the input format may not change mid-stream.
    """

    def __init__(self, out_rate: int = PIPELINE_RATE, quality: str = "HQ") -> None:
        self.out_rate = out_rate
        self.quality = quality
        self._in_rate: int | None = None
        self._stream = None

    def convert(self, chunk: AudioChunk, last: bool = False) -> AudioChunk:
        if chunk.rate == self.out_rate and chunk.channels == 1 and chunk.width == SAMPLE_WIDTH:
            return chunk  # the microphone at the pipeline's rate, every chunk: nothing to convert
        mono = chunk.to_float().mean(axis=1) if chunk.channels > 1 else chunk.to_float()[:, 0]
        if chunk.rate == self.out_rate:
            return AudioChunk.from_float(mono, self.out_rate)
        if self._stream is None or self._in_rate != chunk.rate:
            import soxr

            self._in_rate = chunk.rate
            self._stream = soxr.ResampleStream(chunk.rate, self.out_rate, 1, dtype="float32",
                                               quality=self.quality)
        out = self._stream.resample_chunk(np.ascontiguousarray(mono, dtype=np.float32), last=last)
        return AudioChunk.from_float(out, self.out_rate)


def resample(chunk: AudioChunk, rate: int) -> AudioChunk:
    """A whole chunk converted to mono int16 at `rate` in one go (soxr, high quality)."""
    return Converter(rate).convert(chunk, last=True)


def read_wav(path: str | Path) -> AudioChunk:
    """A whole WAV file (PCM 8-32 bit or float) as one AudioChunk; bad files raise clear errors (wav.py)."""
    from appliance.audio.wav import read_wav as read

    return read(path)


def write_wav(path: str | Path, chunk: AudioChunk) -> None:
    """Write one AudioChunk as a WAV file."""
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(chunk.channels)
        wav.setsampwidth(chunk.width)
        wav.setframerate(chunk.rate)
        wav.writeframes(chunk.samples)


def concat(chunks: list[AudioChunk]) -> AudioChunk:
    """Chunks of one format joined into one."""
    if not chunks:
        return AudioChunk(b"", PIPELINE_RATE)
    first = chunks[0]
    for c in chunks:
        if (c.rate, c.width, c.channels) != (first.rate, first.width, first.channels):
            raise ValueError("cannot join chunks of different formats")
    return AudioChunk(b"".join(c.samples for c in chunks), first.rate, first.width, first.channels)
