"""Requests to do what nothing here can (a call, an order, music) get what the hub cannot do and what it
can, before the model or after Home Assistant; a question about such things is the model's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from appliance.commands.ask import Asker
from appliance.config import Config
from appliance.contracts import Chat, SkillReply
from appliance.conversation.policy import AskHome, Policy, Say, Think
from appliance.conversation.responder import Failed, HomeAnswered, Part
from appliance.errors import HomeAssistantUnreachable
from appliance.language import pack
from appliance.thinking import honesty
from tests.fixtures.fakes import FakeHome, FakeSkills

WORDS = pack()
CAN_DO = honesty.can_do()

REQUESTS = [
    ("Call mum.", "I can't place calls."),
    ("Could you please ring my brother", "I can't place calls."),
    ("Get me a taxi to the station", "I can't call a taxi."),
    ("Text Sarah that I'm running late", "I can't send messages or emails."),
    ("Tell my wife I'll be late", "I can't send messages or emails."),
    ("Send an email to the school", "I can't send messages or emails."),
    ("Read me my messages.", "I can't see your messages, emails or calendar."),
    ("Do I have any new emails?", "I can't see your messages, emails or calendar."),
    ("What's on my calendar today?", "I can't see your messages, emails or calendar."),
    ("Order more coffee pods.", "I can't order or buy things."),
    ("I want to buy a new kettle", "I can't order or buy things."),
    ("We're out of milk, so order some more", "I can't order or buy things."),
    ("Book a table for two at eight tonight.", "I can't make bookings or reservations."),
    ("Can you make a reservation at the Italian place", "I can't make bookings or reservations."),
    ("Play some jazz", "I can't play music, radio, podcasts or films."),
    ("Can you play music?", "I can't play music, radio, podcasts or films."),
    ("Put on Radio 4", "I can't play music, radio, podcasts or films."),
    ("Let's listen to a podcast", "I can't play music, radio, podcasts or films."),
    ("Skip this song", "I can't play music, radio, podcasts or films."),
    ("Take a photo of the kitchen", "I can't record or take photos."),
    ("Record this conversation", "I can't record or take photos."),
    ("Give me directions to the nearest chemist", "I have no maps, so I can't give directions or find places."),
    ("Pay the electricity bill", "I can't make payments."),
    ("Post this on Facebook", "I can't post anything online."),
    ("Translate this call for me", "I can't translate a live conversation."),
    ("Remind me to call the dentist tomorrow", WORDS.honesty.cannot),  # the reminders' kind: nothing specific
    ("Add washing up liquid to the shopping list", WORDS.honesty.cannot),
]


@pytest.mark.parametrize(("request_", "said"), REQUESTS)
def test_a_request_to_act_gets_what_the_hub_cannot_do_and_what_it_can(request_: str, said: str) -> None:
    reply = honesty.cannot_do(request_)
    assert reply == SkillReply(f"{said} {CAN_DO}", honesty.CANNOT_DO)


@pytest.mark.parametrize("question", [
    "How do I book a flight?", "Who invented the telephone?", "What is a podcast?",
    "Can you explain how ordering online works?", "What do you call a baby kangaroo?", "Play a game with me",
    "Tell me a joke", "What is the order of the planets?", "Translate good morning into Spanish",
    "Where is the nearest post office in a city usually?", "Why do phones need charging?",
    "What's the best way to send a parcel abroad?", "Tell me about the history of radio",
    "How do I take a good photo?", "Let me know a fun fact", "What is the capital of France?",
    "Can you order these numbers from smallest to largest: 5, 2, 9", "Remind me how to make pancakes",
    "Read me a story", "Play twenty questions with me",
    "My flatmate never switches the heating off, what can I do?",  # what happens, then the question
])
def test_a_question_about_such_things_goes_on_to_the_model(question: str) -> None:
    assert honesty.cannot_do(question) is None
    assert Policy(FakeSkills(), None).begin(question) == Think(question)


def test_warming_a_room_is_a_home_request_told_that_home_assistant_is_not_connected() -> None:
    reply = honesty.cannot_do("Can you warm the lounge up before I get home?")
    assert reply == SkillReply(honesty.NO_HOME_ASSISTANT, "no_home_assistant")
    assert honesty.cannot_do("Can you warm the lounge up before I get home?", home=True) is None  # Home Assistant's


def test_what_the_hub_can_do_is_said_from_the_skills_it_has() -> None:
    assert CAN_DO == ("I can tell the time and date, set timers, alarms and reminders, keep a shopping list and "
                      "change my volume.")
    assert honesty.can_do(home=True).endswith("change my volume and control your home through Home Assistant.")
    honest = dataclasses.replace(WORDS.honesty, abilities=(("clock", "tell", "the time"), ("timers", "set", "timers"),
                                                            ("alarms", "set", "alarms"), ("volume", "set", "my volume"),
                                                            ("no_such_skill", "sing", "songs")))
    words = dataclasses.replace(WORDS, honesty=honest)
    assert honesty.can_do(words) == "I can tell the time and set timers, alarms and my volume."  # verbs said once
    none = dataclasses.replace(WORDS, honesty=dataclasses.replace(honest, abilities=()))
    assert honesty.can_do(none) == "" and honesty.cannot_do("Call mum", none).text == "I can't place calls."  # type: ignore[union-attr]


def test_without_home_assistant_the_policy_says_the_truth_before_the_model() -> None:
    step = Policy(FakeSkills(), None).begin("Order more coffee pods.")
    assert step == Say(honesty.cannot_do("Order more coffee pods."), "skill")  # type: ignore[arg-type]
    assert Policy(FakeSkills(), None).begin("Turn on the kitchen light.") == \
        Say(SkillReply(honesty.NO_HOME_ASSISTANT, "no_home_assistant"), "skill")  # the device reply, as before
    # Home Assistant reads it as a media player's next track; said to no device, it is the hub's, which plays none.
    assert Policy(FakeSkills(), None).begin("Skip to the next song.") == \
        Say(honesty.cannot_do("Skip to the next song."), "skill")  # type: ignore[arg-type]


def test_with_home_assistant_it_is_asked_first_and_what_it_did_not_handle_gets_the_truth() -> None:
    home = FakeHome()
    policy = Policy(FakeSkills(), home)
    step = policy.begin("Order more coffee pods.")
    assert isinstance(step, AskHome)
    settled = policy.settle("Order more coffee pods.", HomeAnswered(0.0, step.question.ask()))
    assert settled == Say(SkillReply(f"I can't order or buy things. {honesty.can_do(home=True)}", honesty.CANNOT_DO),
                          "skill")
    assert home.texts == [("Order more coffee pods.", None)]  # Home Assistant had its turn first
    why = policy.settle("Why is the sky blue?", HomeAnswered(0.0, home.process("Why is the sky blue?")))
    assert why == Think("Why is the sky blue?")


def test_with_home_assistant_down_a_request_to_act_still_gets_the_truth() -> None:
    home = FakeHome()
    home.down = True
    policy = Policy(None, home)
    step = policy.begin("Call mum")
    assert isinstance(step, AskHome)
    with pytest.raises(HomeAssistantUnreachable) as down:
        step.question.ask()
    settled = policy.settle("Call mum", Failed(0.0, Part.HOME, down.value))  # as Answer.consult reports it
    assert isinstance(settled, Say) and settled.reply.text.startswith("I can't place calls.")


def test_the_words_of_honesty_are_written_in_the_language_pack_only() -> None:
    package = Path(__file__).resolve().parents[2] / "appliance"
    phrases = ["I can't place calls", "I can't order or buy", "never say you did", "i'd be happy to", "wake up call"]
    for path in package.rglob("*.py"):
        if path.parent.name == "language":
            continue
        text = path.read_text(encoding="utf-8").lower()
        assert [p for p in phrases if p.lower() in text] == [], path


def test_ask_answers_a_request_to_act_with_the_truth_and_never_loads_the_model() -> None:
    def no_model() -> Chat:
        raise AssertionError("the model was loaded for a request only the truth answers")

    record = Asker(Config(), chat_factory=no_model).ask("Can you ring Dave for me?", lambda _delta: None)
    assert (record.route, record.intent) == ("skill", honesty.CANNOT_DO)
    assert record.answer == f"I can't place calls. {CAN_DO}" and record.prompt_tokens == 0
