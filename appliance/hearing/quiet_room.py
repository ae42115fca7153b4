"""QuietRoom: which 80 ms frames the wake word's models may skip, because the room is quiet.

openWakeWord runs a melspectrogram, an embedding model and the wake word's head on every frame,
whatever the room sounds like; in a quiet room that is nearly all of the hub's idle CPU. QuietRoom
looks at each frame's level only (a dot product) and skips frames while the room stays at its own floor.
The level is taken of the frame's first difference, a high-pass: the rumble of pink or brown
room noise makes a plain RMS swing by 2-7 dB from frame to frame and be scored for nothing,
while the difference of such noise holds within 0.2 dB and speech stands well out of it.
It scores a frame that rises `margin_db` over the floor, and the `hang_frames` after
the last such frame, for the detector's score lags the audio by up to its 1.28 s window.

Skipping never decides anything itself: wake.py keeps the frames skipped (up to REPLAY_FRAMES)
and, at the next frame scored, feeds them through the features first, so that every score computed
is the one a run that skips nothing computes on that frame.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Final

import numpy as np

FLOOR_FRAMES: Final = 62
"""The room's floor is taken over the last 5 s of frames."""
FLOOR_PERCENTILE: Final = 10.0
"""Of the frames' levels in that time: low enough that speech with pauses leaves it at the room's."""
FLOOR_EVERY: Final = 8
"""Frames between two takes of the floor (a percentile costs ten times the level itself)."""
SILENT_DBFS: Final = -70.0
"""A frame below this is never scored for its level: a muted or unplugged microphone, digital silence."""
MARGIN_DB: Final = 3.0
HANG_FRAMES: Final = 20
"""1.6 s: the detector's 16-frame window and its lag after the last loud frame."""
REPLAY_FRAMES: Final = 32
"""Frames kept while skipping, for the features of the next frame scored to be those of a run that skips nothing: the head
reads 16 embeddings, each of 76 mel frames, each of 400 samples (26 frames); 32 leave a margin."""


def level_dbfs(frame: np.ndarray) -> float:
    """The RMS level of int16 samples' first difference, in dB under full scale (-inf for digital silence).

    The difference tilts the spectrum up by 6 dB an octave, reading 0 dB at about 2.5 kHz.
    """
    d = np.diff(frame.astype(np.float32))
    power = float(np.dot(d, d)) / max(1, len(d))
    return 10.0 * math.log10(power / 32768.0**2) if power > 0.0 else -math.inf


class QuietRoom:
    """Scores while the room is louder than its floor (and for a while after); skips a steady quiet.

    The floor is unknown for the first FLOOR_FRAMES of a detector's life, and every frame is scored
    until it is known, so the start of a stream is scored as it always was.
    """

    def __init__(self, margin_db: float = MARGIN_DB, hang_frames: int = HANG_FRAMES) -> None:
        self.margin_db = margin_db
        self.hang_frames = hang_frames
        self.frames = 0
        self.skipped_frames = 0
        """Frames the models skipped, for the figures (bench/hearing.py)."""
        self._levels: deque[float] = deque(maxlen=FLOOR_FRAMES)
        self._hang = 0
        self.floor_dbfs: float | None = None
        """The room's level, known once FLOOR_FRAMES have been heard."""

    def admit(self, frame: np.ndarray) -> bool:
        """Whether the models must score this frame."""
        level = max(level_dbfs(frame), SILENT_DBFS - 1.0)
        floor = self.floor_dbfs
        self._levels.append(level)
        if len(self._levels) == FLOOR_FRAMES and (floor is None or self.frames % FLOOR_EVERY == 0):
            self.floor_dbfs = float(np.percentile(np.fromiter(self._levels, dtype=np.float64), FLOOR_PERCENTILE))
        self.frames += 1
        if floor is None or (level >= SILENT_DBFS and level >= floor + self.margin_db):
            self._hang = self.hang_frames
            return True
        if self._hang > 0:
            self._hang -= 1
            return True
        self.skipped_frames += 1
        return False

    def keep_scoring(self) -> None:
        """Score the next hang_frames whatever their level (the hub speaking: barge-in)."""
        self._hang = self.hang_frames
