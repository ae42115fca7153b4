"""German: the German pack answers typed German questions through the same skills and policy as English, in
German; the skills it has no words for are off and their requests get the truth in German, never English."""

from __future__ import annotations

import importlib.util
import logging
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from appliance import config
from appliance.audio.volume import Volume
from appliance.config import HomeAssistantConfig, SkillsConfig
from appliance.conversation.policy import Policy, Say, Think
from appliance.language import pack
from appliance.thinking.facts import FactStore
from appliance.thinking.home_shopping import book
from appliance.thinking.skillparse import SkillParser
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import ManualClock, Timers
from appliance.thinking.whenparse import WhenParser

TZ = ZoneInfo("Europe/Berlin")
GERMAN = pack("de")
NOW = datetime(2026, 12, 7, 19, 20, tzinfo=TZ)  # a Monday evening
ROOT = Path(__file__).resolve().parents[2]


def skills(tmp_path: Path, style: str = "digits", clock_hours: int = 24) -> LocalSkills:
    clock = ManualClock(NOW.timestamp())
    return LocalSkills(SkillsConfig(time_style=style, clock=clock_hours), Timers(tmp_path, clock=clock, words=GERMAN),
                       clock, TZ, volume_of=lambda room: Volume(tmp_path, room), words=GERMAN,
                       lists=book(tmp_path, HomeAssistantConfig(), GERMAN.skill("lists").say("default_list")),
                       facts=FactStore(tmp_path))


def said(hub: LocalSkills, question: str) -> tuple[str, str]:
    reply = hub.match(question)
    assert reply is not None, question
    return reply.intent, reply.text


def test_the_time_and_the_date_are_said_in_german(tmp_path: Path) -> None:
    hub = skills(tmp_path)
    assert said(hub, "Wie spät ist es?") == ("time", "Es ist 19:20 Uhr.")
    assert said(hub, "Wie viel Uhr ist es eigentlich gerade?") == ("time", "Es ist 19:20 Uhr.")
    assert said(hub, "Wie spät ist es in Tokio?") == ("time", "Ich kenne nur die Uhrzeit hier. Es ist 19:20 Uhr.")
    assert said(hub, "Welches Datum ist heute?") == ("date", "Heute ist Montag, der 7. Dezember 2026.")
    assert said(hub, "Der Wievielte ist übermorgen?") == ("date", "Übermorgen ist Mittwoch, der 9. Dezember 2026.")
    assert said(hub, "Welcher Tag ist morgen?") == ("day", "Morgen ist Dienstag.")
    assert said(hub, "Ist heute Montag?") == ("day", "Ja, heute ist Montag.")
    assert said(skills(tmp_path / "words", style="words", clock_hours=12), "wie spät ist es") == \
        ("time", "Es ist zwanzig nach sieben.")


def test_timers_are_set_read_and_cancelled_with_german_durations(tmp_path: Path) -> None:
    hub = skills(tmp_path)
    assert said(hub, "Stell einen Timer auf zehn Minuten.") == ("timer_set", "Timer auf 10 Minuten gestellt.")
    assert said(hub, "Kannst du einen Nudeltimer auf eine halbe Stunde stellen?") == \
        ("timer_set", "Nudel-Timer auf 30 Minuten gestellt.")
    assert said(hub, "Wie lange läuft der Nudeltimer noch?") == ("timer_left", "Dein Nudel-Timer hat noch 30 Minuten.")
    assert said(hub, "Brich den Nudeltimer ab.") == ("timer_cancel", "Nudel-Timer gelöscht.")
    assert said(hub, "Den Timer abbrechen.") == ("timer_cancel", "10-Minuten-Timer gelöscht.")
    assert said(hub, "Wie lange noch?") == ("timer_left", "Du hast keine Timer.")


@pytest.mark.parametrize(("said_as", "seconds"), [
    ("zehn minuten", 600), ("fünfundzwanzig minuten", 1500), ("eine halbe stunde", 1800),
    ("anderthalb stunden", 5400), ("zweieinhalb minuten", 150), ("eine viertelstunde", 900),
    ("eine dreiviertelstunde", 2700), ("eine stunde und zehn minuten", 4200), ("neunzig sekunden", 90),
    ("einundzwanzig minuten", 1260),
])
def test_german_durations_are_read(said_as: str, seconds: int) -> None:
    parse = SkillParser(GERMAN)
    spans = parse.find_durations(parse.normalize(said_as))
    assert [span.seconds for span in spans] == [seconds]


@pytest.mark.parametrize(("said_as", "at"), [
    ("um halb sieben", (6, 30)), ("um 19 uhr 30", (19, 30)), ("um sieben uhr", (7, 0)),
    ("viertel nach sieben", (7, 15)), ("um 7:45", (7, 45)), ("um halb eins", (12, 30)),
])
def test_german_times_of_day_are_read(said_as: str, at: tuple[int, int]) -> None:
    parse = SkillParser(GERMAN)
    found = WhenParser(parse, GERMAN.schedule.when).time_of_day(parse.normalize(said_as))
    assert found is not None and (found.hour, found.minute) == at


def test_the_shopping_list_is_added_to_and_read_in_german(tmp_path: Path) -> None:
    hub = skills(tmp_path)
    assert said(hub, "Setz Milch und Eier auf die Einkaufsliste.") == \
        ("list_add", "Ich habe Milch und Eier zu deiner Einkaufsliste hinzugefügt.")
    assert said(hub, "Wir haben keinen Käse mehr.") == ("list_add", "Ich habe Käse zu deiner Einkaufsliste hinzugefügt.")
    assert said(hub, "Was steht auf der Einkaufsliste?") == \
        ("list_read", "Auf deiner Einkaufsliste stehen 3 Sachen: Milch, Eier und Käse.")


def test_what_is_cooking_said_with_how_long_it_needs_is_a_timer_in_german(tmp_path: Path) -> None:
    assert said(skills(tmp_path), "Der Reis braucht achtzehn Minuten.") == \
        ("timer_set", "Reis-Timer auf 18 Minuten gestellt.")


def test_what_is_said_first_and_pointed_back_to_goes_on_and_comes_off_the_list_in_german(tmp_path: Path) -> None:
    hub = skills(tmp_path)
    assert said(hub, "Wir brauchen Batterien, schreib sie auf die Einkaufsliste.") == \
        ("list_add", "Ich habe Batterien zu deiner Einkaufsliste hinzugefügt.")
    assert said(hub, "Ich habe die Batterien gekauft, streich sie von der Einkaufsliste.") == \
        ("list_remove", "Ich habe Batterien von deiner Einkaufsliste gestrichen.")
    said(hub, "Setz Milch auf die Einkaufsliste.")
    assert said(hub, "Brauchen wir noch Milch?") == ("list_has", "Ja, Milch steht auf deiner Einkaufsliste.")
    assert said(hub, "Wir brauchen keine Milch mehr.") == \
        ("list_remove", "Ich habe Milch von deiner Einkaufsliste gestrichen.")


def test_the_volume_and_stop_are_understood_in_german(tmp_path: Path) -> None:
    hub = skills(tmp_path)
    assert said(hub, "Stell die Lautstärke auf fünf.") == ("volume", "Lautstärke 5.")
    assert said(hub, "Mach lauter.") == ("volume", "Lautstärke 6.")
    assert said(hub, "Könnten Sie die Lautstärke etwas senken?") == ("volume", "Lautstärke 5.")
    assert said(hub, "Stopp!") == ("stop", "")
    assert said(hub, "Vergiss es.") == ("stop", "")


def test_a_skill_without_german_words_is_off_and_its_request_gets_the_truth_in_german(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="appliance.thinking.skills"):
        hub = skills(tmp_path)
    assert {"alarms", "reminders", "facts", "remember"}.isdisjoint(hub.asked)
    assert "The alarms skill is off in Deutsch: the 'de' language pack has no words for the 'alarms' skill" in \
        [record.getMessage() for record in caplog.records]
    policy = Policy(hub, None, words=GERMAN)
    for request, truth in (("Weck mich morgen um halb sieben.", "Einen Wecker kann ich auf Deutsch noch nicht stellen."),
                           ("Erinnere mich um sechs an den Müll.", "Erinnerungen kann ich auf Deutsch noch nicht."),
                           ("Merk dir, dass der Schlüssel unter der Matte liegt.",
                            "Auf Deutsch kann ich mir noch nichts merken.")):
        step = policy.begin(request)
        assert isinstance(step, Say) and step.reply.intent == "cannot_do", request
        assert step.reply.text == (f"{truth} Ich kann die Uhrzeit und das Datum sagen, Timer stellen, "
                                   "deine Einkaufsliste führen und meine Lautstärke ändern.")
    assert policy.begin("Wie stelle ich einen Wecker am Handy?") == Think("Wie stelle ich einen Wecker am Handy?")
    assert policy.begin("Ruf einen Krankenwagen!").reply.text == \
        "Ich kann nicht telefonieren. Ruf sofort die 112 von einem Telefon aus an."  # type: ignore[union-attr]


def test_the_setting_takes_german_and_still_names_the_known_languages() -> None:
    assert config.loads("language: de\n").language == "de"
    with pytest.raises(config.ConfigError, match=r"must be a language the hub has words for: en, de; got 'fr'"):
        config.loads("language: fr\n")


def test_the_german_corpus_is_large_enough_and_runs_through_the_deciding_path() -> None:
    spec = importlib.util.spec_from_file_location("bench_understanding_de", ROOT / "bench" / "understanding.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    corpus = bench.load("de")
    requests = [line for line in corpus.lines if not line.lookalike]
    assert len(requests) >= 60 and len(corpus.lines) - len(requests) >= 25
    assert len({line.say for line in corpus.lines}) == len(corpus.lines)
    one_each = {line.intent: line for line in corpus.lines}
    results = bench.run(bench.Corpus("de", corpus.now, corpus.household, list(one_each.values())))
    assert all(result.outcome != "error" for result in results)
