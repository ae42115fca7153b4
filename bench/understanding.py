"""How well the hub understands everyday requests: every line of the understanding corpus
(tests/corpus/understanding_*.yaml) through the hub's real deciding path, in one run.

    .venv/bin/python -m bench.understanding [--language en] [--every N] [--show] [--json] [--by-rules]
                                            [--model [qwen|smollm2|PATH]]

Each line is said to a fresh household (the corpus's `household`: its timers, alarms, reminders, lists
and volume, in a state folder of its own, the clock at the corpus's `now`) through Policy.begin, as
`appliance ask` decides, with the local skills and no Home Assistant. Its outcome is one of:

  right      the intent and every slot the corpus gives (a device request: the hub says it has no
             Home Assistant, as it does when none is configured; a look-alike: the model answers)
  slots      the right intent, a slot not as the corpus gives it
  pretended  a request to act that reached the model, whose words could only pretend it was done
  invented   a question about the hub's own state (its clock, timers, alarms, reminders, lists,
             volume) answered by anything but that state: the model, or another skill
  refused    a request the hub can do answered with a refusal ("I can't", "I didn't get that")
  asked      a question back ("what time should the alarm be for?") to a request that said it
  wrong      another local answer (another intent)
  mistaken   a look-alike question for the model taken as a request

Figures only, per intent, per style and in one line of totals: the count, each outcome, and what
deciding costs per transcript (mean and p95 of Policy.begin, in ms, the skill's own work included, its
state folder in memory).
Nothing here needs the language model. `--model` also asks the Qwen stand-in (or another model) for
the answer of every line that reaches it, through `appliance ask`'s answer path, and counts the answers
whose start claimed an action, replaced by the truth (conversation/claims.py): only that option loads a
model. `--by-rules` reads requests by the skills' words alone, without reading by meaning, to compare.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, Final
from zoneinfo import ZoneInfo

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from appliance.config import Config  # noqa: E402
from appliance.contracts import SkillReply  # noqa: E402
from appliance.conversation.policy import Policy, Say, Think  # noqa: E402

CORPUS_DIR: Final = ROOT / "tests" / "corpus"
MEMORY: Final = Path("/dev/shm")
"""Where the households are kept when the system has it: in memory, so that a disk's sync of a state file
(about 11 ms each on a virtual disk) is not counted as deciding."""
ZONE: Final = "UTC"
WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MODEL: Final = "model"
"""The intent of a look-alike: a question for the language model."""
DEVICE_PREFIX: Final = "Hass"
"""Home Assistant's intent names: a device request, Home Assistant's to carry out."""
NO_HOME_ASSISTANT: Final = "no_home_assistant"
REFUSALS: Final = frozenset({"cannot_do", "not_understood", "no_internet", NO_HOME_ASSISTANT,
                             "home_assistant_down"})
"""The hub's refusals: what nothing here can do, or a request it did not read."""
STATE: Final = {
    "time": "clock", "date": "clock", "day": "clock",
    "timer_left": "timers", "timer_list": "timers",
    "alarm_list": "alarms", "reminder_list": "reminders",
    "list_read": "lists", "list_count": "lists", "list_has": "lists",
    "fact_answer": "facts", "fact_recall": "facts", "fact_not_told": "facts",
}
"""The questions about the hub's own state, and which state answers them (a reply of another intent
reading the same state answers it from the state too)."""
VOLUME_ASKED: Final = "ask"
"""The volume slot `change` of a question about the level ("how loud are you?"): a state question."""
OUTCOMES: Final = ("right", "slots", "pretended", "invented", "refused", "asked", "wrong", "mistaken")
KNOWN_SLOTS: Final = {
    "timer_set": {"seconds", "name"},
    "timer_change": {"seconds", "change_s"},
    "timer_cancel": {"cancelled"},
    "timer_left": {"name"},
    "timer_list": set(),
    "alarm_set": {"time", "day", "weekday", "repeat"},
    "alarm_cancel": {"cancelled"},
    "alarm_list": {"day", "weekday"},
    "reminder_set": {"text", "time", "day", "weekday", "in_s"},
    "reminder_list": {"day", "weekday"},
    "reminder_cancel": {"cancelled"},
    "time": set(),
    "date": {"day", "weekday"},
    "day": {"day", "weekday"},
    "volume": {"change", "level"},
    "stop": set(),
    "nevermind": set(),
    "list_add": {"list", "items"},
    "list_remove": {"list", "items"},
    "list_read": {"list"},
    "list_count": {"list"},
    "list_has": {"list", "items"},
    "list_clear": {"list"},
    "fact_told": {"text"},
    "fact_answer": set(),
    "fact_recall": set(),
    "fact_forget": {"forgotten"},
    MODEL: set(),
}
"""Every intent a corpus line may give, with the slots it may carry; device requests (Hass...) carry
Home Assistant's own slots (name, area, floor, domain, device_class, brightness, temperature, position,
color)."""
DEVICE_SLOTS: Final = frozenset({"name", "area", "floor", "domain", "device_class", "brightness",
                                 "temperature", "position", "color", "state"})
VOLUME_CHANGES: Final = frozenset({"up", "down", "mute", "unmute", VOLUME_ASKED})
_ITEM_LEAD: Final = re.compile(r"^(?:(?:a|an|some|the|more|any) )+")
SILENT: Final = frozenset({"stop", "nevermind"})
"""Both end the turn without a word: either is right for the other."""


# ------------------------------------------------------------------------------ the corpus


@dataclass(frozen=True)
class Line:
    """One thing said, with what the hub must make of it."""

    say: str
    intent: str
    slots: dict[str, Any]
    style: tuple[str, ...]
    source: str

    @property
    def device(self) -> bool:
        return self.intent.startswith(DEVICE_PREFIX)

    @property
    def lookalike(self) -> bool:
        return self.intent == MODEL

    @property
    def state(self) -> str | None:
        """The state a question about the hub's own state is answered from, or None for a request to act."""
        if self.intent == "volume":
            return "volume" if self.slots.get("change") == VOLUME_ASKED else None
        return STATE.get(self.intent)


@dataclass(frozen=True)
class Corpus:
    language: str
    now: datetime
    household: dict[str, Any]
    lines: list[Line]


def corpus_files(language: str = "en", folder: Path = CORPUS_DIR) -> list[Path]:
    return sorted(folder.glob(f"understanding_{language}*.yaml"))


def load(language: str = "en", folder: Path = CORPUS_DIR) -> Corpus:
    """Every corpus file of `language` as one corpus; the first file holds `now` and `household`."""
    files = corpus_files(language, folder)
    if not files:
        raise SystemExit(f"no corpus for {language!r} in {folder}")
    now: datetime | None = None
    household: dict[str, Any] = {}
    lines: list[Line] = []
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if "now" in data:
            now = datetime.fromisoformat(str(data["now"])).replace(tzinfo=ZoneInfo(ZONE))
            household = data.get("household") or {}
        for entry in data.get("lines") or []:
            style = entry.get("style") or ()
            lines.append(Line(str(entry["say"]), str(entry["intent"]), dict(entry.get("slots") or {}),
                              tuple([style] if isinstance(style, str) else style), path.name))
    if now is None:
        raise SystemExit(f"no corpus file of {language!r} says `now`")
    return Corpus(language, now, household, lines)


# ------------------------------------------------------------------------------ a household


@dataclass
class Seeded:
    """What the household was given, by id: what a cancel took away is told by name."""

    timers: dict[int, str] = field(default_factory=dict)
    alarms: dict[int, str] = field(default_factory=dict)
    reminders: dict[int, str] = field(default_factory=dict)
    level: int = 5


def _day_of(spec: dict[str, Any], today: date) -> date:
    if "weekday" in spec:
        return today + timedelta(days=(WEEKDAYS.index(spec["weekday"]) - today.weekday()) % 7 or 7)
    return today + timedelta(days=int(spec.get("day", 0)))


def seed(cfg: Config, corpus: Corpus, clock: Callable[[], float]) -> Seeded:
    """The corpus's household written into cfg's state folder."""
    from appliance.audio.volume import shared
    from appliance.thinking.alarms import ALARM, REMINDER
    from appliance.thinking.lists import ListStore
    from appliance.thinking.timers import Timers

    state_dir = Path(cfg.service.state_dir)
    home, seeded = corpus.household, Seeded()
    timers = Timers(state_dir, cfg.skills, clock)
    today = corpus.now.date()
    for spec in home.get("timers", []):
        seeded.timers[timers.add(float(spec["seconds"]), spec.get("name")).id] = spec.get("name") or ""
    for kind, kept in ((ALARM, seeded.alarms), (REMINDER, seeded.reminders)):
        for spec in home.get(f"{kind}s", []):
            hour, minute = (int(x) for x in str(spec["time"]).split(":"))
            at = datetime.min.time().replace(hour=hour, minute=minute)
            days = tuple(WEEKDAYS.index(d) for d in spec.get("repeat", ()))
            made = timers.alarms.add(kind, _day_of(spec, today), at, ZONE, days, text=spec.get("text", ""))
            kept[made.id] = spec.get("text") or f"{hour:02d}:{minute:02d}"
    if home.get("facts"):
        from appliance.thinking.facts import FactStore

        facts = FactStore(state_dir)
        for spec in home["facts"]:
            facts.add(spec["text"], (corpus.now + timedelta(days=int(spec.get("day", 0)))).timestamp())
    store = ListStore(state_dir)
    for name, items in (home.get("lists") or {}).items():
        for item in items:
            store.add(name, item)
    seeded.level = int(home.get("volume", 5))
    shared(state_dir).set_level(seeded.level)
    return seeded


# ------------------------------------------------------------------------------ what the hub gave


def _item(text: str) -> str:
    """Words compared as said: lower case, without apostrophes, hyphens or a leading article."""
    return _ITEM_LEAD.sub("", " ".join(str(text).casefold().replace("'", "").replace("-", " ").split()))


def _name(text: Any) -> str:
    return _item(str(text or "")).removesuffix("s")


def _when(data: dict[str, Any], now: datetime) -> dict[str, Any]:
    got: dict[str, Any] = {}
    if data.get("date"):
        day = date.fromisoformat(data["date"])
        got["day"] = (day - now.date()).days
        got["weekday"] = WEEKDAYS[day.weekday()]
    if data.get("time"):
        got["time"] = data["time"][:5]
    if data.get("days"):
        got["repeat"] = sorted(WEEKDAYS[d] for d in data["days"])
    if data.get("at") is not None:
        got["in_s"] = round(float(data["at"]) - now.timestamp())
    return got


def given(reply: SkillReply, corpus: Corpus, seeded: Seeded) -> dict[str, Any]:
    """The slots a reply shows, in the corpus's terms; a reply whose data has "slots" says them itself."""
    data, intent = reply.data, reply.intent
    if isinstance(data.get("slots"), dict):
        return dict(data["slots"])
    got: dict[str, Any] = {}
    if intent in ("timer_set", "timer_change") and data.get("timers"):
        first = data["timers"][0]
        got["seconds"] = first.get("duration_s")
        got["name"] = first.get("name")
        if "change_s" in data:
            got["change_s"] = data["change_s"]
    elif intent.endswith("_cancel"):
        names = {"timer_cancel": seeded.timers, "alarm_cancel": seeded.alarms,
                 "reminder_cancel": seeded.reminders}[intent]
        got["cancelled"] = sorted(names.get(i, f"#{i}") for i in data.get("cancelled", []))
    elif intent in ("alarm_set", "reminder_set"):
        made = (data.get("alarms") or data.get("reminders") or [{}])[0]
        got.update(_when(made, corpus.now))
        if "text" in made:
            got["text"] = made["text"]
    elif intent in ("date", "day", "alarm_list", "reminder_list"):  # a list asked of one day says which
        got.update(_when({"date": data.get("date")}, corpus.now))
    elif intent == "volume":
        level, muted = data.get("level"), data.get("muted")
        got["level"] = level
        if muted:
            got["change"] = "mute"
        elif level is not None and level != seeded.level:
            got["change"] = "up" if level > seeded.level else "down"
        else:
            got["change"] = "unmute"  # the level the household had, heard again
    elif intent == "fact_told" and data.get("facts"):
        got["text"] = data["facts"][0].get("said")
    elif intent == "fact_forget":
        got["forgotten"] = sorted(f.get("said", "") for f in data.get("forgotten", []))
    elif intent.startswith("list_"):
        got["list"] = data.get("list")
        items = data.get("added") or data.get("removed") or data.get("already") or \
            [*data.get("on", []), *data.get("missing", [])]
        if items:
            got["items"] = items
    return got


def slots_match(line: Line, got: dict[str, Any]) -> bool:
    """Whether every slot the line gives is what the hub gave (items, names and texts in lower case)."""
    for key, want in line.slots.items():
        have = got.get(key)
        if key == "items":
            if sorted(_item(i) for i in want) != sorted(_item(i) for i in (have or [])):
                return False
        elif key == "name":
            if _name(want) != _name(have):
                return False
        elif key == "text":
            if _item(want).removeprefix("to ") != _item(have or "").removeprefix("to "):
                return False
        elif key in ("cancelled", "forgotten"):
            if sorted(_item(w) for w in want) != sorted(_item(h) for h in have or []):
                return False
        elif key == "repeat":
            want = sorted(WEEKDAYS[:5] if want == "weekdays" else WEEKDAYS[5:] if want == "weekends"
                          else WEEKDAYS if want == "every day" else want)
            if want != have:
                return False
        elif key == "in_s":
            if have is None or abs(have - want) > 1:
                return False
        elif key == "change" and want == VOLUME_ASKED:
            continue  # the level only read: any volume reply reads it
        elif key == "list":
            if str(want) != str(have):
                return False
        elif have != want and not (isinstance(want, (int, float)) and isinstance(have, (int, float))
                                   and math.isclose(want, have)):
            return False
    return True


@dataclass
class Result:
    line: Line
    outcome: str
    intent: str
    """What the hub did: a reply's intent, or "model"."""
    reply: str
    ms: float
    got: dict[str, Any] = field(default_factory=dict)
    answer: str = ""
    """The model's answer as it is heard (--model only)."""
    route: str = ""
    """Who answered it when it was asked (--model only): "llm", unless deciding again took it elsewhere."""
    claimed: bool = False
    """The answer's start claimed an action, and the truth was said instead (--model only)."""


def judge(line: Line, step: Say | Think, corpus: Corpus, seeded: Seeded) -> tuple[str, str, dict[str, Any]]:
    """The outcome of one line, what the hub did, and the slots it showed."""
    if isinstance(step, Think):
        if line.lookalike:
            return "right", MODEL, {}
        return ("invented" if line.state else "pretended"), MODEL, {}
    reply = step.reply
    if line.lookalike:
        return "mistaken", reply.intent, {}
    if line.device:
        if reply.intent in (NO_HOME_ASSISTANT, "home_assistant"):
            return "right", reply.intent, {}
        return ("refused" if reply.intent in REFUSALS else "asked" if reply.intent.endswith("_clarify")
                else "wrong"), reply.intent, {}
    if reply.intent == line.intent or {reply.intent, line.intent} <= SILENT:
        got = given(reply, corpus, seeded)
        return ("right" if slots_match(line, got) else "slots"), reply.intent, got
    if reply.intent in REFUSALS:
        return "refused", reply.intent, {}
    if line.state and STATE.get(reply.intent) == line.state:
        return "slots", reply.intent, {}  # answered from the right state, as another question about it
    if line.state:
        return "invented", reply.intent, {}
    if reply.intent.endswith("_clarify"):
        return "asked", reply.intent, {}
    return "wrong", reply.intent, {}


# ------------------------------------------------------------------------------ the run


def household(corpus: Corpus, state_dir: Path, base: Config | None = None,
              by_meaning: bool = True) -> tuple[Config, Policy, Seeded]:
    """A fresh household of the corpus in `state_dir` (its timers, alarms, reminders, lists and volume, the
    clock at the corpus's `now`), and the policy that decides for it as `appliance ask` does: the local
    skills (by_meaning False: their words alone, without thinking/meaning.py), no Home Assistant."""
    from appliance.thinking.skills import build

    base = base or Config()
    cfg = dataclasses.replace(base, language=corpus.language,
                              service=dataclasses.replace(base.service, state_dir=str(state_dir)),
                              home_assistant=dataclasses.replace(base.home_assistant, enabled=False))
    clock = corpus.now.timestamp
    seeded = seed(cfg, corpus, clock)
    return cfg, Policy.configured(cfg, build(cfg, clock, ZoneInfo(ZONE), by_meaning), None), seeded


def _folder() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="understanding-", dir=MEMORY if MEMORY.is_dir() else None)


def run(corpus: Corpus, base: Config | None = None, by_meaning: bool = True) -> list[Result]:
    """Every line said to a fresh household, each in a state folder of its own."""
    from appliance.language import pack
    from appliance.thinking.intents import understanding

    understanding(pack(corpus.language))  # compiled before the first line, as the daemon does at start-up
    results: list[Result] = []
    with _folder() as tmp:
        for number, line in enumerate(corpus.lines):
            state_dir = Path(tmp) / str(number)
            state_dir.mkdir()
            _cfg, policy, seeded = household(corpus, state_dir, base, by_meaning)
            started = time.perf_counter()
            step = policy.begin(line.say)
            ms = (time.perf_counter() - started) * 1000.0
            assert isinstance(step, (Say, Think)), step  # no Home Assistant is asked here
            outcome, intent, got = judge(line, step, corpus, seeded)
            said = step.reply.text if isinstance(step, Say) else ""
            results.append(Result(line, outcome, intent, said, ms, got))
    return results


def model_config(model: str, base: Config | None = None) -> Config:
    """`base` (default: the default config) answering with `model`: "qwen" (the stand-in, joined from its
    packages once by bench/llm.py; exits saying how to install it when they are missing), "smollm2" or a
    GGUF path."""
    from bench.llm import model_path

    base = base or Config()
    return dataclasses.replace(base, llm=dataclasses.replace(base.llm, model=str(model_path(model))))


def hear(results: list[Result], corpus: Corpus, chat: Any, base: Config | None = None,
         by_meaning: bool = True) -> None:
    """What the person hears of the model's answer to every line that reached it (each a new conversation),
    through `appliance ask`'s answer path (commands/ask.py's Asker: decided again by the policy, then the
    model's answer written, split and its start checked for a claimed action, conversation/claims.py).
    Fills each such result's `answer` (as heard: the truth where a claim was replaced), `route` and
    `claimed`. `chat`: the loaded model (a Chat with reset(), as LlamaChat). The lines share one household:
    nothing the model says changes it. `by_meaning`: decided again as `run` decided them."""
    from appliance.commands.ask import Asker
    from appliance.conversation.responder import CLAIM

    with _folder() as tmp:
        cfg, policy, _seeded = household(corpus, Path(tmp), base, by_meaning)
        asker = Asker(cfg, chat_factory=lambda: chat, policy=policy)
        for result in results:
            if result.intent != MODEL:
                continue
            chat.reset()
            record = asker.ask(result.line.say, lambda _delta: None)
            result.answer, result.route = record.answer, record.route
            result.claimed = record.stop_reason == CLAIM


def ask_model(results: list[Result], corpus: Corpus, model: str) -> None:
    """The model's answer to every line that reached it, and whether its start claimed an action (hear)."""
    from appliance.assembly import load_chat

    cfg = model_config(model)
    hear(results, corpus, load_chat(cfg), cfg)


# ------------------------------------------------------------------------------ figures


def _p95(ms: list[float]) -> float:
    ms = sorted(ms)
    return ms[min(len(ms) - 1, math.ceil(0.95 * len(ms)) - 1)] if ms else 0.0


def _row(results: list[Result], with_model: bool) -> dict[str, Any]:
    counts = Counter(r.outcome for r in results)
    ms = [r.ms for r in results]
    row: dict[str, Any] = {"count": len(results), **{o: counts.get(o, 0) for o in OUTCOMES},
                           "mean_ms": round(statistics.fmean(ms), 2) if ms else 0.0,
                           "p95_ms": round(_p95(ms), 2)}
    if with_model:
        row["claimed"] = sum(r.claimed for r in results)
    return row


def summary(results: list[Result], with_model: bool = False) -> dict[str, Any]:
    by_intent: dict[str, list[Result]] = defaultdict(list)
    by_style: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_intent[r.line.intent].append(r)
        for style in r.line.style:
            by_style[style].append(r)
    requests = [r for r in results if not r.line.lookalike]
    lookalikes = [r for r in results if r.line.lookalike]
    return {"intents": {k: _row(v, with_model) for k, v in sorted(by_intent.items())},
            "styles": {k: _row(v, with_model) for k, v in sorted(by_style.items())},
            "requests": _row(requests, with_model), "lookalikes": _row(lookalikes, with_model),
            "all": _row(results, with_model)}


def totals_line(out: dict[str, Any], language: str) -> str:
    req, look, every = out["requests"], out["lookalikes"], out["all"]
    pct = (lambda n, d: f"{100.0 * n / d:.1f}%" if d else "-")  # noqa: E731
    said = (f"{language}: {req['count']} requests, {req['right']} done right "
            f"({pct(req['right'], req['count'])}), "
            f"{req['pretended']} pretended, {req['invented']} invented, {req['refused']} falsely refused; "
            f"{look['count']} look-alike questions, {look['right']} to the model "
            f"({pct(look['right'], look['count'])}), "
            f"{look['mistaken']} mistaken for requests; deciding {every['mean_ms']:.2f} ms mean, "
            f"{every['p95_ms']:.2f} ms p95 per transcript")
    if "claimed" in req:
        said += f"; the model claimed an action in {req['claimed'] + look['claimed']} answers"
    return said


def _table(title: str, rows: dict[str, dict[str, Any]], with_model: bool) -> Iterable[str]:
    heads = ["count", *OUTCOMES, "mean_ms", "p95_ms", *(["claimed"] if with_model else [])]
    width = max(len(title), *(len(k) for k in rows))
    yield f"{title:<{width}}  " + " ".join(f"{h:>9}" for h in heads)
    for key, row in rows.items():
        cells = [f"{row[h]:>9.2f}" if h.endswith("_ms") else f"{row[h]:>9}" for h in heads]
        yield f"{key:<{width}}  " + " ".join(cells)


def report(results: list[Result], out: dict[str, Any], language: str, show: bool, with_model: bool) -> None:
    print("\n".join(_table("intent", out["intents"], with_model)))
    print()
    print("\n".join(_table("style", out["styles"], with_model)))
    print()
    print(totals_line(out, language))
    if show:
        print()
        for r in results:
            if r.outcome != "right" or r.claimed:
                extra = f" got={r.got}" if r.outcome == "slots" else ""
                print(f"{r.outcome:9} {r.line.intent:16} -> {r.intent:16} {r.line.say!r} {r.reply!r}{extra}"
                      + (f" model={r.answer!r}" if r.answer else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--language", default="en", help="the corpus's language (default en)")
    parser.add_argument("--show", action="store_true",
                        help="also print every line not done right, with the reply")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="only every Nth line of the corpus (a quicker run, with --model above all)")
    parser.add_argument("--model", nargs="?", const="qwen", default=None,
                        help="also ask this model (qwen, the default; smollm2; a GGUF path) the lines "
                             "that reach it")
    parser.add_argument("--by-rules", action="store_true",
                        help="read requests by the skills' words alone, without reading by meaning "
                             "(thinking/meaning.py), to compare")
    args = parser.parse_args(argv)
    corpus = load(args.language)
    if args.every > 1:
        corpus = dataclasses.replace(corpus, lines=corpus.lines[::args.every])
    results = run(corpus, by_meaning=not args.by_rules)
    if args.model:
        ask_model(results, corpus, args.model)
    out = summary(results, bool(args.model))
    if args.json:
        out["totals"] = totals_line(out, corpus.language)
        print(json.dumps(out))
        return 0
    report(results, out, corpus.language, args.show, bool(args.model))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
