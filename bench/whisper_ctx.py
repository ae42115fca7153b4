"""Whisper tiny.en with a short encoder window (appliance.hearing.whisper_fast) against the library's 30 s window.

    .venv/bin/python -m bench.whisper_ctx [--repeats 3] [--more]

One run, side by side: WER and median/p95 transcribe time both ways over the 20 questions of
tests/models/test_asr.py (Piper clean, espeak-ng clean, Piper at 10 dB pink noise), each clip cut
where the endpointer ends it, as the appliance hands it over; then hard cases (a 0.5 s word,
a 10-12 s utterance, silence and noise only, "stop" in 30 voices and noise). Figures only, no assertions. Speech is made with
Piper and espeak-ng (tests/fixtures/speech.py), cached under .pytest_cache/d/speech.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Final

import numpy as np

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.config import Config
from appliance.hearing import whisper_fast
from appliance.hearing.asr import WhisperRecognizer, choose_engine
from tests.fixtures.speech import QUESTIONS, RATE, SpeechMaker, load, noise, run, voiced_span, word_errors

# (label, voice, speed, pink-noise SNR in dB): the three of test_asr.py, then --more for a wider sample
CONDITIONS: Final = [("piper clean", "piper", 1.0, None), ("espeak clean", "espeak:en-us", 1.0, None),
                     ("piper 10 dB pink", "piper", 1.0, 10.0)]
MORE_CONDITIONS: Final = [("espeak en-gb", "espeak:en-gb", 1.0, None), ("espeak f3 slow", "espeak:en-us+f3", 0.9, None),
                          ("piper fast", "piper", 1.25, None), ("espeak fast", "espeak:en-us", 1.3, None),
                          ("piper 5 dB pink", "piper", 1.0, 5.0), ("espeak 10 dB pink", "espeak:en-us", 1.0, 10.0)]
MAX_HANDED_OVER_S: Final = 12.3  # asr.max_utterance_s plus the 0.3 s pre-roll


def as_handed_over(recognizer: WhisperRecognizer, wav: Path) -> np.ndarray:
    """The samples the recognizer transcribes for `wav`: fed chunk by chunk until the endpointer ends it."""
    caught: list[np.ndarray] = []

    def catch(samples: np.ndarray) -> str:
        caught.append(samples)
        return ""

    recognizer.transcribe = catch  # type: ignore[method-assign]
    try:
        run(recognizer, wav)
    finally:
        del recognizer.transcribe
    return caught[0] if caught else np.zeros(0, dtype=np.float32)


def both(model: object, samples: np.ndarray, repeats: int) -> dict:
    """Text and milliseconds each way; the two alternate so neither gets a warmer machine."""
    out: dict = {"full_ms": [], "short_ms": []}
    for r in range(repeats):
        for way in ("full", "short") if r % 2 == 0 else ("short", "full"):
            started = time.perf_counter()
            if way == "full":
                out["full"] = whisper_fast.transcribe_full(model, samples)
            else:
                out["short"], out["path"] = whisper_fast.transcribe(model, samples)
            out[f"{way}_ms"].append((time.perf_counter() - started) * 1000)
    return out


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95))


def questions(recognizer: WhisperRecognizer, speech: SpeechMaker, repeats: int,
              conditions: list[tuple[str, str, float, float | None]]) -> None:
    model = recognizer._model
    print(f"{'condition':18s} {'WER full':>8s} {'WER short':>9s} | {'median ms full/short':>20s} | "
          f"{'p95 ms full/short':>17s} | speed-up | fallbacks")
    all_full: list[float] = []
    all_short: list[float] = []
    tokens_per_s = 0.0
    for label, voice, speed, snr in conditions:
        edits = Counter[str]()
        paths = Counter[str]()
        full_ms: list[float] = []
        short_ms: list[float] = []
        for q in QUESTIONS:
            wav = speech.join([0.3, speech(q, voice=voice, speed=speed), 1.0])
            if snr is not None:
                wav = speech.noisy(wav, snr, "pink", seed=3)
            samples = as_handed_over(recognizer, wav)
            got = both(model, samples, repeats)
            for way in ("full", "short"):
                e, n = word_errors(q, got[way])
                edits[way] += e
                edits["words"] += n if way == "full" else 0
            if got["full"] != got["short"]:
                print(f"    differs ({label}): full {got['full']!r} / short {got['short']!r} [{got['path']}]")
            paths[got["path"]] += 1
            full_ms += got["full_ms"]
            short_ms += got["short_ms"]
            tokens_per_s = max(tokens_per_s, len(model.hf_tokenizer.encode(got["full"]).ids) / (len(samples) / RATE))
        all_full += full_ms
        all_short += short_ms
        print(f"{label:18s} {edits['full'] / edits['words']:8.1%} {edits['short'] / edits['words']:9.1%} | "
              f"{statistics.median(full_ms):9.0f} / {statistics.median(short_ms):<8.0f} | "
              f"{p95(full_ms):7.0f} / {p95(short_ms):<7.0f} | "
              f"{statistics.median(full_ms) / statistics.median(short_ms):7.1f}x | {dict(paths)}")
    print(f"{f'all {len(all_full) // repeats} clips':18s} {'':8s} {'':9s} | {statistics.median(all_full):9.0f} / "
          f"{statistics.median(all_short):<8.0f} | {p95(all_full):7.0f} / {p95(all_short):<7.0f} | "
          f"{statistics.median(all_full) / statistics.median(all_short):7.1f}x |")
    print(f"most tokens per second of audio: {tokens_per_s:.1f} (budget {whisper_fast.TOKENS_PER_S}/s "
          f"+ {whisper_fast.EXTRA_TOKENS})")


def hard_cases(recognizer: WhisperRecognizer, speech: SpeechMaker, repeats: int) -> None:
    model = recognizer._model
    stop = load(speech("stop"))
    start, end = voiced_span(stop)
    long_text = " ".join(QUESTIONS[:8])
    cut = int(MAX_HANDED_OVER_S * RATE)
    long_talk = load(speech.join([0.3, speech(long_text), 0.6]))[:cut]
    long_espeak = load(speech.join([0.3, speech(long_text, voice="espeak:en-us"), 0.6]))[:cut]
    cases: dict[str, tuple[str, np.ndarray]] = {
        f"'stop' ({end - start:.2f} s voiced)": ("stop", np.concatenate([np.zeros(4800, np.float32),
                                                                         stop, np.zeros(9600, np.float32)])),
        "'stop' espeak fast": ("stop", load(speech.join([0.3, speech("stop", voice="espeak:en-us", speed=1.3),
                                                          0.6]))),
        f"long talk ({len(long_talk) / RATE:.1f} s)": (long_text, long_talk),
        f"long talk espeak ({len(long_espeak) / RATE:.1f} s)": (long_text, long_espeak),
        "digital silence 2 s": ("", np.zeros(2 * RATE, np.float32)),
        "pink noise 2 s (-30 dBFS)": ("", 0.03 * noise("pink", 2 * RATE, seed=1)),
        "white noise 3 s (-30 dBFS)": ("", 0.03 * noise("white", 3 * RATE, seed=2)),
        "brown noise 4 s (-20 dBFS)": ("", 0.1 * noise("brown", 4 * RATE, seed=3)),
        "silence 31 s (too long)": ("", np.zeros(31 * RATE, np.float32)),
    }
    print("\nhard cases: text full | text short [path] | words wrong full/short | median ms full/short")
    for name, (ref, samples) in cases.items():
        got = both(model, samples, repeats)
        errors = "/".join(str(word_errors(ref, got[w])[0]) for w in ("full", "short"))
        print(f"  {name:28s} {got['full'][:60]!r} | {got['short'][:60]!r} [{got['path']}] | {errors} | "
              f"{statistics.median(got['full_ms']):.0f} / {statistics.median(got['short_ms']):.0f}")


def stop_sweep(recognizer: WhisperRecognizer, speech: SpeechMaker) -> None:
    """The one-word command that matters most, in 5 voices x 3 speeds x clean and 10 dB: how often it is missed."""
    model = recognizer._model
    missed: Counter[str] = Counter()
    heard: Counter[str] = Counter()
    clips = 0
    for voice in ("piper", "espeak:en-us", "espeak:en-gb", "espeak:en-us+f3", "espeak:en-us+m3"):
        for speed in (0.9, 1.0, 1.25):
            for snr in (None, 10.0):
                wav = speech.join([0.3, speech("stop", voice=voice, speed=speed), 0.6])
                samples = load(speech.noisy(wav, snr, "pink", seed=3) if snr is not None else wav)
                got = both(model, samples, 1)
                clips += 1
                for way in ("full", "short"):
                    missed[way] += word_errors("stop", got[way])[0] > 0
                heard[f"{got['short']} [{got['path']}]"] += 1
    print(f"\n'stop' in {clips} clips, not heard as 'stop': full {missed['full']}, short {missed['short']}; "
          f"short heard {dict(heard)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per clip each way")
    parser.add_argument("--more", action="store_true", help="six more voices, speeds and noise levels")
    args = parser.parse_args()
    speech = SpeechMaker(ROOT / ".pytest_cache" / "d" / "speech")
    cfg = dataclasses.replace(Config(), asr=dataclasses.replace(Config().asr, engine="whisper"))
    recognizer = WhisperRecognizer(cfg, choose_engine(cfg)[1]).load()
    assert isinstance(recognizer, WhisperRecognizer)
    print(f"Whisper tiny.en int8, {cfg.asr.threads} threads, beam 1; short window: audio + "
          f"{whisper_fast.MARGIN_S:g} s rounded up to {whisper_fast.ROUND_S:g} s, "
          f"{whisper_fast.MIN_CONTEXT_S:g} s at least; {args.repeats} timed runs per clip each way\n")
    both(recognizer._model, load(speech("what time is it")), 2)  # warm up both paths
    questions(recognizer, speech, args.repeats, CONDITIONS + (MORE_CONDITIONS if args.more else []))
    hard_cases(recognizer, speech, args.repeats)
    stop_sweep(recognizer, speech)
    return 0


if __name__ == "__main__":
    sys.exit(main())
