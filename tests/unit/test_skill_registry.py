"""The local skills are found without a list, asked in their stated order, and get their words from the pack."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from appliance.audio.volume import Volume
from appliance.config import SkillsConfig
from appliance.contracts import SkillReply
from appliance.language import MissingWords, SkillPhrases, pack
from appliance.thinking import skillkit
from appliance.thinking.facts import FactStore
from appliance.thinking.skillkit import CLOCK, TIMERS, Registered, SkillKit
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers

TZ = ZoneInfo("Europe/London")
SHIPPED = ("stop", "volume", "timers", "clock")


def make(tmp_path: Path, with_volume: bool = False) -> LocalSkills:
    clock = ManualClock()
    volume_of = (lambda room: Volume(tmp_path, room)) if with_volume else None
    return LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock), clock, TZ, volume_of=volume_of)


class Echo:
    """A skill that answers one exact sentence, and says in which room it was asked."""

    def __init__(self, sentence: str) -> None:
        self.sentence = sentence

    def match(self, text: str, room: str = "") -> SkillReply | None:
        return SkillReply(f"echo in {room or 'the hub'}", "echo") if text == self.sentence else None


def shipped(names: tuple[str, ...]) -> list[str]:
    """The skills that ship, in the order given; a new skill is asked among them without changing it."""
    return [name for name in names if name in SHIPPED]


def test_the_shipped_skills_are_found_and_asked_in_their_order(tmp_path: Path) -> None:
    assert shipped(make(tmp_path, with_volume=True).asked) == ["stop", "volume", "timers", "clock"]
    assert shipped(make(tmp_path).asked) == ["stop", "timers", "clock"]  # no rooms' volumes: the model hears it
    found = {entry.name: entry.order for entry in skillkit.discover()}
    assert {name: found[name] for name in SHIPPED} == {
        "stop": skillkit.STOP, "volume": skillkit.VOLUME, "timers": TIMERS, "clock": CLOCK}


def test_a_registered_skill_is_asked_at_its_order_and_the_first_reply_wins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(skillkit._REGISTERED, "echo",
                        Registered("echo", TIMERS + 5, lambda kit: Echo("what time is it")))
    skills = make(tmp_path)
    assert [name for name in skills.asked if name in (*SHIPPED, "echo")] == ["stop", "timers", "echo", "clock"]
    reply = skills.match("hey jarvis, what time is it?", room="kitchen")
    assert reply is not None and (reply.intent, reply.text) == ("echo", "echo in kitchen")
    timer = skills.match("set a timer for 5 minutes")  # the timers come first
    assert timer is not None and timer.intent == "timer_set"
    date = skills.match("what is the date")
    assert date is not None and date.intent == "date"


def test_the_timers_question_back_still_waits_in_its_room_among_the_registered_skills(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(skillkit._REGISTERED, "echo", Registered("echo", CLOCK + 5, lambda kit: Echo("five minutes")))
    skills = make(tmp_path)
    asked = skills.match("set a timer", room="kitchen")
    assert asked is not None and asked.intent == "timer_clarify"
    elsewhere = skills.match("five minutes", room="hall")
    assert elsewhere is not None and elsewhere.intent == "echo"
    answered = skills.match("five minutes", room="kitchen")
    assert answered is not None and answered.text == "Timer set for 5 minutes."


def test_two_skills_at_one_order_are_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(skillkit._REGISTERED, "echo", Registered("echo", CLOCK, lambda kit: Echo("")))
    with pytest.raises(ValueError, match=re.escape(f"local skills 'clock' and 'echo' are both at order {CLOCK}")):
        skillkit.discover()
    monkeypatch.setitem(skillkit._REGISTERED, "echo", Registered("echo", TIMERS, lambda kit: Echo("")))
    with pytest.raises(ValueError, match=re.escape(f"'echo' and 'timers' are both at order {TIMERS}")):
        skillkit.discover()


def test_a_skill_built_from_the_kit_gets_its_words_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    phrases = SkillPhrases(replies={"hello": "Hello from {where}."}, patterns={"ask": re.compile(r"^say hello$")})
    words = dataclasses.replace(pack(), phrases={**pack().phrases, "greet": phrases})

    class Greet:
        def __init__(self, kit: SkillKit) -> None:
            self.words = kit.words.skill("greet")

        def match(self, text: str, room: str = "") -> SkillReply | None:
            if not self.words.pattern("ask").match(text):
                return None
            return SkillReply(self.words.say("hello", where=room), "greet")

    monkeypatch.setitem(skillkit._REGISTERED, "greet", Registered("greet", CLOCK + 5, Greet))
    clock = ManualClock()
    skills = LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock, words=words), clock, TZ, words=words)
    reply = skills.match("please say hello", room="hall")
    assert reply is not None and reply.text == "Hello from hall."
    english = LocalSkills(SkillsConfig(), Timers(tmp_path / "en", clock=clock), clock, TZ)  # no words: off
    assert "greet" not in english.asked and english.match("please say hello") is None


def test_a_missing_entry_names_the_skill_the_language_and_the_key() -> None:
    words = dataclasses.replace(pack(), code="xx", phrases={"greet": SkillPhrases(replies={"hello": "Hi."})})
    greet = words.skill("greet")
    assert greet.say("hello") == "Hi."
    with pytest.raises(MissingWords, match=re.escape("the 'xx' language pack has no 'bye' entry for the 'greet'")):
        greet.say("bye")
    with pytest.raises(MissingWords) as err:
        greet.pattern("ask")
    assert (err.value.skill, err.value.code, err.value.key) == ("greet", "xx", "ask")


def test_a_skill_without_words_in_the_language_is_off_and_said_so_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    english = pack()
    words = dataclasses.replace(english, code="xx", phrases={"lists": english.phrases["lists"]},
                                schedule=dataclasses.replace(english.schedule, alarms=None))
    clock = ManualClock()
    with caplog.at_level("WARNING", logger="appliance.thinking.skills"):
        skills = LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock, words=words), clock, TZ, words=words,
                             facts=FactStore(tmp_path))
    assert "alarms" not in skills.asked and "facts" not in skills.asked and "remember" not in skills.asked
    assert "reminders" in skills.asked and "clock" in skills.asked
    off = [r.getMessage() for r in caplog.records]
    assert "The alarms skill is off in English: the 'xx' language pack has no words for the 'alarms' skill" in off
    assert [line.split(":")[0] for line in off if "'facts' skill" in line] == [
        "The remember skill is off in English", "The facts skill is off in English"]
    reply = skills.match("what time is it")
    assert reply is not None and reply.intent == "time"
    woken = skills.match("wake me up at seven")
    assert woken is None or woken.intent != "alarm_set"
