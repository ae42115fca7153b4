"""A reminder asked for by voice and an alarm set with `appliance ask` on the daemon's state folder ring
from `appliance run` after it restarts: into PulseAudio's null sink, and into a real journald.

Both are set for a clock time a few minutes ahead in real time ("remind me at 2:07 PM to water the
plants", "set an alarm for 14:07"), as far ahead as two starts of the daemon and a spoken turn take here
and a margin, so the restart is over before they ring.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Final

import numpy as np
import pytest

from tests.e2e.test_run_service import EXIT_TIMEOUT_S, WATCHDOG_USEC, Daemon, listening, sandboxed
from tests.fixtures.journal import Entry, Journal
from tests.fixtures.notify import Notifications
from tests.fixtures.pulse import Pulse
from tests.fixtures.speech import SpeechMaker, load
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S

RESTART_MARGIN_S: Final = 60.0  # seconds beyond two starts of the daemon (and a spoken turn) before the minute
HEARD_BEFORE_S: Final = 3.0  # seconds recorded before the alarm's minute
HEARD_S: Final = 25.0  # seconds recorded: the earcon, the alarm, the reminder, and the first repeat
APPLIANCE: Final = [sys.executable, "-m", "appliance.cli"]


@dataclass
class Rung:
    """What the restarted daemon did at the alarm's minute."""

    ring_at: float
    """Seconds since the epoch of the minute the alarm and the reminder were set for."""
    ring: Entry
    """The restarted daemon's journal entry for its first ringing."""
    heard: str
    """What was said into the sink from just before that minute, as Whisper hears it."""
    turn: Entry
    """The first daemon's journal entry for the spoken request for the reminder."""
    alarm: dict
    """`appliance ask --json`'s record for the alarm."""


def _transcribe(samples: np.ndarray) -> str:
    from faster_whisper import WhisperModel

    from appliance.config import Config
    from appliance.setup import models

    model = WhisperModel(str(models.resolve("whisper", Config()).path), device="cpu", compute_type="int8",
                         cpu_threads=2)
    segments, _ = model.transcribe(samples.astype(np.float32), language="en", beam_size=1)
    return " ".join(seg.text for seg in segments).strip()


def _start(tmp_path: Path, name: str, config: Path, state: Path, pulse: Pulse) -> Daemon:
    notify = Notifications(tmp_path / f"notify-{name}")
    env = dict(pulse.env, NOTIFY_SOCKET=str(tmp_path / f"notify-{name}"), WATCHDOG_USEC=str(WATCHDOG_USEC),
               HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1", PYTHONFAULTHANDLER="1")
    env.pop("WATCHDOG_PID", None)
    log = (tmp_path / f"run-{name}.log").open("wb")
    command = sandboxed([*APPLIANCE, "run", "--config", str(config)], state)
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    log.close()
    return Daemon(proc, notify, tmp_path / f"run-{name}.log")


def _stop(daemon: Daemon) -> None:
    if daemon.proc.poll() is None:
        daemon.proc.send_signal(signal.SIGTERM)
        try:
            daemon.proc.wait(EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            daemon.proc.kill()
            daemon.proc.wait(EXIT_TIMEOUT_S)
    daemon.notify.close()


def _ask(config: Path, question: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("APPLIANCE_CONFIG", "JOURNAL_STREAM")}
    done = subprocess.run([*APPLIANCE, "--config", str(config), "ask", "--json", question], capture_output=True,
                          text=True, timeout=SLOW_WAIT_S, env=env, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def rung(pulse: Pulse, journal: Journal, speech: SpeechMaker,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rung]:
    """The daemon started, a reminder asked of it by voice and an alarm set with `appliance ask` for a
    minute ahead, the daemon restarted, and what it did at that minute."""
    tmp_path = tmp_path_factory.mktemp("alarms")
    state = tmp_path / "state"
    state.mkdir()
    config = tmp_path / "appliance.yaml"
    config.write_text(f"asr:\n  engine: whisper\nconversation:\n  follow_up: never\n"
                      f"service:\n  state_dir: {state}\n")
    pulse.start()
    started = time.monotonic()
    first = _start(tmp_path, "first", config, state, pulse)
    try:
        first.wait(lambda ls: "READY=1" in ls, LOAD_WAIT_S)
        load_s = time.monotonic() - started
        ring_at = math.ceil((time.time() + 2 * load_s + RESTART_MARGIN_S) / 60) * 60
        local = datetime.fromtimestamp(ring_at)  # the hub's zone: the system's
        spoken = f"{local.hour % 12 or 12}:{local.minute:02d} {'AM' if local.hour < 12 else 'PM'}"
        first.wait(listening)
        pulse.play(speech.join([speech("hey jarvis"), 0.4, speech(f"remind me at {spoken} to water the plants"),
                                1.0]))
        turn = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "turn", pid=first.proc.pid,
                                timeout=SLOW_WAIT_S)[0]
        alarm = _ask(config, f"set an alarm for {local:%H:%M}")
    finally:
        _stop(first)
    second = _start(tmp_path, "second", config, state, pulse)
    try:
        second.wait(lambda ls: "READY=1" in ls, LOAD_WAIT_S)
        second.wait(listening)
        assert time.time() < ring_at - HEARD_BEFORE_S, "the restart took longer than the margin allowed for"
        time.sleep(max(0.0, ring_at - HEARD_BEFORE_S - time.time()))
        recorder = pulse.start_recording(HEARD_S, tmp_path / "heard.wav")
        ring = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "ring", pid=second.proc.pid,
                                timeout=ring_at - time.time() + SLOW_WAIT_S)[0]
        recorder.join(HEARD_S + SLOW_WAIT_S)
        assert not recorder.is_alive(), "the recording did not end"
        yield Rung(ring_at, ring, _transcribe(load(tmp_path / "heard.wav")), turn, alarm)
    finally:
        _stop(second)


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def test_the_spoken_reminder_is_the_skills(rung: Rung) -> None:
    assert (rung.turn["OUTCOME"], rung.turn["ROUTE"]) == ("answered", "skill"), rung.turn


def test_ask_sets_the_alarm_for_that_minute(rung: Rung) -> None:
    assert (rung.alarm["route"], rung.alarm["intent"]) == ("skill", "alarm_set"), rung.alarm
    assert rung.alarm["data"]["alarms"][0]["at"] == rung.ring_at


def test_the_restarted_daemon_journals_both_ringing_at_their_minute(rung: Rung) -> None:
    assert rung.ring["ANNOUNCEMENTS"] == "2", rung.ring  # the alarm and the reminder, together
    assert int(rung.ring["__REALTIME_TIMESTAMP"]) / 1e6 >= rung.ring_at, "it rang before its minute"
    assert "water" not in rung.ring["MESSAGE"], "the reminder's words stay out of the journal"


def test_the_speaker_says_the_alarm_and_the_reminders_words(rung: Rung) -> None:
    heard = _words(rung.heard)
    assert "this is your alarm" in heard, rung.heard
    assert "while i was off" not in heard, "it rang as missed, not at its time"
    assert "reminder" in heard and "water the plants" in heard, rung.heard
