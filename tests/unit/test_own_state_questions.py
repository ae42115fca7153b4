"""A question about the owner's own alarms, reminders and timers is answered from what the hub keeps, never
with a question back and never by the model; a question about alarms, reminders or timers in general (how
they work, which app) is the model's."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from appliance.commands.ask import Asker
from appliance.config import Config
from tests.unit.test_ask import FakeChat


def asker(state: Path) -> tuple[Asker, FakeChat]:
    cfg = Config()
    chat = FakeChat("An answer of the model.")
    return Asker(dataclasses.replace(cfg, service=dataclasses.replace(cfg.service, state_dir=str(state))),
                 chat_factory=lambda: chat), chat


def ask(who: Asker, question: str) -> dict:
    return json.loads(who.ask(question, lambda d: None).json())


@pytest.mark.parametrize(("question", "intent"), [
    ("Is my alarm on for tomorrow?", "alarm_list"), ("When's my next alarm?", "alarm_list"),
    ("what time is my alarm", "alarm_list"), ("Have I got an alarm on Saturday?", "alarm_list"),
    ("What have I asked you to remind me about?", "reminder_list"), ("Did I ask you to remind me of anything?",
                                                                       "reminder_list"),
    ("Is there a timer on?", "timer_left"), ("is the timer still going", "timer_left"),
])
def test_a_question_about_its_own_is_answered_from_the_state_folder(tmp_path: Path, question: str,
                                                                   intent: str) -> None:
    who, chat = asker(tmp_path)
    ask(who, "set an alarm for 6:45 tomorrow")
    ask(who, "remind me to call the plumber at 5 pm")
    ask(who, "set a pasta timer for 10 minutes")
    record = ask(who, question)
    assert (record["route"], record["intent"]) == ("skill", intent), record
    assert chat.questions == []  # never the model's guess


def test_with_nothing_kept_it_says_so(tmp_path: Path) -> None:
    who, chat = asker(tmp_path)
    said = [ask(who, q)["answer"] for q in ("Is my alarm on for tomorrow?", "What have I asked you to remind me about?")]
    assert said == ["You don't have any alarms.", "You don't have any reminders."] and chat.questions == []


@pytest.mark.parametrize("question", [
    "How do I set an alarm on my phone?", "What's a good alarm tone?", "Is it bad to snooze an alarm?",
    "What's a good timer for boiled eggs?", "How does a kitchen timer work?", "Why do we have reminders in calendars?",
    "Which alarm clock app is best?",
])
def test_a_question_about_them_in_general_is_the_models(tmp_path: Path, question: str) -> None:
    who, chat = asker(tmp_path)
    record = ask(who, question)
    assert record["route"] == "llm" and chat.questions == [question], record
