"""The Wyoming services port as a peer sees it: the wyoming package's own client over loopback TCP, fake engines."""

from __future__ import annotations

import asyncio
import itertools
import math
import socket
import struct
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import pytest
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk as WyAudioChunk
from wyoming.audio import AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event
from wyoming.handle import Handled, NotHandled
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop, SynthesizeStopped

from appliance.config import WyomingConfig
from appliance.conversation.policy import Policy
from appliance.language import pack
from appliance.links.wyoming_info import Engines
from appliance.links.wyoming_services import WyomingServices
from tests.fixtures.fakes import FakeAsr, FakeChat, FakeTts, chunk
from tests.fixtures.waits import WAIT_S
from tests.fixtures.wyoming_garbage import BAD, header

REPLIES = pack().replies

MODEL_ONLY = Policy(None, None)  # Home Assistant's questions are the model's (Policy.handle)

_T = TypeVar("_T")


@dataclass
class Hub:
    server: WyomingServices
    asr: FakeAsr
    tts: FakeTts
    chat: FakeChat

    @property
    def port(self) -> int:
        return self.server.port


@pytest.fixture
def hub() -> Iterator[Hub]:
    asr, tts, chat = FakeAsr(), FakeTts(), FakeChat()
    engines = Engines(asr=asr, tts=tts, chat=chat, asr_name="fake", voice_name="test-voice", model_name="fake-llm")
    server = WyomingServices(WyomingConfig(services="tcp://127.0.0.1:0", idle_timeout_s=2.0), engines, MODEL_ONLY)
    server.start()
    assert server.listening.wait(WAIT_S), "the services port did not start listening"
    yield Hub(server, asr, tts, chat)
    server.stop()


def run(coro: Callable[[], Awaitable[_T]]) -> _T:
    async def bounded() -> _T:
        async with asyncio.timeout(WAIT_S):
            return await coro()
    return asyncio.run(bounded())


async def until(client: AsyncTcpClient, *types: str) -> list[Event]:
    """Every event up to and including the first of `types`."""
    events = []
    while True:
        event = await client.read_event()
        assert event is not None, f"the connection closed before {types}; got {[e.type for e in events]}"
        events.append(event)
        if event.type in types:
            return events


async def describe(port: int) -> tuple[Info, float]:
    async with AsyncTcpClient("127.0.0.1", port) as client:
        started = time.monotonic()
        await client.write_event(Describe().event())
        events = await until(client, "info")
        return Info.from_event(events[-1]), time.monotonic() - started


# ---------------------------------------------------------------- describe


def test_describe_is_answered_at_once_with_asr_tts_and_handle_and_no_satellite(hub: Hub) -> None:
    info, took_s = run(lambda: describe(hub.port))
    assert took_s < 1.0  # Home Assistant gives up after 1 s
    assert [p.installed for p in (*info.asr, *info.tts, *info.handle)] == [True, True, True]
    assert info.satellite is None and not info.wake and not info.mic and not info.snd
    assert info.asr[0].models[0].name == "fake" and info.asr[0].models[0].languages == ["en"]
    assert info.tts[0].voices[0].name == "test-voice" and info.tts[0].voices[0].languages == ["en"]
    assert info.tts[0].supports_synthesize_streaming
    assert info.handle[0].models[0].name == "fake-llm" and info.handle[0].models[0].languages == ["en"]


def test_describe_is_answered_while_a_long_request_runs(hub: Hub) -> None:
    hub.chat.delay_s = 1.5

    async def both() -> float:
        async with AsyncTcpClient("127.0.0.1", hub.port) as slow:
            await slow.write_event(Transcript(text="take your time").event())
            await asyncio.sleep(0.1)
            _, took_s = await describe(hub.port)
            await until(slow, "handled")
            return took_s

    assert run(both) < 1.0


# ---------------------------------------------------------------- transcribe


def test_transcribe_returns_the_transcript_of_the_audio_sent(hub: Hub) -> None:
    said = chunk("SAY:what time is it").samples

    async def ask() -> list[Event]:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(Transcribe(language="en").event())
            await client.write_event(AudioStart(rate=16000, width=2, channels=1).event())
            for i in range(0, len(said), 640):  # 20 ms chunks, as Home Assistant sends them
                await client.write_event(WyAudioChunk(rate=16000, width=2, channels=1, audio=said[i:i + 640]).event())
            await client.write_event(AudioStop().event())
            return await until(client, "transcript")

    events = run(ask)
    assert Transcript.from_event(events[-1]).text == "what time is it"


@pytest.mark.parametrize(("rate", "width", "channels"), [(48000, 4, 2), (22050, 2, 1), (8000, 1, 1), (16000, 2, 2)])
def test_transcribe_takes_any_rate_width_and_channels(hub: Hub, rate: int, width: int, channels: int) -> None:
    frames = rate  # one second of a 440 Hz tone
    peak = {1: 100, 2: 20000, 4: 1 << 30}[width]
    samples = [int(peak * math.sin(2 * math.pi * 440 * i / rate)) for i in range(frames)]
    fmt = {1: "B", 2: "h", 4: "i"}[width]
    audio = b"".join(struct.pack("<" + fmt * channels, *([s + 128] * channels if width == 1 else [s] * channels))
                     for s in samples)

    async def ask() -> list[Event]:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(Transcribe().event())
            await client.write_event(AudioStart(rate=rate, width=width, channels=channels).event())
            step = width * channels * (rate // 10)
            for i in range(0, len(audio), step):
                await client.write_event(WyAudioChunk(rate=rate, width=width, channels=channels,
                                                      audio=audio[i:i + step]).event())
            await client.write_event(AudioStop().event())
            return await until(client, "transcript")

    assert run(ask)[-1].type == "transcript"
    heard = hub.asr.recognized[-1]
    assert (heard.rate, heard.width, heard.channels) == (16000, 2, 1)
    assert 0.9 <= heard.duration_s <= 1.0
    loudest = max(abs(s) for s in struct.unpack(f"<{heard.frames}h", heard.samples))
    assert loudest > 0.3 * 32768 * peak / {1: 128, 2: 32768, 4: 1 << 31}[width]  # a tone, not silence


@pytest.mark.parametrize("rate", [16000, 48000])
def test_audio_cut_at_odd_byte_counts_stays_aligned(hub: Hub, rate: int) -> None:
    """Home Assistant passes on HTTP chunks of any length: a sample may be cut in two between chunks."""
    ramp = struct.pack(f"<{rate // 2}h", *(((i * 37) % 20000) - 10000 for i in range(rate // 2)))

    async def ask() -> None:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(AudioStart(rate=rate, width=2, channels=1).event())
            cuts = [0]
            while cuts[-1] < len(ramp):
                cuts.append(min(len(ramp), cuts[-1] + 1 + 2 * (len(cuts) % 7)))  # 1, 3, 5, ... bytes
            for a, b in itertools.pairwise(cuts):
                await client.write_event(WyAudioChunk(rate=rate, width=2, channels=1, audio=ramp[a:b]).event())
            await client.write_event(AudioStop().event())
            await until(client, "transcript")

    run(ask)
    heard = hub.asr.recognized[-1]
    if rate == 16000:
        assert heard.samples == ramp  # every byte, in its place
    else:
        assert abs(heard.duration_s - 0.5) < 0.01  # the resampler's tail included


def test_a_failed_transcription_is_an_error_then_an_empty_transcript(hub: Hub) -> None:
    hub.asr.fail_start = True

    async def ask() -> list[Event]:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(AudioStart(rate=16000, width=2, channels=1).event())
            await client.write_event(WyAudioChunk(rate=16000, width=2, channels=1, audio=b"\1\0" * 1600).event())
            await client.write_event(AudioStop().event())
            return await until(client, "transcript")

    events = run(ask)
    assert [e.type for e in events] == ["error", "transcript"] and Transcript.from_event(events[-1]).text == ""


# ---------------------------------------------------------------- synthesize


async def audio_of(client: AsyncTcpClient) -> tuple[list[Event], bytes]:
    events = await until(client, "audio-stop")
    assert events[0].type == "audio-start"
    return events, b"".join(WyAudioChunk.from_event(e).audio for e in events if e.type == "audio-chunk")


def test_synthesize_answers_with_the_voice_audio(hub: Hub) -> None:
    async def ask() -> tuple[list[Event], bytes]:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(Synthesize(text="Hello there.").event())
            return await audio_of(client)

    events, audio = run(ask)
    assert b"TTS:Hello there.#1" in audio and b"TTS:Hello there.#2" in audio
    start = AudioStart.from_event(events[0])
    assert (start.rate, start.width, start.channels) == (FakeTts.rate, 2, 1)
    assert all(WyAudioChunk.from_event(e).rate == FakeTts.rate for e in events if e.type == "audio-chunk")


def test_streamed_text_is_spoken_once_and_ends_with_synthesize_stopped(hub: Hub) -> None:
    async def ask() -> tuple[list[Event], bytes]:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(SynthesizeStart().event())
            for piece in ("The capital ", "of France ", "is Paris."):
                await client.write_event(SynthesizeChunk(text=piece).event())
            # Newer clients repeat the whole text for servers that do not stream; it is not spoken twice.
            await client.write_event(Synthesize(text="The capital of France is Paris.").event())
            await client.write_event(SynthesizeStop().event())
            events, audio = await audio_of(client)
            events += await until(client, "synthesize-stopped")
            return events, audio

    events, audio = run(ask)
    assert b"TTS:The capital of France is Paris.#1" in audio
    assert hub.tts.texts == ["The capital of France is Paris."]
    assert SynthesizeStopped.is_type(events[-1].type)


def test_a_failed_synthesis_is_an_error_and_the_connection_closes(hub: Hub) -> None:
    hub.tts.fail = True

    async def ask() -> list[str]:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(Synthesize(text="Hello.").event())
            seen = []
            while (event := await client.read_event()) is not None:
                seen.append(event.type)
            return seen

    seen = run(ask)
    assert "error" in seen and "audio-stop" not in seen
    assert run(lambda: describe(hub.port))[0].tts


# ---------------------------------------------------------------- handle


async def handle(port: int, text: str, conversation_id: str | None) -> list[Event]:
    async with AsyncTcpClient("127.0.0.1", port) as client:
        context = {"conversation_id": conversation_id} if conversation_id else None
        await client.write_event(Transcript(text=text, context=context).event())
        return await until(client, "handled", "not-handled")


def test_handle_answers_with_the_model_and_remembers_each_conversation(hub: Hub) -> None:
    async def talk() -> list[Handled]:
        replies = []
        for text, conversation in (("my name is Ann", "c1"), ("hello", "c2"), ("what is my name", "c1"),
                                   ("who am I", None)):
            replies.append(Handled.from_event((await handle(hub.port, text, conversation))[-1]))
        return replies

    ann, other, again, anonymous = run(talk)
    assert ann.text == "1: my name is Ann"
    assert other.text == "1: hello"
    assert again.text == "2: my name is Ann / what is my name"
    assert again.context == {"conversation_id": "c1"}
    assert anonymous.text == "1: who am I"


def test_an_empty_question_is_not_handled_without_asking_the_model(hub: Hub) -> None:
    events = run(lambda: handle(hub.port, "  ", "c1"))
    assert [e.type for e in events] == ["not-handled"] and hub.chat.questions == []


def test_stop_right_after_start_ends_the_thread() -> None:
    engines = Engines(asr=FakeAsr(), tts=FakeTts(), chat=FakeChat(), asr_name="f", voice_name="v", model_name="m")
    server = WyomingServices(WyomingConfig(services="tcp://127.0.0.1:0"), engines, MODEL_ONLY)
    server.start()
    server.stop(timeout=WAIT_S)
    assert server._thread is not None and not server._thread.is_alive()


def test_a_busy_model_is_an_error_event_and_the_port_keeps_serving(hub: Hub) -> None:
    hub.chat.busy_wait_s = 0.2
    with hub.chat._busy:  # the hub's own conversation holds the model
        events = run(lambda: handle(hub.port, "what is the capital of France", "c1"))
    assert events[0].type == "error" and Error.from_event(events[0]).code == "model-busy"
    assert NotHandled.from_event(events[-1]).text == REPLIES.busy
    assert Handled.from_event(run(lambda: handle(hub.port, "and now?", "c1"))[-1]).text == "1: and now?"


def test_unknown_events_are_ignored(hub: Hub) -> None:
    async def ask() -> list[Event]:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            for event in (Event("run-satellite"), Event("some-future-event", {"x": [1, 2]}, b"\0" * 100),
                          Event("pause-satellite"), Event("ping", {"text": "hi"}), Describe().event()):
                await client.write_event(event)
            return await until(client, "info")

    assert [e.type for e in run(ask)] == ["info"]


# ---------------------------------------------------------------- a bad peer


def raw(port: int, data: bytes, close: bool) -> bytes:
    """Send `data` on a plain socket; what the server sends back until it closes (or WAIT_S passes)."""
    got = b""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as sock:
        try:
            sock.sendall(data)
            if close:
                sock.shutdown(socket.SHUT_WR)
            while part := sock.recv(65536):
                got += part
        except ConnectionResetError:  # closed with our bytes unread: a reset, not a clean end
            pass
    return got


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_a_peer_that_breaks_the_protocol_loses_only_its_own_connection(hub: Hub, case: str) -> None:
    async def held_open() -> Info:
        async with AsyncTcpClient("127.0.0.1", hub.port) as witness:  # connected before and after
            data, close = BAD[case]
            got = await asyncio.to_thread(raw, hub.port, data, close)
            assert not got.startswith(b'{"type": "info"')
            await witness.write_event(Describe().event())
            return Info.from_event((await until(witness, "info"))[-1])

    assert run(held_open).handle
    assert run(lambda: describe(hub.port))[0].asr  # and a new peer is served too


def test_a_peer_that_stops_inside_an_event_is_closed_after_the_idle_timeout(hub: Hub) -> None:
    started = time.monotonic()
    got = raw(hub.port, header(type="synthesize", data_length=100) + b'{"te', close=False)
    assert got == b"" and 1.5 < time.monotonic() - started < WAIT_S  # idle_timeout_s is 2 s here
    assert run(lambda: describe(hub.port))[0].tts


def test_stop_closes_the_port_and_open_connections() -> None:
    engines = Engines(asr=FakeAsr(), tts=FakeTts(), chat=FakeChat(), asr_name="fake", voice_name="v", model_name="m")
    server = WyomingServices(WyomingConfig(services="tcp://127.0.0.1:0"), engines, MODEL_ONLY)
    server.start()
    assert server.listening.wait(WAIT_S)
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT_S)
    threads = threading.active_count()
    server.stop()
    assert sock.recv(10) == b""  # the open connection was closed
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()
    assert threading.active_count() <= threads
    sock.close()


def test_a_port_in_use_is_retried_without_stopping_anything(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        engines = Engines(asr=FakeAsr(), tts=FakeTts(), chat=FakeChat(), asr_name="f", voice_name="v", model_name="m")
        server = WyomingServices(WyomingConfig(services=f"tcp://127.0.0.1:{port}"), engines, MODEL_ONLY)
        server.start()
        deadline = time.monotonic() + WAIT_S
        while "cannot listen" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.01)
        assert f"Wyoming services cannot listen on tcp://127.0.0.1:{port}" in caplog.text
        assert not server.listening.is_set()
        server.stop()


def test_connections_over_the_limit_are_closed_and_served_again_once_one_ends() -> None:
    engines = Engines(asr=FakeAsr(), tts=FakeTts(), chat=FakeChat(), asr_name="f", voice_name="v", model_name="m")
    server = WyomingServices(WyomingConfig(services="tcp://127.0.0.1:0", max_connections=1), engines, MODEL_ONLY)
    server.start()
    try:
        assert server.listening.wait(WAIT_S)
        first = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT_S)
        first.sendall(header(type="ping-unknown"))  # served: its handler is running
        time.sleep(0.2)
        assert raw(server.port, header(type="describe"), close=False) == b""  # one too many: closed
        first.close()
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                assert run(lambda: describe(server.port))[0].asr
                break
            except AssertionError:  # the first connection's end may not have been seen yet
                assert time.monotonic() < deadline
                time.sleep(0.05)
    finally:
        server.stop()


def test_zeroconf_without_its_package_is_one_warning_and_the_port_still_serves(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "zeroconf", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "zeroconf.asyncio", None)
    engines = Engines(asr=FakeAsr(), tts=FakeTts(), chat=FakeChat(), asr_name="f", voice_name="v", model_name="m")
    server = WyomingServices(WyomingConfig(services="tcp://127.0.0.1:0", zeroconf=True), engines, MODEL_ONLY)
    server.start()
    try:
        assert server.listening.wait(WAIT_S)
        assert run(lambda: describe(server.port))[0].asr
    finally:
        server.stop()
    warnings = [r.getMessage() for r in caplog.records if "zeroconf" in r.getMessage()]
    assert len(warnings) == 1 and "pip install zeroconf" in warnings[0]
