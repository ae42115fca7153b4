"""An emergency said to the hub gets one sentence at once, before any skill, Home Assistant or the model:
the hub cannot call, so call the emergency number (conversation.emergency_number) from a phone now; the
journal marks it at WARNING, without the words. A question about an emergency stays the model's."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from pathlib import Path

import pytest

from appliance.commands.ask import Asker
from appliance.config import Config, ConfigError, loads
from appliance.contracts import SkillReply
from appliance.conversation.policy import AskHome, Policy, Say, Think
from appliance.thinking import honesty
from tests.fixtures.fakes import FakeChat, FakeHome, FakeSkills

EMERGENCIES = [
    "call an ambulance", "Call an ambulance!", "please call the police", "could you ring the fire brigade",
    "get the paramedics", "ring nine nine nine", "dial 911", "send help", "I need an ambulance", "ambulance, quick",
    "police!", "help, I've fallen", "help me, my husband has collapsed", "I've had a fall and I can't get up",
    "my dad's fallen down the stairs", "she's not breathing", "he's unconscious", "I can't breathe",
    "the baby is choking", "grandma has had a stroke", "I think I'm having a heart attack", "I'm badly hurt",
    "there's a fire", "there's a fire in the kitchen", "the chip pan is on fire", "the house is on fire", "fire!",
    "somebody help", "help help", "this is an emergency", "someone's breaking in", "there's an intruder",
]
LOOK_ALIKES = [
    "how do I call an ambulance in Spain", "what number do I ring for the police", "why do ambulances have sirens",
    "what does a paramedic do", "is there a fire drill at school today", "there's a fire in the fireplace",
    "light the fire", "I've fallen behind with the washing", "I fell asleep on the sofa", "I've fallen in love",
    "call mum", "ring the dentist", "help me set a timer", "help", "get help with my homework",
    "the team is on fire this season", "I'm hurt you forgot my birthday", "I can't move my appointment",
    "add fire lighters to the shopping list", "set a timer for the fire", "who invented the ambulance",
    "what is 999 in roman numerals", "how long does an ambulance take to come", "tell me about the fire of London",
]


@pytest.mark.parametrize("said", EMERGENCIES)
def test_an_emergency_gets_the_number_to_call_from_a_phone(said: str) -> None:
    reply = honesty.emergency(said, "999")
    assert reply == SkillReply("I can't make calls, so call 999 from a phone now.", "emergency", data={"number": "999"})


@pytest.mark.parametrize("said", LOOK_ALIKES)
def test_what_only_sounds_like_one_is_not(said: str) -> None:
    assert honesty.emergency(said, "112") is None


def test_it_comes_before_every_skill_home_assistant_and_the_model(caplog: pytest.LogCaptureFixture) -> None:
    skills, home = FakeSkills(), FakeHome()
    with caplog.at_level(logging.INFO):
        step = Policy(skills, home, emergency_number="000").begin("help, my wife has collapsed", room="lounge")
    assert step == Say(SkillReply("I can't make calls, so call 000 from a phone now.", "emergency",
                                  data={"number": "000"}), "skill")
    assert skills.rooms == [] and home.texts == []  # nothing else was asked first
    (record,) = [r for r in caplog.records if "emergency" in r.getMessage()]
    assert record.levelno == logging.WARNING and "in lounge" in record.getMessage()
    assert "collapsed" not in record.getMessage() and "wife" not in record.getMessage()
    # and a question about one goes its usual way
    assert isinstance(Policy(skills, home).begin("how do I call an ambulance in Spain"), AskHome)
    assert Policy(None, None).begin("why do ambulances have sirens") == Think("why do ambulances have sirens")


def test_asked_through_home_assistant_the_model_is_not_asked() -> None:
    chat = FakeChat()
    reply = Policy(None, None, emergency_number="911").handle("there's a fire", chat, threading.Event())
    assert reply.text == "I can't make calls, so call 911 from a phone now." and reply.handled
    assert chat.questions == []


def test_the_number_is_a_setting_and_a_bad_one_is_named() -> None:
    assert loads("conversation:\n  emergency_number: \"999\"\n").conversation.emergency_number == "999"
    assert Config().conversation.emergency_number == "112"
    with pytest.raises(ConfigError) as bad:
        loads("conversation:\n  emergency_number: \"nine nine nine\"\n")
    assert "conversation.emergency_number" in str(bad.value) and "in digits" in str(bad.value)


def test_appliance_ask_says_it_at_once_without_the_model(tmp_path: Path) -> None:
    cfg = Config()
    cfg = dataclasses.replace(cfg, service=dataclasses.replace(cfg.service, state_dir=str(tmp_path)),
                              conversation=dataclasses.replace(cfg.conversation, emergency_number="999"))

    def no_model() -> None:
        raise AssertionError("the model was loaded for an emergency")

    record = json.loads(Asker(cfg, chat_factory=no_model).ask("call an ambulance", lambda d: None).json())
    assert (record["route"], record["intent"]) == ("skill", "emergency")
    assert record["answer"] == "I can't make calls, so call 999 from a phone now."
