"""service.py: sd_notify over a real datagram socket, the watchdog's rules, journald fields, signals."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from appliance.config import Config
from appliance.contracts import Stages
from appliance.conversation.conductor import State
from appliance.conversation.turn import TURN_FIELDS, TurnRecord
from appliance.service import Journal, Notifier, Service, Watchdog, state_text, watchdog_interval_s
from tests.fixtures.fakes import (
    FakeAsr,
    FakeChat,
    FakeEarcons,
    FakeSink,
    FakeSkills,
    FakeSource,
    FakeSplitter,
    FakeTts,
    FakeWake,
    chunk,
)
from tests.fixtures.waits import WAIT_S, wait_for


class NotifySocket:
    """The systemd side of sd_notify: a bound AF_UNIX datagram socket."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.1)
        self.messages: list[str] = []

    def collect(self, until, timeout: float = WAIT_S) -> list[str]:
        deadline = time.monotonic() + timeout
        while not until(self.messages):
            assert time.monotonic() < deadline, f"no such notification; got {self.messages}"
            try:
                self.messages += self.sock.recv(4096).decode().splitlines()
            except TimeoutError:
                pass
        return self.messages

    def everything_sent(self) -> list[str]:
        """The messages so far, with every datagram already sent (a datagram is queued when sent)."""
        self.sock.setblocking(False)
        try:
            while True:
                self.messages += self.sock.recv(4096).decode().splitlines()
        except BlockingIOError:
            pass
        finally:
            self.sock.settimeout(0.1)
        return self.messages


@pytest.fixture()
def notify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> NotifySocket:
    path = tmp_path / "notify"
    sock = NotifySocket(path)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    monkeypatch.setenv("WATCHDOG_USEC", "200000")  # 0.2 s: fed every 0.1 s
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    yield sock
    sock.sock.close()


class RecordingJournal(Journal):
    def __init__(self, with_text: bool = False) -> None:
        self.sent: list[tuple[str, dict]] = []
        super().__init__(with_text, sender=lambda message, **fields: self.sent.append((message, fields)))


def test_watchdog_interval_is_half_of_watchdog_usec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert watchdog_interval_s() == 5.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert watchdog_interval_s() is None
    monkeypatch.delenv("WATCHDOG_USEC")
    assert watchdog_interval_s() is None


def test_notifier_speaks_sd_notify(notify: NotifySocket) -> None:
    n = Notifier()
    n.send("READY=1")
    n.status("Thinking")
    n.status("Thinking")  # unchanged: not sent twice
    n.status("Speaking")
    # Datagrams arrive in order: a second "Thinking" would come before "Speaking".
    notify.collect(lambda m: "STATUS=Speaking" in m)
    assert notify.messages == ["READY=1", "STATUS=Thinking", "STATUS=Speaking"]


class Ticking:
    """A conductor stand-in whose heartbeat and the source's frames a test moves by hand."""

    def __init__(self) -> None:
        self.heartbeat = 0
        self.stuck: float | None = None

    def stuck_s(self) -> float | None:
        return self.stuck


def test_watchdog_is_fed_only_while_the_loop_turns_and_audio_arrives(notify: NotifySocket) -> None:
    conductor, source, journal = Ticking(), FakeSource(), RecordingJournal()
    dog = Watchdog(conductor, source, Notifier(), journal, lambda: "Listening", watchdog_interval_s())
    # The feed interval is 0.1 s here: quiet for more than 0.15 s is not healthy.
    assert dog.healthy(0.1, 0.1) == (True, "")  # a Whisper transcription may hold the loop a while
    assert dog.healthy(0.2, 0.0)[0] is False  # the loop did not run: a hung model call
    assert dog.healthy(0.0, 0.2) == (False, "the microphone delivered no audio")  # a deaf loop
    source.status = lambda: "Opening microphone 'USB'"  # type: ignore[method-assign]
    dog._check_source()
    source.status = lambda: "ok"  # type: ignore[method-assign]
    dog._check_source()
    assert journal.sent == []  # opening it at start is neither lost nor back
    source.status = lambda: "Waiting for microphone 'USB'"  # type: ignore[method-assign]
    dog._check_source()
    assert dog.healthy(0.0, 9.0) == (True, "")  # an unplugged microphone is a healthy wait
    assert journal.sent[-1][1]["APPLIANCE_EVENT"] == "device_lost"
    source.status = lambda: "ok"  # type: ignore[method-assign]
    dog._check_source()
    assert journal.sent[-1][1]["APPLIANCE_EVENT"] == "device_back"


class CountedSource(FakeSource):
    """A microphone that counts how often the watchdog looked at its status (once a look)."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0

    def status(self) -> str:
        self.looks += 1
        return "ok"


def test_watchdog_thread_stops_feeding_when_frozen(notify: NotifySocket) -> None:
    conductor, source, journal = Ticking(), CountedSource(), RecordingJournal()
    dog = Watchdog(conductor, source, Notifier(), journal, lambda: "Listening", watchdog_interval_s())
    alive = threading.Event()
    alive.set()

    def tick() -> None:
        while alive.is_set():
            conductor.heartbeat += 1
            source.frames_read += 1
            alive.wait(0.01)  # a loop running and a microphone delivering, as long as it runs

    ticker = threading.Thread(target=tick)
    ticker.start()
    dog.start()
    notify.collect(lambda m: m.count("WATCHDOG=1") >= 3)
    alive.clear()
    ticker.join(WAIT_S)
    wait_for(lambda: any(f.get("APPLIANCE_EVENT") == "watchdog" for _, f in journal.sent), "the watchdog event")
    fed, looked = dog.fed, source.looks
    # It looks four times per feed interval (0.1 s here): 20 more looks are at least four more feeds missed.
    wait_for(lambda: source.looks >= looked + 20, "the watchdog to look 20 more times")
    dog.stop()
    assert dog.fed == fed  # nothing fed once the loop stopped turning
    assert notify.everything_sent().count("WATCHDOG=1") == fed


def test_journal_turn_entry_has_every_field_and_hides_text_unless_allowed() -> None:
    rec = TurnRecord(turn_id=3, wake_word="hey_jarvis", wake_score=0.91, route="llm", outcome="answered",
                     transcript="what is the capital of France", answer_parts=["Paris."],
                     wake_at=1.0, speech_end_at=2.0, transcript_at=2.3, first_token_at=2.5,
                     first_sentence_at=2.7, first_audio_at=2.9, end_at=4.0)
    private, open_ = RecordingJournal(False), RecordingJournal(True)
    private.turn(rec)
    open_.turn(rec)
    fields = private.sent[0][1]
    assert set(TURN_FIELDS) <= set(fields)
    assert fields["TURN_MS"] == "3000" and fields["FIRST_AUDIO_MS"] == "900" and fields["ASR_MS"] == "300"
    assert "TRANSCRIPT" not in fields and "ANSWER" not in fields
    assert open_.sent[0][1]["TRANSCRIPT"] == rec.transcript and open_.sent[0][1]["ANSWER"] == "Paris."


def test_journal_error_event_carries_the_traceback() -> None:
    j = RecordingJournal()
    j.event("error", "llm failed: boom", traceback="Traceback ...", stage="llm", turn_id=4)
    message, fields = j.sent[0]
    assert message == "llm failed: boom"
    assert fields["TRACEBACK"] == "Traceback ..." and fields["STAGE"] == "llm" and fields["PRIORITY"] == "3"


def test_state_text_names_the_wake_word() -> None:
    assert state_text(State.IDLE, Config()) == "Listening for 'hey jarvis'"
    assert state_text(State.THINKING, Config()) == "Thinking"


class HeldChat(FakeChat):
    """A model that writes its first sentence, then holds the rest; it notices a cancel at once but
    returns only when released (a llama.cpp batch that outlasts the daemon's wait for it)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def _stream(self, question: str, cancel: threading.Event) -> Iterator[str]:
        self.questions.append(question)
        yield "Paris is the capital. "
        if cancel.wait(WAIT_S):
            self.cancelled.set()
        self.release.wait(WAIT_S)
        if not cancel.is_set():
            yield "It is in France."


def test_service_ready_status_turn_and_sigterm(notify: NotifySocket) -> None:
    source = FakeSource([chunk(x) for x in ("SIL", "WAKE", "SAY:what is it", "SIL", "SIL")])
    source.fill = "SIL"
    chat = HeldChat()
    stages = Stages(source=source, sink=FakeSink(), wake=FakeWake(), asr=FakeAsr(), chat=chat,
                    tts=FakeTts(), splitter_factory=FakeSplitter, skills=FakeSkills(), earcons=FakeEarcons())
    journal = RecordingJournal()
    service = Service(Config(), stages, journal)
    done = threading.Event()

    def stop_later() -> None:
        notify.collect(lambda m: "STATUS=Speaking" in m and "WATCHDOG=1" in m)
        os.kill(os.getpid(), signal.SIGTERM)  # mid-answer: the model holds its second sentence
        done.set()

    old = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    stopper = threading.Thread(target=stop_later)
    stopper.start()
    try:
        stopped = service.run()
    finally:
        signal.signal(signal.SIGTERM, old[0])
        signal.signal(signal.SIGINT, old[1])
        chat.release.set()
    stopper.join(WAIT_S)
    assert stopped is True and done.is_set()
    msgs = notify.collect(lambda m: "STOPPING=1" in m)
    assert msgs[0] == "READY=1"
    assert "STATUS=Listening for 'hey jarvis'" in msgs and "STATUS=Thinking" in msgs
    assert "WATCHDOG=1" in msgs
    turns = [f for _, f in journal.sent if f.get("APPLIANCE_EVENT") == "turn"]
    assert [t["OUTCOME"] for t in turns] == ["cancelled"]
    assert chat.cancelled.wait(WAIT_S)


def test_watchdog_starves_when_a_cancelled_model_call_never_returns(notify: NotifySocket,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    conductor, source = Ticking(), FakeSource()
    conductor.stuck = 31.0
    dog = Watchdog(conductor, source, Notifier(), RecordingJournal(), lambda: "Thinking", watchdog_interval_s())
    ok, why = dog.healthy(0.0, 0.0)
    assert not ok and "cancelled model call" in why
    conductor.stuck = 3.0  # a slow cancel is not a hang yet
    assert dog.healthy(0.0, 0.0) == (True, "")
