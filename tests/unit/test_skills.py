"""Skills: a table of spoken phrasings (with recognition-style errors) and the intent and values each gives."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from appliance.config import SkillsConfig
from appliance.thinking.skillparse import say_time
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers

TZ = timezone(timedelta(hours=2), "TEST")
NOW = datetime(2025, 3, 4, 19, 20, 0, tzinfo=TZ)  # a Tuesday evening
TWO = [(480, "pasta"), (600, None)]
ONE = [(480, "pasta")]


def make(tmp_path: Path, given: list[tuple[float, str | None]] = (), **cfg: object) -> LocalSkills:
    clock = ManualClock(NOW.timestamp())
    skills = LocalSkills(SkillsConfig(**cfg), Timers(tmp_path, clock=clock), clock, TZ)
    for seconds, name in given:
        skills.timers.add(seconds, name)
    return skills


# (phrase, timers already running, intent, values)
#   timer_set: [(seconds, name), ...] created; timer_cancel: names (or seconds) cancelled;
#   timer_left / timer_list: names reported; time: the reply; date / day: the ISO date.
TABLE = [
    # the clock
    ("what time is it", [], "time", "It's 7:20 PM."),
    ("What's the time?", [], "time", "It's 7:20 PM."),
    ("whats the time now", [], "time", "It's 7:20 PM."),
    ("hey jarvis what time is it", [], "time", "It's 7:20 PM."),
    ("um what time is it please", [], "time", "It's 7:20 PM."),
    ("do you know what time it is", [], "time", "It's 7:20 PM."),
    ("tell me the time", [], "time", "It's 7:20 PM."),
    ("remind me what time it is", [], "time", "It's 7:20 PM."),
    ("is it gone half six yet", [], "time", "It's 7:20 PM."),
    ("is it nearly midnight", [], "time", "It's 7:20 PM."),
    ("what's the date", [], "date", "2025-03-04"),
    ("what is today's date", [], "date", "2025-03-04"),
    ("remind me what the date is", [], "date", "2025-03-04"),
    ("whats the date today", [], "date", "2025-03-04"),
    ("what is the date tomorrow", [], "date", "2025-03-05"),
    ("what day is it", [], "day", "2025-03-04"),
    ("what day of the week is it", [], "day", "2025-03-04"),
    ("what day is it tomorrow", [], "day", "2025-03-05"),
    ("what day was yesterday", [], "day", "2025-03-03"),
    ("is it tuesday", [], "day", "2025-03-04"),
    ("whats todays date", [], "date", "2025-03-04"),
    ("what year is it", [], "date", "2025-03-04"),
    # setting timers
    ("set a timer for ten minutes", [], "timer_set", [(600, None)]),
    ("Set a timer for 10 minutes.", [], "timer_set", [(600, None)]),
    ("set a timer for 10 min", [], "timer_set", [(600, None)]),
    ("Set a 5-minute timer.", [], "timer_set", [(300, None)]),
    ("put a timer on the roast for an hour and a half", [], "timer_set", [(5400, "roast")]),
    ("put a timer on for ten minutes", [], "timer_set", [(600, None)]),
    ("the rice wants eighteen minutes, keep an eye on it", [], "timer_set", [(1080, "rice")]),
    ("spuds are on, twenty minutes", [], "timer_set", [(1200, "spuds")]),
    ("five minute timer", [], "timer_set", [(300, None)]),
    ("timer for twenty five minutes", [], "timer_set", [(1500, None)]),
    ("set a timer for a minute and a half", [], "timer_set", [(90, None)]),
    ("put a timer on for seven", [], "timer_set", [(420, None)]),  # a bare number is minutes
    ("set a pasta timer for twelve, love", [], "timer_set", [(720, "pasta")]),
    ("set a timer for half an hour", [], "timer_set", [(1800, None)]),
    ("set a timer for an hour and ten minutes", [], "timer_set", [(4200, None)]),
    ("set a timer for one and a half hours", [], "timer_set", [(5400, None)]),
    ("Set a timer for 1.5 minutes.", [], "timer_set", [(90, None)]),
    ("set a timer for ninety seconds", [], "timer_set", [(90, None)]),
    ("set a timer for two minutes thirty", [], "timer_set", [(150, None)]),
    ("set a timer for an hour thirty", [], "timer_set", [(5400, None)]),
    ("start a timer for a quarter of an hour", [], "timer_set", [(900, None)]),
    ("set a timer for a hundred and twenty seconds", [], "timer_set", [(120, None)]),
    ("can you set a timer for three minutes please", [], "timer_set", [(180, None)]),
    ("set a pasta timer for 8 minutes", [], "timer_set", [(480, "pasta")]),
    ("set a timer for eight minutes called pasta", [], "timer_set", [(480, "pasta")]),
    ("set a timer for the eggs for 6 minutes", [], "timer_set", [(360, "eggs")]),
    ("set a ten minute timer for the roast", [], "timer_set", [(600, "roast")]),
    ("set a pasta timer for 8 minutes and a sauce timer for 20 minutes", [], "timer_set",
     [(480, "pasta"), (1200, "sauce")]),
    ("set two timers one for five minutes and one for ten minutes", [], "timer_set", [(300, None), (600, None)]),
    ("set timers for 5 and 10 minutes", [], "timer_set", [(300, None), (600, None)]),
    ("remind me in 20 minutes", [], "timer_set", [(1200, None)]),
    ("countdown 30 seconds", [], "timer_set", [(30, None)]),
    ("wake me up in twenty minutes", [], "timer_set", [(1200, None)]),
    # what recognisers make of it
    ("set a time her for five minutes", [], "timer_set", [(300, None)]),
    ("set a tiger for three minutes", [], "timer_set", [(180, None)]),
    ("set a time for ten minutes", [], "timer_set", [(600, None)]),
    ("set a timer for for minutes", [], "timer_set", [(240, None)]),
    ("set a timer for to minutes", [], "timer_set", [(120, None)]),
    ("set a timer for twenty minuets", [], "timer_set", [(1200, None)]),
    ("set a timer for fifteen minits", [], "timer_set", [(900, None)]),
    ("set timer 10 minutes", [], "timer_set", [(600, None)]),
    ("hey jarvis set a timer for forty five minutes", [], "timer_set", [(2700, None)]),
    ("set a 10min timer", [], "timer_set", [(600, None)]),
    # questions back, never the model
    ("set a timer for ten point five", [], "timer_clarify", None),
    ("set a timer", [], "timer_clarify", None),
    ("set a timer for a few minutes", [], "timer_clarify", None),
    ("set a timer for ten", [], "timer_set", [(600, None)]),  # said back as "10 minutes"
    ("set a timer for thirty hours", [], "timer_clarify", None),
    ("timer", [], "timer_clarify", None),
    ("cancel the timer", TWO, "timer_clarify", None),
    # how long, which, cancel
    ("how much time is left", TWO, "timer_left", ["pasta", None]),
    ("how long is left on the pasta timer", TWO, "timer_left", ["pasta"]),
    ("how much longer", ONE, "timer_left", ["pasta"]),
    ("how am I doing for time", ONE, "timer_left", ["pasta"]),
    ("is my timer done", ONE, "timer_left", ["pasta"]),
    ("what's the timer at", ONE, "timer_left", ["pasta"]),
    ("what is left on my timer", ONE, "timer_left", ["pasta"]),
    ("what's the time left", TWO, "timer_left", ["pasta", None]),
    ("what timers do I have", TWO, "timer_list", ["pasta", None]),
    ("do i have any timers", [], "timer_list", []),
    ("cancel the pasta timer", TWO, "timer_cancel", ["pasta"]),
    ("cancel the 10 minute timer", TWO, "timer_cancel", [600]),
    ("cancel all timers", TWO, "timer_cancel", ["pasta", 600]),
    ("cancel the timer", ONE, "timer_cancel", ["pasta"]),
    ("stop the timer", ONE, "timer_cancel", ["pasta"]),
    ("scrap the pasta timer", TWO, "timer_cancel", ["pasta"]),
    ("ditch that timer", ONE, "timer_cancel", ["pasta"]),
    ("delete the tiger", ONE, "timer_cancel", ["pasta"]),
    ("cancel pasta", TWO, "timer_cancel", ["pasta"]),
    ("turn off the pasta timer", TWO, "timer_cancel", ["pasta"]),
    ("cancel the paste a timer", TWO, "timer_cancel", ["pasta"]),
    # stop: silence, end of the turn
    ("stop", [], "stop", None),
    ("Stop.", [], "stop", None),
    ("cancel", [], "stop", None),
    ("never mind", [], "stop", None),
    ("nevermind", [], "stop", None),
    ("be quiet", [], "stop", None),
    ("okay stop stop", [], "stop", None),
    ("hey jarvis shut up", [], "stop", None),
    ("stop it, stop it", [], "stop", None),
    ("cancel that, never mind", [], "stop", None),
]


def test_table_is_large_enough() -> None:
    assert len({row[0] for row in TABLE}) >= 40
    assert {row[2] for row in TABLE} == {"time", "date", "day", "timer_set", "timer_clarify", "timer_left",
                                          "timer_list", "timer_cancel", "stop"}


@pytest.mark.parametrize(("phrase", "given", "intent", "values"), TABLE, ids=[r[0] for r in TABLE])
def test_phrase(tmp_path: Path, phrase: str, given: list, intent: str, values: object) -> None:
    skills = make(tmp_path, given)
    before = {t.id: t for t in skills.timers.all()}
    reply = skills.match(phrase)
    assert reply is not None, f"{phrase!r} went to the language model"
    assert reply.intent == intent, reply
    assert reply.end_turn == (intent == "stop")
    assert intent == "stop" or reply.text.strip(), "every answer but stop says something"
    if intent == "time":
        assert reply.text == values
    elif intent in ("date", "day"):
        assert reply.data["date"] == values
    elif intent == "timer_set":
        made = [(t["duration_s"], t["name"]) for t in reply.data["timers"]]
        assert made == [(float(s), n) for s, n in values]
        stored = [(t.duration_s, t.name) for t in skills.timers.all() if t.id not in before]
        assert sorted(stored, key=str) == sorted(made, key=str)
        assert all(t.ends_at == NOW.timestamp() + t.duration_s for t in skills.timers.all())
    elif intent == "timer_cancel":
        gone = [before[i] for i in reply.data["cancelled"]]
        assert [t.name or t.duration_s for t in gone] == values
        assert {t.id for t in skills.timers.all()} == set(before) - set(reply.data["cancelled"])
    elif intent in ("timer_left", "timer_list"):
        assert [t["name"] for t in reply.data["timers"]] == values
    elif intent == "timer_clarify":
        assert reply.text.endswith("?")
        assert {t.id for t in skills.timers.all()} == set(before), "a question changes nothing"


TIMER_LIKE = [
    "set a timer", "timer please", "set a timer for", "set a timer for banana", "set the timer for some time",
    "set a timer for a while", "start a timer", "make a timer for the pizza", "i need a timer",
    "set a timer for 5", "set a timer for zero minutes", "set an alarm for 20 minutes", "wake me up in an hour",
    "cancel the timer", "cancel my timers", "cancel the cake timer", "how long is left on my timer", "what timers are running",
    "set a timer for forty eight hours", "countdown", "set a tiger for ten minutes", "delete all the timers",
]


@pytest.mark.parametrize("given", [[], ONE, TWO], ids=["none", "one", "two"])
@pytest.mark.parametrize("phrase", TIMER_LIKE)
def test_timer_phrasing_never_reaches_the_model(tmp_path: Path, phrase: str, given: list) -> None:
    reply = make(tmp_path, given).match(phrase)
    assert reply is not None, f"{phrase!r} went to the language model"
    assert reply.intent.startswith("timer_"), reply
    if reply.intent not in ("timer_set", "timer_cancel"):  # it must not claim what it did not do
        assert not re.search(r"\bset for\b|\btimers? set\b|\bcancelled\b", reply.text), reply.text


NOT_SKILLS = [
    "what's the weather like", "how fast is a tiger", "what is the time complexity of quicksort",
    "what time does the bakery open", "tell me a joke", "who wrote hamlet", "how long do i boil an egg",
    "what is a timer", "set the table for dinner", "cancel my subscription", "how long is the nile",
    "how many minutes are in an hour", "what day is christmas", "stop the war in my head", "",
    "how does a kitchen timer work", "who invented the egg timer", "what is the best timer app",
    "   ", "...", "will the alarm wake the baby", "will a timer work in a power cut",
    "are timers on microwaves accurate", "is it worth putting a timer on the porch light",
    "what is the ideal timer length for studying",
]


@pytest.mark.parametrize("phrase", NOT_SKILLS)
def test_other_questions_go_to_the_model(tmp_path: Path, phrase: str) -> None:
    assert make(tmp_path, ONE).match(phrase) is None


def test_clarifying_question_takes_the_answer(tmp_path: Path) -> None:
    skills = make(tmp_path)
    assert skills.match("set a pasta timer").intent == "timer_clarify"
    reply = skills.match("eight minutes")
    assert reply.intent == "timer_set"
    assert [(t.name, t.duration_s) for t in skills.timers.all()] == [("pasta", 480.0)]
    # an answer given after the question has expired is not taken as a timer
    assert skills.match("set a timer").intent == "timer_clarify"
    skills.clock.advance(120)
    assert skills.match("ten minutes") is None
    assert len(skills.timers.all()) == 1


def test_a_bare_number_answering_how_long_is_minutes_as_the_question_gave(tmp_path: Path) -> None:
    skills = make(tmp_path)
    assert skills.match("set an egg timer").text == "How long should the timer be, for example ten minutes?"
    reply = skills.match("six")
    assert reply.text == "Egg timer set for 6 minutes."
    assert skills.match("set a timer").intent == "timer_clarify"
    assert skills.match("about six or so").intent == "timer_clarify"  # not a length: asked again


def test_a_question_back_is_answered_in_the_room_that_was_asked(tmp_path: Path) -> None:
    skills = make(tmp_path)
    assert skills.match("set a pasta timer", room="kitchen").intent == "timer_clarify"
    assert skills.match("eight minutes") is None  # said at the hub: not the kitchen's answer
    reply = skills.match("eight minutes", room="kitchen")
    assert reply.intent == "timer_set"
    assert [(t.name, t.duration_s, t.room) for t in skills.timers.all()] == [("pasta", 480.0, "kitchen")]


def test_cancel_question_takes_the_answer(tmp_path: Path) -> None:
    skills = make(tmp_path, TWO)
    assert skills.match("cancel the timer").intent == "timer_clarify"
    reply = skills.match("the pasta one")
    assert reply.intent == "timer_cancel"
    assert [t.name for t in skills.timers.all()] == [None]
    assert skills.match("cancel the cake timer").intent == "timer_clarify"
    assert skills.match("yes").intent == "timer_cancel"
    assert skills.timers.all() == []


def test_stop_silences_a_ringing_timer_but_not_a_running_one(tmp_path: Path) -> None:
    skills = make(tmp_path, [(60, "tea"), (600, None)])
    skills.clock.advance(61)
    assert [a.timer.name for a in skills.timers.due()] == ["tea"]
    reply = skills.match("stop")
    assert reply.intent == "stop" and reply.end_turn and reply.text == ""
    assert [t.duration_s for t in skills.timers.all()] == [600.0]
    assert reply.data["stopped_timers"] != []
    skills.clock.advance(30)
    assert skills.timers.due() == []


def test_disabled_skills_answer_nothing(tmp_path: Path) -> None:
    skills = make(tmp_path, enabled=False)
    assert skills.match("what time is it") is None
    assert skills.match("set a timer for ten minutes") is None


@pytest.mark.parametrize(("hh", "mm", "style", "clock", "spoken"), [
    (19, 20, "digits", 12, "7:20 PM"), (7, 5, "digits", 12, "7:05 AM"), (0, 0, "digits", 12, "12:00 AM"),
    (12, 30, "digits", 12, "12:30 PM"), (19, 20, "digits", 24, "19:20"), (7, 5, "digits", 24, "7:05"),
    (19, 20, "words", 12, "twenty past seven"), (19, 0, "words", 12, "seven o'clock"),
    (19, 15, "words", 12, "quarter past seven"), (19, 30, "words", 12, "half past seven"),
    (19, 45, "words", 12, "quarter to eight"), (23, 50, "words", 12, "ten to twelve"),
    (19, 23, "words", 12, "twenty-three minutes past seven"), (19, 59, "words", 12, "one minute to eight"),
    (0, 0, "words", 12, "midnight"), (12, 0, "words", 24, "noon"), (19, 20, "words", 24, "nineteen twenty"),
    (7, 5, "words", 24, "seven oh five"), (19, 0, "words", 24, "nineteen hundred"),
])
def test_spoken_time(hh: int, mm: int, style: str, clock: int, spoken: str) -> None:
    assert say_time(NOW.replace(hour=hh, minute=mm), style, clock) == spoken


def test_time_follows_config_and_time_zone(tmp_path: Path) -> None:
    skills = make(tmp_path, time_style="words", clock=12)
    assert skills.match("what time is it").text == "It's twenty past seven."
    utc = LocalSkills(SkillsConfig(), skills.timers, skills.clock, UTC)
    assert utc.match("what time is it").text == "It's 5:20 PM."
    assert skills.match("what's the date").text == "It's Tuesday, March 4th, 2025."


def test_system_time_zone_is_used_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "Asia/Kolkata")  # UTC+5:30, no daylight saving
    time.tzset()
    try:
        clock = ManualClock(datetime(2025, 3, 4, 12, 0, tzinfo=UTC).timestamp())
        skills = LocalSkills(SkillsConfig(clock=24), Timers(tmp_path, clock=clock), clock)
        assert skills.match("what time is it").text == "It's 17:30."
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_long_list_of_timers_is_cut_short_when_spoken(tmp_path: Path) -> None:
    skills = make(tmp_path, [(60 * (i + 1), None) for i in range(7)])
    reply = skills.match("what timers do i have")
    assert reply.text == ("You have 7 timers: the 1 minute timer has 1 minute left, the 2 minute timer has "
                          "2 minutes left, the 3 minute timer has 3 minutes left, the 4 minute timer has "
                          "4 minutes left and 3 more.")
    assert len(reply.data["timers"]) == 7


def test_the_name_people_add_is_the_configured_wake_word(tmp_path: Path) -> None:
    clock = ManualClock(NOW.timestamp())
    alexa = LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock), clock, TZ, wake=("alexa",))
    assert alexa.match("alexa what time is it").intent == "time"
    assert alexa.match("what time is it alexa").intent == "time"
    assert alexa.match("ok alexa stop").intent == "stop"
    assert make(tmp_path).match("stop jarvis").intent == "stop"  # the default model's name
    other = alexa.match("stop jarvis")  # another name is not this appliance's: no plain stop
    assert other is None or other.intent != "stop"
