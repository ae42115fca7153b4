"""SpeakerSink through a real PulseAudio null sink: what it plays is recorded back from the monitor."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from appliance.audio import concat, read_wav, resample
from appliance.audio.speaker import SpeakerSink
from appliance.config import AudioConfig
from tests.fixtures.speech import best_alignment
from tests.fixtures.waits import SLOW_WAIT_S, WAIT_S, returns, wait_for

MONITOR_RATE = 16000  # Hz: the fixture's null sink


def test_what_the_speaker_plays_reaches_the_device(pulse: Any, piper: Any, tmp_path: Path) -> None:
    chunks = list(piper.synthesize("The Moon is the only natural satellite of the Earth. It is very old."))
    spoken = concat(chunks)
    with SpeakerSink(AudioConfig(output_device="pulse"), rate=piper.rate) as sink:
        assert sink.wait_ready(WAIT_S), sink.status()
        recording = pulse.start_recording(spoken.duration_s + 3.5, tmp_path / "monitor.wav")
        sink.mark_turn()
        queued_at = time.monotonic()
        for chunk in chunks:
            sink.play(chunk)
        assert sink.drain(SLOW_WAIT_S)
        first, ended = sink.first_audio_at(), sink.playback_ended_at()
        assert sink.status() == "ok"
    recording.join(SLOW_WAIT_S)
    recorded = read_wav(tmp_path / "monitor.wav").to_float()[:, 0]
    reference = resample(spoken, MONITOR_RATE).to_float()[:, 0]
    assert np.sqrt(np.mean(recorded**2)) > 0.01, "the monitor heard silence"
    offset, score = best_alignment(recorded, reference)
    assert score > 0.8, f"the recording does not match the speech (correlation {score:.2f})"
    assert first is not None and ended is not None and first >= queued_at
    assert ended - first >= spoken.duration_s * 0.95


def test_stop_silences_the_device_within_100_ms(pulse: Any, piper: Any, tmp_path: Path) -> None:
    text = "This is a long sentence that goes on and on, so that there is plenty of time to stop it halfway."
    spoken = concat(list(piper.synthesize(text)))
    # Silence comes within the device's own buffering (audio.output_latency_ms) plus one block and the fade.
    with SpeakerSink(AudioConfig(output_device="pulse", output_latency_ms=40), rate=piper.rate) as sink:
        assert sink.wait_ready(WAIT_S), sink.status()
        recording = pulse.start_recording(spoken.duration_s + 3.0, tmp_path / "monitor.wav")
        sink.mark_turn()
        queued_at = time.monotonic()
        sink.play(spoken)
        wait_for(lambda: sink.first_audio_at() is not None, "the first audio")
        first = sink.first_audio_at()
        assert first is not None
        time.sleep(max(0.0, first + 1.5 - time.monotonic()))
        stopped_at = time.monotonic()
        sink.stop()
        heard_before_stop_s = stopped_at - first
        assert sink.drain(SLOW_WAIT_S)
    recording.join(SLOW_WAIT_S)
    recorded = read_wav(tmp_path / "monitor.wav").to_float()[:, 0]
    reference = resample(spoken, MONITOR_RATE).to_float()[:, 0]
    offset, score = best_alignment(recorded, np.asarray(reference[: int(1.2 * MONITOR_RATE)]))
    assert score > 0.8, (f"the start of the speech is not in the recording (correlation {score:.2f}, "
                         f"{len(recorded) / MONITOR_RATE:.2f} s recorded, "
                         f"rms {np.sqrt(np.mean(recorded**2)):.4f}, "
                         f"first audio {first - queued_at:.2f} s after play)")
    loud = np.flatnonzero(np.abs(recorded) > 2e-3)
    sounded_s = (loud[-1] - offset) / MONITOR_RATE
    assert sounded_s < heard_before_stop_s + 0.100
    assert sounded_s < spoken.duration_s * 0.75


def test_speaker_comes_back_after_the_sound_server_dies(pulse: Any, piper: Any, tmp_path: Path,
                                                        caplog: Any) -> None:
    spoken = concat(list(piper.synthesize("Still here.")))
    # The stream must be open when the server dies: one measured to start quickly would otherwise rest
    # (close) at once, having played nothing, and a closed stream cannot see the server go.
    cfg = AudioConfig(output_device="pulse", stall_timeout_s=1.0, retry_backoff_s=[0.5, 1.0, 2.0],
                      speaker_rest_s=0.0)
    with SpeakerSink(cfg, rate=piper.rate) as sink:
        assert sink.wait_ready(WAIT_S), sink.status()
        try:
            pulse.kill()
            wait_for(lambda: sink.status() != "ok", "the speaker to be lost", SLOW_WAIT_S)
            assert sink.status().startswith("Waiting for speaker")
            sink.play(spoken)  # dropped at once: nothing to play it on
            # drain() does not wait out its hour for a device that is not there
            assert returns(lambda: sink.drain(3600.0), "drain() of a lost speaker") is False
            assert sink.dropped_s > 0
        finally:
            pulse.start()
        # Counting the reopen is the keeper's last step, after status() turned "ok".
        wait_for(lambda: sink.reopens >= 1, "the speaker to come back", SLOW_WAIT_S)
        assert sink.status() == "ok"
        assert sink.wait_ready(WAIT_S)
        recording = pulse.start_recording(spoken.duration_s + 3.0, tmp_path / "after.wav")
        sink.play(spoken)
        assert sink.drain(SLOW_WAIT_S)
    recording.join(SLOW_WAIT_S)
    recorded = read_wav(tmp_path / "after.wav").to_float()[:, 0]
    _offset, score = best_alignment(recorded, resample(spoken, MONITOR_RATE).to_float()[:, 0])
    assert score > 0.8, f"speech after the reopen does not match (correlation {score:.2f})"
    lost = [r for r in caplog.records if r.name == "appliance.audio.speaker" and "lost" in r.getMessage()]
    assert len(lost) == 1, "a lost speaker is logged once, not once per retry"
