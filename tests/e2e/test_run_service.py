"""`appliance run` as systemd would run it: sd_notify on a test socket, a real journald, PulseAudio as the sound card."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import pytest

from appliance.conversation.turn import TURN_FIELDS
from tests.fixtures.journal import Entry, Journal
from tests.fixtures.notify import Notifications
from tests.fixtures.pulse import Pulse
from tests.fixtures.speech import SpeechMaker, best_alignment, load, voiced_span
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S, WAIT_S

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "appliance.service"
WATCHDOG_USEC = 2_000_000  # WatchdogSec=2 s: fed every second
EXIT_TIMEOUT_S = int(re.search(r"^TimeoutStopSec=(\d+)", UNIT.read_text(), re.M)[1]) / 2
"""Seconds the daemon may take after SIGTERM: half the unit's TimeoutStopSec, so systemd never kills it."""


def _transcribe(samples: np.ndarray) -> str:
    from faster_whisper import WhisperModel

    from appliance.config import Config
    from appliance.setup import models

    model = WhisperModel(str(models.resolve("whisper", Config()).path), device="cpu", compute_type="int8",
                         cpu_threads=2)
    segments, _ = model.transcribe(samples.astype(np.float32), language="en", beam_size=1)
    return " ".join(seg.text for seg in segments).strip()


def _rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(samples ** 2))) if len(samples) else 0.0


def sandboxed(command: list[str], state: Path) -> list[str]:
    """The unit's sandbox as far as it can be had without systemd as PID 1, around `command`.

    PrivateNetwork= (a network namespace with only a downed lo), ProtectSystem=strict (/ read-only
    except the state directory), CapabilityBoundingSet= and NoNewPrivileges= (setpriv, with the
    root securebits so root gains nothing on exec), UMask=0077. The PID stays the command's own
    (unshare and sh exec), so signals and journald's _PID reach the daemon. Skipped, with the
    plain command, when not root or the util-linux tools are missing.
    """
    if os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("setpriv")):
        return command
    drop = ["setpriv", "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all",
            "--securebits=+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked,+keep_caps_locked", "--"]
    inner = (f"mount --bind {shlex.quote(str(state))} {shlex.quote(str(state))} && mount -o remount,bind,ro / "
             f"&& umask 077 && exec {shlex.join(drop + command)}")
    return ["unshare", "--net", "--mount", "--", "sh", "-c", inner]


@dataclass
class Daemon:
    """`appliance run` as started by the fixture, with what the tests have done to it so far."""

    proc: subprocess.Popen
    notify: Notifications
    log: Path
    frozen: bool = False

    def wait(self, predicate: Callable[[list[str]], bool], timeout: float = SLOW_WAIT_S,
             since: float = 0.0) -> list[str]:
        """The notifications once `predicate` holds for them; fails if the daemon exits first."""
        return self.notify.wait(predicate, timeout, self.proc, since=since)


@dataclass
class Turn:
    """One spoken question: the journal's turn entry and what the speaker played after the question."""

    entry: Entry
    answer: np.ndarray
    question_match: float
    """Normalised correlation of the question with the place it was found in the recording."""


LISTENING: Final = "STATUS=Listening for 'hey jarvis'"


def listening(lines: list[str]) -> bool:
    return LISTENING in lines


def listening_now(lines: list[str]) -> bool:
    """The daemon's latest status is listening for the wake word (a turn before this one has ended)."""
    statuses = [line for line in lines if line.startswith("STATUS=")]
    return statuses[-1:] == [LISTENING]


def waiting_for_the_microphone(lines: list[str]) -> bool:
    return any(line.startswith("STATUS=Waiting") for line in lines)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory, pulse: Pulse, journal: Journal) -> Iterator[Daemon]:
    """`appliance run` started against the test's PulseAudio, notify socket and journald, once for the
    module: the tests below take it from start to SIGTERM in the order they are written."""
    tmp_path = tmp_path_factory.mktemp("run")
    notify = Notifications(tmp_path / "notify")
    state = tmp_path / "state"
    state.mkdir()
    config = tmp_path / "appliance.yaml"
    config.write_text(f"asr:\n  engine: whisper\nconversation:\n  follow_up: never\n"
                      f"service:\n  state_dir: {state}\n")
    env = dict(pulse.env, NOTIFY_SOCKET=str(tmp_path / "notify"), WATCHDOG_USEC=str(WATCHDOG_USEC),
               APPLIANCE_DEBUG_FREEZE="1", HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1",
               PYTHONFAULTHANDLER="1")
    env.pop("WATCHDOG_PID", None)
    log = (tmp_path / "run.log").open("wb")
    command = sandboxed([sys.executable, "-m", "appliance.cli", "run", "--config", str(config)], state)
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        yield Daemon(proc, notify, tmp_path / "run.log")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(EXIT_TIMEOUT_S)
        log.close()
        notify.close()
        if not pulse.running:
            pulse.start()


@pytest.fixture(scope="module")
def ready(daemon: Daemon) -> Daemon:
    """The daemon once it has notified READY=1 (its models are loaded)."""
    daemon.wait(lambda ls: "READY=1" in ls, LOAD_WAIT_S)
    return daemon


# ---- start-up ---------------------------------------------------------------------------------

def test_ready_is_notified_once_the_models_are_loaded(daemon: Daemon) -> None:
    daemon.wait(lambda ls: "READY=1" in ls, LOAD_WAIT_S)


def test_daemon_runs_inside_the_units_sandbox(ready: Daemon) -> None:
    """No network, no capabilities, no new privileges: the unit's settings, as far as a test has them."""
    if os.geteuid() != 0:
        pytest.skip("the sandbox is set up only when the tests run as root")
    pid = ready.proc.pid
    status = Path(f"/proc/{pid}/status").read_text()
    assert "CapEff:\t0000000000000000" in status and "NoNewPrivs:\t1" in status
    assert os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")


def test_status_says_listening_once_the_microphone_is_open(ready: Daemon) -> None:
    ready.wait(listening)


def test_watchdog_is_fed_while_listening(ready: Daemon) -> None:
    ready.wait(lambda ls: ls.count("WATCHDOG=1") >= 2)


def test_models_loaded_entry_gives_each_models_load_time(ready: Daemon, journal: Journal) -> None:
    loaded = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "models_loaded", pid=ready.proc.pid)
    assert all(loaded[0].get(f"{k}_LOAD_MS", "").isdigit() for k in ("WAKE", "ASR", "LLM", "TTS")), loaded[0]


# ---- a spoken question ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def turn(ready: Daemon, pulse: Pulse, journal: Journal, speech: SpeechMaker,
         tmp_path_factory: pytest.TempPathFactory) -> Turn:
    """A question played into the null sink, heard from its monitor, answered into the sink."""
    assert not ready.frozen, "a question needs a daemon that is not frozen"
    ready.wait(listening)  # the microphone is open
    question = speech.join([speech("hey jarvis"), 0.4, speech("what is the capital of France?"), 1.0])
    recording = tmp_path_factory.mktemp("turn") / "heard.wav"
    recorder = pulse.start_recording(25.0, recording)
    pulse.play(question)
    entries = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "turn", pid=ready.proc.pid,
                               timeout=SLOW_WAIT_S)
    recorder.join(SLOW_WAIT_S)
    heard, asked = load(recording), load(question)
    at, match = best_alignment(heard, asked)  # where the question is in the recording
    return Turn(entries[0], heard[at + len(asked):], match)


def test_turn_entry_has_every_field(turn: Turn) -> None:
    missing = [f for f in TURN_FIELDS if f not in turn.entry]
    assert not missing, f"turn entry lacks {missing}: {turn.entry}"


def test_question_after_the_wake_word_is_answered_by_the_model(turn: Turn) -> None:
    entry = turn.entry
    assert entry["OUTCOME"] == "answered" and entry["ROUTE"] == "llm" and entry["WAKE_WORD"] == "hey_jarvis"


def test_turn_entry_times_and_counts_each_stage(turn: Turn) -> None:
    for field in ("ASR_MS", "FIRST_AUDIO_MS", "TURN_MS", "LLM_TOKENS", "PROMPT_TOKENS"):
        assert float(turn.entry[field]) > 0, (field, turn.entry)


def test_time_to_first_token_is_never_negative(turn: Turn) -> None:
    # An answer started from the early transcript may have its first token before the question
    # was confirmed over: TTFT_MS then counts from the confirmation and is 0, never negative.
    entry = turn.entry
    ttft_ms = float(entry["TTFT_MS"])
    assert ttft_ms >= 0 and (ttft_ms > 0 or entry.get("PREEMPTIVE") == "1"), entry


def test_transcript_stays_out_of_the_journal_by_default(turn: Turn) -> None:
    assert "TRANSCRIPT" not in turn.entry


def test_answer_is_spoken_into_the_speaker(turn: Turn) -> None:
    # The wake earcon plays into the same sink in the pause after "hey jarvis": at its loudness it
    # adds about a third to the recorded segment's energy, so even a perfect copy matches at ~0.85
    # (0.82-0.83 measured); anything but the question matches near 0.
    assert turn.question_match > 0.6, f"the question is not in the recording ({turn.question_match:.2f})"
    assert _rms(turn.answer) > 0.01, "no answer was played into the sink"
    start_s, end_s = voiced_span(turn.answer)
    assert end_s - start_s > 0.5
    assert len(_transcribe(turn.answer).split()) >= 2  # speech, not noise


# ---- the microphone goes away and comes back ---------------------------------------------------

@pytest.fixture(scope="module")
def microphone_pulled(ready: Daemon, pulse: Pulse) -> float:
    """The sound server killed (the USB microphone pulled out); when that was, time.monotonic()."""
    assert not ready.frozen, "the microphone's loss is seen by a daemon that is not frozen"
    ready.wait(listening)  # it had the microphone
    pulse.kill()
    return time.monotonic()


def test_status_says_it_waits_for_the_lost_microphone(ready: Daemon, microphone_pulled: float) -> None:
    ready.wait(waiting_for_the_microphone, since=microphone_pulled)


def test_watchdog_is_still_fed_while_the_microphone_is_lost(ready: Daemon, microphone_pulled: float) -> None:
    ready.wait(waiting_for_the_microphone, since=microphone_pulled)
    waiting = time.monotonic()
    ready.wait(lambda ls: ls.count("WATCHDOG=1") >= 3, since=waiting)


def test_lost_microphone_is_journaled(ready: Daemon, microphone_pulled: float, journal: Journal) -> None:
    assert journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "device_lost", pid=ready.proc.pid)


@pytest.fixture(scope="module")
def microphone_back(ready: Daemon, microphone_pulled: float, pulse: Pulse) -> float:
    """The sound server started again once the daemon saw it gone; when that was, time.monotonic()."""
    ready.wait(waiting_for_the_microphone, since=microphone_pulled)
    pulse.start()
    return time.monotonic()


def test_status_says_listening_again_once_the_microphone_is_back(ready: Daemon,
                                                                  microphone_back: float) -> None:
    ready.wait(listening, since=microphone_back)


def test_microphone_back_is_journaled(ready: Daemon, microphone_back: float, journal: Journal) -> None:
    assert journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "device_back", pid=ready.proc.pid)


SERVER_RESTARTS = 5


@pytest.fixture(scope="module")
def sound_server_restarted(ready: Daemon, microphone_back: float, pulse: Pulse) -> float:
    """The sound server killed and started again SERVER_RESTARTS more times, each time once the daemon
    had seen it go (the microphone and the speaker then reopen together); when the last start was."""
    ready.wait(listening, since=microphone_back)
    back = microphone_back
    for _ in range(SERVER_RESTARTS):
        pulled = time.monotonic()
        pulse.kill()
        ready.wait(waiting_for_the_microphone, since=pulled)
        back = time.monotonic()
        pulse.start()
        ready.wait(listening, since=back)
    return back


def test_daemon_listens_again_after_the_sound_server_restarts_again_and_again(
        ready: Daemon, sound_server_restarted: float) -> None:
    ready.wait(listening, since=sound_server_restarted)  # fails at once if the daemon has exited
    since = time.monotonic()
    ready.wait(lambda ls: ls.count("WATCHDOG=1") >= 2, since=since)
    assert ready.proc.poll() is None


# ---- a hung conductor, then SIGTERM ------------------------------------------------------------

@pytest.fixture(scope="module")
def frozen(ready: Daemon) -> float:
    """The conductor loop frozen by the debug hook, as a hung model call would; when (µs since the epoch)."""
    freeze_us = time.time() * 1e6
    os.kill(ready.proc.pid, signal.SIGUSR2)
    ready.frozen = True
    return freeze_us


def starved_since(journal: Journal, daemon: Daemon, freeze_us: float) -> list[Entry]:
    """The watchdog entries the daemon sent after the freeze (waits for the first)."""
    return journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "watchdog"
                            and int(e["__REALTIME_TIMESTAMP"]) > freeze_us, pid=daemon.proc.pid)


def test_frozen_conductor_is_journaled_as_the_watchdogs_reason(ready: Daemon, frozen: float,
                                                                journal: Journal) -> None:
    assert starved_since(journal, ready, frozen)[0]["REASON"] == "the conductor loop has not turned"


def test_frozen_conductor_stops_the_watchdog(ready: Daemon, frozen: float, journal: Journal) -> None:
    starved_since(journal, ready, frozen)
    since = time.monotonic()
    # systemd restarts a service that sends no WATCHDOG=1 for WatchdogSec: none comes in three of those.
    window_s = 3 * WATCHDOG_USEC / 1e6
    pinged = ready.notify.wait(lambda ls: "WATCHDOG=1" in ls or time.monotonic() > since + window_s,
                               window_s + WAIT_S, ready.proc, since=since)
    assert "WATCHDOG=1" not in pinged


@pytest.fixture(scope="module")
def stopped(ready: Daemon, frozen: float, journal: Journal) -> int | None:
    """SIGTERM to the frozen daemon; its exit code, or None if it had not exited EXIT_TIMEOUT_S later."""
    starved_since(journal, ready, frozen)  # frozen for sure
    os.kill(ready.proc.pid, signal.SIGTERM)
    try:
        return ready.proc.wait(EXIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None


def test_sigterm_ends_even_a_frozen_daemon_cleanly(ready: Daemon, stopped: int | None) -> None:
    assert stopped is not None, (f"appliance run did not exit within {EXIT_TIMEOUT_S} s of SIGTERM; "
                                 f"log:\n{ready.log.read_text()[-3000:]}")
    assert stopped == 0, ready.log.read_text()[-3000:]


def test_sigterm_notifies_stopping(ready: Daemon, stopped: int | None) -> None:
    assert "STOPPING=1" in ready.notify.lines()


def test_stats_reads_the_turns_back(journal: Journal, tmp_path: Path) -> None:
    """`appliance stats --json` over turn entries sent to the real journald."""
    script = ("from appliance.service import Journal\nfrom appliance.conversation.turn import TurnRecord\n"
              "j = Journal(False)\n"
              "for i, ms in enumerate([400, 600, 800]):\n"
              "    j.turn(TurnRecord(turn_id=i + 1, wake_word='hey_jarvis', wake_score=0.9, route='llm',\n"
              "        outcome='answered', wake_at=0.0, speech_end_at=1.0, transcript_at=1.2, first_token_at=1.3,\n"
              "        first_sentence_at=1.35, first_audio_at=1.0 + ms / 1000, end_at=3.0))\n")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=SLOW_WAIT_S)
    journal.wait_for(lambda e: e.get("TURN_ID") == "3" and e.get("APPLIANCE_EVENT") == "turn")
    result = subprocess.run([sys.executable, "-m", "appliance.cli", "stats", "--since", "10m ago", "--json"],
                            check=False, capture_output=True, text=True, timeout=SLOW_WAIT_S)
    assert result.returncode == 0, result.stderr
    import json

    summary = json.loads(result.stdout)
    assert summary["turns"] >= 3 and summary["outcomes"]["answered"] >= 3
    first = summary["figures"]["FIRST_AUDIO_MS"]
    assert first["n"] >= 3 and first["median"] is not None
