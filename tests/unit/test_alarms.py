"""Alarms: spoken requests and replies, ringing at the local time across a change of the clocks, after a
restart, in the room that set them, and repeating ones coming back on their next day."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from appliance.config import SkillsConfig
from appliance.thinking.alarms import MISSED_WINDOW_S
from appliance.thinking.alarms import STATE_FILE as ALARMS_FILE
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import STATE_FILE as TIMERS_FILE
from appliance.thinking.timers import ManualClock, Timers

LONDON = ZoneInfo("Europe/London")
NEW_YORK = ZoneInfo("America/New_York")
REPEAT = SkillsConfig(timer_repeat_s=60.0, timer_repeat_interval_s=10.0)
TUESDAY_EVENING = datetime(2026, 3, 3, 19, 20, tzinfo=LONDON)


def make(tmp_path: Path, now: datetime = TUESDAY_EVENING, clock: ManualClock | None = None) -> LocalSkills:
    clock = clock or ManualClock(now.timestamp())
    tz = now.tzinfo
    return LocalSkills(REPEAT, Timers(tmp_path, REPEAT, clock), clock, tz)


def epoch(*when: int, tz: ZoneInfo = LONDON) -> float:
    return datetime(*when, tzinfo=tz).timestamp()


def ring_times(skills: LocalSkills, until: float, step_s: float = 30.0, room: str = "") -> list[tuple[float, str]]:
    """Poll due() like the conductor does until `until` (epoch); (epoch, text) of every first announcement."""
    clock = skills.clock
    heard = []
    while clock() < until:
        clock.advance(min(step_s, until - clock()))
        heard += [(clock(), a.text) for a in skills.timers.due(room=room) if a.repeat == 0]
    return heard


# (phrase, the spoken reply) asked on Tuesday 3 March 2026 at 7:20 PM in London, one by one on a fresh hub
REPLIES = [
    ("wake me up at half past six", "Alarm set for 6:30 AM tomorrow."),
    ("Set an alarm for 7 a.m. tomorrow.", "Alarm set for 7 AM tomorrow."),
    ("set an alarm for 7am", "Alarm set for 7 AM tomorrow."),
    ("set an alarm for seven am", "Alarm set for 7 AM tomorrow."),
    ("set an alarm for 6:45 on weekdays", "Alarm set for 6:45 AM on weekdays."),
    ("set an alarm for 9 every Monday", "Alarm set for 9 AM on Mondays."),
    ("set an alarm for 8 at weekends", "Alarm set for 8 AM at weekends."),
    ("set an alarm for 7 every day", "Alarm set for 7 AM every day."),
    ("set an alarm for quarter to seven on saturday", "Alarm set for 6:45 AM on Saturday."),
    ("set an alarm for six thirty", "Alarm set for 6:30 AM tomorrow."),
    ("set an alarm for six oh five", "Alarm set for 6:05 AM tomorrow."),
    ("set an alarm for ten past seven", "Alarm set for 7:10 AM tomorrow."),
    ("set an alarm for twenty five to eight in the morning", "Alarm set for 7:35 AM tomorrow."),
    ("set an alarm for 8", "Alarm set for 8 PM today."),  # the next 8 o'clock to come
    ("set an alarm for 6", "Alarm set for 6 AM tomorrow."),
    ("set an alarm for 9 tonight", "Alarm set for 9 PM today."),
    ("set an alarm for 7 in the evening on friday", "Alarm set for 7 PM on Friday."),
    ("set an alarm for 19:45", "Alarm set for 7:45 PM today."),
    ("set an alarm for noon", "Alarm set for 12 PM tomorrow."),
    ("set an alarm for midnight", "Alarm set for 12 AM tomorrow."),
    ("hey jarvis wake me up at seven o'clock please", "Alarm set for 7 AM tomorrow."),
    ("Wait me up at half past 7.", "Alarm set for 7:30 AM tomorrow."),  # "wake" as Whisper tiny hears it at times
    # the clock as it is said in Britain: "half six" is half past six
    ("set an alarm for half six tomorrow", "Alarm set for 6:30 AM tomorrow."),
    ("wake me up at half seven", "Alarm set for 7:30 AM tomorrow."),
    ("set an alarm for half nine on saturday", "Alarm set for 9:30 AM on Saturday."),
    ("set an alarm for half eight", "Alarm set for 8:30 PM today."),  # the next 8:30 to come, as "eight thirty"
    ("set an alarm for quarter past eight tomorrow", "Alarm set for 8:15 AM tomorrow."),
    ("set an alarm for twenty to nine tomorrow morning", "Alarm set for 8:40 AM tomorrow."),
    ("set an alarm", "What time should the alarm be for?"),
    ("wake me up tomorrow morning", "What time should the alarm be for?"),
    ("what alarms do I have", "You don't have any alarms."),
    ("cancel my alarm", "You don't have any alarms."),
]


@pytest.mark.parametrize(("phrase", "said"), REPLIES, ids=[r[0] for r in REPLIES])
def test_what_the_hub_says_back(tmp_path: Path, phrase: str, said: str) -> None:
    reply = make(tmp_path).match(phrase)
    assert reply is not None, f"{phrase!r} went to the language model"
    assert reply.text == said
    assert reply.intent in ("alarm_set", "alarm_clarify", "alarm_list", "alarm_cancel")


def test_waking_up_at_an_hour_without_am_or_pm_is_in_the_morning(tmp_path: Path) -> None:
    morning = datetime(2026, 3, 3, 8, 3, tzinfo=LONDON)
    assert make(tmp_path / "wake", morning).match("wake me up at half past six").text == \
        "Alarm set for 6:30 AM tomorrow."
    assert make(tmp_path / "alarm", morning).match("set an alarm for half past six").text == \
        "Alarm set for 6:30 PM today."  # a plain alarm: the next half past six to come
    assert make(tmp_path / "wake-up", morning).match("can you set a wake up alarm for 7:30").text == \
        "Alarm set for 7:30 AM tomorrow."
    assert make(tmp_path / "up-by", morning).match("I have to be up by six thirty, set an alarm").text == \
        "Alarm set for 6:30 AM tomorrow."
    assert make(tmp_path / "bed", morning).match("set an alarm to get me out of bed at seven").text == \
        "Alarm set for 7 AM tomorrow."
    assert make(tmp_path / "shake", morning).match("shake me awake at six").text == "Alarm set for 6 AM tomorrow."
    # how a recogniser writes "an alarm" at times
    assert make(tmp_path / "llama", morning).match("set a llama for 7 am").text == "Alarm set for 7 AM tomorrow."


def test_the_time_is_the_one_said_with_the_request(tmp_path: Path) -> None:
    morning = datetime(2026, 3, 3, 8, 3, tzinfo=LONDON)
    assert make(tmp_path / "after", morning).match("my train is at eight so wake me at six fifteen").text == \
        "Alarm set for 6:15 AM tomorrow."
    assert make(tmp_path / "before", morning).match("at six tomorrow wake me up").text == \
        "Alarm set for 6 AM tomorrow."
    assert make(tmp_path / "first", morning).match("set an alarm for 7 pm, the film is at 8").text == \
        "Alarm set for 7 PM today."


def test_a_length_of_time_stays_a_timer(tmp_path: Path) -> None:
    skills = make(tmp_path)
    assert skills.match("wake me up in 20 minutes").intent == "timer_set"
    assert skills.match("set an alarm for 10 minutes").intent == "timer_set"
    assert skills.timers.alarms.all() == []


def test_list_and_cancel_by_time_by_day_and_all(tmp_path: Path) -> None:
    skills = make(tmp_path)
    skills.match("set an alarm for 6:30 on weekdays")
    skills.match("set an alarm for 9 am on saturday")
    skills.match("set an alarm for 7 tomorrow")
    listed = skills.match("what alarms do I have")
    assert listed.intent == "alarm_list"
    assert listed.text == "You have 3 alarms: 6:30 AM on weekdays, 7 AM tomorrow and 9 AM on Saturday."
    assert [a["time"] for a in listed.data["alarms"]] == ["06:30", "07:00", "09:00"]
    assert skills.match("cancel the 7 o'clock alarm").text == "Alarm for 7 AM tomorrow cancelled."
    assert skills.match("cancel the 8 am alarm").text == \
        "You don't have an alarm for 8 AM. You have 2 alarms: 6:30 AM on weekdays and 9 AM on Saturday."
    assert skills.match("cancel my alarm").text == \
        "You have 2 alarms: 6:30 AM on weekdays and 9 AM on Saturday. Which one should I cancel?"
    assert skills.match("the saturday one").text == "Alarm for 9 AM on Saturday cancelled."
    assert skills.match("cancel my alarm").text == "Alarm for 6:30 AM on weekdays cancelled."
    skills.match("set an alarm for 6")
    skills.match("set an alarm for 8 on sunday")
    assert skills.match("cancel all alarms").text == "All 2 alarms cancelled."
    assert skills.timers.alarms.all() == []


def test_an_alarm_called_off_in_the_words_people_use(tmp_path: Path) -> None:
    skills = make(tmp_path)
    skills.match("set an alarm for 6:30 am tomorrow")
    skills.match("set an alarm for 9:30 am on saturday")
    assert skills.match("knock the half nine alarm on the head").text == "Alarm for 9:30 AM on Saturday cancelled."
    assert skills.match("don't worry about the alarm tomorrow, I'm up anyway").text == \
        "Alarm for 6:30 AM tomorrow cancelled."
    assert skills.timers.alarms.all() == []
    skills.match("set an alarm for 8 am on sunday")
    skills.match("set an alarm for 7 am at weekends")
    assert skills.match("remove the weekend alarm").text == "Alarm for 7 AM at weekends cancelled."  # repeats first
    assert skills.match("remove the weekend alarm").text == "Alarm for 8 AM on Sunday cancelled."


def test_the_alarm_for_the_morning_is_the_next_one_before_noon(tmp_path: Path) -> None:
    skills = make(tmp_path, datetime(2026, 3, 3, 8, 3, tzinfo=LONDON))  # a Tuesday morning, after the alarm
    skills.match("set an alarm for 6:30 am tomorrow")
    skills.match("set an alarm for 7 pm")
    skills.match("set an alarm for 9:30 am on saturday")
    assert skills.match("have I got an alarm for the morning").text == \
        "Tomorrow you have an alarm at 6:30 AM."
    assert skills.match("switch off the alarm for the morning").text == "Alarm for 6:30 AM tomorrow cancelled."
    assert skills.match("cancel the alarm for the evening").text == "Alarm for 7 PM today cancelled."


def test_the_time_asked_for_is_taken_in_the_room_asked(tmp_path: Path) -> None:
    skills = make(tmp_path)
    assert skills.match("set an alarm for tomorrow", room="bedroom").intent == "alarm_clarify"
    assert skills.match("at 7 am") is None  # the hub's own microphone: not the bedroom's answer
    assert skills.match("half past seven", room="bedroom").text == "Alarm set for 7:30 AM tomorrow."
    assert [a.room for a in skills.timers.alarms.all()] == ["bedroom"]
    assert skills.match("set an alarm").intent == "alarm_clarify"
    assert skills.match("seven").text == "Alarm set for 7 AM tomorrow."  # a bare number answers "what time?"
    assert skills.match("set an alarm").intent == "alarm_clarify"
    skills.clock.advance(60)  # the question has waited too long
    assert skills.match("at 8 am") is None


@pytest.mark.parametrize(("tz", "set_at", "phrase", "rings"), [
    # the clocks go forward at 1 AM in London on 29 March 2026: 6:30 is at 05:30 UTC that morning
    (LONDON, (2026, 3, 28, 22, 0), "wake me up at 6:30", (2026, 3, 29, 5, 30)),
    # and back at 2 AM on 25 October: 6:30 is at 06:30 UTC
    (LONDON, (2026, 10, 24, 22, 0), "wake me up at 6:30", (2026, 10, 25, 6, 30)),
    # New York goes forward at 2 AM on 8 March 2026 (EST to EDT)
    (NEW_YORK, (2026, 3, 7, 21, 0), "set an alarm for 7 am tomorrow", (2026, 3, 8, 11, 0)),
    (NEW_YORK, (2026, 10, 31, 21, 0), "set an alarm for 7 am tomorrow", (2026, 11, 1, 12, 0)),
], ids=["london-spring", "london-autumn", "new-york-spring", "new-york-autumn"])
def test_it_rings_at_the_local_time_across_a_change_of_the_clocks(
        tmp_path: Path, tz: ZoneInfo, set_at: tuple, phrase: str, rings: tuple) -> None:
    skills = make(tmp_path, datetime(*set_at, tzinfo=tz))
    reply = skills.match(phrase)
    assert reply.intent == "alarm_set" and "tomorrow" in reply.text
    due = datetime(*rings, tzinfo=UTC).timestamp()
    assert reply.data["alarms"][0]["at"] == due
    heard = ring_times(skills, due + 600)
    assert heard[0][0] == due, "rang at the wrong instant"
    assert heard[0][1] == f"It's {reply.text.split()[3]} {reply.text.split()[4]}. This is your alarm."


def test_a_weekday_alarm_comes_back_on_monday_after_friday_across_the_change(tmp_path: Path) -> None:
    skills = make(tmp_path, datetime(2026, 3, 5, 20, 0, tzinfo=NEW_YORK))  # Thursday evening, EST
    assert skills.match("set an alarm for 7 am on weekdays").text == "Alarm set for 7 AM on weekdays."
    friday, monday = epoch(2026, 3, 6, 7, 0, tz=NEW_YORK), epoch(2026, 3, 9, 7, 0, tz=NEW_YORK)
    assert monday - friday == 3 * 86400 - 3600  # the clocks went forward on Sunday
    heard = ring_times(skills, friday + 5)
    assert [t for t, _ in heard] == [friday]
    (ringing,) = skills.timers.alarms.ringing()
    assert skills.match("stop").data["stopped_alarms"] == [ringing.id]
    (alarm,) = skills.timers.alarms.all()
    assert (alarm.date, alarm.at) == ("2026-03-09", monday)
    assert skills.match("what alarms do I have").text == "You have one alarm, for 7 AM on weekdays."
    # on Monday nobody stops it: after the repeat time it moves on to Tuesday, never dropped
    heard = ring_times(skills, monday + REPEAT.timer_repeat_s + 60, step_s=5)
    assert [t for t, _ in heard] == [monday]
    (alarm,) = skills.timers.alarms.all()
    assert alarm.date == "2026-03-10"


def test_it_repeats_until_stop_and_a_one_off_then_goes(tmp_path: Path) -> None:
    skills = make(tmp_path)
    skills.match("set an alarm for 8 pm")
    at = epoch(2026, 3, 3, 20, 0)
    clock = skills.clock
    clock.now = at - 1
    assert skills.timers.due() == []
    assert skills.timers.next_due_in() == 1.0
    texts = []
    for _ in range(25):
        clock.advance(1)
        texts += [(clock() - at, a.text, a.earcon) for a in skills.timers.due()]
    assert texts == [(0.0, "It's 8 PM. This is your alarm.", "timer"), (10.0, "It's 8 PM. This is your alarm.", "timer"),
                     (20.0, "It's 8 PM. This is your alarm.", "timer")]
    reply = skills.match("stop")
    assert reply.intent == "stop" and reply.end_turn
    assert skills.timers.alarms.all() == []
    clock.advance(60)
    assert skills.timers.due() == []


def test_an_alarm_set_before_a_restart_rings_after_it(tmp_path: Path) -> None:
    clock = ManualClock(TUESDAY_EVENING.timestamp())
    make(tmp_path, clock=clock).match("wake me up at half past six")
    clock.advance(3600)
    after = make(tmp_path, clock=clock)  # the hub started again on the same state folder
    heard = ring_times(after, epoch(2026, 3, 4, 6, 31))
    assert heard == [(epoch(2026, 3, 4, 6, 30), "It's 6:30 AM. This is your alarm.")]


def test_one_due_while_off_rings_on_start_if_recent_else_is_skipped(tmp_path: Path) -> None:
    clock = ManualClock(TUESDAY_EVENING.timestamp())
    skills = make(tmp_path, clock=clock)
    skills.match("wake me up at half past six")
    skills.match("set an alarm for 6:40 every day")
    clock.now = epoch(2026, 3, 4, 6, 55)  # a power cut from before 6:30 until 6:55
    back = make(tmp_path, clock=clock)
    texts = [a.text for a in back.timers.due()]
    assert texts == ["Your 6:30 AM alarm was due while I was off, 25 minutes ago.",
                     "Your 6:40 AM alarm was due while I was off, 15 minutes ago."]
    back.match("stop")
    assert [(a.date, a.time) for a in back.timers.alarms.all()] == [("2026-03-05", "06:40:00")]
    clock.now = epoch(2026, 3, 5, 6, 40) + MISSED_WINDOW_S + 60  # off again, for longer this time
    late = make(tmp_path, clock=clock)
    assert late.timers.due() == []
    assert [a.date for a in late.timers.alarms.all()] == ["2026-03-06"], "a repeating one moves on"


def test_it_rings_in_the_room_that_set_it(tmp_path: Path) -> None:
    skills = make(tmp_path)
    skills.match("set an alarm for 8 pm", room="bedroom")
    skills.timers.ring_in_room("bedroom", True)
    skills.clock.now = epoch(2026, 3, 3, 20, 0)
    assert skills.timers.due(room="") == []
    assert [a.text for a in skills.timers.due(room="bedroom")] == ["It's 8 PM. This is your alarm."]
    skills.timers.ring_in_room("bedroom", False)  # the satellite went away: its alarm rings on the hub
    skills.clock.advance(10)
    assert [a.alarm.room for a in skills.timers.due(room="")] == ["bedroom"]


def test_alarms_live_beside_the_timers_file_which_keeps_its_format(tmp_path: Path) -> None:
    skills = make(tmp_path)
    skills.match("set a pasta timer for 8 minutes")
    skills.match("set an alarm for 6:45 on weekdays")
    timers = json.loads((tmp_path / TIMERS_FILE).read_text())
    assert [t["name"] for t in timers["timers"]] == ["pasta"] and "alarms" not in timers
    (alarm,) = json.loads((tmp_path / ALARMS_FILE).read_text())["alarms"]
    assert (alarm["date"], alarm["time"], alarm["tz"], alarm["days"]) == ("2026-03-04", "06:45:00",
                                                                          "Europe/London", [0, 1, 2, 3, 4])
    again = make(tmp_path)
    assert [t.name for t in again.timers.all()] == ["pasta"]
    assert again.match("what alarms do I have").text == "You have one alarm, for 6:45 AM on weekdays."


def test_an_unreadable_alarms_file_is_set_aside(tmp_path: Path) -> None:
    (tmp_path / ALARMS_FILE).write_text("{not json")
    skills = make(tmp_path)
    assert skills.match("what alarms do I have").text == "You don't have any alarms."
    assert (tmp_path / (ALARMS_FILE + ".bad")).exists()
    assert skills.match("set an alarm for 7 am").text == "Alarm set for 7 AM tomorrow."


@pytest.mark.parametrize("question", ["what time is my alarm", "when does my alarm go off", "is my alarm set",
                                      "do i have any alarms", "what are my alarms", "alarms"])
def test_asking_about_the_alarm(tmp_path: Path, question: str) -> None:
    skills = make(tmp_path)
    skills.match("set an alarm for 7 am on weekdays")
    reply = skills.match(question)
    assert (reply.intent, reply.text) == ("alarm_list", "You have one alarm, for 7 AM on weekdays.")


@pytest.mark.parametrize("question", ["will the alarm go off tomorrow", "how early is my alarm tomorrow",
                                      "won't my alarm ring tomorrow"])
def test_asking_about_tomorrows_alarm(tmp_path: Path, question: str) -> None:
    skills = make(tmp_path)
    skills.match("set an alarm for 7 am on weekdays")
    reply = skills.match(question)
    assert (reply.intent, reply.text) == ("alarm_list", "Tomorrow you have an alarm at 7 AM.")


def test_turning_off_a_ringing_alarm_stops_it_and_keeps_it_for_its_next_day(tmp_path: Path) -> None:
    skills = make(tmp_path)
    skills.match("set an alarm for 8 pm every day")
    skills.clock.now = epoch(2026, 3, 3, 20, 0)
    assert [a.text for a in skills.timers.due()] == ["It's 8 PM. This is your alarm."]
    reply = skills.match("turn off the alarm")
    assert (reply.intent, reply.end_turn) == ("stop", True)
    assert [a.date for a in skills.timers.alarms.all()] == ["2026-03-04"]
    assert skills.match("stop my alarm").text == "Alarm for 8 PM every day cancelled."  # not ringing: cancelled


def test_a_time_the_clocks_skip_rings_as_they_come_back_and_one_said_twice_rings_the_first_time(
        tmp_path: Path) -> None:
    skills = make(tmp_path, datetime(2026, 3, 28, 22, 0, tzinfo=LONDON))
    assert skills.match("set an alarm for 1:30 am").text == "Alarm set for 1:30 AM tomorrow."
    # 01:30 never comes on 29 March: it rings an hour after 00:30 GMT, at 02:30 BST, and says so
    assert ring_times(skills, epoch(2026, 3, 29, 3, 0)) == [(datetime(2026, 3, 29, 1, 30, tzinfo=UTC).timestamp(),
                                                             "It's 2:30 AM. This is your alarm.")]
    autumn = make(tmp_path / "autumn", datetime(2026, 10, 24, 22, 0, tzinfo=LONDON))
    assert autumn.match("set an alarm for 1:30 am").text == "Alarm set for 1:30 AM tomorrow."
    # 01:30 comes twice on 25 October: the first, in summer time
    assert ring_times(autumn, epoch(2026, 10, 25, 3, 0)) == [(datetime(2026, 10, 25, 0, 30, tzinfo=UTC).timestamp(),
                                                              "It's 1:30 AM. This is your alarm.")]


@pytest.mark.parametrize(("rule", "offset_min"), [("<+0317>-03:17", 197), ("<-0945>+09:45", -585), ("UTC+02:00", -120)])
def test_a_system_zone_given_as_a_posix_rule_is_the_c_librarys(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rule: str, offset_min: int) -> None:
    """TZ as a POSIX rule names no zone of the database: the alarm keeps the system's zone and rings at the
    wall-clock time that rule gives, the same one "what time is it" says (POSIX's sign is west of UTC)."""
    import time

    noon_utc = datetime(2026, 3, 3, 12, 0, tzinfo=UTC).timestamp()
    monkeypatch.setenv("TZ", rule)
    time.tzset()
    try:
        clock = ManualClock(noon_utc)
        skills = LocalSkills(REPEAT, Timers(tmp_path, REPEAT, clock), clock)
        now, then = (datetime.fromtimestamp(noon_utc + (offset_min + m) * 60, UTC) for m in (0, 2))
        assert skills.match("what time is it").text == f"It's {now:%-I:%M %p}."
        assert skills.match(f"set an alarm for {then:%H:%M}") is not None
        assert ring_times(skills, noon_utc + 600) == [(noon_utc + 120, f"It's {then:%-I:%M %p}. This is your alarm.")]
    finally:
        monkeypatch.undo()
        time.tzset()
