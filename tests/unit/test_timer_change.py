"""A timer already running (or ringing) is changed rather than a second one set: more time, less time, or a new
length; the one named, the only one, or the one asked about; with none, the hub says so and sets nothing."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from appliance.audio.volume import shared
from appliance.config import SkillsConfig
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers

TZ = timezone(timedelta(hours=1), "TEST")
NOW = datetime(2026, 6, 10, 16, 0, 0, tzinfo=TZ)  # a Wednesday afternoon
REPEAT = SkillsConfig(timer_repeat_s=60.0, timer_repeat_interval_s=10.0)


def make(tmp_path: Path, *given: tuple[float, str | None]) -> LocalSkills:
    clock = ManualClock(NOW.timestamp())
    skills = LocalSkills(REPEAT, Timers(tmp_path, REPEAT, clock), clock, TZ,
                         volume_of=lambda room: shared(tmp_path, room))
    for seconds, name in given:
        skills.timers.add(seconds, name)
    return skills


def left(skills: LocalSkills) -> dict[str | None, float]:
    """Each timer's name and the seconds it has left, as the state folder holds them."""
    return {t.name: round(t.remaining(skills.clock())) for t in skills.timers.all()}


# (said, what is heard, seconds the pasta timer has left after) with a 10 minute pasta timer running
CHANGES = [
    ("add five minutes to the pasta timer", "Added 5 minutes. Your pasta timer has 15 minutes left.", 900),
    ("Can you add 5 minutes to the timer, please?", "Added 5 minutes. Your pasta timer has 15 minutes left.", 900),
    ("put another two minutes on the pasta timer", "Added 2 minutes. Your pasta timer has 12 minutes left.", 720),
    ("give it five more minutes", "Added 5 minutes. Your pasta timer has 15 minutes left.", 900),
    ("give the pasta another minute", "Added 1 minute. Your pasta timer has 11 minutes left.", 660),
    ("one more minute", "Added 1 minute. Your pasta timer has 11 minutes left.", 660),
    ("extend the timer by ten minutes", "Added 10 minutes. Your pasta timer has 20 minutes left.", 1200),
    ("make it a minute longer", "Added 1 minute. Your pasta timer has 11 minutes left.", 660),
    ("take two minutes off the timer", "Your pasta timer now has 8 minutes left.", 480),
    ("knock a minute off", "Your pasta timer now has 9 minutes left.", 540),
    ("take off thirty seconds", "Your pasta timer now has 9 minutes and 30 seconds left.", 570),
    ("shorten the timer by five minutes", "Your pasta timer now has 5 minutes left.", 300),
    ("remove two minutes from the pasta timer", "Your pasta timer now has 8 minutes left.", 480),
    ("change the pasta timer to twelve minutes", "Pasta timer changed to 12 minutes.", 720),
    ("make the timer fifteen minutes instead", "Pasta timer changed to 15 minutes.", 900),
    ("make it twenty minutes", "Pasta timer changed to 20 minutes.", 1200),
    ("change it to 12 minutes", "Pasta timer changed to 12 minutes.", 720),
    ("set the timer to 8 minutes", "Pasta timer changed to 8 minutes.", 480),
    ("reset the timer to ten minutes", "Pasta timer changed to 10 minutes.", 600),
    ("reduce the pasta timer to 5 minutes", "Pasta timer changed to 5 minutes.", 300),
]


@pytest.mark.parametrize(("said", "heard", "seconds_left"), CHANGES, ids=[c[0] for c in CHANGES])
def test_the_running_timer_is_changed_not_a_second_one_set(tmp_path: Path, said: str, heard: str,
                                                           seconds_left: float) -> None:
    skills = make(tmp_path, (600, "pasta"))
    reply = skills.match(said)
    assert (reply.intent, reply.text) == ("timer_change", heard)
    assert left(skills) == {"pasta": seconds_left}


def test_the_change_is_kept_in_the_state_folder_and_rings_at_the_new_end(tmp_path: Path) -> None:
    skills = make(tmp_path, (600, "pasta"))
    skills.clock.advance(240)  # type: ignore[attr-defined]
    assert skills.match("add five minutes to the pasta timer").text == \
        "Added 5 minutes. Your pasta timer has 11 minutes left."
    again = Timers(tmp_path, REPEAT, skills.clock)  # another process, or the hub after a restart
    assert [(t.name, t.remaining(skills.clock())) for t in again.all()] == [("pasta", 660)]
    skills.clock.advance(659)  # type: ignore[attr-defined]
    assert skills.timers.due() == []
    skills.clock.advance(1)  # type: ignore[attr-defined]
    assert [a.text for a in skills.timers.due()] == ["Your pasta timer is done."]


def test_a_ringing_timer_given_more_time_stops_ringing_until_then(tmp_path: Path) -> None:
    skills = make(tmp_path, (300, "eggs"))
    skills.clock.advance(300)  # type: ignore[attr-defined]
    assert [a.text for a in skills.timers.due()] == ["Your eggs timer is done."]
    assert skills.match("give it two more minutes").text == "Added 2 minutes. Your eggs timer has 2 minutes left."
    skills.clock.advance(60)  # type: ignore[attr-defined]
    assert skills.timers.due() == [] and skills.timers.ringing() == []
    skills.clock.advance(60)  # type: ignore[attr-defined]
    assert [a.text for a in skills.timers.due()] == ["Your eggs timer is done."]


def test_with_no_timer_it_says_so_and_sets_none(tmp_path: Path) -> None:
    skills = make(tmp_path)
    for said in ("add five minutes to the pasta timer", "take two minutes off the timer", "five more minutes",
                 "change the timer to twelve minutes", "make it fifteen minutes"):
        reply = skills.match(said)
        assert (reply.intent, reply.text) == ("timer_change", "You don't have a timer to change."), said
    assert skills.timers.all() == []


def test_with_several_the_one_named_or_else_the_question_which(tmp_path: Path) -> None:
    skills = make(tmp_path, (600, "pasta"), (1200, "rice"))
    assert skills.match("add two minutes to the rice timer").text == \
        "Added 2 minutes. Your rice timer has 22 minutes left."
    assert skills.match("give the pasta five more minutes").text == \
        "Added 5 minutes. Your pasta timer has 15 minutes left."
    reply = skills.match("take a minute off the timer")
    assert (reply.intent, reply.text) == \
        ("timer_clarify", "You have 2 timers: the pasta timer and the rice timer. Which one should I change?")
    assert left(skills) == {"pasta": 900, "rice": 1320}, "a question changes nothing"
    assert skills.match("the rice one").text == "Your rice timer now has 21 minutes left."
    assert left(skills) == {"pasta": 900, "rice": 1260}


def test_a_timer_named_that_is_not_there_is_asked_about(tmp_path: Path) -> None:
    skills = make(tmp_path, (600, "pasta"))
    assert skills.match("add five minutes to the rice").text == \
        "I can't find a rice timer. You have one timer, the pasta timer. Should I change it?"
    assert left(skills) == {"pasta": 600}
    assert skills.match("yes").text == "Added 5 minutes. Your pasta timer has 15 minutes left."


def test_an_unnamed_timer_is_known_by_its_length(tmp_path: Path) -> None:
    skills = make(tmp_path, (300, None), (600, None))
    assert skills.match("change the 10 minute timer to 12 minutes").text == "10 minute timer changed to 12 minutes."
    assert sorted(round(t.remaining(skills.clock())) for t in skills.timers.all()) == [300, 720]


def test_what_cannot_be_done_is_said_and_nothing_changes(tmp_path: Path) -> None:
    skills = make(tmp_path, (600, "pasta"))
    assert skills.match("take 20 minutes off the pasta timer").text == \
        "Your pasta timer only has 10 minutes left, so I can't take 20 minutes off."
    assert skills.match("add 30 hours to the timer").text == \
        "A timer can run for at most 24 hours, so I left your pasta timer as it was."
    assert left(skills) == {"pasta": 600}


@pytest.mark.parametrize(("said", "intent"), [
    ("add a timer for five minutes", "timer_set"), ("add a five minute timer", "timer_set"),
    ("put five minutes on the timer", "timer_set"), ("set another timer for 5 minutes", "timer_set"),
    ("give me five minutes", "timer_set"), ("set a timer for ten minutes", "timer_set"),
    ("how long is left on the pasta timer", "timer_left"), ("cancel the pasta timer", "timer_cancel"),
    ("change the volume to 7", "volume"), ("turn it down", "volume"),
])
def test_other_timer_requests_are_read_as_ever(tmp_path: Path, said: str, intent: str) -> None:
    skills = make(tmp_path, (600, "pasta"))
    assert skills.match(said).intent == intent


@pytest.mark.parametrize("said", [
    "how do I add time to my microwave timer?", "how do I add five minutes to a timer",
    "how many more minutes do I boil an egg for", "can I add more time to a parking ticket",
])
def test_a_question_about_changing_a_timer_is_the_models(tmp_path: Path, said: str) -> None:
    skills = make(tmp_path, (600, "pasta"))
    assert skills.match(said) is None
    assert left(skills) == {"pasta": 600}
