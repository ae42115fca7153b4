"""`appliance run` (shipped config) on Pi 5-like sound: the default only plays; a USB microphone comes.

There is no sound card here, so ALSA's configuration (ALSA_CONFIG_PATH, as PortAudio reads it) stands
in for a Pi 5 without a sound server: `default` and `hdmi` can only play (on a Pi both are HDMI port
0; here a PulseAudio null sink, `hdmi0`, that the test listens to), and the USB microphone is an ALSA
pcm named "USB PnP Sound Device" that records from a second PulseAudio. That second server is not
running when the daemon starts: the microphone is plugged in later, as a USB microphone is, and the
daemon must find it without being told (the shipped config has `input_device: null`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tests.e2e.test_run_service import (
    EXIT_TIMEOUT_S,
    WATCHDOG_USEC,
    listening,
    sandboxed,
)
from tests.fixtures.journal import Entry, Journal
from tests.fixtures.notify import Notifications
from tests.fixtures.pulse import Pulse
from tests.fixtures.speech import SpeechMaker, heard_name, load
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S

ROOT = Path(__file__).resolve().parents[2]
HDMI_SINK = "hdmi0"
USB_NAME = "USB PnP Sound Device"
SHIPPED_VARIATION = "  noise_scale: 0.667\n  noise_w: 0.8\n"  # the shipped voice's random variation
SHIPPED_SAMPLING = "  temperature: 0.4\n"  # the shipped model's: each start samples its answers with a new seed
ASOUND = """\
# A Raspberry Pi 5 without a sound server, as PortAudio lists it: the default and HDMI only play.
pcm.!default {{
    type asym
    playback.pcm {{ type pulse; device "{hdmi}" }}
}}
pcm.hdmi {{
    type asym
    playback.pcm {{ type pulse; device "{hdmi}" }}
    hint {{ show on; description "vc4-hdmi-0, MAI PCM i2s-hifi-0" }}
}}
# The USB microphone: listed (and openable) only while its PulseAudio runs, i.e. while plugged in.
pcm."{usb}" {{
    type asym
    capture.pcm {{ type pulse; server "unix:{usb_socket}"; device "vsink.monitor" }}
    hint {{ show on; description "{usb}, USB Audio" }}
}}
"""


@dataclass
class Pi5Sound:
    """The sound of the simulated Pi: HDMI into the session's PulseAudio, the USB microphone's own server."""

    env: dict[str, str]
    usb: Pulse
    """The USB microphone: started = plugged in; what is played into its `vsink` is what it hears."""


@dataclass
class Hub:
    proc: subprocess.Popen
    notify: Notifications
    log: Path
    config: Path
    env: dict[str, str]

    def wait(self, predicate, timeout: float = SLOW_WAIT_S) -> list[str]:
        return self.notify.wait(predicate, timeout, self.proc)

    def doctor(self) -> list[str]:
        """`appliance doctor` in the daemon's sound set-up: its output lines."""
        done = subprocess.run([sys.executable, "-m", "appliance.cli", "doctor", "--config", str(self.config)],
                              env=self.env, capture_output=True, text=True, timeout=SLOW_WAIT_S, check=False)
        return done.stdout.splitlines()


@pytest.fixture(scope="module")
def pi5_sound(pulse: Pulse, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pi5Sound]:
    pulse.start()
    module = pulse.load_module("module-null-sink", f"sink_name={HDMI_SINK}", "rate=16000", "channels=1")
    usb = Pulse(tmp_path_factory.mktemp("usb-microphone"))
    asound = tmp_path_factory.mktemp("alsa") / "asound.conf"
    asound.write_text(ASOUND.format(hdmi=HDMI_SINK, usb=USB_NAME, usb_socket=usb.socket))
    try:
        yield Pi5Sound(dict(pulse.env, ALSA_CONFIG_PATH=str(asound)), usb)
    finally:
        usb.stop()
        if pulse.running:
            pulse.unload_module(module)


@pytest.fixture(scope="module")
def hub(pi5_sound: Pi5Sound, journal: Journal, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """`appliance run` with the shipped config (only the state folder moved, and the model's sampling and the
    voice's variation off so its answer is the same and said the same way on every run: sampled, the small test
    model once answered "the capital of France" without naming Paris), no microphone plugged in."""
    tmp_path = tmp_path_factory.mktemp("run-pi5")
    state = tmp_path / "state"
    state.mkdir()
    shipped = (ROOT / "config" / "appliance.yaml").read_text()
    assert "  input_device: null\n" in shipped and "  output_device: null\n" in shipped
    assert SHIPPED_VARIATION in shipped and SHIPPED_SAMPLING in shipped
    config = tmp_path / "appliance.yaml"
    config.write_text(shipped.replace("state_dir: /var/lib/appliance", f"state_dir: {state}")
                      .replace(SHIPPED_VARIATION, "  noise_scale: 0.0\n  noise_w: 0.0\n")
                      .replace(SHIPPED_SAMPLING, "  temperature: 0.0\n"))
    notify = Notifications(tmp_path / "notify")
    env = dict(pi5_sound.env, NOTIFY_SOCKET=str(tmp_path / "notify"), WATCHDOG_USEC=str(WATCHDOG_USEC),
               HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1", PYTHONFAULTHANDLER="1")
    env.pop("WATCHDOG_PID", None)
    log = (tmp_path / "run.log").open("wb")
    command = sandboxed([sys.executable, "-m", "appliance.cli", "run", "--config", str(config)], state)
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        yield Hub(proc, notify, tmp_path / "run.log", config, dict(pi5_sound.env, HF_HUB_OFFLINE="1"))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(EXIT_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(EXIT_TIMEOUT_S)
        log.close()
        notify.close()


def transcribe(samples: np.ndarray) -> str:
    """What Whisper tiny.en hears in a recording (beam search: the answer's first word is often loud)."""
    from faster_whisper import WhisperModel

    from appliance.config import Config
    from appliance.setup import models

    model = WhisperModel(str(models.resolve("whisper", Config()).path), device="cpu", compute_type="int8",
                         cpu_threads=2)
    segments, _ = model.transcribe(samples.astype(np.float32), language="en", beam_size=5)
    return " ".join(seg.text for seg in segments).strip()


def device_entries(journal: Journal, hub: Hub, kind: str) -> list[Entry]:
    return [e for e in journal.entries(pid=hub.proc.pid)
            if e.get("APPLIANCE_EVENT") == "audio_device" and e.get("KIND") == kind]


# ---- no microphone yet ------------------------------------------------------------------------

def test_without_a_microphone_the_hub_waits_for_one(hub: Hub) -> None:
    hub.wait(lambda ls: "READY=1" in ls, LOAD_WAIT_S)
    hub.wait(lambda ls: "STATUS=Waiting for a microphone (none found)" in ls)


def test_doctor_says_what_to_plug_in(hub: Hub) -> None:
    hub.wait(lambda ls: "READY=1" in ls, LOAD_WAIT_S)
    lines = hub.doctor()
    assert ("fail  microphone         no microphone found: plug in a USB microphone; "
            "`arecord -l` lists what ALSA sees") in lines, lines
    assert "ok    speaker            using the system default ('default')" in lines, lines


# ---- the USB microphone is plugged in -----------------------------------------------------------

@pytest.fixture(scope="module")
def plugged(hub: Hub, pi5_sound: Pi5Sound) -> Hub:
    hub.wait(lambda ls: "READY=1" in ls, LOAD_WAIT_S)
    pi5_sound.usb.start()
    hub.wait(listening)
    return hub


def test_the_hub_finds_the_usb_microphone_and_says_so_once(plugged: Hub, journal: Journal) -> None:
    journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "audio_device" and e.get("KIND") == "microphone",
                     pid=plugged.proc.pid)
    said = device_entries(journal, plugged, "microphone")
    assert [e["MESSAGE"] for e in said] == [f"Microphone: default cannot record: using '{USB_NAME}' (USB)"]
    assert said[0]["DEVICE"] == USB_NAME
    speaker = device_entries(journal, plugged, "speaker")
    assert [e["MESSAGE"] for e in speaker] == ["Speaker: using the system default ('default')"]


def test_a_question_to_the_usb_microphone_is_answered_on_the_speaker(
        plugged: Hub, pi5_sound: Pi5Sound, pulse: Pulse, journal: Journal, speech: SpeechMaker,
        tmp_path: Path) -> None:
    question = speech.join([speech("hey jarvis"), 0.4, speech("what is the capital of France?"), 1.0])
    recording = tmp_path / "hdmi0.wav"
    recorder = pulse.start_recording(25.0, recording, source=f"{HDMI_SINK}.monitor")
    pi5_sound.usb.play(question)
    turn = journal.wait_for(lambda e: e.get("APPLIANCE_EVENT") == "turn", pid=plugged.proc.pid)[0]
    recorder.join(SLOW_WAIT_S)
    assert turn["OUTCOME"] == "answered" and turn["WAKE_WORD"] == "hey_jarvis", turn
    answer = transcribe(load(recording))
    assert heard_name(answer, "paris"), answer


def test_doctor_names_the_microphone_the_hub_chose(plugged: Hub) -> None:
    lines = plugged.doctor()
    assert f"ok    microphone         default cannot record: using '{USB_NAME}' (USB)" in lines, lines


def test_the_hub_stops_cleanly(plugged: Hub) -> None:
    os.kill(plugged.proc.pid, signal.SIGTERM)
    try:
        code = plugged.proc.wait(EXIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        plugged.proc.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: every thread's stack into the log
        plugged.proc.wait(EXIT_TIMEOUT_S)
        pytest.fail(f"no exit within {EXIT_TIMEOUT_S:g} s of SIGTERM; where it was:\n{plugged.log.read_text()[-6000:]}")
    assert code == 0, plugged.log.read_text()[-3000:]
