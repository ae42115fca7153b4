"""The Wyoming services port on the small real models: Whisper tiny.en, Piper (joe) and SmolLM2, over loopback TCP."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

import pytest
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk as WyAudioChunk
from wyoming.audio import AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.handle import Handled
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize

from appliance.audio import AudioChunk, read_wav, resample
from appliance.config import Config, WyomingConfig
from appliance.conversation.policy import Policy
from appliance.hearing.asr import WhisperRecognizer, choose_engine
from appliance.links.wyoming_info import Engines
from appliance.links.wyoming_services import WyomingServices
from tests.fixtures.speech import spoken_as, word_errors, words
from tests.fixtures.waits import SLOW_WAIT_S

_T = TypeVar("_T")


@pytest.fixture(scope="module")
def hub(piper, llm_chat) -> Iterator[WyomingServices]:
    cfg = dataclasses.replace(Config(), asr=dataclasses.replace(Config().asr, engine="whisper"))
    _engine, path = choose_engine(cfg)
    whisper = WhisperRecognizer(cfg, path).load()
    engines = Engines(asr=whisper, tts=piper, chat=llm_chat, asr_name="whisper", voice_name="en_US-joe-medium",
                      model_name="SmolLM2-135M-Instruct")
    server = WyomingServices(WyomingConfig(services="tcp://127.0.0.1:0"), engines, Policy(None, None))
    server.start()
    assert server.listening.wait(SLOW_WAIT_S)
    yield server
    server.stop()


def run(coro: Callable[[], Awaitable[_T]]) -> _T:
    async def bounded() -> _T:
        async with asyncio.timeout(SLOW_WAIT_S):
            return await coro()
    return asyncio.run(bounded())


def test_describe_within_a_second_with_the_real_engines_loaded(hub: WyomingServices) -> None:
    async def ask() -> tuple[Info, float]:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            started = time.monotonic()
            await client.write_event(Describe().event())
            while (event := await client.read_event()) is not None and event.type != "info":
                pass
            assert event is not None
            return Info.from_event(event), time.monotonic() - started

    info, took_s = run(ask)
    print(f"\ndescribe -> info: {took_s * 1000:.1f} ms")
    assert took_s < 1.0 and info.asr and info.tts and info.handle and info.satellite is None


@pytest.mark.parametrize("rate", [16000, 44100])
def test_a_spoken_question_comes_back_as_its_transcript(hub: WyomingServices, speech, rate: int) -> None:
    question = "What is the capital of France?"
    audio = resample(read_wav(speech.join([0.3, speech(question), 0.5])), rate)
    step = audio.width * rate // 50  # 20 ms chunks, as Home Assistant sends them

    async def ask() -> str:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(Transcribe(language="en").event())
            await client.write_event(AudioStart(rate=rate, width=audio.width, channels=1).event())
            for i in range(0, len(audio.samples), step):
                await client.write_event(WyAudioChunk(rate=rate, width=audio.width, channels=1,
                                                      audio=audio.samples[i:i + step]).event())
            await client.write_event(AudioStop().event())
            while (event := await client.read_event()) is not None and event.type != "transcript":
                pass
            assert event is not None
            return Transcript.from_event(event).text

    text = run(ask)
    edits, total = word_errors(question, text)
    assert edits <= 1, (text, edits, total)


def test_handle_answers_the_capital_of_france_with_paris(hub: WyomingServices) -> None:
    async def ask() -> str:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(Transcript(text="What is the capital of France?",
                                                context={"conversation_id": "france"}).event())
            while (event := await client.read_event()) is not None and event.type not in ("handled", "not-handled"):
                pass
            assert event is not None and event.type == "handled"
            return Handled.from_event(event).text

    assert "paris" in words(run(ask))


def test_synthesized_speech_is_heard_back_by_whisper(hub: WyomingServices, transcribe) -> None:
    sentence = "The Moon orbits the Earth once a month."

    async def ask() -> AudioChunk:
        async with AsyncTcpClient("127.0.0.1", hub.port) as client:
            await client.write_event(Synthesize(text=sentence).event())
            chunks: list[WyAudioChunk] = []
            while (event := await client.read_event()) is not None and event.type != "audio-stop":
                if WyAudioChunk.is_type(event.type):
                    chunks.append(WyAudioChunk.from_event(event))
            assert event is not None and chunks
            first = chunks[0]
            return AudioChunk(b"".join(c.audio for c in chunks), first.rate, first.width, first.channels)

    audio = run(ask)
    assert audio.rate == 22050 and audio.duration_s > 1.0
    heard = transcribe(audio)  # the `piper` fixture's voice: its variation off
    assert spoken_as(sentence, heard), heard  # one letter in five heard wrong, as other spoken replies may
