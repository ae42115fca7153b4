"""Skills parsing: number words and durations, round trips, and match() never raising on any text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from appliance.config import SkillsConfig
from appliance.thinking.skillparse import find_durations, normalize, number_words, parse_number, say_duration
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers

SETTINGS = settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> LocalSkills:
    clock = ManualClock()
    timers = Timers(tmp_path_factory.mktemp("timers"), SkillsConfig(), clock)
    timers.add(600, "pasta")
    timers.add(30)
    return LocalSkills(SkillsConfig(), timers, clock)


@pytest.mark.parametrize(("text", "tokens"), [
    ("What's the time?", ["what", "is", "the", "time"]),
    ("Set a 5-minute timer.", ["set", "a", "5", "minute", "timer"]),
    ("set a 10min timer", ["set", "a", "10", "min", "timer"]),
    ("Set a timer for 1.5 minutes.", ["set", "a", "timer", "for", "1.5", "minutes"]),
    ("twenty-five", ["twenty", "five"]),
    ("what is today\u2019s date", ["what", "is", "today", "date"]),
    ("set a time her for five minutes", ["set", "a", "timer", "for", "five", "minutes"]),
    ("seven o'clock", ["seven", "oclock"]),
])
def test_normalize(text: str, tokens: list[str]) -> None:
    assert normalize(text) == tokens


@pytest.mark.parametrize(("words", "value"), [
    ("seven", 7), ("twenty five", 25), ("ninety", 90), ("a hundred and twenty", 120), ("one hundred", 100),
    ("three hundred and five", 305), ("one point five", 1.5), ("2.5", 2.5), ("a couple of", 2), ("fifteen", 15),
])
def test_numbers(words: str, value: float) -> None:
    tokens = words.split()
    assert parse_number(tokens, 0) == (value, len(tokens))


@pytest.mark.parametrize(("text", "seconds"), [
    ("a minute and a half", [90]), ("half an hour", [1800]), ("an hour and ten minutes", [4200]),
    ("three quarters of an hour", [2700]), ("two and a half hours", [9000]), ("1 hour 5 minutes 3 seconds", [3903]),
    ("five minutes and ten minutes", [300, 600]), ("5 and 10 minutes", [300, 600]), ("no time at all", []),
    ("an hour and a quarter", [4500]), ("two hours and three quarters", [9900]),
    ("half a minute", [30]), ("an hour and a half", [5400]), ("10 minutes and 30 seconds", [630]),
])
def test_durations(text: str, seconds: list[float]) -> None:
    assert [s.seconds for s in find_durations(normalize(text))] == seconds


@SETTINGS
@given(st.integers(min_value=1, max_value=24 * 3600))
def test_spoken_durations_read_back(seconds: int) -> None:
    """What say_duration() says is what the parser reads: '1 hour, 2 minutes and 3 seconds'."""
    spans = find_durations(normalize(f"set a timer for {say_duration(seconds)}"))
    assert [s.seconds for s in spans] == [seconds]


@SETTINGS
@given(st.integers(min_value=1, max_value=99), st.sampled_from(["minutes", "seconds", "hours"]),
       st.booleans())
def test_number_words_set_the_right_timer(skills: LocalSkills, value: int, unit: str, hyphen: bool) -> None:
    words = number_words(value) if hyphen else number_words(value).replace("-", " ")
    seconds = value * {"seconds": 1, "minutes": 60, "hours": 3600}[unit]
    reply = skills.match(f"set a timer for {words} {unit}")
    assert reply is not None
    if seconds <= 24 * 3600:
        assert reply.intent == "timer_set"
        assert reply.data["timers"][0]["duration_s"] == seconds
        skills.timers.cancel([reply.data["timers"][0]["id"]])
    else:
        assert reply.intent == "timer_clarify"


VOCAB = ["set", "a", "an", "the", "timer", "timers", "for", "and", "half", "quarter", "of", "minute", "minutes",
         "hour", "seconds", "one", "two", "ten", "twenty", "hundred", "point", "5", "1.5", "cancel", "stop", "all",
         "how", "much", "time", "is", "left", "what", "day", "date", "it", "tomorrow", "called", "pasta", "to",
         "alarm", "am", "remind", "me", "in", "yes", "never", "mind", "tiger", "her", "couple", "three",
         "quarters", "at", "7:30", "0", "hey", "jarvis", "please", "on"]


@SETTINGS
@given(st.text(max_size=200))
def test_match_never_raises_on_any_text(skills: LocalSkills, text: str) -> None:
    reply = skills.match(text)
    assert reply is None or (isinstance(reply.text, str) and reply.intent)


@SETTINGS
@given(st.lists(st.sampled_from(VOCAB), max_size=14))
def test_match_never_raises_on_word_salad(skills: LocalSkills, words: list[str]) -> None:
    reply = skills.match(" ".join(words))
    assert reply is None or (isinstance(reply.text, str) and reply.intent)
    if reply is not None and reply.intent == "timer_set":
        for made in reply.data["timers"]:
            assert 1 <= made["duration_s"] <= 24 * 3600
        skills.timers.cancel([t["id"] for t in reply.data["timers"]])
    if not skills.timers.all():  # keep something to cancel and report on
        skills.timers.add(600, "pasta")
