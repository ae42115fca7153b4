"""Soak: many turns back to back from generated recordings (fast mode): no crash, no lost turn, flat memory.

    .venv/bin/python bench/soak.py                       # 200 turns, SmolLM2, Whisper tiny.en
    .venv/bin/python bench/soak.py --turns 40 --model qwen

Every recording must give exactly one turn record; RSS is compared between the end of the
warm-up and the end (growth must stay under 5%), and the thread count must not creep.
Prints the figures; the exit status is 1 when a criterion fails.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

OUT: Final = ROOT / "bench" / "out"
MAX_RSS_GROWTH: Final = 0.05  # after warm-up
SOAK_QUESTIONS: Final = [
    "What is the capital of France?", "What time is it?", "Name a colour.", "What day is it today?",
    "How many legs does a dog have?", "Say hello.", "What is two plus two?", "Stop.",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=50,
                        help="turns before the memory baseline: back to back, the conversation history "
                        "grows until it fills the model's n_ctx (about 40 turns), and memory with it")
    parser.add_argument("--model", default="smollm2", help="smollm2, qwen (the stand-in) or a GGUF path")
    args = parser.parse_args()

    if os.environ.get("MALLOC_ARENA_MAX") is None:  # as systemd/appliance.service sets it
        os.execve(sys.executable, [sys.executable, *sys.argv], dict(os.environ, MALLOC_ARENA_MAX="2"))
    import psutil
    from e2e import ClockSink, config_for, make_questions

    from appliance import log
    from appliance.assembly import build_stages
    from appliance.conversation.replay import listen_turn

    log.setup("WARNING")
    cfg = config_for(args.model)
    (OUT / "state").mkdir(parents=True, exist_ok=True)
    sink = ClockSink(realtime=False)
    stages = build_stages(cfg, sink=sink, mic=False)
    import e2e

    e2e.QUESTIONS[:] = SOAK_QUESTIONS  # short answers: the soak is about leaks, not latency
    wavs = make_questions(stages.tts, len(SOAK_QUESTIONS), OUT / "soak-questions")
    proc = psutil.Process()
    outcomes: collections.Counter[str] = collections.Counter()
    lost: list[int] = []
    baseline_rss = baseline_threads = early_rss = 0
    samples: list[tuple[int, float, int]] = []
    started = time.monotonic()
    for i in range(args.turns):
        records: list[Any] = []
        result = listen_turn(str(wavs[i % len(wavs)]), cfg, stages, fast=True, records=records)
        if len(records) != 1:
            lost.append(i)
        outcomes[str(result["outcome"])] += 1
        rss, threads = proc.memory_info().rss, proc.num_threads()
        samples.append((i, rss / 2**20, threads))
        if i + 1 == 10:
            early_rss = rss
        if i + 1 == args.warmup:
            baseline_rss, baseline_threads = rss, threads
        if (i + 1) % 20 == 0:
            print(f"turn {i + 1:4d}: RSS {rss / 2**20:7.1f} MiB, {threads} threads, "
                  f"{(time.monotonic() - started) / (i + 1):.2f} s/turn", flush=True)
    final_rss, final_threads = proc.memory_info().rss, proc.num_threads()
    growth = (final_rss - baseline_rss) / baseline_rss if baseline_rss else 0.0
    max_threads = max(t for _, _, t in samples[args.warmup:]) if len(samples) > args.warmup else final_threads
    print(f"\n{args.turns} turns in {time.monotonic() - started:.0f} s; outcomes {dict(outcomes)}; "
          f"{sink.played_s:.0f} s of speech produced")
    print(f"lost turns (no record): {len(lost)} {lost[:10]}")
    print(f"RSS after warm-up {baseline_rss / 2**20:.1f} MiB, at the end {final_rss / 2**20:.1f} MiB: "
          f"growth {growth * 100:+.2f}% (limit {MAX_RSS_GROWTH * 100:.0f}%)")
    if early_rss:
        print(f"(RSS at turn 10 was {early_rss / 2**20:.1f} MiB: "
              f"{(final_rss - early_rss) / early_rss * 100:+.2f}% from there, while the history fills n_ctx)")
    print(f"threads after warm-up {baseline_threads}, at the end {final_threads}, most after warm-up {max_threads}")
    ok = not lost and growth < MAX_RSS_GROWTH and max_threads <= baseline_threads + 1
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
