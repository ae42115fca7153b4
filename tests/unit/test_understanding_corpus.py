"""The understanding corpus (tests/corpus/understanding_*.yaml) is well-formed: its schema, intents the hub
reports or Home Assistant knows, no line twice, enough requests and look-alike questions, every skill and
style covered; and bench.understanding runs a line of every intent through the deciding path. How many
the hub gets right is the bench's figure, not asserted here."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("bench_understanding", ROOT / "bench" / "understanding.py")
assert _SPEC and _SPEC.loader
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench  # its dataclasses look their module up
_SPEC.loader.exec_module(bench)

CORPUS = bench.load("en")
LINES = CORPUS.lines
REQUESTS = [line for line in LINES if not line.lookalike]
LOOKALIKES = [line for line in LINES if line.lookalike]

MIN_REQUESTS = 400
MIN_LOOKALIKES = 150
STYLES = frozenset({"plain", "indirect", "pronoun", "time_first", "idiom", "british", "american", "irish",
                    "australian", "polite", "curt", "state", "relative_date", "asr", "lookalike"})
MIN_PER_STYLE = 10
WANTED: frozenset[str] = frozenset()
"""Intents the corpus asks for that no skill reports yet."""
COVERED = {
    "timers": {"timer_set", "timer_change", "timer_cancel", "timer_left", "timer_list"},
    "alarms": {"alarm_set", "alarm_cancel", "alarm_list"},
    "reminders": {"reminder_set", "reminder_list", "reminder_cancel"},
    "lists": {"list_add", "list_remove", "list_read", "list_clear", "list_has", "list_count"},
    "facts": {"fact_told", "fact_answer", "fact_recall", "fact_forget"},
    "volume": {"volume"},
    "clock": {"time", "date", "day"},
    "stop": {"stop", "nevermind"},
    "home": {"HassTurnOn", "HassTurnOff", "HassLightSet", "HassClimateSetTemperature", "HassGetState"},
}
TIME = re.compile(r"(?:[01]\d|2[0-3]):[0-5]\d")


def _reported_intents() -> set[str]:
    """Every string literal in the hub's code that names an intent of the corpus's vocabulary."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "appliance").rglob("*.py"))
    literals = set(re.findall(r"""["']([a-z_]+)["']""", source))
    return {intent for intent in bench.KNOWN_SLOTS if intent in literals}


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def test_enough_requests_and_lookalikes() -> None:
    assert len(REQUESTS) >= MIN_REQUESTS
    assert len(LOOKALIKES) >= MIN_LOOKALIKES


def test_no_line_twice() -> None:
    twice = [said for said, n in Counter(_key(line.say) for line in LINES).items() if n > 1]
    assert not twice


def test_every_intent_is_one_the_hub_reports_or_home_assistant_knows() -> None:
    from home_assistant_intents import get_intents

    hass = set(get_intents("en")["intents"])
    reported = _reported_intents()
    unknown = {line.intent for line in LINES
               if not (line.lookalike or line.intent in reported or line.intent in WANTED
                       or (line.device and line.intent in hass))}
    assert not unknown


def _problems(line) -> list[str]:
    """What is wrong with one line: its words, styles, slots and their values."""
    wrong: list[str] = []
    check = (lambda ok, what: ok or wrong.append(what))  # noqa: E731
    slots = line.slots
    check(bool(line.say) and line.say.strip() == line.say, "its words")
    check(bool(line.style) and set(line.style) <= STYLES, f"a style not among {sorted(STYLES)}")
    check(("lookalike" in line.style) == line.lookalike, "lookalike is the style of intent model alone")
    allowed = bench.DEVICE_SLOTS if line.device else bench.KNOWN_SLOTS.get(line.intent)
    if allowed is None:
        return [*wrong, f"no slots are known for {line.intent}"]
    check(set(slots) <= allowed, f"{line.intent} takes {sorted(allowed)}")
    for key in ("seconds", "in_s"):
        check(key not in slots or (isinstance(slots[key], (int, float)) and slots[key] > 0), key)
    change_s = slots.get("change_s", 1)
    check(isinstance(change_s, int) and change_s != 0, "change_s")
    check("time" not in slots or bool(TIME.fullmatch(str(slots["time"]))), "time is HH:MM")
    check("day" not in slots or isinstance(slots["day"], int), "day is a number of days")
    check("weekday" not in slots or slots["weekday"] in bench.WEEKDAYS, "weekday")
    repeat = slots.get("repeat", "weekdays")
    check(repeat in ("weekdays", "weekends", "every day") or set(repeat) <= set(bench.WEEKDAYS), "repeat")
    level = slots.get("level", 0)
    check(isinstance(level, int) and 0 <= level <= 10, "level 0-10")
    check("change" not in slots or slots["change"] in bench.VOLUME_CHANGES, "change")
    for key in ("items", "cancelled", "forgotten"):
        said = slots.get(key, ["-"])
        check(bool(said) and all(isinstance(v, str) and v == v.lower() for v in said), f"{key}: lower case")
    needed = {"timer_set": "seconds", "alarm_set": "time", "list_add": "items", "list_remove": "items",
              "list_has": "items", "fact_told": "text"}
    check(needed.get(line.intent, "") in ("", *slots), f"{line.intent} needs {needed.get(line.intent)}")
    check(not line.intent.startswith("list_") or "list" in slots, "a list request names its list")
    check(line.intent != "volume" or "change" in slots or "level" in slots, "a volume request says how")
    return wrong


def test_every_line_is_well_formed() -> None:
    wrong = {f"{line.source}: {line.say}": problems for line in LINES if (problems := _problems(line))}
    assert not wrong


def test_every_skill_and_style_is_covered() -> None:
    intents = Counter(line.intent for line in LINES)
    missing = {skill: sorted(wanted - set(intents)) for skill, wanted in COVERED.items()
               if wanted - set(intents)}
    assert not missing
    lists = {line.slots["list"] for line in REQUESTS if "list" in line.slots}
    assert {"shopping", "to do", "notes"} <= lists and len(lists) >= 5
    changes = {line.slots.get("change", "level" if "level" in line.slots else None)
               for line in REQUESTS if line.intent == "volume"}
    assert {"up", "down", "level", "mute"} <= changes
    domains = {line.slots.get("domain") for line in REQUESTS if line.device}
    named = {line.slots.get("name") for line in REQUESTS if line.device}
    assert {"light", "cover"} <= domains and {"front door", "heating"} <= named  # locks and heating by name
    styles = Counter(style for line in LINES for style in line.style)
    assert set(styles) == STYLES
    assert min(styles.values()) >= MIN_PER_STYLE
    assert sum(1 for line in REQUESTS if line.state) >= 60  # questions about the hub's own state


def test_the_household_is_what_the_lines_speak_of(tmp_path: Path) -> None:
    import dataclasses

    from appliance.config import Config

    base = Config()
    cfg = dataclasses.replace(base, service=dataclasses.replace(base.service, state_dir=str(tmp_path)))
    seeded = bench.seed(cfg, CORPUS, CORPUS.now.timestamp)
    assert CORPUS.now.strftime("%A") == "Wednesday"
    cancelled = {value for line in REQUESTS for value in line.slots.get("cancelled", [])}
    assert cancelled <= {*seeded.timers.values(), *seeded.alarms.values(), *seeded.reminders.values()}


def test_the_bench_runs_a_line_of_every_intent_through_the_deciding_path() -> None:
    first: dict[str, object] = {}
    for line in LINES:
        first.setdefault(line.intent, line)
    sample = bench.Corpus(CORPUS.language, CORPUS.now, CORPUS.household, list(first.values()))
    results = bench.run(sample)
    assert [r.line for r in results] == sample.lines
    assert all(r.outcome in bench.OUTCOMES and r.ms >= 0.0 for r in results)
    out = bench.summary(results)
    assert out["all"]["count"] == len(first)
    assert bench.totals_line(out, "en").startswith("en: ")


def test_a_request_read_by_meaning_reaches_the_model_when_the_skills_read_words_alone() -> None:
    line = next(line for line in REQUESTS if line.say == "Holler at me in a quarter hour.")
    sample = bench.Corpus(CORPUS.language, CORPUS.now, CORPUS.household, [line])
    assert [r.outcome for r in bench.run(sample)] == ["right"]
    assert [(r.outcome, r.intent) for r in bench.run(sample, by_meaning=False)] == [("pretended", bench.MODEL)]


def test_the_model_is_heard_through_the_answer_path_with_a_claim_replaced_by_the_truth() -> None:
    from appliance.thinking.honesty import truth
    from tests.fixtures.fakes import FakeChat

    said = ["Hush now for a while.", "Why do cats purr?", "Set a timer for ten minutes."]
    sample = bench.Corpus(CORPUS.language, CORPUS.now, CORPUS.household,
                          [bench.Line(text, "model", {}, ("lookalike",), "here") for text in said])
    results = bench.run(sample)
    assert [r.intent for r in results] == [bench.MODEL, bench.MODEL, "timer_set"]
    class Chat(FakeChat):
        resets = 0

        def reset(self) -> None:
            self.resets += 1

    chat = Chat("Sure, I've turned it down. Enjoy the quiet.")
    bench.hear(results, sample, chat)
    assert chat.questions == said[:2] and chat.resets == 2  # each a new conversation; a skill's answer asks no model
    assert [(r.route, r.answer, r.claimed) for r in results[:2]] == [("llm", truth(said[0]), True)] * 2
    assert (results[2].route, results[2].answer, results[2].claimed) == ("", "", False)
