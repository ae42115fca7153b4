"""`appliance ask` in a subprocess with `language: de`: a German request takes the skill route and is
answered in German, with no model anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fixtures.waits import SLOW_WAIT_S

APPLIANCE = [sys.executable, "-m", "appliance.cli"]


def test_a_german_request_is_answered_by_the_skill_in_german(tmp_path: Path) -> None:
    (tmp_path / "no-models").mkdir()
    config = tmp_path / "appliance.yaml"
    config.write_text(
        "language: de\n"
        f"service:\n  state_dir: {tmp_path / 'state'}\n"
        f"models:\n  dir: {tmp_path / 'no-models'}\n  dev_packages: false\n",
        encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_CONFIG", "JOURNAL_STREAM")}
    out = subprocess.run([*APPLIANCE, "--config", str(config), "ask", "--json", "Stell einen Timer auf fünf Minuten."],
                         capture_output=True, text=True, timeout=SLOW_WAIT_S, env=env, check=False)
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert (record["route"], record["intent"], record["answer"]) == ("skill", "timer_set", "Timer auf 5 Minuten gestellt.")
    stored = json.loads((tmp_path / "state" / "timers.json").read_text())
    assert [t["duration_s"] for t in stored["timers"]] == [300.0]
