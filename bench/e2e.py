"""Benchmark: end of speech to first audio, streaming pipeline against the naive one, over spoken questions.

    .venv/bin/python bench/e2e.py                       # 20 questions, Qwen stand-in, real-time pacing
    .venv/bin/python bench/e2e.py --questions 5 --model smollm2 --json bench/out/e2e.json

Both pipelines run the same conductor, models and recordings, interleaved question by question:
  streaming: an early transcript after a short pause starts the answer while the end of the
             question is being confirmed (its audio is held until then); sentences go to Piper
             while the model still writes; playback starts at the first one.
  naive:     whole transcript after the endpoint, whole answer, whole speech synthesized, then play.
Each recording ("Hey Jarvis. <question>") is paced in real time, so the end-of-speech time is real.
The speaker is a clock that "plays" each chunk in real time, so drain() waits as a speaker would.
Prints medians and 95th percentiles of each term and the ratio streaming/naive (lower is better),
and draws one turn of each as a PNG timeline (bench/out/timeline.png and docs/timeline.png).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT: Final = ROOT / "bench" / "out"
DOCS_PNG: Final = ROOT / "docs" / "timeline.png"
QUESTIONS: Final = [
    "What is the capital of France?", "Why is the sky blue?", "How far away is the moon?",
    "What do bees make?", "Who wrote Romeo and Juliet?", "How many legs does a spider have?",
    "What is the boiling point of water?", "Why do cats purr?", "What is the largest ocean?",
    "How do plants make food?", "What is a rainbow?", "Who painted the Mona Lisa?",
    "What is the tallest mountain?", "Why do leaves change colour in autumn?", "What is thunder?",
    "How long does it take to boil an egg?", "What is the speed of light?", "Why is the sea salty?",
    "What language is spoken in Brazil?", "How many days are in a leap year?",
]


class ClockSink:
    """A speaker stand-in that plays in real time: first_audio_at is when the first sample would sound.

    With realtime=False drain() returns at once (the soak: many turns, no waiting for playback).
    """

    def __init__(self, realtime: bool = True) -> None:
        self.realtime = realtime
        self.played_s = 0.0
        self._lock = threading.Lock()
        self._busy_until = 0.0
        self._first: float | None = None

    def play(self, chunk: Any) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._busy_until)
            if self._first is None:
                self._first = start
            self._busy_until = start + chunk.duration_s
            self.played_s += chunk.duration_s

    def stop(self) -> None:
        with self._lock:
            self._busy_until = time.monotonic()

    def drain(self, timeout: float) -> bool:
        if not self.realtime:
            return True
        wait = self._busy_until - time.monotonic()
        time.sleep(max(0.0, min(wait, timeout)))
        return time.monotonic() >= self._busy_until

    def first_audio_at(self) -> float | None:
        return self._first

    def mark_turn(self) -> None:
        self._first = None

    def close(self) -> None:
        pass


class NaiveChat:
    """The whole answer as one delta, handed over only when the model has finished."""

    def __init__(self, chat: Any) -> None:
        self.chat = chat

    def stream(self, question: str, cancel: threading.Event):
        text = "".join(self.chat.stream(question, cancel))
        if text:
            yield text

    @property
    def last_stats(self) -> Any:
        return self.chat.last_stats

    def forget(self, question: str) -> bool:
        return self.chat.forget(question)


class NaiveTts:
    """All of the speech synthesized before the first chunk is handed over."""

    def __init__(self, tts: Any) -> None:
        self.tts = tts
        self.rate = tts.rate

    def synthesize(self, text: str):
        yield from list(self.tts.synthesize(text))


class WholeText:
    """A 'splitter' that keeps everything for the end."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, delta: str) -> list[str]:
        self.parts.append(delta)
        return []

    def finish(self) -> list[str]:
        text = "".join(self.parts).strip()
        return [text] if text else []


def make_questions(synth: Any, count: int, folder: Path) -> list[Path]:
    """'Hey Jarvis.' + 0.4 s + question + 1.2 s of silence as 16 kHz WAVs, made once with Piper."""
    import numpy as np

    from appliance.audio import AudioChunk, concat, resample, write_wav

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, question in enumerate((QUESTIONS * (count // len(QUESTIONS) + 1))[:count]):
        path = folder / f"q{i:02d}.wav"
        if not path.exists():
            def say(text: str) -> AudioChunk:
                return resample(concat(list(synth.synthesize(text))), 16000)

            def gap(s: float) -> AudioChunk:
                return AudioChunk.from_int16(np.zeros(int(16000 * s), dtype="<i2"), 16000)

            write_wav(path, concat([gap(0.5), say("Hey Jarvis."), gap(0.4), say(question), gap(1.2)]))
        paths.append(path)
    return paths


def config_for(model: str) -> Any:
    from appliance.config import Config

    sys.path.insert(0, str(ROOT / "bench"))
    from llm import model_path  # bench/llm.py joins the Qwen stand-in once

    cfg = Config()
    return dataclasses.replace(cfg, llm=dataclasses.replace(cfg.llm, model=str(model_path(model))),
                               asr=dataclasses.replace(cfg.asr, engine="whisper"),
                               service=dataclasses.replace(cfg.service, state_dir=str(OUT / "state")))


def with_home_assistant(cfg: Any, stages: Any) -> tuple[Any, Any, Any]:
    """A real Home Assistant started as the e2e tests start it, and the streaming pipeline asking it first."""
    import tempfile

    from appliance.thinking.home_assistant import HomeAssistant
    from tests.fixtures.home_assistant import HomeAssistantServer, ensure_venv

    folder = Path(tempfile.mkdtemp(prefix="bench-home-assistant-"))
    server = HomeAssistantServer(ensure_venv(folder / "install.log"), folder)
    server.start()
    ha = dataclasses.replace(cfg.home_assistant, enabled=True, url=server.url, token_file=str(server.token_file))
    ha_cfg = dataclasses.replace(cfg, home_assistant=ha)
    return server, ha_cfg, dataclasses.replace(stages, home=HomeAssistant(ha))


def pct(values: list[float], q: float) -> float | None:
    import numpy as np

    return float(np.percentile(values, q)) if values else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    keys = list(rows[0]["timings_ms"]) if rows else []
    return {k: {"median": pct([r["timings_ms"][k] for r in rows if r["timings_ms"][k] is not None], 50),
                "p95": pct([r["timings_ms"][k] for r in rows if r["timings_ms"][k] is not None], 95)} for k in keys}


def draw_timeline(turns: dict[str, Any], path: Path) -> None:
    """One turn of each pipeline as horizontal bars on a shared time axis (0 = end of speech)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(turns), 1, figsize=(10, 1.9 * len(turns) + 0.6), sharex=True)
    axes = axes if len(turns) > 1 else [axes]
    colours = {"speech": "#9e9e9e", "ASR": "#42a5f5", "language model": "#ab47bc",
               "first sentence": "#ffa726", "speech synthesis + play": "#66bb6a"}
    for ax, (name, rec) in zip(axes, turns.items()):
        def s(x: float | None, t0: float = rec.speech_end_at) -> float | None:
            return None if x is None else x - t0

        model_start = rec.early_at if rec.early_at is not None else rec.transcript_at
        bars = [("speech", s(rec.wake_at), 0.0),
                ("ASR", 0.0, s(rec.transcript_at)),
                ("language model", s(model_start), s(rec.answer_done_at)),
                ("first sentence", s(rec.first_token_at), s(rec.first_sentence_at)),
                ("speech synthesis + play", s(rec.first_sentence_at), s(rec.audio_done_at))]
        for row, (label, start, end) in enumerate(bars):
            if start is not None and end is not None and end > start:
                ax.barh(row, end - start, left=start, color=colours[label])
        first = s(rec.first_audio_at)
        if first is not None:
            ax.axvline(first, color="#e53935", lw=2)
            ax.text(first, len(bars) - 0.4, f" first audio {first * 1000:.0f} ms", color="#e53935", va="top")
        if rec.early_at is not None:  # the answer began from the early transcript, its audio held back
            ax.axvline(s(rec.early_at), color="#7b1fa2", lw=1, ls="--")
            ax.text(s(rec.early_at), -0.45, " early transcript: answer starts", color="#7b1fa2", va="bottom",
                    fontsize=8)
            ax.axvline(s(rec.transcript_at), color="#1565c0", lw=1, ls=":")
            ax.text(s(rec.transcript_at), len(bars) - 1.4, " end of question confirmed", color="#1565c0",
                    fontsize=8)
        ax.axvline(0, color="black", lw=1)
        ax.set_yticks(range(len(bars)), [b[0] for b in bars])
        ax.invert_yaxis()
        ax.set_title(f"{name}: \"{rec.transcript}\"", fontsize=10, loc="left")
    axes[-1].set_xlabel("seconds from the end of speech")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--model", default="qwen", help="qwen (the stand-in), smollm2, or a GGUF path")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--png", metavar="PATH", default=str(OUT / "timeline.png"))
    parser.add_argument("--home-assistant", action="store_true",
                        help="also run the streaming pipeline with a real Home Assistant asked first (started "
                             "here, as the e2e tests start it), interleaved, to show what its round trip costs")
    parser.add_argument("--llm-threads", type=int, default=None,
                        help="llm.n_threads for both pipelines (default: the config's, cores minus one)")
    args = parser.parse_args()

    from appliance import log
    from appliance.assembly import build_stages
    from appliance.conversation.replay import listen_turn

    log.setup("WARNING")
    cfg = config_for(args.model)
    if args.llm_threads:
        cfg = dataclasses.replace(cfg, llm=dataclasses.replace(cfg.llm, n_threads=args.llm_threads))
    (OUT / "state").mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    stages = build_stages(cfg, sink=ClockSink(), mic=False)
    print(f"models loaded in {time.monotonic() - started:.1f} s; model {Path(cfg.llm.model).name}", flush=True)
    wavs = make_questions(stages.tts, args.questions, OUT / "questions")
    naive_cfg = dataclasses.replace(cfg, asr=dataclasses.replace(cfg.asr, early_silence_s=0.0),
                                    conversation=dataclasses.replace(cfg.conversation, preemptive=False))
    naive_asr = copy.copy(stages.asr)  # the same loaded models; transcribes only after the endpoint
    naive_asr.cfg = naive_cfg
    naive_stages = dataclasses.replace(stages, asr=naive_asr, chat=NaiveChat(stages.chat), tts=NaiveTts(stages.tts),
                                       splitter_factory=WholeText)
    rows: dict[str, list[dict[str, Any]]] = {"streaming": [], "naive": []}
    pipelines = {"streaming": (cfg, stages), "naive": (naive_cfg, naive_stages)}
    home_server = None
    if args.home_assistant:
        home_server, ha_cfg, ha_stages = with_home_assistant(cfg, stages)
        pipelines["with_ha"] = (ha_cfg, ha_stages)
        rows["with_ha"] = []
    example: dict[str, Any] = {}
    for i, wav in enumerate(wavs):
        names = list(pipelines)
        order = names[i % len(names):] + names[:i % len(names)]  # each pipeline goes first in turn
        for name in order:
            # Each question starts a fresh conversation (system prompt still cached), as questions
            # asked minutes apart do (llm idle reset): otherwise 40 answers pile up in one context.
            stages.chat.reset()
            records: list[Any] = []
            result = listen_turn(str(wav), *pipelines[name], records=records)
            rows[name].append(result)
            if i == 0 and records:
                example[name] = records[0]
            t = result["timings_ms"]
            early = "early" if result.get("preemptive") else ""
            first = records[0].answer_parts[0] if records and records[0].answer_parts else ""
            print(f"{i:2d} {name:9} {result['outcome']!s:9} {early:5} first audio {t['speech_end_to_first_audio']!s:>7} ms  "
                  f"{first[:40]!r:42} {(result['answer'] or '')[:50]!r}", flush=True)
    figures = {name: summarize([r for r in rs if r["outcome"] == "answered"]) for name, rs in rows.items()}
    key = "speech_end_to_first_audio"
    print(f"\n{'term (ms)':34} {'streaming med':>14} {'p95':>8} {'naive med':>10} {'p95':>8}")
    for term in figures["streaming"]:
        s, n = figures["streaming"][term], figures["naive"][term]
        print(f"{term:34} {s['median'] or 0:14.0f} {s['p95'] or 0:8.0f} {n['median'] or 0:10.0f} {n['p95'] or 0:8.0f}")
    pairs = [a["timings_ms"][key] / b["timings_ms"][key] for a, b in zip(rows["streaming"], rows["naive"])
             if a["timings_ms"][key] and b["timings_ms"][key]]
    ratio = statistics.median(pairs) if pairs else None
    print(f"\nratio streaming/naive, end of speech to first audio: median of {len(pairs)} pairs "
          f"{ratio if ratio is None else round(ratio, 3)}")

    def after_asr(r: dict[str, Any]) -> float | None:
        t = r["timings_ms"]
        if t[key] is None or t["speech_end_to_transcript"] is None:
            return None
        return t[key] - t["speech_end_to_transcript"]

    # Both pipelines share the recognizer; without its term the ratio shows what streaming changes.
    tail_pairs = [a / b for a, b in ((after_asr(x), after_asr(y)) for x, y in zip(rows["streaming"], rows["naive"]))
                  if a and b]
    tail_ratio = statistics.median(tail_pairs) if tail_pairs else None
    print(f"ratio streaming/naive, transcript to first audio (ASR term left out): "
          f"{tail_ratio if tail_ratio is None else round(tail_ratio, 3)}")
    if home_server is not None:
        home_server.stop()
        with_ha = [a["timings_ms"][key] / b["timings_ms"][key] for a, b in zip(rows["with_ha"], rows["streaming"])
                   if a["timings_ms"][key] and b["timings_ms"][key]]
        ha_ms = [r["home_assistant_ms"] for r in rows["with_ha"] if r.get("home_assistant_ms") is not None]
        f = figures["with_ha"][key]
        print(f"with Home Assistant asked first: end of speech to first audio median {f['median'] or 0:.0f} ms "
              f"(p95 {f['p95'] or 0:.0f}) against {figures['streaming'][key]['median'] or 0:.0f} ms without; "
              f"ratio median of {len(with_ha)} pairs "
              f"{round(statistics.median(with_ha), 3) if with_ha else None}; Home Assistant's round trip median "
              f"{statistics.median(ha_ms) if ha_ms else 0:.0f} ms; routes "
              f"{sorted({r['route'] for r in rows['with_ha']})}")
    if example:
        draw_timeline(example, Path(args.png))
        DOCS_PNG.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.png, DOCS_PNG)
        print(f"timeline: {args.png} (copied to {DOCS_PNG.relative_to(ROOT)})")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"figures": figures, "ratio_median": ratio, "pairs": pairs,
                                               "ratio_after_asr_median": tail_ratio,
                                               "rows": rows, "model": cfg.llm.model}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
