"""Requests read by meaning (thinking/meaning.py): the nearest example, its slots read by the skills' own
parsers, and the request said again the way the skills read it; questions that only look like one stay
the model's. Proven first with a small made-up pack (the mechanism), then through the skills with the
English pack (what the person hears)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from datetime import UTC

import pytest

from appliance.config import Config
from appliance.language import MeaningWords, pack
from appliance.thinking.meaning import HOME, MODEL, Meanings
from appliance.thinking.skills import LocalSkills, build

SMALL = MeaningWords(
    examples={
        "timer_set": ("set a timer for {duration}", "give me a shout in {duration}", "let me know when {duration} is up",
                      "time {duration} for me", "give me a holler in {duration} would you"),
        "list_add": ("add {item} to the {list} list", "we're out of {item}", "pop {item} on the list",
                     "we need {item}"),
        "reminder_set": ("remind me to {what} at {time}", "in {duration} remind me to {what}",
                         "nudge me about {what} at {time}"),
        "time": ("what time is it", "what is the time"),
    },
    questions=("how do i set a timer on my phone", "what is a good timer for boiled eggs",
               "why do we need shopping lists", "how long do i boil an egg", "what time do shops open"),
    home=("turn off the kitchen lights", "switch the fan on"),
    said_as={"timer_set": ("set a timer for {duration}",), "list_add": ("add {item} to the {list} list",
                                                                        "add {item} to the list"),
             "reminder_set": ("remind me in {duration} to {what}", "remind me at {time} to {what}"),
             "time": ("what time is it",)},
    lists={"shopping": "shopping", "to do": "to do"},
    message_marks=frozenset({"to", "about"}),
    message_ends=frozenset({"at", "in", "on"}),
)


@pytest.fixture(scope="module")
def small() -> Meanings:
    return Meanings(dataclasses.replace(pack(), meaning=SMALL))


@pytest.mark.parametrize("said,intent,said_as", [
    ("Give me a holler in twenty minutes.", "timer_set", "set a timer for twenty minutes"),
    ("Let me know when ten minutes is up, would you?", "timer_set", "set a timer for ten minutes"),
    ("We're out of olive oil.", "list_add", "add olive oil to the list"),
    ("Pop toothpaste on the to do list", "list_add", "add toothpaste to the to do list"),
    ("In ten minutes remind me to turn the oven off.", "reminder_set",
     "remind me in ten minutes to turn the oven off"),
    ("Nudge me about the bins at seven", "reminder_set", "remind me at seven to the bins"),
    ("We're out of olive oil, cheers.", "list_add", "add olive oil to the list"),  # thanks is no item
    ("Give me a holler in twenty minutes, ta.", "timer_set", "set a timer for twenty minutes"),
])
def test_a_request_in_unlisted_words_is_said_again_as_the_skills_read_it(small: Meanings, said: str, intent: str,
                                                                         said_as: str) -> None:
    reading = small.read(said)
    assert (reading.intent, reading.said_as) == (intent, said_as), reading


@pytest.mark.parametrize("said", [
    "How do I set a timer on my phone?",
    "What's a good timer for soft boiled eggs?",
    "Why do people need shopping lists?",
    "How long should I boil an egg for?",
])
def test_a_question_that_looks_like_a_request_stays_the_models(small: Meanings, said: str) -> None:
    reading = small.read(said)
    assert reading.said_as is None, reading


def test_a_device_request_is_home_assistants_not_a_skills(small: Meanings) -> None:
    reading = small.read("Turn off the lights in the kitchen")
    assert reading.intent == HOME and reading.said_as is None


def test_a_request_without_the_slot_it_needs_is_not_said_again(small: Meanings) -> None:
    reading = small.read("Give me a shout in a bit")  # no length said: nothing to set
    assert reading.said_as is None


def test_words_no_example_has_do_not_decide(small: Meanings) -> None:
    assert small.read("Purple elephants dance quietly").said_as is None
    assert small.read("").intent == MODEL


def test_an_example_with_a_slot_nobody_knows_is_refused() -> None:
    bad = dataclasses.replace(SMALL, examples={"timer_set": ("set a timer for {length}",)})
    with pytest.raises(ValueError, match="length"):
        Meanings(dataclasses.replace(pack(), meaning=bad))


# ---------------------------------------------------------------- through the skills, the English pack

NOW = 1_781_103_600.0  # a Wednesday, 15:00 UTC


@pytest.fixture
def skills(tmp_path: Path) -> LocalSkills:
    config = dataclasses.replace(Config(), service=dataclasses.replace(Config().service, state_dir=str(tmp_path)))
    return build(config, lambda: NOW, UTC)


@pytest.mark.parametrize("said,heard", [
    ("Chuck some bananas on the shopping list, would you?", "added bananas"),
    ("We've run out of washing up liquid.", "added washing up liquid"),
    ("Give me a shout in ten minutes.", "10 minutes"),
    ("We've just finished the last of the porridge oats.", "added porridge oats"),  # not "just"
])
def test_the_person_hears_the_request_done(skills: LocalSkills, said: str, heard: str) -> None:
    reply = skills.match(said)
    assert reply is not None and heard in reply.text.lower(), reply


@pytest.mark.parametrize("said", [
    "How do I add an item to a list in Excel?",
    "What's a good timer for boiled eggs?",
    "How long should I roast a chicken for?",
])
def test_a_look_alike_question_reaches_the_model(skills: LocalSkills, said: str) -> None:
    assert skills.match(said) is None


def test_a_question_the_skills_would_ask_back_about_is_the_models_when_it_reads_as_one(skills: LocalSkills) -> None:
    # The timer skill's own reading asks how long the timer should be; meant is a question for the model.
    assert skills.match("Can you recommend a kitchen timer to buy?") is None
    assert skills.match("ten minutes") is None  # no question back is left waiting for its answer
    assert skills.match("Set a pasta timer for 10 minutes").intent == "timer_set"
    reply = skills.match("How long is left on the pasta timer?")
    assert reply is not None and reply.text == "Your pasta timer has 10 minutes left."


def test_a_clear_request_may_say_a_word_more_than_its_examples(skills: LocalSkills) -> None:
    reply = skills.match("Nudge the volume up.")
    assert reply is not None and reply.intent == "volume" and reply.data["level"] > 5


@pytest.mark.parametrize("said", ["What date is Burns Night?", "What date is the harvest moon?",
                                  "What day is Christmas this year?"])
def test_a_question_of_the_clock_about_something_else_stays_the_models(skills: LocalSkills, said: str) -> None:
    assert skills.match(said) is None  # not today's date


@pytest.mark.parametrize("said,heard", [
    ("How much more time does the rice need?", "Your rice timer has 10 minutes left."),
    ("How long till the rice is done?", "Your rice timer has 10 minutes left."),
    ("Is butter on there?", "Yes, your shopping list has butter."),
    ("Got the butter, cross it off.", "I've taken butter off your shopping list."),
    ("How long should rice cook for?", None),  # about rice, not the timer: the model's
    ("Is butter bad for you?", None),
])
def test_a_question_naming_a_thing_kept_is_answered_from_what_is_kept(skills: LocalSkills, said: str,
                                                                      heard: str | None) -> None:
    assert skills.match("Set a rice timer for 10 minutes").intent == "timer_set"
    assert skills.match("Add butter to the shopping list").intent == "list_add"
    reply = skills.match(said)
    assert (reply.text if reply is not None else None) == heard


def test_a_name_nothing_kept_has_is_not_taken(skills: LocalSkills) -> None:
    assert skills.match("Set a rice timer for 10 minutes").intent == "timer_set"
    assert skills.match("How much more time does the lamb need?") is None


@pytest.mark.parametrize("said", ["Shopping list?", "the to do list"])
def test_a_lists_name_alone_never_clears_it(skills: LocalSkills, said: str) -> None:
    assert skills.match("Add butter to the shopping list").intent == "list_add"
    assert skills.match("Add paint to the to do list").intent == "list_add"
    reply = skills.match(said)
    assert reply is None or reply.intent != "list_clear", reply
    assert skills.match("Is butter on the shopping list?").text == "Yes, your shopping list has butter."
    assert skills.match("Is paint on the to do list?").text == "Yes, your to do list has paint."


@pytest.mark.parametrize("said,heard", [
    ("What have I put on the shopping list so far?", "You have one thing on your shopping list: butter."),
    ("How many jobs are on my to do list?", "You have one thing on your to do list."),
    ("Where did I put the remote?", "You haven't told me."),  # never the model's guess
    ("What's the wifi password?", "You haven't told me."),
])
def test_a_question_of_the_lists_is_theirs_and_of_anything_else_untold_stays_untold(skills: LocalSkills, said: str,
                                                                                    heard: str) -> None:
    assert skills.match("Add butter to the shopping list").intent == "list_add"
    assert skills.match("Add paint to the to do list").intent == "list_add"
    reply = skills.match(said)
    assert reply is not None and reply.text == heard


def alarms_of(skills: LocalSkills) -> list[str]:
    return sorted(a.time[:5] for a in skills.timers.alarms.all())


def test_a_question_back_from_a_misreading_is_forgotten(skills: LocalSkills) -> None:
    assert skills.match("Wake me at 6:45 tomorrow").intent == "alarm_set"
    assert skills.match("Wake me at 9:30 on Saturday").intent == "alarm_set"
    # The skills' own reading asks "what time should the alarm be for?"; meant is a cancel.
    reply = skills.match("No need for the saturday alarm")
    assert reply is not None and reply.intent == "alarm_cancel", reply
    assert alarms_of(skills) == ["06:45"]
    assert skills.match("seven") is None  # not taken as the time of an alarm nobody asked for
    assert alarms_of(skills) == ["06:45"]
