"""The contracts are complete: every real stage and every shared fake has each member its Protocol declares."""

from __future__ import annotations

import inspect
import re

import pytest

from appliance import assembly, contracts
from appliance.audio import mic, playback, speaker
from appliance.conversation import gate, replay, rooms
from appliance.hearing import asr, utterance, wake
from appliance.links import wyoming_caller, wyoming_satellites, wyoming_services
from appliance.service import Journal
from appliance.speaking import earcons, sentences, tts
from appliance.thinking import llm, llm_session, skills, timers
from tests.fixtures import fakes


def members(proto: type) -> set[str]:
    """What a Protocol declares: its methods and properties, and its annotated attributes."""
    declared = {name for name, value in vars(proto).items()
                if not name.startswith("_") and (callable(value) or isinstance(value, property))}
    return declared | {name for name in vars(proto).get("__annotations__", {}) if not name.startswith("_")}


def source_of(cls: type) -> str:
    return "".join(inspect.getsource(c) for c in cls.__mro__ if c.__module__.startswith("appliance"))


def assigned(name: str, text: str) -> bool:
    """Whether the class body sets `self.name` (an attribute made in __init__)."""
    return re.search(rf"self\.{name}\b(: [^=]+)? =", text) is not None


def accepts(cls: type, proto: type) -> list[str]:
    """The Protocol's methods that `cls` cannot be called like: fewer parameters, or a named option missing."""
    wrong = []
    for name in members(proto):
        declared, real = getattr(proto, name, None), getattr(cls, name, None)
        if not (inspect.isfunction(declared) and inspect.isfunction(real)):
            continue
        want, have = inspect.signature(declared).parameters, inspect.signature(real).parameters
        options = {n for n, p in want.items() if p.default is not p.empty}  # called by name
        if len(have) < len(want) or not options <= set(have):
            wrong.append(name)
    return wrong


REAL = [
    (contracts.Source, [mic.MicSource, mic.WavSource, replay.ReplaySource, assembly.NoSource]),
    (contracts.Sink, [speaker.SpeakerSink, playback.WavSink, gate.Gate]),
    (contracts.WakeDetector, [wake.WakeWord]),
    (contracts.Utterance, [utterance.EngineUtterance]),  # made only by the recognizers
    (contracts.Recognizer, [asr.VoskRecognizer, asr.WhisperRecognizer]),
    (contracts.Skills, [skills.LocalSkills]),
    (contracts.Chat, [llm.LlamaChat, llm_session.ChatSession]),
    (contracts.Synthesizer, [tts.PiperSynthesizer]),
    (contracts.Splitter, [sentences.SentenceSplitter]),
    (contracts.Earcons, [earcons.ToneEarcons]),
    (contracts.Rings, [timers.Timers]),
    (contracts.Announcement, [timers.TimerAnnouncement]),
    (contracts.EventLog, [Journal]),
    (contracts.Link, [wyoming_services.WyomingServices, wyoming_satellites.WyomingSatellites]),
    (contracts.Source, [wyoming_caller.SatelliteAudio]),
    (contracts.Sink, [wyoming_caller.SatelliteSpeaker]),
    (contracts.Caller, [wyoming_caller.RemoteCaller]),
    (contracts.Callers, [rooms.Rooms]),
]


@pytest.mark.parametrize(("proto", "classes"), REAL, ids=[p.__name__ for p, _ in REAL])
def test_real_stages_have_every_member(proto: type, classes: list[type]) -> None:
    wanted = members(proto)
    assert wanted, proto
    for cls in classes:
        text = source_of(cls)
        missing = [name for name in wanted if not hasattr(cls, name) and not assigned(name, text)
                   and name not in getattr(cls, "__dataclass_fields__", {})]
        assert not missing, f"{cls.__name__} lacks {missing} of {proto.__name__}"
        assert not accepts(cls, proto), f"{cls.__name__}: {accepts(cls, proto)} differ from {proto.__name__}"


def test_shared_fakes_satisfy_the_protocols() -> None:
    asr_fake = fakes.FakeAsr()
    pairs = [
        (contracts.Source, fakes.FakeSource()), (contracts.Sink, fakes.FakeSink()),
        (contracts.WakeDetector, fakes.FakeWake()), (contracts.Recognizer, asr_fake),
        (contracts.Utterance, asr_fake.start([])), (contracts.Skills, fakes.FakeSkills()),
        (contracts.Chat, fakes.FakeChat()), (contracts.Chat, fakes.FakeChat().session()),
        (contracts.Synthesizer, fakes.FakeTts()),
        (contracts.Splitter, fakes.FakeSplitter()), (contracts.Earcons, fakes.FakeEarcons()),
        (contracts.Rings, fakes.FakeTimers()), (contracts.Announcement, fakes.FakeAnnouncement("ding")),
    ]
    for proto, fake in pairs:
        assert isinstance(fake, proto), f"{type(fake).__name__} is not a {proto.__name__}"
        assert not accepts(type(fake), proto), f"{type(fake).__name__}: {accepts(type(fake), proto)}"
