"""What the Wyoming services port offers (the engines and their names) and how it describes them in `info`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from wyoming.info import (
    AsrModel,
    AsrProgram,
    Attribution,
    HandleModel,
    HandleProgram,
    Info,
    TtsProgram,
    TtsVoice,
)

from appliance import __version__
from appliance.contracts import Chat, Recognizer, Synthesizer

_ATTRIBUTION: Final = Attribution(name="appliance", url="")


@dataclass(frozen=True)
class Engines:
    """What the services port offers, and the names it gives them."""

    asr: Recognizer
    tts: Synthesizer
    chat: Chat
    asr_name: str
    """The recognizer's name, e.g. 'whisper' or 'vosk'."""
    voice_name: str
    """The Piper voice's name, e.g. 'en_US-joe-medium'."""
    model_name: str
    """The language model's file name."""


def describe(name: str, engines: Engines, language: str) -> Info:
    """The `info` answer: speech recognition, a voice (with streaming text) and a conversation agent, in
    the hub's language (its language pack's code, as Home Assistant keys its sentences)."""
    languages = [language]

    def artifact(**extra: Any) -> dict[str, Any]:
        return {"attribution": _ATTRIBUTION, "installed": True, "version": __version__, **extra}

    return Info(
        asr=[AsrProgram(name=f"{name} {engines.asr_name}", description=f"Speech recognition ({engines.asr_name})",
                        models=[AsrModel(name=engines.asr_name, description=engines.asr_name,
                                         languages=languages, **artifact())], **artifact())],
        tts=[TtsProgram(name=f"{name} piper", description="Piper voice",
                        voices=[TtsVoice(name=engines.voice_name, description=engines.voice_name,
                                         languages=languages, **artifact())],
                        supports_synthesize_streaming=True, **artifact())],
        handle=[HandleProgram(name=f"{name} assistant", description="The hub's local language model",
                              models=[HandleModel(name=engines.model_name, description=engines.model_name,
                                                  languages=languages, **artifact())], **artifact())],
    )
