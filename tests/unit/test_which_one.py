"""Answers to "Which one should I cancel?" (or change) by reference: by place in the list just said, by
comparison, "both", and "the other one" once one of them was acted on; only in the room that asked and
within the conversation's idle window, never a guess."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from appliance.config import HomeAssistantConfig, SkillsConfig
from appliance.language import pack
from appliance.thinking.home_shopping import book
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers

TZ = timezone(timedelta(hours=1), "TEST")
NOW = datetime(2026, 3, 4, 15, 0, 0, tzinfo=TZ)  # a Wednesday afternoon
WINDOW_S = 300.0
TWO_ALARMS = ("set an alarm for 6:45 am tomorrow", "set an alarm for 9:30 am on saturday")
TWO_TIMERS = ("set a pasta timer for 10 minutes", "set an egg timer for 5 minutes")


@pytest.fixture
def skills(tmp_path: Path) -> LocalSkills:
    clock = ManualClock(NOW.timestamp())
    return LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock), clock, TZ,
                       lists=book(tmp_path, HomeAssistantConfig(), pack().skill("lists").say("default_list")),
                       follow_up_s=WINDOW_S)


def said(skills: LocalSkills, *requests: str, room: str = "kitchen") -> list[tuple[str, str]]:
    replies = [skills.match(request, room) for request in requests]
    return [(reply.intent, reply.text) if reply is not None else ("", "") for reply in replies]


def alarms(skills: LocalSkills) -> list[str]:
    return [f"{a.time[:5]} {a.date}" for a in skills.timers.alarms.all()]


def timers(skills: LocalSkills) -> list[tuple[str | None, float]]:
    return [(t.name, round(t.remaining(skills.clock()))) for t in skills.timers.all()]


@pytest.mark.parametrize(("answer", "kept"), [
    ("the first one", ["09:30 2026-03-07"]), ("the second", ["06:45 2026-03-05"]),
    ("the last one", ["06:45 2026-03-05"]), ("number two", ["06:45 2026-03-05"]),
    ("the earlier one", ["09:30 2026-03-07"]), ("the later one please", ["06:45 2026-03-05"]),
    ("the saturday one", ["06:45 2026-03-05"]), ("both", []), ("all of them", [])])
def test_an_alarm_is_said_by_its_place_its_time_or_all(skills: LocalSkills, answer: str, kept: list[str]) -> None:
    asked = said(skills, *TWO_ALARMS, "cancel the alarm", answer)
    assert asked[2] == ("alarm_clarify", "You have 2 alarms: 6:45 AM tomorrow and 9:30 AM on Saturday. "
                                         "Which one should I cancel?")
    assert asked[3][0] == "alarm_cancel"
    assert alarms(skills) == kept


def test_the_answer_names_what_was_cancelled_and_the_other_one_follows(skills: LocalSkills) -> None:
    assert said(skills, *TWO_ALARMS, "cancel the alarm", "the last one", "and the other one?")[3:] == [
        ("alarm_cancel", "Alarm for 9:30 AM on Saturday cancelled."),
        ("alarm_cancel", "Alarm for 6:45 AM tomorrow cancelled.")]
    assert alarms(skills) == []


def test_no_the_other_one_puts_the_first_back(skills: LocalSkills) -> None:
    said(skills, *TWO_ALARMS)
    (first, second) = skills.timers.alarms.all()
    assert said(skills, "cancel the alarm", "the saturday one", "no, the other one")[2] == \
        ("alarm_cancel", "Alarm for 6:45 AM tomorrow cancelled. Your alarm for 9:30 AM on Saturday is set again.")
    assert skills.timers.alarms.all() == [second]  # the very alarm, its id and day as they were
    assert first.id != second.id


def test_reminders_by_number_and_the_other_one(skills: LocalSkills) -> None:
    assert said(skills, "remind me to call mum at 5 pm", "remind me to take the bins out at 8 pm",
                "cancel the reminder", "number two", "what about the other one")[3:] == [
        ("reminder_cancel", "Reminder cancelled: take the bins out at 8 PM today."),
        ("reminder_cancel", "Reminder cancelled: call mum at 5 PM today.")]
    assert skills.timers.alarms.all() == []


def test_timers_by_place_and_length_for_a_cancel_and_a_change(skills: LocalSkills) -> None:
    assert said(skills, *TWO_TIMERS, "cancel the timer", "the second one")[2:] == [
        ("timer_clarify", "You have 2 timers: the egg timer and the pasta timer. Which one should I cancel?"),
        ("timer_cancel", "Pasta timer cancelled.")]
    assert timers(skills) == [("egg", 300)]
    said(skills, "set a pasta timer for 10 minutes")
    assert said(skills, "add two minutes to the timer", "the shorter one", "and the other one")[1:] == [
        ("timer_change", "Added 2 minutes. Your egg timer has 7 minutes left."),
        ("timer_change", "Added 2 minutes. Your pasta timer has 12 minutes left.")]
    assert timers(skills) == [("egg", 420), ("pasta", 720)]


def test_both_timers_changed_alike(skills: LocalSkills) -> None:
    assert said(skills, *TWO_TIMERS, "add two minutes to the timer", "both")[3][0] == "timer_change"
    assert timers(skills) == [("egg", 420), ("pasta", 720)]


def test_a_change_the_hub_gave_the_ringing_timer_goes_to_the_other_one(skills: LocalSkills) -> None:
    said(skills, *TWO_TIMERS)
    skills.clock.advance(301)  # type: ignore[attr-defined]  # the egg timer rings
    assert said(skills, "give it two more minutes", "no, the other one") == [
        ("timer_change", "Added 2 minutes. Your egg timer has 2 minutes left."),
        ("timer_change", "Added 2 minutes. Your pasta timer has 7 minutes left. The egg timer is back as it was.")]
    assert timers(skills) == [("egg", 0), ("pasta", 419)]
    assert [t.name for t in skills.timers.ringing()] == ["egg"]


def test_the_other_one_before_any_answer_is_asked_again(skills: LocalSkills) -> None:
    question = said(skills, *TWO_ALARMS, "cancel the alarm")[2]
    assert said(skills, "the other one") == [question]
    assert len(alarms(skills)) == 2


def test_the_other_one_of_three_is_asked_again(skills: LocalSkills) -> None:
    said(skills, *TWO_ALARMS, "set an alarm for 7 pm tomorrow")
    question = said(skills, "cancel the alarm")[0]
    assert said(skills, "the other one", "the third one")[0] == question  # never a guess
    assert alarms(skills) == ["06:45 2026-03-05", "19:00 2026-03-05"]
    said(skills, *TWO_TIMERS)
    assert said(skills, "cancel the timer", "the fifth one")[1][0] == "timer_clarify"
    assert len(skills.timers.all()) == 2


def test_the_other_one_with_nothing_to_refer_to_is_no_skills(skills: LocalSkills) -> None:
    assert said(skills, "the other one", "no, the other one", "the first one") == [("", "")] * 3
    said(skills, *TWO_ALARMS)
    assert said(skills, "cancel the 6:45 alarm", "the other one")[1] == ("", "")  # the request fitted one
    assert alarms(skills) == ["09:30 2026-03-07"]


def test_after_the_window_the_other_one_refers_to_nothing(skills: LocalSkills) -> None:
    said(skills, *TWO_ALARMS, "cancel the alarm", "the first one")
    skills.clock.advance(WINDOW_S + 1)  # type: ignore[attr-defined]
    assert said(skills, "and the other one") == [("", "")]
    assert alarms(skills) == ["09:30 2026-03-07"]


def test_only_in_the_room_that_asked(skills: LocalSkills) -> None:
    said(skills, *TWO_ALARMS, "cancel the alarm")
    assert said(skills, "the first one", room="lounge") == [("", "")]
    assert said(skills, "the first one")[0][0] == "alarm_cancel"
    assert said(skills, "the other one", room="lounge") == [("", "")]
    assert alarms(skills) == ["09:30 2026-03-07"]


def test_an_unrelated_request_drops_the_question(skills: LocalSkills) -> None:
    said(skills, *TWO_ALARMS, *TWO_TIMERS)
    assert said(skills, "cancel the alarm", "what time is it", "the first one")[1:] == [
        ("time", "It's 3:00 PM."), ("", "")]
    assert said(skills, "cancel the timer", "what time is it", "the first one")[2] == ("", "")
    assert len(alarms(skills)) == 2 and len(timers(skills)) == 2
