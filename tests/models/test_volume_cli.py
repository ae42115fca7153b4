"""`appliance ask --out` with Piper: the hub's volume is kept between runs and heard in the reply WAV."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from appliance.audio import read_wav
from appliance.audio.volume import gain_for
from tests.fixtures.waits import LOAD_WAIT_S


def ask(config: Path, out: Path, question: str) -> str:
    done = subprocess.run([sys.executable, "-m", "appliance.cli", "ask", "--config", str(config),
                           "--out", str(out), question],
                          capture_output=True, text=True, timeout=LOAD_WAIT_S, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def rms(path: Path) -> float:
    samples = read_wav(path).to_float()[:, 0].astype(np.float64)
    return float(np.sqrt(np.mean(np.square(samples))))


def test_set_the_volume_to_2_and_the_next_reply_is_that_much_quieter(tmp_path: Path) -> None:
    config = tmp_path / "appliance.yaml"
    state = tmp_path / "state"
    config.write_text(f"service:\n  state_dir: {state}\nlogging:\n  level: WARNING\n", encoding="utf-8")
    question = "Cancel my timer."  # a fixed reply: "You don't have any timers."
    assert ask(config, tmp_path / "full.wav", question) == "You don't have any timers."
    assert ask(config, tmp_path / "set.wav", "Set the volume to 2.") == "Volume 2."
    assert ask(config, tmp_path / "low.wav", question) == "You don't have any timers."
    ratio = rms(tmp_path / "low.wav") / rms(tmp_path / "full.wav")
    assert ratio == pytest.approx(gain_for(2), rel=0.3)
    # The confirmation itself is heard at the new level: another sentence, so only roughly as loud as the
    # quiet reply, but far below anything said at full volume (level 2 is 24 dB down).
    assert rms(tmp_path / "set.wav") < 4 * gain_for(2) * rms(tmp_path / "full.wav")

    assert ask(config, tmp_path / "muted.wav", "Mute.") == "Muted."
    muted = read_wav(tmp_path / "muted.wav")
    assert muted.duration_s > 0.2 and not np.any(muted.to_int16())  # the turn is there, nothing is heard
    assert ask(config, tmp_path / "unmuted.wav", "Unmute.") == "Unmuted, volume 2."
    assert rms(tmp_path / "unmuted.wav") > 0.0
