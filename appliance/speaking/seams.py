"""The silence Piper puts around each piece it speaks, cut where it would be heard as a gap: before the
first piece of an answer (it delays the first word) and after a piece that ends mid-sentence (the
splitter's early first piece, "The moon | is about 384,000 km away": said whole, the words run on).
A piece that ends a sentence or a clause keeps its pause: that one is the voice's own.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from appliance.audio import AudioChunk

QUIET_DBFS: Final = -45.0  # a 10 ms frame below this counts as silence
FRAME_S: Final = 0.01
LEAD_KEPT_S: Final = 0.01  # seconds of silence left before the first word of an answer
SEAM_KEPT_S: Final = 0.05  # seconds of silence left after a piece cut mid-sentence: a pause between words
ENDS_A_PHRASE: Final = ".!?…,;:。！？，；：\"')]”’"
"""A piece ending in one of these ends where the voice pauses anyway."""


def _quiet_frames(chunk: AudioChunk) -> np.ndarray:
    samples = chunk.to_float().mean(axis=1) if chunk.channels > 1 else chunk.to_float()[:, 0]
    frame = max(1, int(chunk.rate * FRAME_S))
    frames = samples[: len(samples) // frame * frame].reshape(-1, frame)
    level = 20 * np.log10(np.sqrt((frames.astype(np.float64) ** 2).mean(axis=1)) + 1e-9)
    return level < QUIET_DBFS


def trimmed(chunk: AudioChunk, lead: bool = False, tail: bool = False) -> AudioChunk:
    """`chunk` with its leading (lead) and trailing (tail) silence cut to LEAD_KEPT_S and SEAM_KEPT_S."""
    if not (lead or tail) or chunk.frames == 0:
        return chunk
    quiet = _quiet_frames(chunk)
    frame = max(1, int(chunk.rate * FRAME_S))
    loud = np.flatnonzero(~quiet)
    if len(loud) == 0:
        return chunk  # silence only: nothing to tell a gap from
    start = max(0, loud[0] * frame - int(LEAD_KEPT_S * chunk.rate)) if lead else 0
    end = min(chunk.frames, (loud[-1] + 1) * frame + int(SEAM_KEPT_S * chunk.rate)) if tail else chunk.frames
    step = chunk.width * chunk.channels
    return AudioChunk(chunk.samples[start * step:end * step], chunk.rate, chunk.width, chunk.channels)


def cut_mid_sentence(piece: str) -> bool:
    """Whether a piece of the answer ends where no pause is said (no end or clause mark)."""
    return piece.rstrip()[-1:] not in ENDS_A_PHRASE
