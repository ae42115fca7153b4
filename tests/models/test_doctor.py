"""`appliance doctor` on this machine: every model found (with its source) and exit 0."""

from __future__ import annotations

import subprocess
import sys

from appliance.config import Config
from appliance.setup import models
from tests.fixtures.pulse import Pulse
from tests.fixtures.waits import LOAD_WAIT_S


def test_doctor_names_every_model_source_and_passes(pulse: Pulse) -> None:
    # A sound card, as the owner's hub has (a private PulseAudio): without one doctor fails, by design.
    env = {k: v for k, v in pulse.env.items() if k != "APPLIANCE_CONFIG"}
    out = subprocess.run([sys.executable, "-m", "appliance.cli", "doctor", "--checksums"],
                         capture_output=True, text=True, timeout=2 * LOAD_WAIT_S, env=env, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = {line.split()[1] + (" " + line.split()[2] if line.split()[1] == "model" else ""): line
             for line in out.stdout.splitlines() if line[:4].strip() in ("ok", "warn", "fail")}
    cfg = Config()
    for kind in ("llm", "wake", "wake_mel", "wake_embed", "voice", "whisper"):
        line = lines[f"model {kind}"]
        found = models.resolve(kind, cfg)
        assert line.startswith("ok"), line
        assert found.source in line and str(found.path) in line
    # known checksums are verified, not just printed
    assert "verified" in lines["model llm"] and "verified" in lines["model voice"]
    for name in ("python", "config", "cpu", "llama.cpp", "memory"):
        assert name in lines, out.stdout
    assert lines["llama.cpp"].startswith("ok")
    assert "audio" in out.stdout
