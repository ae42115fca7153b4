"""The date or the weekday of a day other than today, tomorrow and yesterday ("what's the date next Friday", "what
day is the 20th") is answered from the hub's clock; a question about a day only the model could know ("what's the
date of Easter next year?") is still the model's."""

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


# (said, what is heard, the date it is about) on Wednesday 4 March 2026
DAYS = [
    # a weekday named is the first such day after today, "next" or "this" said or not
    ("what is the date next friday", "Friday is March 6th.", "2026-03-06"),
    ("What's the date this Saturday?", "Saturday is March 7th.", "2026-03-07"),
    ("what date is it on sunday", "Sunday is March 8th.", "2026-03-08"),
    ("what's the date next wednesday", "Wednesday is March 11th.", "2026-03-11"),
    ("tell me the date next tuesday", "Tuesday is March 10th.", "2026-03-10"),
    ("when is next friday", "Friday is March 6th.", "2026-03-06"),
    ("what date does the weekend start", "Saturday is March 7th.", "2026-03-07"),  # a group: its first day
    # by their distance from today
    ("what's the date the day after tomorrow", "The day after tomorrow is Friday, March 6th, 2026.", "2026-03-06"),
    ("what day is it the day after tomorrow", "The day after tomorrow is Friday.", "2026-03-06"),
    ("what was the date yesterday", "Yesterday was Tuesday, March 3rd, 2026.", "2026-03-03"),
    ("what was the date the day before yesterday", "The day before yesterday was Monday, March 2nd, 2026.",
     "2026-03-02"),
    ("what date will it be in ten days", "In 10 days it's Saturday, March 14th, 2026.", "2026-03-14"),
    ("what day will it be in a fortnight", "In 14 days it's Wednesday.", "2026-03-18"),
    ("what's the date a week from today", "In 7 days it's Wednesday, March 11th, 2026.", "2026-03-11"),
    ("what date is it in one day", "Tomorrow is Thursday, March 5th, 2026.", "2026-03-05"),
    ("what day is it a week today", "In 7 days it's Wednesday.", "2026-03-11"),
    ("what's the date a week tomorrow", "In 8 days it's Thursday, March 12th, 2026.", "2026-03-12"),
    ("which date is it next monday", "Monday is March 9th.", "2026-03-09"),
    # a day of the month: the next to come, or the last gone when asked in the past
    ("what day of the week is the 20th", "The 20th is a Friday.", "2026-03-20"),
    ("what day does the twentieth fall on", "The 20th is a Friday.", "2026-03-20"),
    ("what day was the 1st", "The 1st was a Sunday.", "2026-03-01"),
    ("what day is the second", "April 2nd is a Thursday.", "2026-04-02"),
    ("which day of the week is the twenty fifth of december", "December 25th is a Friday.", "2026-12-25"),
    ("what day is january the 5th", "January 5th, 2027 is a Tuesday.", "2027-01-05"),
    # today, tomorrow and yesterday as ever
    ("what's the date tomorrow", "Tomorrow is Thursday, March 5th, 2026.", "2026-03-05"),
    ("what day is it", "It's Wednesday.", "2026-03-04"),
    ("what day was yesterday", "Yesterday was Tuesday.", "2026-03-03"),
]


@pytest.mark.parametrize(("said", "heard", "day"), DAYS, ids=[d[0] for d in DAYS])
def test_the_date_or_weekday_of_another_day(tmp_path: Path, said: str, heard: str, day: str) -> None:
    reply = make(tmp_path).match(said)
    assert reply is not None, f"{said!r} went to the language model"
    assert reply.intent in ("date", "day")
    assert (reply.text, reply.data["date"]) == (heard, day)


@pytest.mark.parametrize("said", [
    "what's the date of Easter next year?", "what day is christmas", "what day is it in Tokyo",
    "tell me the date of the next full moon", "what date is mother's day", "what day of the week was I born on",
    "when is the next bank holiday", "what was the date of the battle of hastings", "what day is the 31st of april",
    "what's the date next year",
])
def test_a_day_only_the_model_knows_is_the_models(tmp_path: Path, said: str) -> None:
    assert make(tmp_path).match(said) is None


def test_an_alarm_is_set_for_a_day_said_by_its_distance(tmp_path: Path) -> None:
    skills = make(tmp_path)
    assert skills.match("set an alarm for 7 am the day after tomorrow").text == "Alarm set for 7 AM on Friday."
    assert skills.match("wake me up at 6 in three days").text == "Alarm set for 6 AM on Saturday."
