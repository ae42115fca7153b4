"""Where the wake word ends in the audio kept from before a question, so the question's audio starts after it.

The conductor hands the recognizer a pre-roll: the last ~0.3 s up to the chunk on which the wake
word fired. It is kept because the detector may fire late, when the question has already begun.
But the detector usually fires within a tenth of a second of the word's end, so the pre-roll
mostly holds the end of "jarvis", which the recognizer writes as "service", "is", "as", "it's" ...
Text alone cannot tell such a remnant from a real first word ("is the front door locked").

The audio can: people pause, however briefly, between the wake word and the question. The first
quiet stretch in the pre-roll and the first moments after the detection is that pause; the
question starts at its end. Without such a pause (the words run on) nothing is cut, and the
remnant is left to the text (wake_text.strip_wake_echo), as before.
"""

from __future__ import annotations

from typing import Final

import numpy as np

LOOKAHEAD_S: Final = 0.16  # seconds after the detection looked at too: the pause may start just before it
PAUSE_S: Final = 0.08  # a quiet stretch at least this long is the pause after the wake word
KEEP_S: Final = 0.06  # seconds of the pause kept before the question, so its first sound is never clipped
FRAME_S: Final = 0.01  # loudness is measured over frames this long
QUIET_SHARE: Final = 0.15  # quiet: in the lowest 15% of the window's range of loudness (dB)
MIN_RANGE_DB: Final = 6.0  # with less contrast than this, nothing in the window tells a pause
PRE_EMPHASIS: Final = 0.97  # weighs the hiss of an "s" up and a room's hum down, as speech front ends do


def question_start(samples: np.ndarray, rate: int) -> int:
    """The sample at which the question starts in `samples`, or 0 when no pause is found there.

    `samples` (float, mono) are the pre-roll and up to LOOKAHEAD_S after the wake word fired.
    The question starts KEEP_S before the end of the first quiet stretch of at least PAUSE_S.
    """
    frame = max(1, round(FRAME_S * rate))
    loudness = _loudness_db(np.asarray(samples, dtype=np.float64), frame)
    if len(loudness) == 0:
        return 0
    low, high = float(loudness.min()), float(loudness.max())
    if high - low < MIN_RANGE_DB:
        return 0  # all speech or all silence: no pause to go by
    quiet = loudness < low + QUIET_SHARE * (high - low)
    need = round(PAUSE_S / FRAME_S)
    start = 0
    for i, is_quiet in enumerate([*quiet, False]):
        if not is_quiet:
            if i - start >= need:
                return max(start * frame, i * frame - round(KEEP_S * rate))
            start = i + 1
    return 0


def _loudness_db(samples: np.ndarray, frame: int) -> np.ndarray:
    """Loudness in dB of each frame, pre-emphasised and smoothed over three frames."""
    if len(samples) < frame:
        return np.zeros(0)
    emphasised = np.append(samples[:1], samples[1:] - PRE_EMPHASIS * samples[:-1])
    n = len(emphasised) // frame
    power = np.mean(emphasised[:n * frame].reshape(n, frame) ** 2, axis=1)
    power = np.convolve(power, np.ones(3) / 3, mode="same")
    return 10 * np.log10(power + 1e-10)
