"""Which requests are for a device in the home, which only the internet could answer, and which are
neither: the list a new owner says (tests/fixtures/honesty_requests.txt) and everyday questions."""

from __future__ import annotations

from typing import Final

import pytest

from appliance.thinking import honesty
from appliance.thinking.requests import controls_device, needs_internet
from tests.fixtures.honesty import claims, requests

REQUESTS: Final = requests()
DEVICE: Final = [text for text, kind in REQUESTS if kind in ("control", "question")]
INTERNET: Final = [text for text, kind in REQUESTS if kind == "internet"]

# Questions the model or a local skill answers: never refused as a device request or for want of the internet.
ORDINARY: Final = [
    "How does a light bulb work?",
    "What is the capital of France?",
    "Tell me a joke.",
    "Why do fans make noise?",
    "What temperature does water boil at?",
    "Set a timer for 5 minutes.",
    "What time is it?",
    "Turn up the volume.",
    "Turn it down, it's too loud. Volume down.",
    "Set the volume to 6.",
    "Mute.",
    "When was the light bulb invented?",
    "What is a thermostat?",
    "How do I set up a smart plug?",
    "Who invented the television?",
    "What is the speed of light?",
    "How hot is the sun?",
    "What is the temperature of the sun?",
    "Why does it rain?",
    "How does a rainbow form?",
    "Who invented the umbrella?",
    "Who won the world cup in 1966?",
    "Who won the first world war?",
    "How does a fan cool you down?",
    "What makes a lamp flicker?",
    "Can you help me open a jar?",
    "What is the best way to make tea?",
    "Tell me a story about a dragon.",
    "Why does my kettle knock when it boils?",
    "Why is it dark in winter?",
]


def test_the_list_has_enough_of_each_kind() -> None:
    assert len(REQUESTS) >= 24
    assert len(DEVICE) >= 16 and len(INTERNET) >= 8


@pytest.mark.parametrize("text", DEVICE)
def test_every_device_request_is_caught(text: str) -> None:
    assert controls_device(text)
    assert not needs_internet(text)  # one answer: the device one
    assert honesty.cannot_act(text) is not None and honesty.cannot_act(text).text == honesty.NO_HOME_ASSISTANT


@pytest.mark.parametrize("text", ["Kill the lights in the hall.", "Knock the porch light off, would you.",
                                  "Crank up the air con.", "It's getting dark in the lounge."])
def test_a_device_request_in_everyday_words_is_caught(text: str) -> None:
    assert controls_device(text)


@pytest.mark.parametrize("text", INTERNET)
def test_every_internet_question_is_caught(text: str) -> None:
    assert needs_internet(text)
    assert not controls_device(text)
    reply = honesty.offline(text)
    assert reply is not None and reply.text == honesty.NO_INTERNET


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_question_is_not_caught(text: str) -> None:
    assert not controls_device(text)
    assert not needs_internet(text)


@pytest.mark.parametrize("text", ["Should I switch the heating off at night?",
                                  "Is it safe to leave the dryer running overnight?",
                                  "Does a smart plug use power when it is off?",
                                  "How do I bleed a radiator?"])
def test_advice_about_a_device_is_a_question_for_the_model(text: str) -> None:
    assert not controls_device(text)
    assert honesty.cannot_act(text) is None


@pytest.mark.parametrize("text", ["TURN ON THE KITCHEN LIGHTS", "turn on the kitchen lights",
                                  "Is the front door locked\u2019", "What\u2019s the weather tomorrow?"])
def test_case_and_punctuation_do_not_matter(text: str) -> None:
    assert controls_device(text) or needs_internet(text)


def test_the_honest_sentences_claim_nothing() -> None:
    for sentence in (honesty.NO_HOME_ASSISTANT, honesty.HOME_ASSISTANT_DOWN, honesty.NO_INTERNET):
        assert not claims(sentence)


@pytest.mark.parametrize("answer", [
    "I'll lock the front door for you.", "I'm going to turn on the kitchen lights.", "Done.",
    "The front door is locked.", "Yes, it will rain this afternoon.",
    "The living room is currently at 68 degrees.", "I have turned off the lamp.",
])
def test_a_claim_is_recognised(answer: str) -> None:
    assert claims(answer)


@pytest.mark.parametrize(("answer", "kind"), [
    ("I'm sorry, I can't turn on the fan.", "control"),
    ("You can set your thermostat to 21 degrees.", "control"),
    ("I can't check the weather from here.", "internet"),
])
def test_an_honest_or_echoing_answer_is_not_a_claim(answer: str, kind: str) -> None:
    assert not claims(answer, kind)
