"""Alarms and reminders asked of one day ("what alarms do I have tomorrow", "any reminders for tomorrow", "what's
on for Saturday") are answered for that day only, and of the weekend for its two days; asked without a day, all
of them, as ever."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from appliance.config import SkillsConfig
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 3, 4, 15, 0, tzinfo=LONDON)  # a Wednesday afternoon


def make(tmp_path: Path) -> LocalSkills:
    clock = ManualClock(NOW.timestamp())
    return LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock), clock, LONDON)


@pytest.fixture
def household(tmp_path: Path) -> LocalSkills:
    skills = make(tmp_path)
    for request in ("set an alarm for 6:45 tomorrow", "set an alarm for 9:30 am on saturday",
                    "set an alarm for 7 am on weekdays", "remind me to call the dentist at 10 am tomorrow",
                    "remind me to put the bins out at 8 pm"):
        assert skills.match(request).intent in ("alarm_set", "reminder_set"), request
    return skills


# (asked, what is heard, the date it is about) on Wednesday 4 March 2026
ONE_DAY = [
    ("what alarms do I have tomorrow", "Tomorrow you have 2 alarms, at 6:45 AM and 7 AM.", "2026-03-05"),
    ("Is my alarm set for tomorrow?", "Tomorrow you have 2 alarms, at 6:45 AM and 7 AM.", "2026-03-05"),
    ("is there an alarm on Saturday", "On Saturday you have an alarm at 9:30 AM.", "2026-03-07"),
    ("do I have an alarm on monday", "On Monday you have an alarm at 7 AM.", "2026-03-09"),
    ("what alarms do I have on sunday", "You have no alarms on Sunday.", "2026-03-08"),
    ("any reminders for tomorrow", "Tomorrow you have one reminder: call the dentist at 10 AM.", "2026-03-05"),
    ("do I have any reminders today", "Today you have one reminder: put the bins out at 8 PM.", "2026-03-04"),
    ("what reminders do I have on friday", "You have no reminders on Friday.", "2026-03-06"),
    ("what's on for Saturday", "On Saturday you have an alarm at 9:30 AM.", "2026-03-07"),
    ("have I got anything on tomorrow",
     "Tomorrow you have 2 alarms, at 6:45 AM and 7 AM, and one reminder: call the dentist at 10 AM.", "2026-03-05"),
    ("is there anything on tonight", "Today you have one reminder: put the bins out at 8 PM.", "2026-03-04"),
    ("what's on the day after tomorrow", "On Friday you have an alarm at 7 AM.", "2026-03-06"),
    ("what's on on sunday", "You have no alarms or reminders on Sunday.", "2026-03-08"),
    ("what am I meant to be doing tonight", "Today you have one reminder: put the bins out at 8 PM.", "2026-03-04"),
    ("what are we supposed to be doing on friday", "On Friday you have an alarm at 7 AM.", "2026-03-06"),
]


@pytest.mark.parametrize(("asked", "heard", "day"), ONE_DAY, ids=[d[0] for d in ONE_DAY])
def test_asked_of_one_day_that_day_only(household: LocalSkills, asked: str, heard: str, day: str) -> None:
    reply = household.match(asked)
    assert reply is not None, f"{asked!r} went to the language model"
    assert reply.intent in ("alarm_list", "reminder_list")
    assert (reply.text, reply.data["date"]) == (heard, day)
    assert len(household.timers.alarms.all()) == 5, "a question changes nothing"


@pytest.mark.parametrize(("asked", "heard"), [
    ("Any alarms this weekend?", "On Saturday you have an alarm at 9:30 AM."),
    ("what's on at the weekend", "On Saturday you have an alarm at 9:30 AM."),
    ("do I have reminders this weekend", "You have no reminders on Saturday and on Sunday."),
])
def test_asked_of_the_weekend_its_two_days(household: LocalSkills, asked: str, heard: str) -> None:
    reply = household.match(asked)
    assert reply is not None and reply.text == heard
    assert reply.data["dates"] == ["2026-03-07", "2026-03-08"]


def test_asked_without_a_day_all_of_them(household: LocalSkills) -> None:
    assert household.match("what alarms do I have").text == \
        "You have 3 alarms: 6:45 AM tomorrow, 7 AM on weekdays and 9:30 AM on Saturday."
    assert household.match("what reminders do I have").text == \
        "You have 2 reminders: put the bins out at 8 PM today and call the dentist at 10 AM tomorrow."


def test_with_none_kept_it_says_so_whatever_the_day(tmp_path: Path) -> None:
    skills = make(tmp_path)
    assert skills.match("what alarms do I have tomorrow").text == "You don't have any alarms."
    assert skills.match("any reminders for saturday").text == "You don't have any reminders."
    assert skills.match("what's on for Saturday").text == "You have no alarms or reminders on Saturday."


@pytest.mark.parametrize("asked", [
    "what's on TV on Saturday", "what's on at the cinema tomorrow", "is there anything on the telly tonight",
    "what is on tomorrow's weather forecast",
])
def test_what_is_on_elsewhere_is_the_models(household: LocalSkills, asked: str) -> None:
    assert household.match(asked) is None
