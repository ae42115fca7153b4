"""Who answers a question (policy.Policy), the same for every way a question comes in: each route, the
refusals, the area retry, Home Assistant's conversation, the busy reply and the apologies."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator

import pytest

from appliance.config import Config
from appliance.contracts import SkillReply
from appliance.conversation.policy import (
    CONVERSATION_KEPT_S,
    AskHome,
    HomeConversation,
    Policy,
    Say,
    Think,
)
from appliance.conversation.responder import Failed, HomeAnswered, Part
from appliance.errors import HomeAssistantRefused, HomeAssistantUnreachable, ModelBusy
from appliance.language import pack
from appliance.thinking import honesty
from tests.fixtures.fakes import Clock, FakeChat, FakeHome, FakeSkills

REPLIES = pack().replies


def home_said(home: FakeHome, question: str, area: str = "") -> HomeAnswered | Failed:
    """What the policy's question to Home Assistant brings back, as an answer's update would carry it."""
    try:
        return HomeAnswered(0.0, Policy(None, home, area=area).begin(question).question.ask())  # type: ignore[union-attr]
    except (HomeAssistantUnreachable, HomeAssistantRefused) as exc:
        return Failed(0.0, Part.HOME, exc)


# ---------------------------------------------------------------- the order


def test_a_skill_answers_first_even_with_home_assistant_configured() -> None:
    skills, home = FakeSkills(), FakeHome()
    step = Policy(skills, home).begin("what time is it", room="kitchen")
    assert step == Say(SkillReply("It's 7:20 PM.", "time"), "skill")
    assert skills.rooms == ["kitchen"] and home.texts == []  # the room it was asked in, and no round trip


def test_what_no_skill_takes_goes_to_home_assistant_then_the_model() -> None:
    home = FakeHome()
    policy = Policy(FakeSkills(), home)
    step = policy.begin("what is the capital of France")
    assert isinstance(step, AskHome) and step.question.text == "what is the capital of France"
    said = home_said(home, "what is the capital of France")
    assert policy.settle("what is the capital of France", said) == Think("what is the capital of France")


def test_without_home_assistant_the_model_answers_what_no_skill_takes() -> None:
    assert Policy(FakeSkills(), None).begin("what is the capital of France") == Think("what is the capital of France")


def test_skills_switched_off_are_not_asked() -> None:
    skills = FakeSkills()
    base = Config()
    cfg = dataclasses.replace(base, skills=dataclasses.replace(base.skills, enabled=False))
    assert Policy.configured(cfg, skills, None).begin("what time is it") == Think("what time is it")
    assert skills.rooms == []


def test_a_failing_skill_raises_for_the_caller_to_apologise() -> None:
    skills = FakeSkills()
    skills.fail = True
    with pytest.raises(ValueError, match="bad timer state"):
        Policy(skills, None).begin("what time is it")


# ---------------------------------------------------------------- Home Assistant's words


def test_after_an_interruption_a_word_or_two_that_only_the_model_would_take_ends_the_turn_in_silence() -> None:
    home = FakeHome()
    policy = Policy(FakeSkills(), home)
    silence = Say(SkillReply("", "nevermind", end_turn=True), "skill")
    assert policy.after_interruption(policy.settle("start.", home_said(home, "start."))) == silence
    assert policy.after_interruption(Think("of Scott")) == silence
    assert policy.after_interruption(Think("how far is the moon")) == Think("how far is the moon")
    skill = policy.begin("what time is it")  # a skill's reply, and a question to Home Assistant, stay as they are
    assert policy.after_interruption(skill) == skill
    asked = policy.begin("lights off")
    assert policy.after_interruption(asked) is asked


def test_a_request_home_assistant_handles_gets_its_words() -> None:
    home = FakeHome()
    said = home_said(home, "Turn on the kitchen light.")
    step = Policy(None, home).settle("Turn on the kitchen light.", said)
    assert step == Say(SkillReply("Turned on the light", "home_assistant"), "home_assistant") and home.light == "on"


def test_a_device_it_does_not_know_gets_its_words_not_the_models() -> None:
    home = FakeHome()
    step = Policy(None, home).settle("Open the garage door.", home_said(home, "Open the garage door."))
    assert isinstance(step, Say) and step.route == "home_assistant" and "garage door" in step.reply.text


def test_with_fallback_home_assistant_its_words_answer_whatever_it_says() -> None:
    home = FakeHome()
    step = Policy(None, home, fallback="home_assistant").settle("Tell me a joke", home_said(home, "Tell me a joke"))
    assert isinstance(step, Say) and step.reply.text == "Sorry, I am not aware of any device called Tell me a joke"


def test_a_request_without_a_room_is_asked_again_in_the_room_it_was_heard_in() -> None:
    home = FakeHome()
    said = home_said(home, "Turn on the light.", area="Kitchen")
    assert [text for text, _ in home.texts] == ["Turn on the light.", "Turn on the light in the Kitchen"]
    assert isinstance(said, HomeAnswered) and said.reply.handled and said.reply.ms == 7.0 + 12.0
    assert home.light == "on"


def test_without_a_room_the_request_is_not_asked_again() -> None:
    home = FakeHome()
    said = home_said(home, "Turn on the light.")
    assert [text for text, _ in home.texts] == ["Turn on the light."]
    assert isinstance(said, HomeAnswered) and not said.reply.handled


def test_a_satellites_room_is_where_its_request_is_placed() -> None:
    home = FakeHome()
    step = Policy(None, home, area="Hall").begin("Turn on the light.", room="kitchen", area="Kitchen")
    assert isinstance(step, AskHome) and step.question.area == "Kitchen"
    assert isinstance(Policy(None, home, area="Hall").begin("Turn on the light."), AskHome)
    assert Policy(None, home, area="Hall").begin("Turn on the light.").question.area == "Hall"  # type: ignore[union-attr]


def test_a_follow_up_goes_on_with_home_assistants_conversation_until_it_has_forgotten_it() -> None:
    clock, home = Clock(), FakeHome()
    policy, conversation = Policy(None, home), HomeConversation(clock)
    first = policy.begin("Turn on the kitchen light.", conversation=conversation)
    assert isinstance(first, AskHome) and first.question.conversation_id is None
    policy.settle("Turn on the kitchen light.", HomeAnswered(0.0, first.question.ask()), conversation)
    again = policy.begin("Turn on the kitchen light.", conversation=conversation)
    assert isinstance(again, AskHome) and again.question.conversation_id == "c1"
    clock.t += CONVERSATION_KEPT_S + 1
    later = policy.begin("Turn on the kitchen light.", conversation=conversation)
    assert isinstance(later, AskHome) and later.question.conversation_id is None


# ---------------------------------------------------------------- the truth instead of the model


def test_without_home_assistant_a_device_request_is_refused_honestly() -> None:
    step = Policy(FakeSkills(), None).begin("Turn on the kitchen light.")
    assert step == Say(SkillReply(honesty.NO_HOME_ASSISTANT, "no_home_assistant"), "skill")


def test_without_the_internet_the_weather_is_refused_honestly_not_made_up() -> None:
    step = Policy(FakeSkills(), None).begin("What's the weather tomorrow?")
    assert step == Say(SkillReply(honesty.NO_INTERNET, "no_internet"), "skill")


def test_home_assistant_down_is_said_for_a_device_request() -> None:
    home = FakeHome()
    home.down = True
    step = Policy(None, home).settle("Turn on the kitchen light.", home_said(home, "Turn on the kitchen light."))
    assert step == Say(SkillReply(honesty.HOME_ASSISTANT_DOWN, "home_assistant_down"), "home_assistant")


def test_a_refused_token_is_said_for_a_device_request() -> None:
    home = FakeHome()
    home.refuse = True
    step = Policy(None, home).settle("Turn on the kitchen light.", home_said(home, "Turn on the kitchen light."))
    assert isinstance(step, Say) and step.reply.text == honesty.HOME_ASSISTANT_REFUSED


def test_home_assistant_down_leaves_any_other_question_to_the_model() -> None:
    home = FakeHome()
    home.down = True
    step = Policy(None, home).settle("Why is the sky blue?", home_said(home, "Why is the sky blue?"))
    assert step == Think("Why is the sky blue?")


def test_after_home_assistant_an_internet_question_is_refused_as_a_local_answer() -> None:
    home = FakeHome()
    step = Policy(None, home).settle("What's the weather tomorrow?", home_said(home, "What's the weather tomorrow?"))
    assert step == Say(SkillReply(honesty.NO_INTERNET, "no_internet"), "skill")


def test_a_request_for_the_hubs_own_skills_that_none_read_is_asked_again_not_claimed_by_the_model() -> None:
    policy = Policy(FakeSkills(), None)  # skills on, and none of them reads it
    for request in ("What's the date today?", "Add milk to my shopping list.", "Mute."):
        step = policy.begin(request)
        assert isinstance(step, Say) and step.reply.text == REPLIES.unread and step.reply.intent == "not_understood"
    home = FakeHome()
    asked = Policy(FakeSkills(), home)
    assert asked.settle("What's the date today?", home_said(home, "What's the date today?")) == \
        Say(SkillReply(REPLIES.unread, "not_understood", data={"intent": "HassGetCurrentDate"}), "skill")


def test_never_mind_ends_the_turn_without_a_word() -> None:
    step = Policy(FakeSkills(), None).begin("Never mind.")
    assert isinstance(step, Say) and step.reply.text == "" and step.reply.end_turn


def test_with_skills_switched_off_the_hubs_own_requests_go_to_the_model() -> None:
    assert Policy(None, None).begin("Set a timer for ten minutes.") == Think("Set a timer for ten minutes.")


# ---------------------------------------------------------------- busy and sorry


def test_the_apologies_and_the_busy_reply() -> None:
    assert Policy(None, None).apology("timeout") == REPLIES.timeout_apology == "Sorry, that took too long."
    assert Policy(None, None).apology("error") == REPLIES.apology == "Sorry, something went wrong."
    assert Policy(None, None).reply_to_failure(ModelBusy("the language model has not returned")) == REPLIES.busy
    assert Policy(None, None).reply_to_failure(RuntimeError("llama_decode returned -1")) == REPLIES.apology


def test_home_assistants_question_is_answered_by_the_model_only() -> None:
    chat, home, skills = FakeChat("It is in France."), FakeHome(), FakeSkills()
    reply = Policy(skills, home).handle("what time is it", chat, threading.Event())
    assert reply.handled and reply.text == "It is in France." and not reply.error_code
    assert chat.questions == ["what time is it"] and skills.rooms == [] and home.texts == []


class BusyChat(FakeChat):
    """A model another answer holds: it says so at once."""

    def stream(self, question: str, cancel: threading.Event) -> Iterator[str]:
        raise ModelBusy("the language model has not returned from an earlier answer")


def test_home_assistants_question_while_the_model_is_busy_gets_the_busy_reply() -> None:
    reply = Policy(None, None).handle("capital of France?", BusyChat(), threading.Event())
    assert (reply.text, reply.handled, reply.error_code) == (REPLIES.busy, False, "model-busy")


def test_home_assistants_question_that_fails_gets_the_apology_and_the_error() -> None:
    chat = FakeChat()
    chat.fail_after = 1
    reply = Policy(None, None).handle("capital of France?", chat, threading.Event())
    assert (reply.text, reply.handled, reply.error_code) == (REPLIES.apology, False, "handle-failed")
    assert "llama_decode returned -1" in reply.error_text


def test_an_empty_question_is_not_handled_and_the_model_is_not_asked() -> None:
    chat = FakeChat()
    reply = Policy(None, None).handle("  ", chat, threading.Event())
    assert (reply.text, reply.handled) == (REPLIES.nothing_heard, False) and chat.questions == []
