"""assembly.py: one frozen Stages from the Config, with the skills' timers, the earcons and the splitter."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from appliance import assembly
from appliance.config import Config
from appliance.contracts import Stages
from appliance.hearing import asr, wake
from appliance.speaking.earcons import ToneEarcons
from appliance.speaking.sentences import SentenceSplitter
from appliance.thinking.skills import LocalSkills
from tests.fixtures.fakes import FakeAsr, FakeChat, FakeSink, FakeSource, FakeTts, FakeWake


class Events:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    def event(self, name: str, message: str = "", traceback: str | None = None, **fields: object) -> None:
        self.sent.append((name, fields))


class LoadableAsr(FakeAsr):
    def load(self) -> LoadableAsr:
        return self


class LoadableWake(FakeWake):
    def __init__(self, cfg: Config) -> None:
        super().__init__()

    def load(self) -> LoadableWake:
        return self


@pytest.fixture()
def no_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asr, "make_recognizer", lambda cfg: LoadableAsr())
    monkeypatch.setattr(wake, "WakeWord", LoadableWake)
    monkeypatch.setattr(assembly, "load_chat", lambda cfg: FakeChat())
    monkeypatch.setattr(assembly, "load_voice", lambda cfg: FakeTts())


def config(tmp_path: Path, skills: bool = True) -> Config:
    base = Config()
    return dataclasses.replace(base, service=dataclasses.replace(base.service, state_dir=str(tmp_path)),
                               skills=dataclasses.replace(base.skills, enabled=skills))


def test_every_stage_in_one_frozen_object(no_models: None, tmp_path: Path) -> None:
    events, sink, source = Events(), FakeSink(), FakeSource()
    stages = assembly.build_stages(config(tmp_path), events, source=source, sink=sink)
    assert isinstance(stages, Stages)
    assert stages.source is source and stages.sink is sink
    assert isinstance(stages.skills, LocalSkills) and stages.timers is stages.skills.timers
    assert isinstance(stages.earcons, ToneEarcons) and stages.earcons.rate == FakeTts.rate
    assert isinstance(stages.splitter_factory(), SentenceSplitter)
    with pytest.raises(dataclasses.FrozenInstanceError):
        stages.chat = FakeChat()  # type: ignore[misc]
    ((name, fields),) = events.sent
    assert name == "models_loaded" and fields["asr_engine"] == "fake"
    assert {"wake_load_ms", "asr_load_ms", "llm_load_ms", "tts_load_ms"} <= set(fields)


def test_without_microphone_or_skills(no_models: None, tmp_path: Path) -> None:
    stages = assembly.build_stages(config(tmp_path, skills=False), sink=FakeSink(), mic=False)
    assert stages.skills is None and stages.timers is None
    assert isinstance(stages.source, assembly.NoSource) and stages.source.read(0.0) is None
    recording = FakeSource()
    assert stages.with_source(recording).source is recording and stages.source is not recording
