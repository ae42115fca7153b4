"""The microphone and the speaker share PortAudio safely: one call at a time, a rescan reopens both,
and a close that never returns makes the service exit for systemd to start it afresh."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from appliance.audio import AudioChunk, device
from appliance.audio.mic import MicSource
from appliance.audio.speaker import SpeakerSink
from appliance.config import AudioConfig, Config
from appliance.contracts import Stages
from appliance.service import Journal, Service
from tests.fixtures.fakes import FakeAsr, FakeChat, FakeEarcons, FakeSink, FakeSkills, FakeSplitter, FakeTts, FakeWake
from tests.fixtures.waits import WAIT_S, wait_for

CALL_S = 0.004  # seconds each fake PortAudio call takes, so calls made at once would overlap


class FreedStream(AssertionError):
    """A stream was used after PortAudio had closed it (a use after free in the real library)."""


class FakeStream:
    """A stream of the fake library: callbacks on a thread; using it once closed by a rescan is an error."""

    def __init__(self, sd: FakePortAudio, kind: str, callback: Any, blocksize: int, channels: int,
                 finished_callback: Any = None, **_: Any) -> None:
        self.sd, self.kind, self.callback, self.blocksize, self.channels = sd, kind, callback, blocksize, channels
        self.freed = False
        self.closed = False
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import numpy as np

        while not self._halt.wait(0.02):
            if self.sd.fail_streams:
                return
            if self.kind == "input":
                self.callback(b"\0\0" * self.blocksize * self.channels, self.blocksize, None, None)
            else:
                self.callback(np.zeros((self.blocksize, self.channels), np.float32), self.blocksize, None, None)

    def _use(self, what: str) -> None:
        self.sd.call(what)
        if self.freed:
            self.sd.misuse.append(f"{what} on a {self.kind} stream closed by a rescan")
            raise FreedStream(what)

    def start(self) -> None:
        self._use("start")
        self._thread.start()

    @property
    def active(self) -> bool:
        self._use("active")
        return not self.sd.fail_streams and not self.closed

    def abort(self) -> None:
        self._use("abort")
        if self.sd.hang_close.is_set():
            self.sd.release.wait()
        self._halt.set()

    def close(self) -> None:
        self._use("close")
        self.closed = True

    def free(self) -> None:
        self.freed = True
        self._halt.set()


class FakePortAudio:
    """Enough of sounddevice for both keepers; counts calls that overlap, as two threads would make them."""

    def __init__(self) -> None:
        self.default = type("Default", (), {"device": (0, 0)})()
        self.inside = 0
        self.overlaps = 0
        self.calls = 0
        self.opens = {"input": 0, "output": 0}
        self.streams: list[FakeStream] = []
        self.misuse: list[str] = []
        self.fail_streams = False
        self.hang_close = threading.Event()
        self.release = threading.Event()
        self._count = threading.Lock()

    def call(self, what: str) -> None:
        with self._count:
            self.inside += 1
            self.calls += 1
            if self.inside > 1:
                self.overlaps += 1
        time.sleep(CALL_S)
        with self._count:
            self.inside -= 1

    def query_devices(self, device: Any = None, kind: Any = None) -> Any:
        self.call("query_devices")
        info = {"name": "USB audio", "max_input_channels": 1, "max_output_channels": 1,
                "default_samplerate": 16000.0}
        return info if (device is not None or kind is not None) else [info]

    def check_input_settings(self, **_: Any) -> None:
        self.call("check_input_settings")

    def check_output_settings(self, **_: Any) -> None:
        self.call("check_output_settings")

    def _open(self, kind: str, kwargs: dict[str, Any]) -> FakeStream:
        self.call(f"open {kind}")
        self.opens[kind] += 1
        stream = FakeStream(self, kind, **kwargs)
        self.streams.append(stream)
        return stream

    def RawInputStream(self, **kwargs: Any) -> FakeStream:  # noqa: N802 - sounddevice's name
        return self._open("input", kwargs)

    def OutputStream(self, **kwargs: Any) -> FakeStream:  # noqa: N802 - sounddevice's name
        return self._open("output", kwargs)

    def _terminate(self) -> None:  # Pa_Terminate closes every open stream
        self.call("terminate")
        for stream in self.streams:
            stream.free()

    def _initialize(self) -> None:
        self.call("initialize")


@pytest.fixture(autouse=True)
def fresh_portaudio_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with PortAudio usable (the stuck state is the process's, and tests share one)."""
    monkeypatch.setattr(device, "_stuck", None)
    monkeypatch.setattr(device, "_portaudio_lock", type(device._portaudio_lock)())
    yield


def config(**kw: Any) -> AudioConfig:
    defaults = {"rate": 16000, "stall_timeout_s": 0.5, "retry_backoff_s": [0.05], "output_latency_ms": 20}
    return AudioConfig(**{**defaults, **kw})


def tone(seconds: float) -> AudioChunk:
    return AudioChunk(b"\x10\x00" * int(16000 * seconds), 16000)


def test_microphone_and_speaker_never_call_portaudio_at_once() -> None:
    sd = FakePortAudio()
    with MicSource(config(), sd_module=sd) as mic, SpeakerSink(config(), sd_module=sd) as sink:
        sink.play(tone(0.1))
        for _ in range(3):  # the sound server goes away and comes back: both reopen together
            opened = dict(sd.opens)
            sd.fail_streams = True
            wait_for(lambda: all(sd.opens[k] > opened[k] for k in opened), "both devices reopened",
                     between=lambda: mic.read(0.05))
            sd.fail_streams = False
        wait_for(lambda: mic.status() == "ok" and sink.status() == "ok", "both devices back",
                 between=lambda: mic.read(0.05))
    assert sd.calls > 30
    assert sd.overlaps == 0


def test_a_rescan_for_one_device_reopens_the_other_without_touching_its_closed_stream() -> None:
    sd = FakePortAudio()
    with SpeakerSink(config(), sd_module=sd) as sink:
        sink.play(tone(0.1))
        wait_for(lambda: sink.status() == "ok", "the speaker open")
        device.rescan(sd)  # as the microphone's keeper does when looking for a hot-plugged device
        wait_for(lambda: sd.opens["output"] >= 2 and sink.status() == "ok", "the speaker open again")
    assert sd.misuse == []
    assert device.stuck() is None


class RecordingJournal(Journal):
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []
        super().__init__(False, sender=lambda message, **fields: self.sent.append((message, fields)))


def test_a_close_that_never_returns_ends_the_service_so_systemd_starts_it_afresh(
        caplog: pytest.LogCaptureFixture) -> None:
    sd = FakePortAudio()
    mic = MicSource(config(), sd_module=sd)
    stages = Stages(source=mic, sink=FakeSink(), wake=FakeWake(), asr=FakeAsr(), chat=FakeChat(),
                    tts=FakeTts(), splitter_factory=FakeSplitter, skills=FakeSkills(), earcons=FakeEarcons())
    journal = RecordingJournal()
    service = Service(Config(), stages, journal)
    old = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    # Should the service never notice, SIGTERM ends the test's wait instead of hanging the suite.
    guard = threading.Timer(WAIT_S + device.PORTAUDIO_WAIT_S + device.CLOSE_TIMEOUT_S,
                            lambda: os.kill(os.getpid(), signal.SIGTERM))
    try:
        wait_for(lambda: mic.status() == "ok", "the microphone open", between=lambda: mic.read(0.05))
        sd.hang_close.set()  # PortAudio's ALSA error path spins: closing the lost stream never returns
        sd.fail_streams = True
        guard.start()
        stopped = service.run()
        opens = sd.opens["input"]
        time.sleep(0.3)
    finally:
        guard.cancel()
        signal.signal(signal.SIGTERM, old[0])
        signal.signal(signal.SIGINT, old[1])
        sd.release.set()
        mic.close()
    assert stopped is False, "it ended by itself, not by SIGTERM"
    assert service.stuck is not None and "did not return" in service.stuck
    errors = [message for message, f in journal.sent if f.get("APPLIANCE_EVENT") == "error"]
    assert len(errors) == 1 and errors[0].startswith("Sound system stuck")
    assert sd.opens["input"] == opens, "nothing more is asked of a stuck PortAudio"
    said = [r for r in caplog.records if r.name == "appliance.audio.device" and "stuck" in r.getMessage()]
    assert len(said) == 1, "said once, however often PortAudio is asked after"


def run_until_sigterm(hang_close: bool) -> tuple[FakePortAudio, MicSource, Service, bool, bool]:
    """A service on a microphone that opened, sent SIGTERM half a second into run(); with `hang_close`,
    closing its stream never returns until the test lets it. (sd, mic, service, run()'s result, whether
    the close was still hanging when run() returned)."""
    sd = FakePortAudio()
    mic = MicSource(config(), sd_module=sd)
    stages = Stages(source=mic, sink=FakeSink(), wake=FakeWake(), asr=FakeAsr(), chat=FakeChat(),
                    tts=FakeTts(), splitter_factory=FakeSplitter, skills=FakeSkills(), earcons=FakeEarcons())
    service = Service(Config(), stages, RecordingJournal())
    old = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    stopper = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGTERM))
    try:
        wait_for(lambda: mic.status() == "ok", "the microphone open", between=lambda: mic.read(0.05))
        if hang_close:
            sd.hang_close.set()
        stopper.start()
        stopped = service.run()
        still_closing = hang_close and not sd.release.is_set()
    finally:
        stopper.cancel()
        signal.signal(signal.SIGTERM, old[0])
        signal.signal(signal.SIGINT, old[1])
        sd.release.set()
        if hang_close:
            mic.close()  # its keeper, let go now; a clean stop has closed it already
    return sd, mic, service, stopped, still_closing


def test_sigterm_is_obeyed_in_time_while_the_microphone_will_not_close(caplog: pytest.LogCaptureFixture) -> None:
    """A sound server that stopped answering holds the stream's close: the service stops anyway and
    says so, instead of waiting past what systemd allows it (TimeoutStopSec) and being killed."""
    _, _, service, stopped, still_closing = run_until_sigterm(hang_close=True)
    assert stopped is True and still_closing
    assert service.left_open, "the exit must skip PortAudio's own exit handler, which would wait too"
    assert service.stuck is None  # stopped when asked, not because the sound system was stuck while running
    said = [r.getMessage() for r in caplog.records if r.name == "appliance.service"]
    assert any("did not close within" in m for m in said), said


def test_a_clean_stop_leaves_nothing_open() -> None:
    sd, mic, service, stopped, _ = run_until_sigterm(hang_close=False)
    assert stopped is True and not service.left_open
    assert sd.opens["input"] >= 1 and mic.status() != "ok"
