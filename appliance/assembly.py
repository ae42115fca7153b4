"""Builds every stage from the Config into one frozen Stages: the one place that loads the models."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from appliance.audio import AudioChunk
from appliance.config import Config
from appliance.contracts import (
    AnswerStats,
    EventLog,
    Home,
    Link,
    Recognizer,
    Sink,
    Source,
    Splitter,
    Stages,
    StopDetector,
    WakeDetector,
)
from appliance.language import pack

if TYPE_CHECKING:
    from appliance.audio.echo import EchoCanceller
    from appliance.audio.volume import Volume
    from appliance.speaking.tts import PiperSynthesizer
    from appliance.thinking.llm import LlamaChat
    from appliance.thinking.skills import LocalSkills

_LOGGER = logging.getLogger(__name__)

_T = TypeVar("_T")


class NoSource:
    """The source of stages built without a microphone: hears nothing until replaced (Stages.with_source)."""

    frames_read = 0
    eof = True

    def read(self, timeout: float) -> AudioChunk | None:
        time.sleep(min(timeout, 0.01))
        return None

    def status(self) -> str:
        return "no microphone"

    def close(self) -> None:
        """Nothing was opened."""


def _timed(loads: dict[str, float], name: str, fn: Callable[[], _T]) -> _T:
    started = time.monotonic()
    value = fn()
    loads[name] = (time.monotonic() - started) * 1000.0
    return value


class NoAnswer:
    """The model and the voice of stages that only hear (`listen --hear-only`): never asked anything."""

    rate = 16000
    last_stats = AnswerStats()

    def stream(self, question: str, cancel: threading.Event) -> Iterator[str]:
        raise RuntimeError("these stages only hear: nothing answers")

    def forget(self, question: str) -> bool:
        return False

    def session(self) -> NoAnswer:
        return self

    def synthesize(self, text: str) -> Iterator[AudioChunk]:
        raise RuntimeError("these stages only hear: nothing speaks")


def load_hearing(cfg: Config) -> tuple[WakeDetector, Recognizer]:
    """The wake word and the recognizer, loaded."""
    from appliance.hearing.asr import make_recognizer
    from appliance.hearing.wake import WakeWord

    recognizer = make_recognizer(cfg)  # chosen first: a missing model fails before anything loads
    return WakeWord(cfg).load(), recognizer.load()


def hearing_stages(cfg: Config) -> Stages:
    """Stages that hear and answer nothing (`listen --hear-only`): no model, no voice, no speaker."""
    from appliance.audio.playback import NullSink

    wake, recognizer = load_hearing(cfg)
    return Stages(source=NoSource(), sink=NullSink(), wake=wake, asr=recognizer, chat=NoAnswer(),
                  tts=NoAnswer(), splitter_factory=splitter_factory(cfg))


def load_stop_words(cfg: Config, asr: Recognizer, echo: EchoCanceller | None = None) -> StopDetector | None:
    """A plain "stop" while the hub speaks or rings (wake.stop_words), heard with the recognizer; else None.
    `echo` is the microphone's canceller: it tells the detector when the hub's voice passes it uncancelled."""
    if not cfg.wake.stop_words:
        return None
    from appliance.hearing.stop_words import StopWords

    return StopWords(cfg, asr, echo=echo).load()


def load_chat(cfg: Config) -> LlamaChat:
    """The language model with its system prompt cached."""
    from appliance.thinking.llm import LlamaChat

    return LlamaChat.from_config(cfg)


def load_skills(cfg: Config) -> LocalSkills | None:
    """The local skills, their timers kept in service.state_dir; None when skills.enabled is off (none
    are loaded, so no timer rings; policy.Policy then asks none)."""
    if not cfg.skills.enabled:
        return None
    from appliance.thinking import skills

    return skills.build(cfg)


def load_intents(cfg: Config) -> None:
    """Home Assistant's sentences in cfg.language, compiled now rather than in the first question's turn."""
    from appliance.language import pack
    from appliance.thinking.intents import understanding

    understanding(pack(cfg.language))


def load_voice(cfg: Config) -> PiperSynthesizer:
    """Piper with the configured voice (it speaks text as given: the answer path cleans it, responder.py)."""
    from appliance.speaking.tts import PiperSynthesizer

    return PiperSynthesizer.from_config(cfg)


def load_home(cfg: Config) -> Home | None:
    """The owner's Home Assistant when home_assistant.enabled (its token read now), else None."""
    if not cfg.home_assistant.enabled:
        return None
    from appliance.thinking.home_assistant import HomeAssistant

    return HomeAssistant(cfg.home_assistant)


def build_links(cfg: Config, stages: Stages, on_turn: Callable[..., None] | None = None,
                on_event: Callable[..., None] | None = None) -> list[Link]:
    """The network peers the daemon serves with its stages: the Wyoming services port when
    wyoming.services is set, the satellites of wyoming.satellites (nothing listens or connects
    otherwise). A satellite's turns go to `on_turn` and its errors to `on_event` (the journal)."""
    links: list[Link] = []
    if cfg.wyoming.services:
        from appliance.conversation.policy import Policy
        from appliance.links.wyoming_info import Engines
        from appliance.links.wyoming_services import WyomingServices

        engines = Engines(asr=stages.asr, tts=stages.tts, chat=stages.chat, asr_name=stages.asr.name,
                          voice_name=_model_name("voice", cfg), model_name=_model_name("llm", cfg))
        policy = Policy.configured(cfg, stages.skills, stages.home)
        links.append(WyomingServices(cfg.wyoming, engines, policy, idle_reset_s=cfg.conversation.idle_reset_s,
                                     words=pack(cfg.language)))
    if cfg.wyoming.satellites:
        from appliance.audio.volume import shared
        from appliance.conversation.rooms import Rooms
        from appliance.links.wyoming_satellites import WyomingSatellites

        state_dir = Path(cfg.service.state_dir)
        links.append(WyomingSatellites(cfg.wyoming, Rooms(stages, cfg, on_turn=on_turn, on_event=on_event),
                                       volume_of=lambda room: shared(state_dir, room)))
    return links


def _model_name(kind: Literal["voice", "llm"], cfg: Config) -> str:
    """The model file's name without its suffix (en_US-joe-medium), or the kind when it is not found."""
    from appliance.setup import models

    found = models.find(kind, cfg)
    return found.path.stem if found is not None else kind


def shared_volume(cfg: Config) -> Volume:
    """The hub's volume, kept in service.state_dir: the skills set it, the speaker plays at it."""
    from appliance.audio.volume import shared

    return shared(Path(cfg.service.state_dir))


def splitter_factory(cfg: Config) -> Callable[[], Splitter]:
    """New sentence splitters with the configured first-piece rules."""
    from appliance.speaking.sentences import SentenceSplitter

    conv = cfg.conversation
    words = pack(cfg.language).sentences
    return lambda: SentenceSplitter(conv.first_clause_min_words, conv.first_phrase_max_words, words)


def build_stages(cfg: Config, events: EventLog | None = None, *, source: Source | None = None,
                 sink: Sink | None = None, mic: bool = True) -> Stages:
    """Every stage the conductor needs, loaded once; model load times go to `events`.

    `source`/`sink` replace the microphone and the speaker (a WAV file for `appliance listen`);
    mic=False opens no microphone (the caller gives each recording with Stages.with_source).
    """
    from appliance.audio.echo import EchoCanceller
    from appliance.audio.echo_engines import ENGINES
    from appliance.audio.mic import MicSource
    from appliance.audio.speaker import SpeakerSink
    from appliance.hearing.asr import make_recognizer
    from appliance.hearing.wake import WakeWord
    from appliance.speaking.earcons import ToneEarcons

    loads: dict[str, float] = {}
    recognizer = make_recognizer(cfg)  # chosen first: a missing model fails before anything loads
    wake = _timed(loads, "wake", WakeWord(cfg).load)
    asr = _timed(loads, "asr", recognizer.load)
    chat = _timed(loads, "llm", lambda: load_chat(cfg))
    started = time.monotonic()
    tts = load_voice(cfg)
    echo = (EchoCanceller(cfg.audio.rate, cfg.audio.echo_tail_s, ENGINES[cfg.audio.echo_engine])
            if cfg.audio.echo_cancel and sink is None and source is None and mic else None)
    out = sink if sink is not None else SpeakerSink(cfg.audio, rate=tts.rate, volume=shared_volume(cfg),
                                                     events=events, echo=echo)
    loads["tts"] = (time.monotonic() - started) * 1000.0
    skills = load_skills(cfg)
    _timed(loads, "intents", lambda: load_intents(cfg))
    if source is None:
        source = MicSource(cfg.audio, events=events, echo=echo) if mic else NoSource()
    stages = Stages(source=source, sink=out, wake=wake, asr=asr, chat=chat, tts=tts,
                    splitter_factory=splitter_factory(cfg), skills=skills,
                    earcons=ToneEarcons(cfg, rate=tts.rate), timers=skills.timers if skills is not None else None,
                    home=load_home(cfg), stop=load_stop_words(cfg, asr, echo))
    summary = ", ".join(f"{k} {v:.0f} ms" for k, v in loads.items())
    _LOGGER.info("Models loaded: %s (speech recognition: %s)", summary, recognizer.name)
    if events is not None:
        events.event("models_loaded", f"Models loaded: {summary}", asr_engine=recognizer.name,
                     **{f"{k}_load_ms": f"{v:.0f}" for k, v in loads.items()})
    return stages
