"""QuietRoom: skips a steady quiet once it knows the room's floor, scores anything louder, and for a while after."""

from __future__ import annotations

import numpy as np

from appliance.audio import FRAME_SAMPLES
from appliance.hearing.quiet_room import FLOOR_FRAMES, HANG_FRAMES, QuietRoom, level_dbfs

RNG = np.random.default_rng(3)


def frame(dbfs: float) -> np.ndarray:
    """80 ms of white noise at `dbfs` RMS."""
    samples = RNG.standard_normal(FRAME_SAMPLES) * 32768.0 * 10 ** (dbfs / 20)
    return np.clip(samples, -32768, 32767).astype(np.int16)


def test_level_is_of_the_first_difference_so_rumble_weighs_little() -> None:
    assert abs(level_dbfs(frame(-30.0)) + 27.0) < 0.5  # white noise: its difference has twice the power
    hum = (0.1 * np.sqrt(2) * 32768 * np.sin(2 * np.pi * 100 * np.arange(FRAME_SAMPLES) / 16000)).astype(np.int16)
    assert level_dbfs(hum) < -45.0  # 100 Hz at -20 dBFS RMS reads 28 dB lower
    assert level_dbfs(np.zeros(FRAME_SAMPLES, dtype=np.int16)) == float("-inf")


def test_scored_until_the_floor_is_known_then_skipped_in_steady_noise() -> None:
    quiet = QuietRoom()
    admitted = [quiet.admit(frame(-40.0)) for _ in range(FLOOR_FRAMES + HANG_FRAMES + 50)]
    assert all(admitted[:FLOOR_FRAMES])  # the start of a stream is scored as it always was
    assert not any(admitted[FLOOR_FRAMES + HANG_FRAMES:])
    assert quiet.skipped_frames == 50


def test_a_louder_frame_is_scored_and_so_are_the_frames_of_the_hang() -> None:
    quiet = QuietRoom()
    for _ in range(FLOOR_FRAMES + HANG_FRAMES):
        quiet.admit(frame(-50.0))
    assert not quiet.admit(frame(-50.0))
    assert quiet.admit(frame(-35.0))  # someone speaks, 15 dB over the room
    after = [quiet.admit(frame(-50.0)) for _ in range(HANG_FRAMES + 1)]
    assert all(after[:HANG_FRAMES]) and not after[HANG_FRAMES]


def test_a_sound_within_the_margin_is_skipped() -> None:
    quiet = QuietRoom()
    for _ in range(FLOOR_FRAMES + HANG_FRAMES):
        quiet.admit(frame(-50.0))
    assert not quiet.admit(frame(-48.5))


def test_digital_silence_is_skipped_and_the_faintest_sound_is_scored() -> None:
    quiet = QuietRoom()
    silence = np.zeros(FRAME_SAMPLES, dtype=np.int16)
    for _ in range(FLOOR_FRAMES + HANG_FRAMES):
        quiet.admit(silence)
    assert not quiet.admit(silence)
    assert not quiet.admit(frame(-75.0))  # below the level of any real microphone's own noise
    assert quiet.admit(frame(-60.0))


def test_keep_scoring_scores_the_next_frames_whatever_their_level() -> None:
    quiet = QuietRoom()
    for _ in range(FLOOR_FRAMES + HANG_FRAMES):
        quiet.admit(frame(-50.0))
    quiet.keep_scoring()
    assert all(quiet.admit(frame(-50.0)) for _ in range(HANG_FRAMES))
