"""Real wyoming-satellites (1.0.0) in other rooms, answered by the hub on the small real models: the hub
connects to each, hears the question after its wake word, and the satellite's speaker plays the answer.
Also with two rooms asking at once, with a satellite that loses power in the middle of its answer, and with a
real Home Assistant switching the light of the room the satellite is in."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable, Iterator

import pytest

from appliance import assembly
from appliance.audio import AudioChunk
from appliance.config import Config, SatelliteConfig, WyomingConfig
from appliance.contracts import Stages
from appliance.conversation.rooms import Rooms
from appliance.conversation.turn import TurnRecord
from appliance.hearing.asr import WhisperRecognizer, choose_engine
from appliance.hearing.wake import WakeWord
from appliance.links.wyoming_satellites import WyomingSatellites
from appliance.thinking.home_assistant import HomeAssistant
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import Timers
from tests.fixtures.fakes import FakeSink, FakeSource
from tests.fixtures.home_assistant import INSTALL_WAIT_S, HomeAssistantServer
from tests.fixtures.speech import heard_name, spoken_as, words
from tests.fixtures.waits import LOAD_WAIT_S, SLOW_WAIT_S, wait_for
from tests.fixtures.wyoming_satellite import SND_RATE, RealSatellite

_LOGGER = logging.getLogger(__name__)


@contextlib.contextmanager
def hub(satellites: list[RealSatellite], piper, llm_chat,  # noqa: ANN001
        home_assistant: HomeAssistantServer | None = None,
        timers: Timers | None = None) -> Iterator[tuple[WyomingSatellites, list[TurnRecord]]]:
    """The hub's satellite link and turns on Whisper, Piper and the model (and Home Assistant, and the
    skills with these timers, when given), connected to every satellite."""
    base = Config()
    cfg = dataclasses.replace(base, asr=dataclasses.replace(base.asr, engine="whisper"), wyoming=WyomingConfig(
        satellites=[SatelliteConfig(uri=s.uri, name=s.name, area=s.area) for s in satellites]))
    home = None
    if home_assistant is not None:
        cfg = dataclasses.replace(cfg, home_assistant=dataclasses.replace(
            cfg.home_assistant, enabled=True, url=home_assistant.url, token_file=str(home_assistant.token_file)))
        home = HomeAssistant(cfg.home_assistant)
    _engine, path = choose_engine(cfg)
    stages = Stages(source=FakeSource(), sink=FakeSink(), wake=WakeWord(cfg).load(),
                    asr=WhisperRecognizer(cfg, path).load(), chat=llm_chat, tts=piper,
                    splitter_factory=assembly.splitter_factory(cfg), home=home, timers=timers,
                    skills=None if timers is None else LocalSkills(cfg.skills, timers))
    turns: list[TurnRecord] = []
    link = WyomingSatellites(cfg.wyoming, Rooms(stages, cfg, on_turn=turns.append))
    link.start()
    try:
        for sat in satellites:
            assert link.connected[sat.name].wait(SLOW_WAIT_S), f"the hub did not connect to {sat.name}"
        yield link, turns
    finally:
        link.stop()


def assert_said_aloud(turn: TurnRecord | None, heard: str, word: str) -> None:
    """The turn's answer names `word`, and the satellite's speaker played that answer: Whisper hears the name
    in it and the rest of it close enough (the hub's voice has its variation off: the `piper` fixture)."""
    assert turn is not None and word in words(turn.answer), (turn and turn.answer, heard)
    assert heard_name(heard, word), (turn.answer, heard)
    assert spoken_as(turn.answer, heard), (turn.answer, heard)


def turn_of(turns: list[TurnRecord], name: str) -> Callable[[], TurnRecord | None]:
    return lambda: next((t for t in turns if t.source == name), None)


def test_a_real_satellite_hears_paris(real_satellite: RealSatellite, piper, llm_chat, transcribe) -> None:  # noqa: ANN001
    with hub([real_satellite], piper, llm_chat) as (_link, turns):
        real_satellite.speak()
        wait_for(lambda: turns, "the satellite's turn", LOAD_WAIT_S)
        (turn,) = turns
        assert turn.outcome == "answered", (turn.outcome, turn.error, turn.transcript)
        assert "capital of france" in turn.transcript.lower()
        heard = transcribe(AudioChunk(real_satellite.answer(), SND_RATE))
        timings = turn.timings_ms()
        _LOGGER.warning("satellite: heard %r; answered %r; end of speech to first audio %s ms, to transcript %s ms",
                        turn.transcript, heard, timings["speech_end_to_first_audio"],
                        timings["speech_end_to_transcript"])
        assert_said_aloud(turn, heard, "paris")
        assert turn.source == "kitchen" and turn.journal_fields()["SOURCE"] == "kitchen"


@pytest.mark.parametrize("vad", [False, True], ids=["streaming all the time", "streaming once it hears speech"])
def test_a_real_satellite_without_a_wake_word_of_its_own_is_woken_by_the_hubs_and_hears_paris(
        real_satellites, piper, llm_chat, transcribe, vad: bool) -> None:  # noqa: ANN001
    kitchen = real_satellites("what is the capital of France?", own_wake=False, vad=vad)
    with hub([kitchen], piper, llm_chat) as (_link, turns):
        kitchen.speak()
        wait_for(lambda: turns, "the satellite's turn", LOAD_WAIT_S)
        (turn,) = turns
        assert (turn.outcome, turn.wake_word) == ("answered", "hey_jarvis"), (turn.outcome, turn.error)
        assert "capital of france" in turn.transcript.lower(), turn.transcript
        assert_said_aloud(turn, transcribe(AudioChunk(kitchen.answer(), SND_RATE)), "paris")


def test_a_timer_set_at_a_real_satellite_rings_on_its_speaker(
        real_satellites, piper, llm_chat, transcribe, tmp_path) -> None:  # noqa: ANN001
    kitchen = real_satellites("set a timer for three seconds.")
    timers = Timers(tmp_path / "state")
    with hub([kitchen], piper, llm_chat, timers=timers) as (_link, turns):
        kitchen.speak()
        wait_for(lambda: turns, "the satellite's turn", LOAD_WAIT_S)
        assert (turns[0].outcome, turns[0].route) == ("answered", "skill")
        assert [t.room for t in timers.all()] == ["kitchen"]
        set_at = len(kitchen.answer(min_s=0.3))  # "Timer set for 3 seconds."
        wait_for(lambda: len(kitchen.played()) > set_at + SND_RATE, "the timer on the kitchen's speaker",
                 SLOW_WAIT_S)
        rang = transcribe(AudioChunk(kitchen.answer()[set_at:], SND_RATE))
        assert heard_name(rang, "timer is done"), rang


def test_two_real_satellites_asking_at_once_each_hear_their_own_answer(
        real_satellites, piper, llm_chat, transcribe) -> None:  # noqa: ANN001
    kitchen = real_satellites("what is the capital of France?", name="kitchen", area="Kitchen")
    bedroom = real_satellites("what is the capital of Japan?", name="bedroom", area="Bedroom")
    with hub([kitchen, bedroom], piper, llm_chat) as (_link, turns):
        kitchen.speak()
        bedroom.speak()
        wait_for(lambda: len(turns) == 2, "both satellites' turns", 2 * LOAD_WAIT_S)
        assert {t.source: t.outcome for t in turns} == {"kitchen": "answered", "bedroom": "answered"}, \
            [(t.source, t.outcome, t.error, t.transcript) for t in turns]
        in_kitchen = transcribe(AudioChunk(kitchen.answer(), SND_RATE))
        in_bedroom = transcribe(AudioChunk(bedroom.answer(), SND_RATE))
        assert_said_aloud(turn_of(turns, "kitchen")(), in_kitchen, "paris")
        assert_said_aloud(turn_of(turns, "bedroom")(), in_bedroom, "tokyo")
        assert not heard_name(in_kitchen, "tokyo"), in_kitchen  # each room heard its own answer only
        assert not heard_name(in_bedroom, "paris"), in_bedroom


def test_a_real_satellite_killed_mid_answer_leaves_the_hub_answering_the_others_and_is_served_again_once_back(
        real_satellites, piper, llm_chat, transcribe) -> None:  # noqa: ANN001
    kitchen = real_satellites("tell me a long story about the city of Paris.", name="kitchen", area="Kitchen")
    bedroom = real_satellites("what is the capital of Japan?", name="bedroom", area="Bedroom")
    with hub([kitchen, bedroom], piper, llm_chat) as (link, turns):
        kitchen.speak()
        wait_for(lambda: kitchen.played(), "the first of the kitchen's answer", LOAD_WAIT_S)
        kitchen.kill()
        wait_for(turn_of(turns, "kitchen"), "the kitchen's turn to be recorded", LOAD_WAIT_S)
        story = turn_of(turns, "kitchen")()
        assert story is not None and story.outcome == "cancelled", (story.outcome, story.error)
        wait_for(lambda: not link.connected["kitchen"].is_set(), "the hub to notice the kitchen is gone", SLOW_WAIT_S)

        bedroom.speak()  # the other room and the model are unaffected
        wait_for(turn_of(turns, "bedroom"), "the bedroom's turn", LOAD_WAIT_S)
        assert turn_of(turns, "bedroom")().outcome == "answered"
        assert_said_aloud(turn_of(turns, "bedroom")(), transcribe(AudioChunk(bedroom.answer(), SND_RATE)), "tokyo")

        back = real_satellites("what is the capital of France?", name="kitchen", area="Kitchen", port=kitchen.port)
        assert link.connected["kitchen"].wait(SLOW_WAIT_S), "the hub did not connect to the kitchen again"
        assert link.connections["kitchen"] == 2
        back.speak()
        wait_for(lambda: len(turns) == 3, "the kitchen's second turn", LOAD_WAIT_S)
        assert turns[-1].source == "kitchen" and turns[-1].outcome == "answered"
        assert_said_aloud(turns[-1], transcribe(AudioChunk(back.answer(), SND_RATE)), "paris")


@pytest.mark.timeout(INSTALL_WAIT_S + 2 * LOAD_WAIT_S)  # the first run on a machine installs Home Assistant
def test_turn_on_the_light_at_a_real_satellite_switches_the_light_of_its_room_in_home_assistant(
        real_satellites, piper, llm_chat, transcribe, home_assistant: HomeAssistantServer) -> None:  # noqa: ANN001
    for light in ("light.kitchen_light", "light.bedroom_light"):
        home_assistant.call("light", "turn_off", light)
    bedroom = real_satellites("turn on the light.", name="bedroom", area="Bedroom")
    with hub([bedroom], piper, llm_chat, home_assistant) as (_link, turns):
        bedroom.speak()
        wait_for(lambda: turns, "the bedroom's turn", LOAD_WAIT_S)
        (turn,) = turns
        assert (turn.outcome, turn.route) == ("answered", "home_assistant"), (turn.outcome, turn.route, turn.answer)
        assert home_assistant.state("light.bedroom_light") == "on"
        assert home_assistant.state("light.kitchen_light") == "off"
        heard = transcribe(AudioChunk(bedroom.answer(), SND_RATE))  # Home Assistant's "Turned on the lights"
        assert "turned on" in turn.answer.lower(), turn.answer
        assert spoken_as(turn.answer, heard), (turn.answer, heard)
