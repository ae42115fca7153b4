"""Who answers with Home Assistant configured (a fake one here), and the truth without it."""

from __future__ import annotations

import dataclasses

import pytest

from appliance.config import Config
from appliance.thinking import honesty
from tests.fixtures.fakes import FakeChat, FakeHome, FakeSink, early_harness

LIGHT = ("WAKE", "SAY:turn on the", "SAY:kitchen light", "SIL", "SIL")
CAPITAL = ("WAKE", "SAY:what is the capital", "SAY:of France", "SIL", "SIL")


def heard(sink: FakeSink) -> list[str]:
    """What the speaker played of the answers (earcons left out), one entry per sentence."""
    return [p.rsplit("#", 1)[0] for p in sink.played if p.startswith("TTS:") and p.endswith("#1")]


def with_home(fallback: str = "model", area: str = "") -> Config:
    base = Config()
    return dataclasses.replace(base, home_assistant=dataclasses.replace(
        base.home_assistant, enabled=True, url="http://ha.test:8123", fallback=fallback, area=area))


def test_a_device_request_is_done_by_home_assistant_and_its_words_are_heard() -> None:
    home = FakeHome()
    h = early_harness(with_home(), home=home)
    h.feed(*LIGHT)
    h.wait_idle()
    assert home.light == "on" and home.texts == [("turn on the kitchen light", None)]
    assert heard(h.sink) == ["TTS:Turned on the light"]
    (rec,) = h.records
    assert rec.route == "home_assistant" and rec.outcome == "answered" and not rec.preemptive
    assert rec.journal_fields()["ROUTE"] == "home_assistant" and rec.journal_fields()["HA_MS"] == "12"
    assert h.chat.forgotten == ["turn on the kitchen light"]  # the early answer was taken back unheard


@pytest.mark.parametrize(("area", "light", "said", "asked"), [
    ("Kitchen", "on", "TTS:Turned on the light", ["turn on the light", "turn on the light in the Kitchen"]),
    ("", "off", "TTS:Sorry, I couldn't understand that", ["turn on the light"]),
])
def test_turn_on_the_light_said_to_the_hub_is_the_light_of_the_hubs_own_area(area: str, light: str, said: str,
                                                                             asked: list[str]) -> None:
    home = FakeHome()
    h = early_harness(with_home(area=area), home=home)
    h.feed("WAKE", "SAY:turn on the light", "SIL", "SIL")
    h.wait_idle()
    assert home.light == light and heard(h.sink) == [said]
    assert [text for text, _ in home.texts] == asked


def test_home_assistant_hears_only_the_confirmed_words_never_an_early_guess() -> None:
    home = FakeHome()
    h = early_harness(with_home(), home=home)
    h.feed("WAKE", "SAY:turn on the", "SIL")  # a pause: an early answer starts, Home Assistant is not asked
    assert h.c.answers.early.counts["started"] == 1 and home.texts == []
    h.feed("SAY:kitchen light", "SIL", "SIL")
    h.wait_idle()
    assert home.texts == [("turn on the kitchen light", None)]


def test_a_question_that_is_not_for_home_assistant_is_answered_by_the_early_model_answer() -> None:
    home = FakeHome()
    h = early_harness(with_home(), home=home)
    h.feed(*CAPITAL)
    h.wait_idle()
    assert home.texts == [("what is the capital of France", None)]  # "no such device": not a device request
    assert heard(h.sink) == ["TTS:Paris is the capital.", "TTS:It is in France."]
    (rec,) = h.records
    assert rec.route == "llm" and rec.preemptive and rec.ha_ms == 8.0
    assert h.chat.questions == ["what is the capital of France"]  # the early answer, not a second one


def test_an_unknown_device_gets_home_assistants_own_words_not_the_model() -> None:
    h = early_harness(with_home(), home=FakeHome())
    h.feed("WAKE", "SAY:open the", "SAY:garage door", "SIL", "SIL")
    h.wait_idle()
    assert heard(h.sink) == ["TTS:Sorry, I am not aware of any device called garage door"]
    assert h.records[0].route == "home_assistant"


def test_home_assistant_down_a_device_request_is_told_so_and_a_question_still_answered(
        caplog: pytest.LogCaptureFixture) -> None:
    home = FakeHome()
    home.down = True
    h = early_harness(with_home(), home=home)
    h.feed(*LIGHT)
    h.wait_idle()
    assert heard(h.sink) == [f"TTS:{honesty.HOME_ASSISTANT_DOWN}"] and home.light == "off"
    assert h.records[0].outcome == "answered" and h.records[0].route == "home_assistant"
    assert "Home Assistant at http://ha.test:8123 is not reachable" in caplog.text  # said in the log, once
    h.feed(*CAPITAL)  # the next turn works, and is answered by the model
    h.wait_idle()
    assert heard(h.sink)[-2:] == ["TTS:Paris is the capital.", "TTS:It is in France."]
    assert h.records[1].route == "llm"


def test_a_follow_up_keeps_home_assistants_conversation() -> None:
    home = FakeHome()
    h = early_harness(with_home(), home=home)
    h.feed(*LIGHT)
    h.wait_idle()
    h.feed(*LIGHT)
    h.wait_idle()
    assert [cid for _, cid in home.texts] == [None, "c1"]


def test_home_assistant_as_fallback_answers_what_is_not_a_device_too() -> None:
    h = early_harness(with_home(fallback="home_assistant"), home=FakeHome())
    h.feed(*CAPITAL)
    h.wait_idle()
    assert heard(h.sink) == ["TTS:Sorry, I am not aware of any device called what is the capital of France"]
    assert h.records[0].route == "home_assistant"


def test_without_home_assistant_a_device_request_gets_the_truth_and_the_model_is_not_asked() -> None:
    h = early_harness(chat=FakeChat("I'll lock the front door for you."))
    h.feed("WAKE", "SAY:lock the", "SAY:front door", "SIL", "SIL")
    h.wait_idle()
    assert heard(h.sink) == [f"TTS:{honesty.NO_HOME_ASSISTANT}"]
    assert h.records[0].route == "skill"
    assert not any("lock the front door for you" in p for p in h.sink.played)


def test_without_the_internet_the_weather_gets_the_truth() -> None:
    h = early_harness(chat=FakeChat("Yes, it will rain this afternoon."))
    h.feed("WAKE", "SAY:will it rain", "SAY:this afternoon", "SIL", "SIL")
    h.wait_idle()
    assert heard(h.sink) == [f"TTS:{honesty.NO_INTERNET}"]


def test_a_refused_token_is_said_as_such_for_a_device_request() -> None:
    home = FakeHome()
    home.refuse = True
    h = early_harness(with_home(), home=home)
    h.feed(*LIGHT)
    h.wait_idle()
    assert heard(h.sink) == [f"TTS:{honesty.HOME_ASSISTANT_REFUSED}"] and home.light == "off"
