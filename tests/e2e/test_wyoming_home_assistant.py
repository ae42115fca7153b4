"""A real Home Assistant 2025.4.4 (wyoming 1.5.4) adds the hub's Wyoming services port and uses its engines.

The port runs in this process on the small real models (Whisper tiny.en, Piper joe, SmolLM2); Home
Assistant adds it through its own config flow (host and port), as its owner would in the UI, then
its conversation API answers with the hub's model and its speech-to-text API hears with the hub's
recognizer, and an Assist pipeline of its own runs from the spoken question to the spoken answer on the
hub's recognizer, model and voice.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from appliance.audio import AudioChunk, read_wav
from appliance.config import Config, WyomingConfig
from appliance.conversation.policy import Policy
from appliance.hearing.asr import WhisperRecognizer, choose_engine
from appliance.links.wyoming_info import Engines
from appliance.links.wyoming_services import WyomingServices
from tests.fixtures.home_assistant import INSTALL_WAIT_S, HomeAssistantServer
from tests.fixtures.speech import heard_name, word_errors, words
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S, wait_for

pytestmark = pytest.mark.timeout(INSTALL_WAIT_S + 2 * LOAD_WAIT_S)

HA_WYOMING: str = "wyoming==1.5.4"  # what Home Assistant 2025.4.4's wyoming integration pins


def request(ha: HomeAssistantServer, path: str, body: dict[str, Any] | bytes | None = None,
            headers: dict[str, str] | None = None) -> Any:
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    req = urllib.request.Request(ha.url + path, data=data, method="GET" if body is None else "POST",
                                 headers={"Authorization": f"Bearer {ha.token}", "Content-Type": "application/json",
                                          **(headers or {})})
    with urllib.request.urlopen(req, timeout=SLOW_WAIT_S) as response:
        return json.loads(response.read() or b"null")


@pytest.fixture(scope="module")
def port(piper, llm_chat) -> Iterator[WyomingServices]:
    cfg = dataclasses.replace(Config(), asr=dataclasses.replace(Config().asr, engine="whisper"))
    _engine, path = choose_engine(cfg)
    engines = Engines(asr=WhisperRecognizer(cfg, path).load(), tts=piper, chat=llm_chat, asr_name="whisper",
                      voice_name="en_US-joe-medium", model_name="SmolLM2-135M-Instruct")
    server = WyomingServices(WyomingConfig(services="tcp://127.0.0.1:0"), engines, Policy(None, None))
    server.start()
    assert server.listening.wait(SLOW_WAIT_S)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def entities(home_assistant: HomeAssistantServer, port: WyomingServices) -> dict[str, str]:
    """Home Assistant's entities for the port, by domain, once its config flow has added it."""
    python = home_assistant.venv / "bin/python"
    found = subprocess.run([str(python), "-c", "import wyoming"], capture_output=True, check=False)
    if found.returncode != 0:  # the test runs Home Assistant with --skip-pip: put its pinned wyoming there
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", HA_WYOMING], check=True, timeout=LOAD_WAIT_S)
    flow = request(home_assistant, "/api/config/config_entries/flow", {"handler": "wyoming"})
    assert flow.get("type") == "form", flow
    done = request(home_assistant, f"/api/config/config_entries/flow/{flow['flow_id']}",
                   {"host": "127.0.0.1", "port": port.port})
    assert done.get("type") == "create_entry", done
    wanted: dict[str, str] = {}

    def listed() -> bool:
        for state in request(home_assistant, "/api/states"):
            domain, _, name = state["entity_id"].partition(".")
            if domain in ("stt", "tts", "conversation") and name.startswith("appliance"):
                wanted[domain] = state["entity_id"]
        return len(wanted) == 3

    wait_for(listed, "Home Assistant's stt, tts and conversation entities of the port", SLOW_WAIT_S)
    return wanted


def test_home_assistant_adds_the_port_as_speech_voice_and_conversation_agent(entities: dict[str, str]) -> None:
    assert set(entities) == {"stt", "tts", "conversation"}


def test_home_assistant_conversation_through_the_hub_model_answers_paris(
        home_assistant: HomeAssistantServer, entities: dict[str, str]) -> None:
    reply = request(home_assistant, "/api/conversation/process",
                    {"text": "What is the capital of France?", "language": "en", "agent_id": entities["conversation"]})
    speech = reply["response"]["speech"]["plain"]["speech"]
    assert "paris" in words(speech), reply


def test_home_assistant_speech_to_text_through_the_hub_recognizer(
        home_assistant: HomeAssistantServer, entities: dict[str, str], speech) -> None:
    question = "turn on the kitchen light"
    audio = read_wav(speech.join([0.3, speech(question, variation=0.0), 0.5]))
    reply = request(home_assistant, f"/api/stt/{entities['stt']}", audio.samples, headers={
        "Content-Type": "application/octet-stream",
        "X-Speech-Content": "format=wav; codec=pcm; sample_rate=16000; bit_rate=16; channel=1; language=en"})
    assert reply["result"] == "success", reply
    edits, _total = word_errors(question, reply["text"])
    assert edits <= 1, reply


def decode_mp3(data: bytes) -> AudioChunk:
    """Home Assistant's spoken answer (MP3, as its TTS proxy serves it) as 16 kHz mono audio, with ffmpeg."""
    ffmpeg = shutil.which("ffmpeg")
    assert ffmpeg, "ffmpeg is missing: Home Assistant converts speech with it (scripts/install.sh --dev installs it)"
    done = subprocess.run([ffmpeg, "-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-f", "s16le", "-ac", "1",
                           "-ar", "16000", "pipe:1"], input=data, capture_output=True, timeout=SLOW_WAIT_S, check=True)
    return AudioChunk(done.stdout, 16000)


def test_an_assist_pipeline_on_the_hubs_engines_answers_a_spoken_question_aloud(
        home_assistant: HomeAssistantServer, entities: dict[str, str], speech, transcribe, tmp_path) -> None:  # noqa: ANN001
    """Home Assistant's own Assist pipeline, as a voice device runs it: the hub hears the question, its
    model answers, its voice speaks the answer, and Home Assistant serves that speech."""
    pipeline = {"name": "Appliance", "language": "en", "conversation_engine": entities["conversation"],
                "conversation_language": "en", "stt_engine": entities["stt"], "stt_language": "en",
                "tts_engine": entities["tts"], "tts_language": "en", "tts_voice": None,
                "wake_word_entity": None, "wake_word_id": None}
    question = read_wav(speech.join([0.3, speech("what is the capital of France?", variation=0.0), 1.0]))
    events, spoken = home_assistant.assist(pipeline, question.samples, tmp_path)
    by_type = {e.get("type"): e.get("data") or {} for e in events}
    assert "error" not in by_type, by_type.get("error")
    assert "capital of france" in by_type["stt-end"]["stt_output"]["text"].lower(), by_type["stt-end"]
    said = by_type["intent-end"]["intent_output"]["response"]["speech"]["plain"]["speech"]
    assert "paris" in words(said), said
    heard = transcribe(decode_mp3(spoken))  # the hub's voice, the `piper` fixture's: its variation off
    assert heard_name(heard, "paris"), (said, heard)
