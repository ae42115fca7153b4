"""AudioChunk, the one audio format between the parts: samples that carry their rate, width and channels."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np

PIPELINE_RATE: Final = 16000  # Hz: wake word, VAD and ASR models are trained at 16 kHz
FRAME_SAMPLES: Final = 1280  # 80 ms at 16 kHz: one openWakeWord frame
SAMPLE_WIDTH: Final = 2  # bytes: int16


@dataclass(frozen=True)
class AudioChunk:
    """A run of interleaved PCM samples that carries its own format."""

    samples: bytes
    rate: int  # Hz
    width: int = SAMPLE_WIDTH  # bytes per sample: 1 (uint8), 2 (int16), 3 (24-bit) or 4 (int32)
    channels: int = 1
    captured_at: float | None = field(default=None, compare=False)
    """time.monotonic() when a microphone captured its first sample (None: not from a microphone)."""

    @property
    def frames(self) -> int:
        return len(self.samples) // (self.width * self.channels)

    @property
    def duration_s(self) -> float:
        return self.frames / self.rate

    def to_float(self) -> np.ndarray:
        """Samples as float32 in [-1, 1], shape (frames, channels)."""
        if self.width == 1:
            data = (np.frombuffer(self.samples, dtype=np.uint8).astype(np.float32) - 128.0) / 128.0
        elif self.width == 2:
            data = np.frombuffer(self.samples, dtype="<i2").astype(np.float32) / 32768.0
        elif self.width == 3:  # packed little-endian 24-bit: each sample into the top of an int32
            raw = np.frombuffer(self.samples, dtype=np.uint8).reshape(-1, 3)
            wide = np.zeros((len(raw), 4), dtype=np.uint8)
            wide[:, 1:] = raw
            data = wide.view("<i4")[:, 0].astype(np.float32) / 2147483648.0
        elif self.width == 4:
            data = np.frombuffer(self.samples, dtype="<i4").astype(np.float32) / 2147483648.0
        else:
            raise ValueError(f"unsupported sample width {self.width} bytes")
        return data.reshape(-1, self.channels)

    def to_int16(self) -> np.ndarray:
        """Mono or multi-channel int16 samples, shape (frames,) for mono."""
        if self.width == 2:
            data = np.frombuffer(self.samples, dtype="<i2")
            return data if self.channels == 1 else data.reshape(-1, self.channels)
        floats = self.to_float()
        out = float_to_int16(floats)
        return out[:, 0] if self.channels == 1 else out

    @classmethod
    def from_int16(cls, samples: np.ndarray, rate: int) -> AudioChunk:
        """A mono int16 chunk from a numpy array."""
        data = np.ascontiguousarray(samples, dtype="<i2")
        channels = 1 if data.ndim == 1 else data.shape[1]
        return cls(data.tobytes(), rate, SAMPLE_WIDTH, channels)

    @classmethod
    def from_float(cls, samples: np.ndarray, rate: int) -> AudioChunk:
        """An int16 chunk from float samples in [-1, 1] (clipped), mono or (frames, channels)."""
        return cls.from_int16(float_to_int16(samples), rate)


def float_to_int16(samples: np.ndarray) -> np.ndarray:
    return (np.clip(samples, -1.0, 32767 / 32768) * 32768.0).astype("<i2")
