"""MicSource through a real PulseAudio null sink: it records what is played, and survives losing it."""

from __future__ import annotations

import time

import numpy as np

from appliance.audio.mic import MicSource
from appliance.config import AudioConfig
from tests.fixtures.speech import tone
from tests.fixtures.waits import SLOW_WAIT_S, wait_for


def _collect(mic: MicSource, seconds: float) -> np.ndarray:
    """Read chunks for `seconds` of wall time (each read waits at most 0.5 s)."""
    out = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        chunk = mic.read(0.5)
        if chunk is not None:
            assert (chunk.rate, chunk.channels, chunk.width, chunk.frames) == (16000, 1, 2, 1280)
            out.append(chunk.to_int16())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int16)


def _dominant_hz(samples: np.ndarray, rate: int = 16000) -> float:
    spectrum = np.abs(np.fft.rfft(samples.astype(np.float64)))
    return float(np.argmax(spectrum) * rate / len(samples))


def test_mic_records_what_is_played_into_the_sink(pulse, speech) -> None:
    wav = speech.samples(tone(523.0, 2.0), "tone523")
    with MicSource(AudioConfig(input_device="pulse")) as mic:
        assert mic.read(8.0) is not None, mic.status()
        player = pulse.play(wav, wait=False)
        got = _collect(mic, 3.0)
        pulse.wait(player)
        assert mic.status() == "ok"
        assert mic.frames_read >= 20
    frames = got[: len(got) // 1280 * 1280].reshape(-1, 1280).astype(np.float64)
    loud = frames[np.sqrt((frames**2).mean(axis=1)) > 3000]  # the tone at 0.3 is ~6950 RMS
    assert len(loud) >= 15, f"only {len(loud)} loud chunks of {len(frames)}"
    assert abs(_dominant_hz(loud.ravel()) - 523.0) < 5.0


def test_mic_recovers_when_pulseaudio_is_killed_and_restarted(pulse, caplog) -> None:
    cfg = AudioConfig(input_device="pulse", stall_timeout_s=1.0, retry_backoff_s=[0.5, 1.0, 2.0])
    with MicSource(cfg) as mic:
        assert mic.read(8.0) is not None, mic.status()
        assert len(_collect(mic, 1.0)) > 0, mic.status()
        try:
            pulse.kill()
            _collect(mic, 3.0)  # reads keep returning (None) instead of hanging or raising
            assert mic.status().startswith("Waiting for microphone")
            lost_at = mic.frames_read
        finally:
            pulse.start()
        wait_for(lambda: mic.status() == "ok", "the microphone to come back", SLOW_WAIT_S,
                 between=lambda: mic.read(0.5))
        assert len(_collect(mic, 2.0)) >= 10 * 1280
        assert mic.frames_read > lost_at
        assert mic.reopens >= 1
    warnings = [r for r in caplog.records if r.name == "appliance.audio.mic" and "lost" in r.getMessage()]
    assert len(warnings) == 1, "a lost device is logged once, not once per retry"
