"""What the hub is told to remember, through LocalSkills.match as the hub asks it: real sentences in, the
spoken reply out, the facts kept in the state folder (facts.json) across restarts, replaced, forgotten,
set aside when damaged, and never written to the log or the journal."""

from __future__ import annotations

import dataclasses
import json
import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from appliance.config import Config, ConfigError, SatelliteConfig, ServiceConfig, WyomingConfig, loads
from appliance.contracts import SkillReply
from appliance.conversation.turn import TurnRecord
from appliance.service import Journal
from appliance.thinking import skills
from appliance.thinking.fact_skill import PENDING_S
from appliance.thinking.facts import MAX_FACT_CHARS, STATE_FILE, FactIndex, FactStore, count_kept, words_of
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers
from tests.fixtures.fakes import Harness

SUNDAY: float = datetime(2025, 6, 15, 10, 0, tzinfo=UTC).timestamp()
"""A Sunday morning: what the hub is told is told then, unless a test moves the clock."""
DAY_S: float = 86400.0


def hub(folder: Path, clock: ManualClock, closed: frozenset[str] = frozenset()) -> LocalSkills:
    """The skills with their facts in `folder`, in UTC."""
    return LocalSkills(dataclasses.replace(Config().skills), Timers(folder, clock=clock), clock, UTC,
                       facts=FactStore(folder), facts_closed=closed)


def say(skills: LocalSkills, text: str, room: str = "") -> SkillReply:
    reply = skills.match(text, room)
    assert reply is not None, f"no skill took {text!r}"
    return reply


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(SUNDAY)


def test_a_fact_told_is_confirmed_kept_as_a_plain_file_and_answered(tmp_path: Path, clock: ManualClock) -> None:
    h = hub(tmp_path, clock)
    told = say(h, "Remember that the spare key is under the blue pot.")
    assert (told.intent, told.text) == ("fact_told", "I'll remember: the spare key is under the blue pot.")
    kept = json.loads((tmp_path / STATE_FILE).read_text())
    assert kept == {"version": 1, "facts": [{"said": "the spare key is under the blue pot",
                                             "told": datetime.fromtimestamp(SUNDAY).astimezone().isoformat()}]}
    clock.advance(60)
    asked = say(h, "Where's the spare key?")
    assert (asked.intent, asked.text) == ("fact_answer", "You told me the spare key is under the blue pot.")
    assert say(h, "do you know where the spare key is").text == asked.text


@pytest.mark.parametrize(("telling", "question", "answer"), [
    ("note that my neighbour's name is Priya", "what's my neighbour called",
     "You told me your neighbours name is priya."),
    ("the wifi password is purple elephant, remember that", "what's the wifi password",
     "You told me the wifi password is purple elephant."),
    ("remember that Sam is coming on Sunday", "who is coming on Sunday", "You told me sam is coming on sunday."),
    ("for future reference, the fuse box is under the stairs", "where is the fuse box",
     "You told me the fuse box is under the stairs."),
    ("don't let me forget the spare key is in the shed", "where is the spare key",
     "You told me the spare key is in the shed."),
    ("note down that the boiler code is 4471", "what's the boiler code",
     "You told me the boiler code is 4471."),
    ("don't forget that my passport is in the top drawer", "where did I put my passport",
     "You told me your passport is in the top drawer."),
])
def test_the_cues_and_the_questions_people_use(tmp_path: Path, clock: ManualClock, telling: str, question: str,
                                               answer: str) -> None:
    h = hub(tmp_path, clock)
    assert say(h, telling).intent == "fact_told"
    assert say(h, question).text == answer


def test_ordinary_talk_is_not_kept(tmp_path: Path, clock: ManualClock) -> None:
    h = hub(tmp_path, clock)
    for talk in ("the spare key is under the blue pot", "my neighbour's name is Priya", "remember to buy milk",
                 "remember when we went to Spain", "do you remember the nineties"):
        reply = h.match(talk)
        assert reply is None or reply.intent != "fact_told", talk
    assert not (tmp_path / STATE_FILE).exists()
    assert say(h, "remember that").text == ("Say what to remember, like: remember that the spare key is under "
                                            "the blue pot.")


def test_a_restarted_hub_answers_days_later_saying_when_it_was_told(tmp_path: Path, clock: ManualClock) -> None:
    first = hub(tmp_path, clock)
    say(first, "remember that the spare key is under the blue pot")
    say(first, "remember that the boiler was serviced today")
    clock.advance(3 * DAY_S)  # Wednesday
    again = hub(tmp_path, clock)
    assert say(again, "where is the spare key").text == "On Sunday you told me the spare key is under the blue pot."
    assert say(again, "when was the boiler serviced").text == (
        "On Sunday you told me the boiler was serviced that day.")
    clock.advance(DAY_S)
    assert say(again, "what do you remember about the boiler").text == (
        "You told me one thing. On Sunday, the boiler was serviced that day.")
    clock.advance(30 * DAY_S)
    assert say(again, "where is the spare key").text == "On June 15th you told me the spare key is under the blue pot."


def test_a_newer_fact_about_the_same_thing_replaces_the_older(tmp_path: Path, clock: ManualClock) -> None:
    h = hub(tmp_path, clock)
    say(h, "remember that the spare key is under the blue pot")
    say(h, "remember that the boiler code is 4321")
    clock.advance(DAY_S)
    moved = say(h, "the spare key is in the shed now, remember that")
    assert moved.text == ("I'll remember: the spare key is in the shed now. That replaces what you told me "
                          "yesterday.")
    assert [f["said"] for f in json.loads((tmp_path / STATE_FILE).read_text())["facts"]] == [
        "the boiler code is 4321", "the spare key is in the shed now"]
    assert say(h, "where's the spare key").text == "You told me the spare key is in the shed now."


def test_forget_about_something_and_what_was_never_told(tmp_path: Path, clock: ManualClock) -> None:
    h = hub(tmp_path, clock)
    say(h, "remember that the spare key is under the blue pot")
    say(h, "remember that the boiler code is 4321")
    say(h, "remember that the boiler was serviced today")
    gone = say(h, "forget about the spare key")
    assert (gone.intent, gone.text) == ("fact_forget", "I've forgotten that the spare key is under the blue pot.")
    assert say(h, "where is the spare key").text == "You haven't told me."
    assert say(h, "you can forget about the boiler").text == "I've forgotten 2 things about the boiler."
    assert say(h, "forget about my passport").text == "You haven't told me anything about your passport."
    assert json.loads((tmp_path / STATE_FILE).read_text())["facts"] == []


def test_forget_everything_asks_first_and_only_a_yes_in_that_room_forgets(tmp_path: Path, clock: ManualClock) -> None:
    h = hub(tmp_path, clock)
    say(h, "remember that the spare key is under the blue pot")
    say(h, "remember that my neighbour's name is Priya")
    asked = say(h, "forget everything you remember")
    assert (asked.intent, asked.text) == ("fact_clarify", "Should I forget all 2 things you've told me?")
    assert say(h, "no").text == "All right, I'll keep them."
    assert FactStore(tmp_path).count() == 2
    say(h, "forget everything you remember")
    assert h.match("yes", room="bedroom") is None or FactStore(tmp_path).count() == 2  # another room's yes
    assert FactStore(tmp_path).count() == 2
    say(h, "forget everything I told you")
    clock.advance(PENDING_S + 1)
    h.match("yes")  # too late: the question is no longer waiting
    assert FactStore(tmp_path).count() == 2
    say(h, "clear your memory")
    done = say(h, "yes")
    assert (done.intent, done.text) == ("fact_forget", "Done. I've forgotten everything you told me.")
    assert FactStore(tmp_path).count() == 0 and h.match("yes") is None
    assert say(h, "forget everything").text == "You haven't told me anything to remember."


def test_a_question_about_the_household_nothing_answers_is_not_the_models(tmp_path: Path, clock: ManualClock) -> None:
    h = hub(tmp_path, clock)
    say(h, "remember that the spare key is under the blue pot")
    say(h, "remember that the boiler was serviced today")
    for question in ("where is my passport", "what's my neighbour called", "where did I put the car keys",
                     "when is our anniversary", "what is the wifi password"):
        assert (say(h, question).intent, say(h, question).text) == ("fact_not_told", "You haven't told me."), question
    for general in ("where is Paris", "what is a boiler", "how does a boiler work", "who invented the boiler",
                    "where is a good place to hide a spare key", "what is the capital of France",
                    "what's the best way to clean my oven", "when was the Eiffel tower built"):
        assert h.match(general) is None, general


def test_what_was_told_in_a_while(tmp_path: Path, clock: ManualClock) -> None:
    h = hub(tmp_path, clock)
    assert say(h, "what have I told you this week").text == "You haven't told me anything this week."
    say(h, "remember that the plumber is called Dave")  # Sunday, the week before
    clock.advance(DAY_S)  # Monday
    say(h, "remember that the bins go out on Thursday")
    clock.advance(DAY_S)  # Tuesday
    say(h, "remember that my nephew is six")
    assert say(h, "what have I told you this week").text == (
        "You told me 2 things this week. Just now, your nephew is six. Yesterday, the bins go out on thursday.")
    assert say(h, "what did I tell you today").text == "You told me one thing today. Just now, your nephew is six."
    assert say(h, "what have I told you last week").text == (
        "You told me one thing last week. On Sunday, the plumber is called dave.")
    assert say(h, "what do you remember").data["facts"][0]["said"] == "my nephew is six"


def test_a_damaged_file_is_set_aside_named_in_the_log_and_the_hub_goes_on(
        tmp_path: Path, clock: ManualClock, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / STATE_FILE).write_text('{"version": 1, "facts": [{"said": "the spare key is')
    with caplog.at_level(logging.ERROR, logger="appliance.state_file"):
        h = hub(tmp_path, clock)
    bad = tmp_path / (STATE_FILE + ".bad")
    assert bad.read_text() == '{"version": 1, "facts": [{"said": "the spare key is'
    [entry] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert str(tmp_path / STATE_FILE) in entry.getMessage() and str(bad) in entry.getMessage()
    assert say(h, "where is my spare key").text == "You haven't told me."
    say(h, "remember that the spare key is under the blue pot")
    assert say(hub(tmp_path, clock), "where is the spare key").intent == "fact_answer"


def test_the_owner_may_edit_the_file_and_a_running_hub_reads_it(tmp_path: Path, clock: ManualClock) -> None:
    h = hub(tmp_path, clock)
    say(h, "remember that the spare key is under the blue pot")
    (tmp_path / STATE_FILE).write_text(json.dumps({"version": 1, "facts": [
        {"said": "the spare key is with Maria next door", "told": "2025-06-01"}]}, indent=1))
    assert say(h, "where is the spare key").text == "On June 1st you told me the spare key is with Maria next door."
    (tmp_path / STATE_FILE).write_text('{"version": 1, "facts": [{"said": "", "told": "2025-06-01"}]}')
    assert say(h, "where is my spare key").text == "You haven't told me."  # no words: set aside
    assert (tmp_path / (STATE_FILE + ".bad")).exists()


def test_too_long_a_fact_is_said_so(tmp_path: Path, clock: ManualClock) -> None:
    h = hub(tmp_path, clock)
    reply = say(h, "remember that " + "the key is here " * (MAX_FACT_CHARS // 10))
    assert (reply.intent, reply.text) == ("fact_error", "That's too long for me to remember. Say it in fewer words.")


def test_nothing_told_reaches_the_log_or_the_journal(tmp_path: Path, clock: ManualClock,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    h = hub(tmp_path, clock)
    with caplog.at_level(logging.DEBUG, logger="appliance"):
        for said in ("remember that the spare key is under the blue pot", "where's the spare key",
                     "what have I told you", "forget about the spare key"):
            assert say(h, said).private, said
    assert not [r.getMessage() for r in caplog.records if "pot" in r.getMessage() or "spare" in r.getMessage()]
    harness = Harness(skills=hub(tmp_path / "hub", clock))
    harness.feed("WAKE", "SAY:remember that the alarm code is", "SAY:1234", "SIL", "SIL")
    harness.wait_idle()
    [record] = harness.records
    assert (record.route, record.intent, record.private, record.answer) == (
        "skill", "fact_told", True, "I'll remember: the alarm code is 1234.")
    sent: list[dict] = []
    journal = Journal(True, sender=lambda message, **fields: sent.append({"MESSAGE": message, **fields}), echo=True)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="appliance"):
        journal.turn(record)
        journal.turn(TurnRecord(turn_id=2, route="llm", outcome="answered", transcript="where is Paris",
                                answer_parts=["In France."]))
    private, open_ = sent
    assert "1234" not in json.dumps(private) and "TRANSCRIPT" not in private and private["INTENT"] == "fact_told"
    assert open_["TRANSCRIPT"] == "where is Paris"  # logging.transcripts still holds for other turns
    assert not [r for r in caplog.records if "1234" in r.getMessage()]


def test_a_room_may_be_closed_to_what_the_hub_was_told(tmp_path: Path, clock: ManualClock) -> None:
    cfg = dataclasses.replace(Config(), service=ServiceConfig(state_dir=str(tmp_path)), wyoming=WyomingConfig(
        satellites=[SatelliteConfig("tcp://10.0.0.2:10700", "guest", facts=False),
                    SatelliteConfig("tcp://10.0.0.3:10700", "hall"), SatelliteConfig("tcp://study.local:10700", facts=False)]))
    h = skills.build(cfg, clock=clock, tz=UTC)
    closed = "What I'm told isn't shared in this room."
    assert say(h, "remember that the spare key is under the blue pot", room="guest").text == closed
    assert say(h, "remember that the spare key is under the blue pot").intent == "fact_told"
    for room in ("guest", "study.local"):
        assert say(h, "where is the spare key", room=room).text == closed
        assert say(h, "what have I told you", room=room).text == closed
        assert say(h, "forget everything", room=room).text == closed
        assert h.match("where is Paris", room=room) is None
    assert say(h, "where is the spare key", room="hall").intent == "fact_answer"
    assert say(h, "where is the spare key").intent == "fact_answer"


def test_the_setting_is_checked_like_every_other(tmp_path: Path) -> None:
    cfg = loads("wyoming:\n  satellites:\n    - {uri: 'tcp://10.0.0.2:10700', name: guest, facts: false}\n")
    assert cfg.wyoming.satellites[0].facts is False and SatelliteConfig().facts is True
    with pytest.raises(ConfigError) as caught:
        loads("wyoming:\n  satellites:\n    - {uri: 'tcp://10.0.0.2:10700', facts: sometimes}\n")
    assert "wyoming.satellites[0].facts" in str(caught.value) and "line 3" in str(caught.value)


def test_a_thousand_facts_the_right_one_is_found(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text(json.dumps({"version": 1, "facts": [
        *({"said": f"box {n} holds the item number {n} of the shed", "told": "2025-06-01T10:00:00+00:00"}
          for n in range(999)),
        {"said": "the spare key is under the blue pot", "told": "2025-06-02T10:00:00+00:00"}]}))
    facts, _ = FactStore(tmp_path).all()
    stop = frozenset({"the", "is", "of", "where"})
    index = FactIndex(facts, stop, lambda said: [])
    assert index.find(words_of("where is the spare key", stop))[0].fact.said == "the spare key is under the blue pot"
    assert index.find(words_of("box 417", stop))[0].fact.said == "box 417 holds the item number 417 of the shed"
    assert count_kept(tmp_path) == 1000 and count_kept(tmp_path / "none") == 0


def test_doctor_counts_the_facts_kept_and_names_a_damaged_file(tmp_path: Path, clock: ManualClock) -> None:
    from appliance.commands.doctor import check_facts

    cfg = dataclasses.replace(Config(), service=ServiceConfig(state_dir=str(tmp_path)))
    assert (check_facts(cfg).status, check_facts(cfg).detail) == ("ok", f"none kept yet ({tmp_path / STATE_FILE})")
    h = hub(tmp_path, clock)
    say(h, "remember that the spare key is under the blue pot")
    say(h, "remember that my neighbour's name is Priya")
    found = check_facts(cfg)
    assert (found.status, found.detail) == ("ok", f"2 kept in {tmp_path / STATE_FILE}")
    assert "spare" not in found.line() and "facts" in found.line()
    (tmp_path / STATE_FILE).write_text("{not json")
    damaged = check_facts(cfg)
    assert damaged.status == "warn" and str(tmp_path / STATE_FILE) in damaged.detail and ".bad" in damaged.detail
    assert (tmp_path / STATE_FILE).read_text() == "{not json"  # doctor only looks


def test_a_folder_that_cannot_be_written_is_said_so_and_nothing_claimed(tmp_path: Path, clock: ManualClock,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "state"
    h = hub(folder, clock)
    if folder.exists():
        folder.rmdir()
    folder.write_text("not a folder")  # the state folder is a file: nothing can be saved in it
    with caplog.at_level(logging.WARNING, logger="appliance"):
        reply = say(h, "remember that the spare key is under the blue pot")
    assert (reply.intent, reply.text) == ("fact_error", "Something went wrong keeping that, so I couldn't remember it.")
    assert [r.getMessage() for r in caplog.records if "facts" in r.getMessage() and "spare" not in r.getMessage()]
    assert say(h, "where is my spare key").text == "You haven't told me."
