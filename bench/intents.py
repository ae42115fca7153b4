"""What telling a request apart costs between the transcript and the answer: Home Assistant's
sentences (hassil with home-assistant-intents) against the pack's own patterns, in one run.

    .venv/bin/python -m bench.intents [--rounds 5] [--json]

Every request of the honesty list and every question of bench/e2e.py is matched `--rounds` times
on a compiled Understanding (the daemon compiles it at start-up), each time as a transcript seen
for the first time; then once more as the words seen a moment before (the final transcript after
the early one). Figures only: load time, per-transcript median, p95 and max in milliseconds, and
the ratio to the pack's regular expressions on the same words.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.language import pack
from appliance.thinking.intents import Understanding
from bench.e2e import QUESTIONS
from tests.fixtures.honesty import requests

LOCAL: Final = ["set a timer for ten minutes", "what time is it", "what's the date today", "turn the volume up",
                "stop", "add milk to my shopping list", "cancel my timer", "how long is left on the timer"]


def _quantiles(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {"median_ms": round(statistics.median(ms), 3), "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 3),
            "max_ms": round(ms[-1], 3)}


def measure(rounds: int) -> dict:
    words = pack()
    texts = [text for text, _kind in requests()] + list(QUESTIONS) + LOCAL
    started = time.perf_counter()
    understood = Understanding(words)
    load_ms = (time.perf_counter() - started) * 1000.0
    first: list[float] = []
    again: list[float] = []
    patterns: list[float] = []
    plain = words.requests
    for _ in range(rounds):
        for text in texts:
            understood._kept.clear()  # seen for the first time
            t0 = time.perf_counter()
            understood.recognize(text)
            t1 = time.perf_counter()
            understood.recognize(text)
            t2 = time.perf_counter()
            lowered = text.lower()
            plain.controls.search(lowered)
            plain.internet.search(lowered)
            t3 = time.perf_counter()
            first.append((t1 - t0) * 1000.0)
            again.append((t2 - t1) * 1000.0)
            patterns.append((t3 - t2) * 1000.0)
    out = {"transcripts": len(texts), "rounds": rounds, "load_ms": round(load_ms, 1),
           "first": _quantiles(first), "again": _quantiles(again), "patterns": _quantiles(patterns)}
    out["ratio_first_to_patterns"] = round(out["first"]["median_ms"] / max(out["patterns"]["median_ms"], 1e-6), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="times each transcript is matched (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    out = measure(args.rounds)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"Home Assistant's sentences compiled in {out['load_ms']:.0f} ms; "
          f"{out['transcripts']} transcripts x {out['rounds']} rounds")
    for name, label in (("first", "first sight"), ("again", "seen just before"), ("patterns", "pack patterns")):
        q = out[name]
        print(f"  {label:18} median {q['median_ms']:7.3f} ms   p95 {q['p95_ms']:7.3f} ms   max {q['max_ms']:7.3f} ms")
    print(f"  first sight / pack patterns (median): {out['ratio_first_to_patterns']}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
