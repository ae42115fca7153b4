"""`appliance run` with a satellite in another room: the daemon itself connects to a real wyoming-satellite
(1.0.0), answers the question asked there on the satellite's speaker, journals the turn with
SOURCE=kitchen in a real journald, and `appliance doctor` and `appliance stats` name the satellite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from appliance.audio import AudioChunk
from tests.fixtures import stop_process
from tests.fixtures.journal import Entry, Journal
from tests.fixtures.pulse import Pulse
from tests.fixtures.speech import SpeechMaker, heard_name
from tests.fixtures.tts import STEADY_VOICE_YAML
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S, wait_for
from tests.fixtures.wyoming_satellite import SND_RATE, RealSatellite

APPLIANCE = [sys.executable, "-m", "appliance.cli"]


@pytest.fixture(scope="module")
def satellite(satellite_venv: Path, tmp_path_factory: pytest.TempPathFactory,
              speech: SpeechMaker) -> Iterator[RealSatellite]:
    wav = speech.join([0.5, speech("hey jarvis", variation=0.0), 0.6,
                       speech("what is the capital of France?", variation=0.0), 1.5])
    sat = RealSatellite(satellite_venv, tmp_path_factory.mktemp("satellite"), wav).start()
    yield sat
    sat.stop()


@pytest.fixture(scope="module")
def config(satellite: RealSatellite, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Whisper hearing, greedy decoding (the model's most likely answer), state in tmp, the satellite, the
    voice's variation off (the answer is said the same way on every run)."""
    folder = tmp_path_factory.mktemp("run-satellites")
    path = folder / "appliance.yaml"
    path.write_text(f"asr:\n  engine: whisper\nllm:\n  temperature: 0.0\nservice:\n  state_dir: {folder / 'state'}\n"
                    f"wyoming:\n  satellites:\n    - {{uri: \"{satellite.uri}\", name: kitchen, area: Kitchen}}\n"
                    + STEADY_VOICE_YAML, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def daemon(config: Path, pulse: Pulse, journal: Journal) -> Iterator[subprocess.Popen]:
    """`appliance run` on the test's PulseAudio and journald (started first), connected to the satellite."""
    log = (config.parent / "run.log").open("wb")
    env = dict(pulse.env, HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    for name in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "APPLIANCE_CONFIG"):
        env.pop(name, None)
    proc = subprocess.Popen([*APPLIANCE, "run", "--config", str(config)], env=env, stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        def connected() -> bool:  # what the daemon says on its standard error (journald's under systemd)
            assert proc.poll() is None, (config.parent / "run.log").read_text(errors="replace")[-3000:]
            return "Satellite kitchen connected" in (config.parent / "run.log").read_text(errors="replace")
        wait_for(connected, "the daemon to connect to the satellite", LOAD_WAIT_S)
        yield proc
    finally:
        stop_process(proc, SLOW_WAIT_S)
        log.close()


@pytest.fixture(scope="module")
def turn(daemon: subprocess.Popen, satellite: RealSatellite, journal: Journal) -> Entry:
    satellite.speak()
    return journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "turn", pid=daemon.pid, timeout=LOAD_WAIT_S)[0]


def test_the_daemon_answers_the_satellite_on_its_speaker(turn: Entry, satellite: RealSatellite,
                                                         transcribe) -> None:  # noqa: ANN001
    assert (turn["SOURCE"], turn["OUTCOME"], turn["ROUTE"]) == ("kitchen", "answered", "llm"), turn
    heard = transcribe(AudioChunk(satellite.answer(), SND_RATE))
    assert heard_name(heard, "paris"), heard


def test_doctor_asks_the_satellite_while_the_daemon_has_it(daemon: subprocess.Popen, config: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "APPLIANCE_CONFIG"}
    done = subprocess.run([*APPLIANCE, "doctor", "--config", str(config)], capture_output=True, text=True,
                          timeout=LOAD_WAIT_S, env=env, check=False)
    line = next((x for x in done.stdout.splitlines() if "satellite kitchen" in x), "")
    assert line.startswith("ok") and "a satellite (kitchen)" in line, done.stdout + done.stderr


def test_stats_counts_the_satellites_turns(turn: Entry) -> None:
    done = subprocess.run([*APPLIANCE, "stats", "--since", "10m ago", "--json"], capture_output=True, text=True,
                          timeout=SLOW_WAIT_S, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sources"].get("kitchen", 0) >= 1
