"""Benchmark: a plain stop and "hey jarvis" said soon after the echo's path moved, against the same in a
steady room, through the warm canceller.

    .venv/bin/python -m bench.echo_moved               # 30 cases
    .venv/bin/python -m bench.echo_moved --cases 12 --json

Through a sound server, the hub's echo moves a few milliseconds at a time while it speaks and neither
device says so (a server-side underrun, a stream whose latency grows): the room test saw 3-8 moves
of +1 to +7 ms in two minutes. Until the canceller has found the echo again, what is left of the hub's
voice is loud, and a word said then can be lost in it. Each case here is one of bench/echo.py's (its
rooms, levels, voices and stop phrases), with the echo `--move-ms` later from `--before-s` before the
person speaks on; the same case without the move is measured beside it in the same run.
Printed: the plain stop's recall (a real StopWords detector with Whisper, as bench/echo_stop.py, told by
the canceller when the hub's voice comes through it uncancelled, as in the daemon; beside it, the same
detector not told; each with the stops it heard where the person said none), "hey jarvis" recall at the
barge-in threshold (as bench/echo.py), and ERLE over the second before the person speaks, steady and moved.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Final

import numpy as np

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.config import Config  # noqa: E402
from bench.echo import (  # noqa: E402
    CHUNK,
    ECHO_DB,
    NOISE_RMS,
    VOICE_RMS,
    VOICES,
    Canceller,
    answers,
    at_voice_rate,
    detector,
    earlier_answer,
    level_above,
    room_for,
    scores,
)
from bench.echo_stop import Stops  # noqa: E402
from bench.stop import PHRASES, at_level  # noqa: E402
from tests.fixtures.room import erle_db, through_room  # noqa: E402
from tests.fixtures.speech import RATE, SpeechMaker, load, noise, speech_rms, voiced_span  # noqa: E402

MOVE_MS: Final = 4.0  # how much later the echo comes after the move
BEFORE_S: Final = 1.0  # seconds before the person's words that it moves


def moved(sounded: np.ndarray, at: int, move: int) -> np.ndarray:
    """`sounded` as it reaches the room when the speaker's sound comes `move` samples later from `at` on."""
    return np.concatenate([sounded[:at], np.zeros(move, np.float32), sounded[at:]])[: len(sounded)]


def case_pair(case: int, said: np.ndarray, talk: list[np.ndarray], move: int, before_s: float
              ) -> tuple[np.ndarray, dict[str, np.ndarray], int]:
    """(played, {"steady": heard, "moved": heard}, where the person starts) for one case."""
    rng = np.random.default_rng(100 + case)
    played, sounded = at_voice_rate(np.concatenate([talk[case % len(talk)], talk[(case + 1) % len(talk)]]))
    ir, _, _ = room_for(case)
    at = int(rng.uniform(3.0, 5.0) * RATE)
    echo = through_room(sounded, ir)
    gain = level_above(echo, said, ECHO_DB[case % len(ECHO_DB)])
    person = np.zeros_like(echo)
    person[at:at + len(said)] = said
    room = NOISE_RMS * noise("pink", len(echo), seed=case)
    heard = {"steady": gain * echo + person + room,
             "moved": gain * through_room(moved(sounded, at - int(before_s * RATE), move), ir) + person + room}
    return played, heard, at


def measure(cases: int, move_ms: float, before_s: float) -> dict:
    cfg = Config()
    speech = SpeechMaker(ROOT / ".pytest_cache" / "d" / "speech")
    talk = answers(speech, 12)
    wake = detector(cfg, quiet_gate=True)
    stops = Stops(cfg)
    canceller = Canceller(cfg.audio.echo_engine)
    move = round(move_ms / 1000 * RATE)
    threshold = cfg.wake.barge_in_threshold
    found: dict[str, dict[str, list]] = {side: {"stop": [], "stop_blind": [], "elsewhere": [], "elsewhere_blind": [],
                                                "wake": [], "erle_db": []}
                                         for side in ("steady", "moved")}
    for case in range(cases):
        voice, speed = VOICES[case % len(VOICES)]
        phrase = PHRASES[case % len(PHRASES)]
        for kind, text in (("stop", phrase), ("wake", "hey jarvis")):
            said = load(speech(text, voice=voice, speed=speed))
            said = at_level(said, VOICE_RMS) if kind == "stop" else said * (VOICE_RMS / speech_rms(said))
            played, heard, at = case_pair(case, said, talk, move, before_s)
            ir, _, _ = room_for(case)
            before = earlier_answer(talk[(case + 5) % len(talk)], ir, 1.0, seed=500 + case)
            for side, samples in heard.items():
                states: list[tuple[bool, int]] = []
                out = canceller.run(played, samples, 0.0, (before[0], before[1] * float(np.std(samples[:at]) /
                                                                                     max(np.std(before[1]), 1e-9))),
                                    states)
                if kind == "stop":
                    hit, elsewhere, _ = stops.hear(out, at, len(said), states)
                    found[side]["stop"].append(hit)
                    found[side]["elsewhere"].append(elsewhere)
                    blind, elsewhere, _ = stops.hear(out, at, len(said))
                    found[side]["stop_blind"].append(blind)
                    found[side]["elsewhere_blind"].append(elsewhere)
                    lo = at - RATE
                    found[side]["erle_db"].append(erle_db(samples[lo:at], out[lo:at]))
                else:
                    _, end_s = voiced_span(said)
                    window = slice(at // CHUNK, (at + int((end_s + 1.0) * RATE)) // CHUNK + 1)
                    found[side]["wake"].append(float(scores(wake, out)[window].max()) >= threshold)
    return {side: {"stop_recall": round(float(np.mean(v["stop"])), 3),
                   "stop_recall_blind": round(float(np.mean(v["stop_blind"])), 3),
                   "stops_elsewhere": int(np.sum(v["elsewhere"])),
                   "stops_elsewhere_blind": int(np.sum(v["elsewhere_blind"])),
                   "wake_recall": round(float(np.mean(v["wake"])), 3),
                   "erle_db_before_words": round(float(np.median(v["erle_db"])), 1)} for side, v in found.items()} | {
        "cases": cases, "move_ms": move_ms, "before_s": before_s, "threshold": threshold}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=30, help="stops and barge-ins of each kind (default 30)")
    parser.add_argument("--move-ms", type=float, default=MOVE_MS, help=f"how far the echo moves (default {MOVE_MS:g})")
    parser.add_argument("--before-s", type=float, default=BEFORE_S,
                        help=f"seconds before the person's words that it moves (default {BEFORE_S:g})")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.cases, args.move_ms, args.before_s)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.cases} cases; the echo {args.move_ms:+g} ms from {args.before_s:g} s before the person's words")
    print(f"{'':8}{'plain stop':>12}{'elsewhere':>11}{'  floor blind to the canceller':>31}{'elsewhere':>11}"
          f"{'hey jarvis':>12}{'ERLE the second before':>25}")
    for side in ("steady", "moved"):
        r = result[side]
        print(f"{side:8}{r['stop_recall']:>12.3f}{r['stops_elsewhere']:>11}{r['stop_recall_blind']:>31.3f}"
              f"{r['stops_elsewhere_blind']:>11}{r['wake_recall']:>12.3f}{r['erle_db_before_words']:>22.1f} dB")
    print("elsewhere: stops heard where the person said none (the hub's own voice)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
