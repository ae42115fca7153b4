"""Reminders: spoken requests and replies, the question back for a time, and the reminder's words said at
its time in the room it was asked, rung like a timer until stopped."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from appliance.config import SkillsConfig
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers

LONDON = ZoneInfo("Europe/London")
REPEAT = SkillsConfig(timer_repeat_s=60.0, timer_repeat_interval_s=10.0)
TUESDAY_EVENING = datetime(2026, 3, 3, 19, 20, tzinfo=LONDON)


def make(tmp_path: Path, clock: ManualClock | None = None) -> LocalSkills:
    clock = clock or ManualClock(TUESDAY_EVENING.timestamp())
    return LocalSkills(REPEAT, Timers(tmp_path, REPEAT, clock), clock, LONDON)


def at(*when: int) -> float:
    return datetime(*when, tzinfo=LONDON).timestamp()


# (phrase, the spoken reply, the reminder's words, when it rings) asked on Tuesday 3 March 2026 at 7:20 PM
REPLIES = [
    ("remind me to take the bins out at 8 tomorrow", "Reminder set for 8 AM tomorrow: take the bins out.",
     "take the bins out", at(2026, 3, 4, 8, 0)),
    ("Remind me in 20 minutes to check the oven.", "Reminder set for 20 minutes from now: check the oven.",
     "check the oven", at(2026, 3, 3, 19, 40)),
    ("remind me to check the oven in twenty minutes", "Reminder set for 20 minutes from now: check the oven.",
     "check the oven", at(2026, 3, 3, 19, 40)),
    ("remind me at 5 pm to call mum", "Reminder set for 5 PM tomorrow: call mum.", "call mum", at(2026, 3, 4, 17, 0)),
    ("remind me at 9 to call my mum", "Reminder set for 9 PM today: call your mum.", "call your mum",
     at(2026, 3, 3, 21, 0)),
    ("remind me to take the bins out tomorrow morning", "Reminder set for 9 AM tomorrow: take the bins out.",
     "take the bins out", at(2026, 3, 4, 9, 0)),
    ("remind me on friday at half past six to water my plants",
     "Reminder set for 6:30 AM on Friday: water your plants.", "water your plants", at(2026, 3, 6, 6, 30)),
    ("remind me that i am seeing the dentist at 10 am tomorrow",
     "Reminder set for 10 AM tomorrow: you are seeing the dentist.", "you are seeing the dentist",
     at(2026, 3, 4, 10, 0)),
    ("remind me to take 2 pills at 8 pm", "Reminder set for 8 PM today: take 2 pills.", "take 2 pills",
     at(2026, 3, 3, 20, 0)),
    ("set a reminder for 7 am on weekdays to feed the cat", "Reminder set for 7 AM on weekdays: feed the cat.",
     "feed the cat", at(2026, 3, 4, 7, 0)),
    ("remind me about the parcel at noon", "Reminder set for 12 PM tomorrow: the parcel.", "the parcel",
     at(2026, 3, 4, 12, 0)),
    ("remind me to ring the garage at half nine tomorrow", "Reminder set for 9:30 AM tomorrow: ring the garage.",
     "ring the garage", at(2026, 3, 4, 9, 30)),
    ("remind me at half ten to lock the back door", "Reminder set for 10:30 PM today: lock the back door.",
     "lock the back door", at(2026, 3, 3, 22, 30)),
    # a word that ends the words themselves stays; one that led to the time goes
    ("remind me at 9 pm to bring the cushions in", "Reminder set for 9 PM today: bring the cushions in.",
     "bring the cushions in", at(2026, 3, 3, 21, 0)),
    ("remind me to drop the car off on friday at ten", "Reminder set for 10 AM on Friday: drop the car off.",
     "drop the car off", at(2026, 3, 6, 10, 0)),
    ("remind me to hand the keys in on friday at ten", "Reminder set for 10 AM on Friday: hand the keys in.",
     "hand the keys in", at(2026, 3, 6, 10, 0)),
    ("remind me to phone the vet and then at eight", "Reminder set for 8 PM today: phone the vet.",
     "phone the vet", at(2026, 3, 3, 20, 0)),
    # the request said after what it is about, or with words of its own
    ("the window man comes at ten tomorrow so remind me at half nine",
     "Reminder set for 9:30 AM tomorrow: the window man comes at ten.", "the window man comes at ten",
     at(2026, 3, 4, 9, 30)),
    ("I always forget my pills, remind me at 9 to take them", "Reminder set for 9 PM today: take them.",
     "take them", at(2026, 3, 3, 21, 0)),
    ("I have to ring the bank at 4 pm, remind me", "Reminder set for 4 PM tomorrow: ring the bank.",
     "ring the bank", at(2026, 3, 4, 16, 0)),
    ("pop in a reminder for the vet at 11 am", "Reminder set for 11 AM tomorrow: the vet.", "the vet",
     at(2026, 3, 4, 11, 0)),
    ("let me know at 8 that the film is starting", "Reminder set for 8 PM today: the film is starting.",
     "the film is starting", at(2026, 3, 3, 20, 0)),
]


@pytest.mark.parametrize(("phrase", "said", "words", "rings"), REPLIES, ids=[r[0] for r in REPLIES])
def test_what_the_hub_says_back_and_when_it_rings(tmp_path: Path, phrase: str, said: str, words: str,
                                                  rings: float) -> None:
    skills = make(tmp_path)
    reply = skills.match(phrase)
    assert reply is not None, f"{phrase!r} went to the language model"
    assert (reply.intent, reply.text) == ("reminder_set", said)
    (data,) = reply.data["reminders"]
    assert (data["text"], data["at"]) == (words, rings)
    skills.clock.now = rings - 1
    assert skills.timers.due() == []
    skills.clock.now = rings
    assert [a.text for a in skills.timers.due()] == [f"Reminder: {words}."]


def test_without_a_time_it_asks_and_the_answer_sets_it(tmp_path: Path) -> None:
    skills = make(tmp_path)
    reply = skills.match("remind me to buy milk")
    assert (reply.intent, reply.text) == ("reminder_clarify", "When should I remind you?")
    assert skills.timers.alarms.all() == [], "a question sets nothing"
    assert skills.match("at 6 pm").text == "Reminder set for 6 PM tomorrow: buy milk."
    assert skills.match("remind me to buy eggs").intent == "reminder_clarify"
    assert skills.match("in an hour").text == "Reminder set for 1 hour from now: buy eggs."
    assert skills.match("remind me to ring the plumber").intent == "reminder_clarify"
    assert skills.match("tomorrow").text == "Sorry, when should I remind you? For example, at 6 PM or in an hour."
    assert skills.match("at 10").text == "Reminder set for 10 AM tomorrow: ring the plumber."
    assert skills.match("remind me to pay the window cleaner").intent == "reminder_clarify"
    assert skills.match("half past nine").text == "Reminder set for 9:30 PM today: pay the window cleaner."
    assert [r.text for r in skills.timers.alarms.all()] == ["buy eggs", "pay the window cleaner",
                                                             "ring the plumber", "buy milk"]


def test_the_answer_counts_only_in_its_room_and_only_for_a_while(tmp_path: Path) -> None:
    skills = make(tmp_path)
    assert skills.match("remind me to buy milk", room="kitchen").intent == "reminder_clarify"
    assert skills.match("at 6 pm") is None  # said at the hub
    assert skills.match("at 6 pm", room="kitchen").text == "Reminder set for 6 PM tomorrow: buy milk."
    assert skills.match("remind me to buy bread", room="kitchen").intent == "reminder_clarify"
    skills.clock.advance(60)
    assert skills.match("at 6 pm", room="kitchen") is None
    assert [(r.text, r.room) for r in skills.timers.alarms.all()] == [("buy milk", "kitchen")]


def test_remind_me_in_a_while_with_nothing_to_remind_is_a_timer(tmp_path: Path) -> None:
    skills = make(tmp_path)
    reply = skills.match("remind me in 20 minutes")
    assert (reply.intent, reply.text) == ("timer_set", "Timer set for 20 minutes.")
    assert skills.timers.alarms.all() == []


def test_list_and_cancel(tmp_path: Path) -> None:
    skills = make(tmp_path)
    assert skills.match("what reminders do I have").text == "You don't have any reminders."
    skills.match("remind me to take the bins out at 8 tomorrow")
    skills.match("remind me at 9 pm to call mum")
    listed = skills.match("what reminders do I have")
    assert (listed.intent, listed.text) == (
        "reminder_list", "You have 2 reminders: call mum at 9 PM today and take the bins out at 8 AM tomorrow.")
    assert skills.match("go through my reminders").text == listed.text
    skills.match("remind me to feed the cat at 7 pm")
    assert skills.match("nix the reminder to feed the cat").text == "Reminder cancelled: feed the cat at 7 PM tomorrow."
    assert skills.match("cancel my reminder").text == \
        "You have 2 reminders: call mum at 9 PM today and take the bins out at 8 AM tomorrow. " \
        "Which one should I cancel?"
    assert skills.match("the bins").text == "Reminder cancelled: take the bins out at 8 AM tomorrow."
    assert skills.match("cancel the reminder to call mum").text == "Reminder cancelled: call mum at 9 PM today."
    skills.match("remind me to feed the cat at 7 am")
    skills.match("remind me to buy milk at 6 pm")
    assert skills.match("cancel my reminders").text == "All 2 reminders cancelled."
    assert skills.timers.alarms.all() == []


def test_a_reminder_called_off_with_why_is_the_one_the_words_name(tmp_path: Path) -> None:
    skills = make(tmp_path)
    skills.match("remind me to call the dentist at 10 am tomorrow")
    skills.match("remind me to put the bins out at 9 pm")
    assert skills.match("I rang the dentist, drop the reminder").text == \
        "Reminder cancelled: call the dentist at 10 AM tomorrow."
    skills.match("remind me to call the dentist at 10 am tomorrow")
    assert skills.match("remove tonight's reminder").text == "Reminder cancelled: put the bins out at 9 PM today."
    assert skills.match("how do I delete a reminder on my phone") is None


def test_it_rings_in_its_room_repeats_and_stop_silences_it(tmp_path: Path) -> None:
    skills = make(tmp_path)
    skills.match("remind me in 5 minutes to turn the oven off", room="kitchen")
    skills.timers.ring_in_room("kitchen", True)
    rings = at(2026, 3, 3, 19, 25)
    heard = []
    while skills.clock() < rings + 25:
        skills.clock.advance(1)
        assert skills.timers.due(room="") == [], "the kitchen's reminder rings in the kitchen"
        heard += [(skills.clock() - rings, a.text) for a in skills.timers.due(room="kitchen")]
    assert heard == [(0.0, "Reminder: turn the oven off."), (10.0, "Reminder: turn the oven off."),
                     (20.0, "Reminder: turn the oven off.")]
    reply = skills.match("stop", room="kitchen")
    assert reply.intent == "stop" and len(reply.data["stopped_alarms"]) == 1
    assert skills.timers.alarms.all() == []


def test_a_reminder_set_by_another_process_rings_here(tmp_path: Path) -> None:
    clock = ManualClock(TUESDAY_EVENING.timestamp())
    hub = make(tmp_path, clock)
    make(tmp_path, clock).match("remind me at 8 pm to lock the back door")  # `appliance ask` on the folder
    clock.now = at(2026, 3, 3, 20, 0)
    assert [a.text for a in hub.timers.due()] == ["Reminder: lock the back door."]


@pytest.mark.parametrize("question", ["let me know what you think", "how do I get my phone to remind me",
                                      "why does my phone never remind me", "remind me how to make pancakes"])
def test_words_like_a_reminder_that_ask_something_else_are_the_models(tmp_path: Path, question: str) -> None:
    assert make(tmp_path).match(question) is None
