"""What a transcript asks for, read once (thinking/understood.py): real requests through the English pack,
and every reading counted along a whole turn of the policy, Home Assistant and the model's check."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from appliance.contracts import SkillReply
from appliance.conversation.claims import ClaimCheck
from appliance.conversation.policy import AskHome, Policy, Think
from appliance.conversation.responder import HomeAnswered
from appliance.language import LanguagePack, pack
from appliance.thinking import honesty
from appliance.thinking.intents import Understanding
from appliance.thinking.understood import (
    Answered,
    CannotDo,
    Emergency,
    ForHome,
    ForModel,
    NeverMind,
    Online,
    Unread,
    understand,
)
from tests.fixtures.fakes import FakeHome, FakeSkills

WORDS = pack("en")


def read(text: str, **context: Any) -> Any:
    return understand(text, WORDS, "112", **context)


def test_an_emergency_gets_the_number_to_call_and_nothing_else_is_asked() -> None:
    asked: list[str] = []
    found = read("Call an ambulance, I've fallen.", skills=lambda said: asked.append(said), own=True)
    assert isinstance(found, Emergency) and found.reply == honesty.emergency("Call an ambulance", "112", WORDS)
    assert "112" in found.reply.text and asked == []


def test_a_skills_answer_is_what_was_understood() -> None:
    found = read("what time is it", skills=lambda said: FakeSkills().match(said), own=True)
    assert found == Answered("what time is it", reply=SkillReply("It's 7:20 PM.", "time"))


def test_a_device_request_carries_home_assistants_intent_and_slots() -> None:
    found = read("Turn on the kitchen light.")
    assert isinstance(found, ForHome) and found.intent == "HassTurnOn"
    assert found.slots["area"] == "kitchen" and found.request


def test_a_device_request_only_the_packs_patterns_read_has_no_intent() -> None:
    found = read("Is the heating on?")
    assert isinstance(found, ForHome) and found.intent == "" and not found.slots


def test_the_weather_and_the_news_need_the_internet() -> None:
    weather, news = read("What's the weather like?"), read("What's the latest news?")
    assert isinstance(weather, Online) and weather.intent == "HassGetWeather"
    assert isinstance(news, Online) and news.intent == ""


def test_a_request_nothing_here_can_do_says_which_act_and_its_truth() -> None:
    found = read("Order more coffee pods.")
    assert isinstance(found, CannotDo) and found.act is not None and found.act.said == "I can't order or buy things."
    assert found.reply == honesty.cannot_do("Order more coffee pods.", WORDS)


def test_what_home_assistant_could_do_is_no_such_act_once_it_is_connected() -> None:
    found = read("Water the plants.")
    assert isinstance(found, CannotDo) and found.reply.intent == "no_home_assistant"
    assert not isinstance(read("Water the plants.", home=True), CannotDo)


def test_the_hubs_own_request_no_skill_read_is_unread_while_skills_are_on() -> None:
    found = read("What's the date today?", own=True)
    assert isinstance(found, Unread) and found.intent == "HassGetCurrentDate"
    assert found.reply == SkillReply(WORDS.replies.unread, "not_understood", data={"intent": "HassGetCurrentDate"})
    assert isinstance(read("What's the date today?"), ForModel)  # skills off: the model's


def test_never_mind_ends_the_turn() -> None:
    found = read("Never mind.", own=True)
    assert isinstance(found, NeverMind) and found.reply.end_turn and found.reply.text == ""


@pytest.mark.parametrize("text", ["What is the capital of France?", "how do I set an alarm on my phone",
                                  "How do I book a flight?", "Why does it rain?"])
def test_a_question_and_a_look_alike_are_the_models(text: str) -> None:
    found = read(text, own=True)
    assert isinstance(found, ForModel) and found.act is None and not found.request


def test_a_request_for_the_model_is_told_from_a_question() -> None:
    assert read("Tell me a joke.", own=True).request
    assert not read("Can I freeze bread?", own=True).request


# ---------------------------------------------------------------- each reading made once


class Counted:
    """A compiled pattern whose every use is counted, by the words it is run on (a pattern that starts a
    clause runs once on each clause); equal to the pattern it wraps."""

    def __init__(self, pattern: re.Pattern[str], name: str, runs: Counter[Any]) -> None:
        self.pattern, self.name, self.runs = pattern, name, runs

    def __getattr__(self, method: str) -> Any:
        use = getattr(self.pattern, method)
        if not callable(use):
            return use

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.runs[self.name, *args] += 1
            return use(*args, **kwargs)

        return counted

    def __eq__(self, other: object) -> bool:
        return self.pattern == (other.pattern if isinstance(other, Counted) else other)

    def __hash__(self) -> int:
        return hash(self.pattern)


def counted_pack(runs: Counter[Any]) -> LanguagePack:
    """The English pack with its request, device, internet, emergency and act patterns counted."""
    requests = WORDS.requests
    counted = {name: Counted(getattr(requests, name), name, runs)
               for name in ("controls", "own_speaker", "internet", "why")}
    acts = tuple(dataclasses.replace(act, request=Counted(act.request, f"act {n}", runs))
                 for n, act in enumerate(WORDS.honesty.acts))
    return dataclasses.replace(
        WORDS, requests=dataclasses.replace(requests, **counted),
        honesty=dataclasses.replace(WORDS.honesty, acts=acts, about=Counted(WORDS.honesty.about, "about", runs),
                                    permission=Counted(WORDS.honesty.permission, "permission", runs)),
        emergency=dataclasses.replace(WORDS.emergency, request=Counted(WORDS.emergency.request, "emergency", runs)))


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[Any]]:
    """Each pattern's uses on the same words, and Home Assistant's sentences' ("recognize")."""
    runs: Counter[Any] = Counter()
    recognize = Understanding.recognize

    def counted(self: Understanding, text: str) -> Any:
        runs["recognize"] += 1
        return recognize(self, text)

    monkeypatch.setattr(Understanding, "recognize", counted)
    yield runs


@pytest.mark.parametrize("text", ["Turn on the light.", "What is the capital of France?", "Order more coffee pods.",
                                  "What's the weather tomorrow?", "What's the date today?"])
def test_a_whole_turn_with_home_assistant_reads_each_pattern_once(runs: Counter[Any], text: str) -> None:
    words = counted_pack(runs)
    policy = Policy(FakeSkills(), FakeHome(), area="Kitchen", words=words)
    step = policy.begin(text)
    assert isinstance(step, AskHome)
    settled = policy.settle(text, HomeAnswered(0.0, step.question.ask()), understood=step.question.understood)
    if isinstance(settled, Think):
        check = ClaimCheck(text, words, settled.understood)
        assert check.look("Done!") == honesty.truth(text, WORDS)
    assert runs["recognize"] == 1
    assert max(runs.values()) == 1, runs


@pytest.mark.parametrize("text", ["Turn on the light.", "Order more coffee pods.", "Never mind.",
                                  "What's the news?", "how do I set an alarm on my phone"])
def test_a_turn_without_home_assistant_reads_each_pattern_once(runs: Counter[Any], text: str) -> None:
    policy = Policy(FakeSkills(), None, words=counted_pack(runs))
    step = policy.begin(text)
    if isinstance(step, Think):
        ClaimCheck(text, policy.words, step.understood).look("Done!")
    assert runs["recognize"] == 1
    assert max(runs.values()) == 1, runs


def test_the_journal_gets_the_kind_never_the_words(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("DEBUG", logger="appliance.conversation.policy"):
        Policy(FakeSkills(), None).begin("Order more coffee pods.")
    said = [r.getMessage() for r in caplog.records if r.name == "appliance.conversation.policy"]
    assert said == ["Understood as CannotDo"]


@pytest.mark.parametrize("text", ["Pull the curtains in the lounge.", "Shut the blinds in the bedroom please.",
                                  "It is far too dark in the kitchen."])
def test_a_device_request_in_words_no_pattern_has_is_read_by_meaning(text: str) -> None:
    assert isinstance(read(text), ForHome)
    policy = Policy(None, None, words=WORDS)
    assert policy.begin(text).reply.text == honesty.NO_HOME_ASSISTANT


@pytest.mark.parametrize("text", ["Reorder the washing powder.", "How do I draw the curtains without a cord?"])
def test_what_nothing_here_can_do_and_a_question_are_no_device_request_by_meaning(text: str) -> None:
    assert not isinstance(read(text), ForHome)
