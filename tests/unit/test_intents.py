"""Home Assistant's own sentences tell the hub's requests apart: which are a device's, which a list's
or the weather's, which the hub's own skills'; in the language the pack is in."""

from __future__ import annotations

import dataclasses

import pytest

from appliance.language import pack
from appliance.thinking.intents import Kind, Understanding, understanding
from appliance.thinking.requests import controls_device


@pytest.mark.parametrize(("text", "intent", "slots"), [
    ("Turn on the kitchen lights.", "HassTurnOn", {"area": "kitchen", "domain": "light"}),
    ("switch off the plug in the office", "HassTurnOff", {"name": "plug", "area": "office"}),
    ("Lock the front door", "HassTurnOn", {"name": "front door"}),
    ("Is the garage door open?", "HassGetState", {"name": "garage door", "state": "open"}),
    ("Set the thermostat to 21 degrees", "HassClimateSetTemperature", {"name": "thermostat", "temperature": "21"}),
    ("How warm is it in the bedroom?", "HassClimateGetTemperature", {"area": "bedroom"}),
    ("Start the vacuum cleaner", "HassVacuumStart", {"name": "vacuum cleaner"}),
    ("play some jazz in the kitchen", "HassMediaSearchAndPlay", {"search_query": "some jazz", "area": "kitchen"}),
])
def test_a_device_request_is_home_assistants_with_what_it_names(text: str, intent: str, slots: dict) -> None:
    found = understanding().recognize(text)
    assert found is not None and found.intent == intent and found.kind is Kind.HOME
    assert slots.items() <= found.slots.items()


@pytest.mark.parametrize(("text", "kind"), [
    ("Set a timer for 10 minutes", Kind.TIMER),
    ("stop the timer", Kind.TIMER),
    ("What time is it?", Kind.CLOCK),
    ("what's the date", Kind.CLOCK),
    ("Turn up the volume", Kind.VOLUME),
    ("set the volume to 6", Kind.VOLUME),
    ("mute", Kind.VOLUME),
    ("never mind", Kind.STOP),
    ("stop", Kind.STOP),
    ("add eggs and bread to the shopping list", Kind.LIST),
    ("what's the weather", Kind.WEATHER),
    ("play some jazz", Kind.PLAY),
    ("skip to the next song", Kind.PLAY),
    ("previous track", Kind.PLAY),
])
def test_the_hubs_own_requests_are_told_apart_from_a_devices(text: str, kind: Kind) -> None:
    found = understanding().recognize(text)
    assert found is not None and found.kind is kind


def test_a_volume_said_to_a_device_is_home_assistants() -> None:
    found = understanding().recognize("set the tv volume to 30")
    assert found is not None and found.kind is Kind.HOME and found.slots["name"] == "tv"


def test_the_next_song_on_a_device_is_home_assistants() -> None:
    found = understanding().recognize("next track on the tv")
    assert found is not None and found.kind is Kind.HOME and found.slots["name"] == "tv"


@pytest.mark.parametrize("text", [
    "How does a thermostat work?", "What is the capital of France?", "Why is the sky blue?",
    "Who invented the television?", "Tell me a joke about cats and dogs", "What makes a lamp flicker?",
    "Can you help me open a jar?",
])
def test_a_question_that_names_a_device_is_no_request(text: str) -> None:
    assert understanding().recognize(text) is None


def test_the_shopping_list_item_is_read_out_of_the_request() -> None:
    found = understanding().recognize("Add milk to my shopping list")
    assert found is not None and found.intent == "HassShoppingListAddItem" and found.slots == {"item": "milk"}


def test_the_sentences_and_the_home_follow_the_packs_language() -> None:
    english = pack()
    requests = dataclasses.replace(english.requests, devices={"licht": "light", "lampe": "light"},
                                   rooms=("küche", "wohnzimmer"), floors=(), warm_up=())
    german = dataclasses.replace(english, code="de", requests=requests)
    found = Understanding(german).recognize("Schalte das Licht in der Küche ein")
    assert found is not None and found.intent == "HassTurnOn" and found.slots["area"] == "küche"
    assert understanding().recognize("Schalte das Licht in der Küche ein") is None


def test_a_pack_with_other_devices_gets_its_own_home() -> None:
    english = pack()
    devices = {**english.requests.devices, "aquarium": "switch"}
    fish = dataclasses.replace(english, requests=dataclasses.replace(english.requests, devices=devices))
    found = understanding(fish).recognize("turn on the aquarium")
    assert found is not None and found.intent == "HassTurnOn" and found.slots["name"] == "aquarium"
    assert understanding(english).recognize("turn on the aquarium") is None


def test_a_language_without_home_assistants_sentences_keeps_the_packs_patterns() -> None:
    other = dataclasses.replace(pack(), code="xx")
    assert Understanding(other).recognize("Turn on the kitchen lights") is None
    assert controls_device("Turn the heating down a bit", other)  # the pack's own pattern
    assert not controls_device("What is the capital of France?", other)


@pytest.mark.parametrize("text", ["Can you warm the lounge up before I get home?", "Heat up the bedroom, please.",
                                  "I'm freezing in here.", "Turn the heating down a bit."])
def test_what_home_assistants_sentences_do_not_say_is_still_a_device_request(text: str) -> None:
    assert understanding().recognize(text) is None or understanding().recognize(text).for_home
    assert controls_device(text)
