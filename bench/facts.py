"""What remembering costs: finding the kept fact that answers a question among 1,000, and what the facts
skill adds before a general question reaches the model, side by side with a hub that keeps none.

    .venv/bin/python -m bench.facts [--facts 1000] [--rounds 20] [--json]

A state folder is filled with `--facts` facts told over the last weeks (a file written as the hub writes
it, as an owner could), then, `--rounds` times over, interleaved:
- questions about kept facts, answered through LocalSkills.match as the hub asks it (the words found,
  the reply said), and FactIndex.find alone on the same words;
- general questions ("where is Paris", which the model answers) through LocalSkills.match with the
  facts and without them: the difference is all the facts can add before the model starts, so before
  a general question's first audio.
Building the index again after a change (a telling, a forgetting) is timed once per round. Figures only:
median, p95 and max in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.config import SkillsConfig
from appliance.thinking.facts import STATE_FILE, FactIndex, FactStore, words_of
from appliance.thinking.skills import LocalSkills
from appliance.thinking.timers import Timers

THINGS: Final = ["spare key", "passport", "torch", "fuse box", "stopcock", "gas meter", "bike lock key", "tax disc",
                 "warranty card", "paint tin", "ladder", "toolbox", "christmas lights", "sewing kit", "first aid box",
                 "charger", "umbrella", "picnic blanket", "camping stove", "allen key", "drill", "glue gun",
                 "wrapping paper", "birthday candles", "spare bulbs", "batteries", "vacuum bags", "door wedge",
                 "garden hose", "bird seed"]
PLACES: Final = ["under the stairs", "in the shed", "in the loft", "in the top drawer", "behind the boiler",
                 "in the garage", "on the top shelf", "in the blue box", "under the sink", "in the hall cupboard",
                 "in the red bag", "next to the freezer", "in the utility room", "under the bed", "in the car"]
OWNERS: Final = ["", "sam's ", "priya's ", "the old ", "grandma's ", "the new ", "the kids' ", "dad's "]
KEPT: Final = "the spare key is under the blue pot"
ASKED: Final = ["where is the spare key", "where's the spare key", "where did I put my passport",
                "where is the stopcock", "where are the batteries", "what's my neighbour called",
                "when was the boiler serviced", "where is sam's torch"]
GENERAL: Final = ["where is Paris", "what is the capital of France", "who wrote Pride and Prejudice",
                  "how does a boiler work", "what is a good name for a cat", "why is the sky blue",
                  "tell me a joke", "how far is the moon", "when was the Eiffel tower built",
                  "what is the best way to clean an oven"]


def fill(folder: Path, count: int, now: float) -> None:
    """`count` facts told over the last 60 days, the last few the ones ASKED names."""
    rng = random.Random(1234)
    told = datetime.fromtimestamp(now, UTC) - timedelta(days=60)
    facts = []
    for n in range(count - 4):
        thing = f"{rng.choice(OWNERS)}{rng.choice(THINGS)}"
        facts.append({"said": f"{thing} {'are' if thing.endswith('s') else 'is'} {rng.choice(PLACES)}",
                      "told": (told + timedelta(minutes=n * 60 * 24 * 60 // count)).isoformat(timespec="seconds")})
    for said in (KEPT, "my passport is in the top drawer", "my neighbours name is priya",
                 "the boiler was serviced today"):
        facts.append({"said": said, "told": (told + timedelta(days=59)).isoformat(timespec="seconds")})
    (folder / STATE_FILE).write_text(json.dumps({"version": 1, "facts": facts}, indent=1), encoding="utf-8")


def _quantiles(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {"median_ms": round(statistics.median(ms), 3), "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 3),
            "max_ms": round(ms[-1], 3)}


def measure(count: int, rounds: int) -> dict:
    now = time.time()
    with tempfile.TemporaryDirectory() as kept_dir, tempfile.TemporaryDirectory() as none_dir:
        kept, none = Path(kept_dir), Path(none_dir)
        fill(kept, count, now)
        with_facts = LocalSkills(SkillsConfig(), Timers(kept), tz=UTC, facts=FactStore(kept))
        without = LocalSkills(SkillsConfig(), Timers(none), tz=UTC)
        asking = next(s for s in with_facts._skills if getattr(s, "__self__", None) is not None
                      and getattr(s.__self__, "asking", False)).__self__
        stop = asking.stop
        facts, _ = asking.store.all()
        answered: list[float] = []
        found: list[float] = []
        general_with: list[float] = []
        general_without: list[float] = []
        builds: list[float] = []
        wrong = 0
        for skills in (with_facts, without):  # what the daemon does once at start-up: compile, read the facts
            skills.match(GENERAL[0])
            skills.match(ASKED[0])
        for _ in range(rounds):
            t0 = time.perf_counter()
            index = FactIndex(facts, stop, asking._topic)
            builds.append((time.perf_counter() - t0) * 1000.0)
            for question in ASKED:
                t0 = time.perf_counter()
                reply = with_facts.match(question)
                answered.append((time.perf_counter() - t0) * 1000.0)
                wrong += reply is None or reply.intent != "fact_answer"
                words = words_of(question, stop)
                t0 = time.perf_counter()
                index.find(words)
                found.append((time.perf_counter() - t0) * 1000.0)
            for question in GENERAL:
                for skills, times in ((with_facts, general_with), (without, general_without)):
                    t0 = time.perf_counter()
                    skills.match(question)
                    times.append((time.perf_counter() - t0) * 1000.0)
        added = [a - b for a, b in zip(general_with, general_without, strict=True)]
        return {"facts": len(facts), "rounds": rounds, "questions": len(ASKED), "not_answered_from_facts": wrong,
                "index_build": _quantiles(builds), "answered": _quantiles(answered), "find": _quantiles(found),
                "general_with_facts": _quantiles(general_with), "general_without": _quantiles(general_without),
                "general_added": _quantiles(added)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=1000, help="facts kept (default 1000)")
    parser.add_argument("--rounds", type=int, default=20, help="times each question is asked (default 20)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    out = measure(max(5, args.facts), max(1, args.rounds))
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['facts']} facts kept; {out['questions']} questions about them x {out['rounds']} rounds "
          f"({out['not_answered_from_facts']} not answered from the facts)")
    for key, label in (("answered", "question answered (LocalSkills.match)"), ("find", "finding alone (FactIndex.find)"),
                       ("index_build", "index built after a change"),
                       ("general_with_facts", "general question, skills with the facts"),
                       ("general_without", "general question, skills without them"),
                       ("general_added", "added before the model starts")):
        q = out[key]
        print(f"  {label:<42} median {q['median_ms']:7.3f} ms  p95 {q['p95_ms']:7.3f} ms  max {q['max_ms']:7.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
