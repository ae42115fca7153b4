"""The language pack: one setting chooses it, its words drive the skills and the voice, and English
lives in appliance/language/ only."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime
from pathlib import Path
from typing import Final

import pytest

from appliance import config
from appliance.config import Config, SkillsConfig
from appliance.language import KNOWN, LanguagePack, UnknownLanguage, pack
from appliance.speaking.sentences import split_all
from appliance.speaking.textclean import for_speech
from appliance.thinking import honesty
from appliance.thinking.clock_skill import ClockSkill
from appliance.thinking.requests import controls_device
from appliance.thinking.skillparse import SkillParser
from appliance.thinking.skills import LocalSkills, build
from appliance.thinking.timers import ManualClock, Timers

PACKAGE: Final = Path(__file__).resolve().parents[2] / "appliance"
LANGUAGE_DIR: Final = PACKAGE / "language"


def test_english_is_the_default_and_german_the_second_language() -> None:
    assert KNOWN == ("en", "de")
    assert Config().language == "en"
    assert pack().code == "en" and pack("en") is pack()


def test_an_unknown_code_names_the_known_languages() -> None:
    with pytest.raises(UnknownLanguage, match=r"no language pack for 'xx'; known languages: en, de"):
        pack("xx")


def test_the_setting_is_checked_at_load_with_its_line() -> None:
    with pytest.raises(config.ConfigError) as err:
        config.loads("audio:\n  rate: 16000\nlanguage: xx\n", source="hub.yaml")
    (problem,) = err.value.problems
    assert (problem.key, problem.line) == ("language", 3)
    assert str(err.value) == "language: must be a language the hub has words for: en, de; got 'xx' (hub.yaml line 3)"
    assert config.loads("language: en\n").language == "en"


def test_the_shipped_config_names_the_language() -> None:
    assert "\nlanguage: en\n" in config.SHIPPED_CONFIG.read_text(encoding="utf-8")
    assert config.load(config.SHIPPED_CONFIG).language == "en"


def _swapped(words: LanguagePack) -> LanguagePack:
    """English with a few words changed, as another language's pack would change them all."""
    timers = dataclasses.replace(words.timers, set_one="Minuteur réglé sur {duration}.",
                                 set_verbs=words.timers.set_verbs | {"mets"},
                                 timer_words=words.timers.timer_words | {"minuteur"},
                                 name_stop=words.timers.name_stop | {"mets", "un", "minuteur"})
    numbers = dataclasses.replace(words.numbers, ones={**words.numbers.ones, "cinq": 5},
                                  units={**words.numbers.units, "minutes": "minute"})
    replies = dataclasses.replace(words.replies, no_internet="Pas d'internet.")
    return dataclasses.replace(words, code="xx", timers=timers, numbers=numbers, replies=replies)


def test_the_skills_take_their_words_from_the_pack_they_are_given(tmp_path: Path) -> None:
    clock = ManualClock()
    words = _swapped(pack())
    skills = LocalSkills(SkillsConfig(), Timers(tmp_path, clock=clock, words=words), clock, words=words)
    reply = skills.match("mets un minuteur cinq minutes")
    assert reply is not None and reply.intent == "timer_set"
    assert reply.text == "Minuteur réglé sur 5 minutes."
    english = LocalSkills(SkillsConfig(), Timers(tmp_path / "en", clock=clock), clock)
    assert english.match("mets un minuteur cinq minutes") is None


def test_the_refusals_take_their_words_from_the_pack() -> None:
    reply = honesty.offline("what's the weather tomorrow", _swapped(pack()))
    assert reply is not None and reply.text == "Pas d'internet."
    assert honesty.offline("what's the weather tomorrow") == honesty.offline("what is the weather tomorrow")


def test_build_reads_the_configured_language(tmp_path: Path) -> None:
    cfg = config.loads(f"language: en\nservice:\n  state_dir: {tmp_path}\n")
    skills = build(cfg, clock=ManualClock())
    assert skills.words is pack("en")
    reply = skills.match("set a pasta timer for eight minutes")
    assert reply is not None and reply.text == "Pasta timer set for 8 minutes."


def test_the_english_pack_says_the_date_and_time_as_before() -> None:
    noon = datetime(2025, 6, 15, 12, 0).timestamp()
    clock = ClockSkill(SkillsConfig(time_style="words"), lambda: noon, words=pack("en"))
    assert clock.match("what time is it").text == "It's noon."
    assert clock.match("what is the date").text == "It's Sunday, June 15th, 2025."
    assert clock.match("is it sunday").text == "Yes, it's Sunday."
    assert pack().say.time(datetime(2025, 6, 15, 19, 20), "words", 12) == "twenty past seven"
    assert pack().say.duration(3690) == "1 hour, 1 minute and 30 seconds"


def test_the_english_parser_reads_numbers_and_durations() -> None:
    parse = SkillParser(pack("en"))
    tokens = parse.normalize("a pasta timer for three quarters of an hour and a rice timer for a minute and a half")
    assert [s.seconds for s in parse.find_durations(tokens)] == [2700.0, 90.0]
    assert parse.parse_number(parse.normalize("a hundred and twenty"), 0) == (120.0, 4)


def test_the_voice_and_the_splitter_use_the_pack() -> None:
    speech = dataclasses.replace(pack().speech, or_=" ou ")
    assert for_speech("tea/coffee", speech) == "tea ou coffee"
    assert for_speech("tea/coffee") == "tea or coffee"
    sentences = dataclasses.replace(pack().sentences, never_split=frozenset())
    assert split_all("Ask Dr. Smith. Now.") == ["Ask Dr. Smith.", "Now."]
    assert split_all("Ask Dr. Smith. Now.", words=sentences) == ["Ask Dr.", "Smith.", "Now."]
    assert controls_device("turn on the kitchen light", pack())


# Phrases that belong to the English pack: each must be written there and nowhere else in the code.
ENGLISH_PHRASES: Final = (
    "Sorry, something went wrong",
    "Sorry, that took too long",
    "too long for me",
    "I can't control devices",
    "so I can't look that up",
    "How long should the timer be",
    "Which one should I cancel",
    "ended while I was off",
    "as loud as I go",
    "I only know the time here",
    "Yesterday was",
    "You are a helpful voice assistant",
    "Facts about this home",
    "kilometres per hour",
    "quarter past",
    "twenty",
    "tell me more",
    "coffee (?:machine|maker)",
    "never mind the",
)
def _code_without_docstrings(path: Path) -> str:
    """The module's text with its docstrings and comments gone: words in prose may quote a phrase."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'"""(?:.|\n)*?"""', "", text)
    return "\n".join(line.split("  # ", 1)[0] for line in text.splitlines() if not line.lstrip().startswith("#"))


def test_english_phrases_are_written_in_the_language_pack_only() -> None:
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if path.is_relative_to(LANGUAGE_DIR):
            continue
        code = _code_without_docstrings(path)
        for phrase in ENGLISH_PHRASES:
            if phrase in code:
                found.setdefault(phrase, []).append(where)
    assert found == {}
    english = "".join(path.read_text(encoding="utf-8") for path in sorted(LANGUAGE_DIR.glob("en*.py")))
    assert [p for p in ENGLISH_PHRASES if p not in english] == []
