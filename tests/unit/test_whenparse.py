"""Times of day and days read out of recognised words, and the local date and time they come to."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from appliance.language import pack
from appliance.thinking.skillparse import SkillParser
from appliance.thinking.whenparse import WhenParser, resolve

WORDS = pack()
PARSE = SkillParser(WORDS)
WHEN = WhenParser(PARSE, WORDS.schedule.when)
LONDON = ZoneInfo("Europe/London")


def read(text: str) -> tuple[int, int, bool] | None:
    found = WHEN.time_of_day(PARSE.normalize(text))
    return None if found is None else (found.hour, found.minute, found.ambiguous)


@pytest.mark.parametrize(("text", "time_of_day"), [
    ("half past six", (6, 30, True)), ("quarter past six", (6, 15, True)), ("quarter to seven", (6, 45, True)),
    ("a quarter to seven", (6, 45, True)), ("twenty past six", (6, 20, True)),
    ("ten minutes to seven", (6, 50, True)), ("twenty five to eight", (7, 35, True)), ("ten to one", (12, 50, True)),
    ("six thirty", (6, 30, True)), ("six oh five", (6, 5, True)), ("seven forty five", (7, 45, True)),
    ("6:30", (6, 30, True)), ("06:30", (6, 30, False)), ("18:45", (18, 45, False)), ("6.30", (6, 30, True)),
    ("at 7", (7, 0, True)), ("7 o'clock", (7, 0, True)), ("seven o'clock", (7, 0, True)),
    ("7 a.m.", (7, 0, False)), ("7 am", (7, 0, False)), ("7am", (7, 0, False)), ("seven am", (7, 0, False)),
    ("seven a m", (7, 0, False)), ("5 p.m.", (17, 0, False)), ("5pm", (17, 0, False)), ("12 pm", (12, 0, False)),
    ("12 am", (0, 0, False)), ("7:30 pm", (19, 30, False)), ("nineteen thirty", (19, 30, False)),
    ("half six", (6, 30, True)), ("at half 9", (9, 30, True)), ("half twelve", (12, 30, True)),
    ("half seven in the evening", (19, 30, False)), ("half past eleven", (11, 30, True)),
    ("in half an hour", None), ("half a minute", None), ("half six minutes", None),
    ("noon", (12, 0, False)), ("midday", (12, 0, False)), ("midnight", (0, 0, False)),
    ("at 7 in the evening", (19, 0, False)), ("at six tomorrow morning", (6, 0, False)),
    ("at 9 tonight", (21, 0, False)), ("tomorrow morning", (9, 0, False)),
    ("in 20 minutes", None), ("buy 2 eggs", None), ("for 10 minutes", None), ("remind me to call mum", None),
])
def test_time_of_day(text: str, time_of_day: tuple | None) -> None:
    assert read(text) == time_of_day


@pytest.mark.parametrize(("text", "offset", "weekday", "repeat"), [
    ("tomorrow", 1, None, ()), ("today", 0, None, ()), ("tonight", 0, None, ()), ("on monday", None, 0, ()),
    ("next friday", None, 4, ()), ("on weekdays", None, None, (0, 1, 2, 3, 4)), ("every weekday", None, None,
                                                                                  (0, 1, 2, 3, 4)),
    ("at weekends", None, None, (5, 6)), ("every day", None, None, tuple(range(7))),
    ("daily", None, None, tuple(range(7))), ("every morning", None, None, tuple(range(7))),
    ("every monday", None, None, (0,)), ("mondays", None, None, (0,)),
    ("every monday and friday", None, None, (0, 4)), ("", None, None, ()),
    ("yesterday", -1, None, ()), ("the day after tomorrow", 2, None, ()), ("the day before yesterday", -2, None, ()),
    ("in 3 days", 3, None, ()), ("in a week", 7, None, ()), ("two weeks from now", 14, None, ()),
    ("in ten days time", 10, None, ()), ("a week from today", 7, None, ()), ("this saturday", None, 5, ()),
    ("every day after work", None, None, tuple(range(7))), ("in the morning", None, None, ()),
])
def test_days(text: str, offset: int | None, weekday: int | None, repeat: tuple) -> None:
    days = WHEN.days(PARSE.normalize(text))
    assert (days.offset, days.weekday, days.repeat) == (offset, weekday, repeat)


@pytest.mark.parametrize(("now", "text", "first"), [
    ((2026, 3, 3, 19, 20), "at 8", (date(2026, 3, 3), time(20, 0))),   # the next 8 o'clock to come: tonight
    ((2026, 3, 3, 7, 0), "at 6", (date(2026, 3, 3), time(18, 0))),
    ((2026, 3, 3, 19, 20), "at 6", (date(2026, 3, 4), time(6, 0))),
    ((2026, 3, 3, 19, 20), "at 6 tomorrow", (date(2026, 3, 4), time(6, 0))),
    ((2026, 3, 3, 19, 20), "at 6 on weekdays", (date(2026, 3, 4), time(6, 0))),  # repeating: the morning
    ((2026, 3, 3, 5, 0), "at 6 on weekdays", (date(2026, 3, 3), time(6, 0))),
    ((2026, 3, 6, 19, 20), "at 6 on weekdays", (date(2026, 3, 9), time(6, 0))),  # Friday evening: Monday
    ((2026, 3, 3, 19, 20), "at 7 am on tuesday", (date(2026, 3, 10), time(7, 0))),  # passed today: next week
])
def test_first_occurrence(now: tuple, text: str, first: tuple) -> None:
    tokens = PARSE.normalize(text)
    when = WHEN.time_of_day(tokens)
    assert when is not None
    assert resolve(when, WHEN.days(tokens), datetime(*now, tzinfo=LONDON).timestamp(), "Europe/London") == first


def test_a_half_before_the_hour_and_minutes_after_oclock_are_read_where_the_words_say_so() -> None:
    said_so = dataclasses.replace(WORDS.schedule.when, half_to=frozenset({"halb"}), minutes_after_oclock=True)
    when = WhenParser(PARSE, said_so)

    def at(text: str) -> tuple[int, int] | None:
        found = when.time_of_day(PARSE.normalize(text))
        return None if found is None else (found.hour, found.minute)

    assert at("at halb seven") == (6, 30) and at("halb one") == (12, 30)
    assert at("at 19 oclock 30") == (19, 30) and at("at 7 oclock") == (7, 0)
    assert at("at 7 oclock 20 minutes later") == (7, 0)  # a length of time, not minutes
    assert read("at 6 oclock 5") == (6, 0, True)  # English says no minutes there
