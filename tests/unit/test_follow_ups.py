"""Follow-ups to what the room's last request did: "actually make it fifteen" after a timer, "cancel that" after
a timer, an alarm, a reminder or a list item, "and eggs" after something went on a list; only in the room that
asked, and only within the conversation's idle window."""

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


@pytest.fixture
def skills(tmp_path: Path) -> LocalSkills:
    clock = ManualClock(NOW.timestamp())
    return LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock), clock, TZ,
                       lists=book(tmp_path, HomeAssistantConfig(), pack().skill("lists").say("default_list")),
                       follow_up_s=WINDOW_S)


def said(skills: LocalSkills, *requests: str, room: str = "") -> list[tuple[str, str]]:
    replies = [skills.match(request, room) for request in requests]
    return [(reply.intent, reply.text) if reply is not None else ("", "") for reply in replies]


def test_a_timers_length_is_changed_with_the_unit_it_had(skills: LocalSkills) -> None:
    assert said(skills, "set a pasta timer for ten minutes", "actually make it fifteen")[1] == \
        ("timer_change", "Pasta timer changed to 15 minutes.")
    assert [(t.name, t.duration_s) for t in skills.timers.all()] == [("pasta", 900)]  # one timer, not two
    assert said(skills, "set a timer for 2 hours", "no, make it three")[1][1] == "2 hour timer changed to 3 hours."
    assert sorted(t.duration_s for t in skills.timers.all()) == [900, 3 * 3600]


def test_the_changed_timer_is_the_same_one_and_can_be_changed_again(skills: LocalSkills) -> None:
    said(skills, "set a timer for 5 minutes", room="kitchen")
    (timer,) = skills.timers.all()
    skills.clock.advance(60)  # type: ignore[attr-defined]
    assert said(skills, "make it ten", "no, make it twenty", room="kitchen") == [
        ("timer_change", "5 minute timer changed to 10 minutes."),
        ("timer_change", "10 minute timer changed to 20 minutes.")]
    (changed,) = skills.timers.all()
    assert (changed.id, changed.room, changed.remaining(skills.clock())) == (timer.id, "kitchen", 1200)


def test_cancel_that_undoes_the_last_of_each_kind(skills: LocalSkills) -> None:
    assert said(skills, "set a timer for 5 minutes", "cancel that")[1] == ("timer_cancel", "5 minute timer cancelled.")
    assert said(skills, "set an alarm for 7 am tomorrow", "scrap that")[1][0] == "alarm_cancel"
    assert skills.timers.alarms.all() == []
    assert said(skills, "remind me to ring the garage at 4 pm", "actually, cancel that")[1] == \
        ("reminder_cancel", "Reminder cancelled: ring the garage at 4 PM today.")
    assert said(skills, "add milk and eggs to the shopping list", "undo that")[1] == \
        ("list_remove", "I've taken milk and eggs off your shopping list.")


def test_and_more_goes_on_the_same_list(skills: LocalSkills) -> None:
    assert [intent for intent, _ in said(skills, "put paint on my diy list", "and brushes", "oh and some tape")] == \
        ["list_add"] * 3
    assert said(skills, "what's on my diy list")[0][1] == "You have 3 things on your diy list: paint, brushes and tape."


def test_only_in_the_room_that_asked(skills: LocalSkills) -> None:
    said(skills, "set a pasta timer for ten minutes", room="kitchen")
    assert said(skills, "cancel that", room="lounge")[0][0] != "timer_cancel"
    assert [t.name for t in skills.timers.all()] == ["pasta"]
    assert said(skills, "cancel that", room="kitchen")[0][0] == "timer_cancel"


def test_after_the_idle_window_it_refers_to_nothing(skills: LocalSkills) -> None:
    said(skills, "add milk to the shopping list")
    skills.clock.advance(WINDOW_S + 1)  # type: ignore[attr-defined]
    assert said(skills, "and eggs")[0][0] != "list_add"
    assert said(skills, "what's on my shopping list")[0][1] == "You have one thing on your shopping list: milk."


def test_what_ended_the_last_request_leaves_nothing_to_undo(skills: LocalSkills) -> None:
    # a cancel done is not undone twice, and an answer in between ends what "cancel that" could mean
    assert said(skills, "set a timer for 5 minutes", "cancel that", "cancel that")[2][0] != "timer_cancel"
    said(skills, "set a pasta timer for ten minutes", "what time is it")
    assert said(skills, "cancel that")[0][0] != "timer_cancel" and len(skills.timers.all()) == 1
    said(skills, "set a pasta timer for ten minutes", "why is the sky blue")  # no skill's: the model's turn
    assert said(skills, "cancel that")[0][0] != "timer_cancel" and len(skills.timers.all()) == 2
