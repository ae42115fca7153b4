"""The first piece of an answer: how soon it can be heard, and whether it sounds cut, for two settings
of conversation.first_clause_min_words side by side.

    .venv/bin/python -m bench.first_piece [--short 2] [--long 4] [--json]

For answers as the model writes them, the splitter's first piece under each setting is measured:
its words (what the model must write before speech can start: at the stand-in's 25-40 tokens/s,
each word is about 30-50 ms), Piper's time to its audio (median of 3), and the seam: the silence a
listener hears between the first piece and the next, against the longest pause Piper makes inside
the same text said whole (a comma's pause is the natural yardstick). Figures only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Final

import numpy as np

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.config import Config
from appliance.speaking.sentences import split_all
from appliance.speaking.tts import PiperSynthesizer

ANSWERS: Final = [  # the stand-in's answers to bench/e2e.py's questions, as it writes them
    "The moon is approximately 384,000 kilometers away from Earth.",
    "Bees produce honey, which is a sweet and sticky food made from nectar.",
    "The capital of France is Paris.",
    "Cats purr when they are content, and sometimes when they are stressed.",
    "Plants make food through photosynthesis, using sunlight, water and carbon dioxide.",
    "A rainbow is formed when sunlight is refracted and reflected by raindrops.",
    "Thunder is the sound caused by lightning heating the air very quickly.",
    "The speed of light is about 300,000 kilometers per second.",
    "Water boils at 100 degrees Celsius at sea level.",
    "You will need about two cups of flour and two cups of milk for six people.",
    "Leaves change colour in autumn because the trees stop making chlorophyll.",
    "Portuguese is the main language spoken in Brazil.",
]
QUIET_DBFS: Final = -45.0
FRAME_S: Final = 0.01


def _samples(synth: PiperSynthesizer, text: str) -> tuple[np.ndarray, float]:
    """The speech of `text` as float samples, and seconds to its first chunk."""
    started = time.perf_counter()
    chunks = []
    first = None
    for chunk in synth.synthesize(text):
        first = first if first is not None else time.perf_counter() - started
        chunks.append(chunk.to_float()[:, 0])
    return (np.concatenate(chunks) if chunks else np.zeros(0, np.float32)), first or 0.0


def _quiet_runs(audio: np.ndarray, rate: int) -> list[tuple[int, int]]:
    """(start, end) frames of each run of quiet 10 ms frames."""
    frame = int(rate * FRAME_S)
    frames = audio[: len(audio) // frame * frame].reshape(-1, frame)
    quiet = 20 * np.log10(np.sqrt((frames ** 2).mean(axis=1)) + 1e-9) < QUIET_DBFS
    runs, start = [], None
    for i, q in enumerate(quiet):
        if q and start is None:
            start = i
        elif not q and start is not None:
            runs.append((start, i))
            start = None
    if start is not None:
        runs.append((start, len(quiet)))
    return runs


def _inner_pause_ms(audio: np.ndarray, rate: int) -> float:
    """The longest pause inside speech (not the silence before or after it)."""
    runs = [(a, b) for a, b in _quiet_runs(audio, rate) if a > 0 and b < len(audio) // int(rate * FRAME_S)]
    return max(((b - a) * FRAME_S * 1000 for a, b in runs), default=0.0)


def _edge_ms(audio: np.ndarray, rate: int, end: bool) -> float:
    runs = _quiet_runs(audio, rate)
    total = len(audio) // int(rate * FRAME_S)
    if not runs:
        return 0.0
    a, b = runs[-1] if end else runs[0]
    return (b - a) * FRAME_S * 1000 if (b == total if end else a == 0) else 0.0


def measure(short: int, long: int) -> dict[str, Any]:
    cfg = Config()
    synth = PiperSynthesizer.from_config(cfg)
    rate = synth.rate
    phrase_max = cfg.conversation.first_phrase_max_words
    rows = []
    for answer in ANSWERS:
        whole, _ = _samples(synth, answer)
        row: dict[str, Any] = {"answer": answer, "inner_pause_ms": _inner_pause_ms(whole, rate)}
        for name, words in (("long", long), ("short", short)):
            pieces = split_all(answer, words, phrase_max)
            first_audio = statistics.median(_samples(synth, pieces[0])[1] for _ in range(3))
            head, _ = _samples(synth, pieces[0])
            tail, _ = _samples(synth, pieces[1]) if len(pieces) > 1 else (np.zeros(0, np.float32), 0.0)
            seam = _edge_ms(head, rate, end=True) + (_edge_ms(tail, rate, end=False) if len(tail) else 0.0)
            row[name] = {"first_piece": pieces[0], "words": len(pieces[0].split()),
                         "piper_first_ms": round(first_audio * 1000, 1), "seam_ms": seam if len(pieces) > 1 else None}
        rows.append(row)

    def med(name: str, key: str) -> float:
        values = [r[name][key] for r in rows if r[name][key] is not None]
        return round(statistics.median(values), 1) if values else 0.0

    return {"short": short, "long": long, "rows": rows,
            "words": {"long": med("long", "words"), "short": med("short", "words")},
            "piper_first_ms": {"long": med("long", "piper_first_ms"), "short": med("short", "piper_first_ms")},
            "seam_ms": {"long": med("long", "seam_ms"), "short": med("short", "seam_ms")},
            "inner_pause_ms": round(statistics.median(r["inner_pause_ms"] for r in rows), 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", type=int, default=2, help="first_clause_min_words to try (default 2)")
    parser.add_argument("--long", type=int, default=4, help="first_clause_min_words to compare with (default 4)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = measure(args.short, args.long)
    if args.json:
        print(json.dumps(out))
        return 0
    for row in out["rows"]:
        print(f"{row['long']['first_piece'][:44]:46} | {row['short']['first_piece'][:30]:32} "
              f"seam {row['long']['seam_ms']!s:>5} / {row['short']['seam_ms']!s:>5} ms, "
              f"pause inside the whole {row['inner_pause_ms']:.0f} ms")
    print(f"\nmedians, first_clause_min_words {args.long} / {args.short}: first piece {out['words']['long']} / "
          f"{out['words']['short']} words; Piper's first audio {out['piper_first_ms']['long']} / "
          f"{out['piper_first_ms']['short']} ms; seam {out['seam_ms']['long']} / {out['seam_ms']['short']} ms "
          f"(the longest pause inside each answer said whole: {out['inner_pause_ms']} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
