"""`appliance run` as systemd would run it: sd_notify on a test socket, a real journald, PulseAudio as the sound card."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from appliance.turn import TURN_FIELDS

READY_TIMEOUT_S = 180.0  # model loading on a busy 2-core machine
ANSWER_TIMEOUT_S = 60.0
WATCHDOG_USEC = 2_000_000  # WatchdogSec=2 s: fed every second
EXIT_TIMEOUT_S = 5.0  # seconds the daemon may take after SIGTERM: well inside TimeoutStopSec (10 s)


class Notifications:
    """The systemd side of sd_notify: a bound datagram socket read on a thread, with arrival times."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.2)
        self.items: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(65536)
            except (TimeoutError, OSError):
                continue
            with self.lock:
                self.items += [(time.monotonic(), line) for line in data.decode().splitlines()]

    def lines(self, since: float = 0.0) -> list[str]:
        with self.lock:
            return [line for t, line in self.items if t >= since]

    def wait(self, predicate, timeout: float, proc: subprocess.Popen | None = None, since: float = 0.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while True:
            lines = self.lines(since)
            if predicate(lines):
                return lines
            if proc is not None and proc.poll() is not None:
                pytest.fail(f"appliance run exited with {proc.returncode}; notifications: {lines[-10:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"no such notification within {timeout} s; got {lines[-10:]}")
            time.sleep(0.05)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


def _transcribe(samples: np.ndarray) -> str:
    from faster_whisper import WhisperModel

    from appliance import models
    from appliance.config import Config

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


@pytest.fixture()
def daemon(tmp_path: Path, pulse, journal):
    """`appliance run` started against the test's PulseAudio, notify socket and journald."""
    notify = Notifications(tmp_path / "notify")
    state = tmp_path / "state"
    state.mkdir()
    config = tmp_path / "appliance.yaml"
    config.write_text(f"asr:\n  engine: whisper\nconversation:\n  follow_up: never\n"
                      f"service:\n  state_dir: {state}\n")
    env = dict(pulse.env, NOTIFY_SOCKET=str(tmp_path / "notify"), WATCHDOG_USEC=str(WATCHDOG_USEC),
               APPLIANCE_DEBUG_FREEZE="1", HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    env.pop("WATCHDOG_PID", None)
    log = (tmp_path / "run.log").open("wb")
    command = sandboxed([sys.executable, "-m", "appliance.cli", "run", "--config", str(config)], state)
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        yield proc, notify, tmp_path / "run.log"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(EXIT_TIMEOUT_S)
        log.close()
        notify.close()
        if not pulse.running:
            pulse.start()


def test_run_under_notify_watchdog_and_journald(daemon, pulse, journal, speech, tmp_path: Path) -> None:
    proc, notify, log = daemon
    notify.wait(lambda ls: "READY=1" in ls, READY_TIMEOUT_S, proc)
    if os.geteuid() == 0:  # the sandbox really holds: no network, no capabilities, / read-only
        status = Path(f"/proc/{proc.pid}/status").read_text()
        assert "CapEff:\t0000000000000000" in status and "NoNewPrivs:\t1" in status
        assert os.readlink(f"/proc/{proc.pid}/ns/net") != os.readlink("/proc/self/ns/net")
    notify.wait(lambda ls: "STATUS=Listening for 'hey jarvis'" in ls, 20, proc)  # once the mic is open
    notify.wait(lambda ls: ls.count("WATCHDOG=1") >= 2, 10, proc)
    loaded = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "models_loaded", pid=proc.pid)
    assert all(loaded[0].get(f"{k}_LOAD_MS", "").isdigit() for k in ("WAKE", "ASR", "LLM", "TTS")), loaded[0]

    # A question played into the null sink is heard from its monitor and answered into the sink.
    question = speech.join([speech("hey jarvis"), 0.4, speech("what is the capital of France?"), 1.0])
    recording = tmp_path / "heard.wav"
    recorder = threading.Thread(target=pulse.record, args=(25.0, recording))
    recorder.start()
    time.sleep(0.3)
    pulse.play(question)
    turns = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "turn", pid=proc.pid, timeout=ANSWER_TIMEOUT_S)
    recorder.join(40)
    turn = turns[0]
    missing = [f for f in TURN_FIELDS if f not in turn]
    assert not missing, f"turn entry lacks {missing}: {turn}"
    assert turn["OUTCOME"] == "answered" and turn["ROUTE"] == "llm" and turn["WAKE_WORD"] == "hey_jarvis"
    for field in ("ASR_MS", "FIRST_AUDIO_MS", "TURN_MS", "LLM_TOKENS", "PROMPT_TOKENS"):
        assert float(turn[field]) > 0, (field, turn)
    # An answer started from the early transcript may have its first token before the question
    # was confirmed over: TTFT_MS then counts from the confirmation and is 0, never negative.
    assert float(turn["TTFT_MS"]) >= 0 and (float(turn["TTFT_MS"]) > 0 or turn.get("PREEMPTIVE") == "1"), turn
    assert "TRANSCRIPT" not in turn  # private by default
    from tests.fixtures.speech import load, voiced_span

    heard = load(recording)
    q_len = len(load(question))
    after = heard[int(0.3 * 16000) + q_len:]  # what the sink got after the question: the answer
    assert _rms(after) > 0.01, "no answer was played into the sink"
    assert voiced_span(after)[1] - voiced_span(after)[0] > 0.5
    assert len(_transcribe(after).split()) >= 2  # speech, not noise

    # The microphone goes away: STATUS says it waits, and the watchdog is still fed.
    pulse.kill()
    mark = time.monotonic()
    notify.wait(lambda ls: any(x.startswith("STATUS=Waiting") for x in ls), 20, proc, since=mark)
    waiting = time.monotonic()
    notify.wait(lambda ls: ls.count("WATCHDOG=1") >= 3, 15, proc, since=waiting)
    assert journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "device_lost", pid=proc.pid)
    pulse.start()
    notify.wait(lambda ls: "STATUS=Listening for 'hey jarvis'" in ls, 30, proc, since=waiting)
    assert journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "device_back", pid=proc.pid)

    # A frozen conductor (the debug hook) stops the watchdog: systemd would restart it.
    freeze_us = time.time() * 1e6
    os.kill(proc.pid, signal.SIGUSR2)
    starved = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "watchdog"
                               and int(e["__REALTIME_TIMESTAMP"]) > freeze_us, pid=proc.pid)
    assert starved[0]["REASON"] == "the conductor loop has not turned"
    frozen = time.monotonic()
    time.sleep(3 * WATCHDOG_USEC / 1e6)  # systemd would have restarted it by now
    assert "WATCHDOG=1" not in notify.lines(since=frozen)

    # SIGTERM: STOPPING=1 and a clean exit, even frozen.
    os.kill(proc.pid, signal.SIGTERM)
    try:
        code = proc.wait(EXIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"appliance run did not exit within {EXIT_TIMEOUT_S} s of SIGTERM; log:\n{log.read_text()[-3000:]}")
    assert code == 0, log.read_text()[-3000:]
    assert "STOPPING=1" in notify.lines()


def test_stats_reads_the_turns_back(journal, tmp_path: Path) -> None:
    """`appliance stats --json` over turn entries sent to the real journald."""
    script = ("from appliance.service import Journal\nfrom appliance.turn import TurnRecord\n"
              "j = Journal(False)\n"
              "for i, ms in enumerate([400, 600, 800]):\n"
              "    j.turn(TurnRecord(turn_id=i + 1, wake_word='hey_jarvis', wake_score=0.9, route='llm',\n"
              "        outcome='answered', wake_at=0.0, speech_end_at=1.0, transcript_at=1.2, first_token_at=1.3,\n"
              "        first_sentence_at=1.35, first_audio_at=1.0 + ms / 1000, end_at=3.0))\n")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    journal.wait_for(lambda e: e.get("TURN_ID") == "3" and e.get("APPLIANCE_EVENT") == "turn")
    result = subprocess.run([sys.executable, "-m", "appliance.cli", "stats", "--since", "10m ago", "--json"],
                            check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    import json

    summary = json.loads(result.stdout)
    assert summary["turns"] >= 3 and summary["outcomes"]["answered"] >= 3
    first = summary["figures"]["FIRST_AUDIO_MS"]
    assert first["n"] >= 3 and first["median"] is not None
