"""Benchmark: end of speech to first token and first audio: streaming with and without prefill, and naive.

    .venv/bin/python bench/e2e.py                       # 20 questions, Qwen stand-in, real-time pacing
    .venv/bin/python bench/e2e.py --questions 5 --model smollm2 --json bench/out/e2e.json

The pipelines run the same conductor, models and recordings, interleaved question by question:
  streaming:  the question is read into the model while it is spoken (conversation.prefill: the
              words two partial transcripts agree on); an early transcript after a short pause
              starts the answer while the end of the question is being confirmed (its audio is
              held until then); sentences go to Piper while the model still writes; playback
              starts at the first one.
              The model writes the first phrase on all cores (llm.n_threads_first), then on one fewer.
  no_prefill: the same without the prefill: the model reads the whole question after the pause.
  one_core_first: with the prefill, but the first phrase written on llm.n_threads like the rest.
  before:     neither (the pipeline as it was before both).
  naive:      whole transcript after the endpoint, whole answer, whole speech synthesized, then play.
  completion: streaming, with the end of the question heard from the voice and the words (the
              completion detector, asr.turn_detector, and asr.unfinished_words); the others end every question
              after asr.endpoint_silence_s of silence, as before.
With --paused N (default 10), N more questions are said with a pause of 0.4-0.8 s inside them
(bench/paused.py): each pipeline's answer counts as cut off when its transcript lacks the words
after the pause. Their latency is left out of the figures of the whole questions.
  unchecked:  (--claim-check) streaming, with the check of the answer's first sentence for a claimed
              action (conversation/claims.py) switched off, to show what the check costs.
  by_rules:   (--by-rules) streaming, with requests read by the skills' words alone: a transcript no skill
              reads goes to the model without being compared with the language pack's examples
              (thinking/meaning.py), to show what reading by meaning costs a general question.
Each recording ("Hey Jarvis. <question>") is paced in real time, so the end-of-speech time is real.
The speaker is a clock that "plays" each chunk in real time, so drain() waits as a speaker would.
Prints medians and 95th percentiles of each term and the ratio streaming/naive (lower is better),
and draws one turn of each as a PNG timeline (bench/out/timeline.png and docs/timeline.png).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import hashlib
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
QUESTIONS: Final = [  # short and long, as people ask: 3 to 19 words
    "What is the capital of France?", "Why is the sky blue?", "How far away is the moon?",
    "What do bees make?", "Who wrote Romeo and Juliet?", "How many legs does a spider have?",
    "What is the boiling point of water?", "Why do cats purr?",
    "My daughter asked me today why the ocean is salty, what should I tell her?",
    "How do plants make food?", "What is a rainbow?", "Who painted the Mona Lisa?",
    "I am making pancakes for six people, how much flour and milk do I need?",
    "Why do leaves change colour in autumn?", "What is thunder?",
    "How long does it take to boil an egg so that the yolk is still a little soft?",
    "What is the speed of light?",
    "We are planning a trip to the mountains next month, what should we pack for cold nights?",
    "What language is spoken in Brazil?",
    "Can you explain in a few words how a refrigerator keeps the food inside it cold?",
]
PIPELINES: Final = ("streaming", "no_prefill", "one_core_first", "before", "naive", "completion")
KEY: Final = "speech_end_to_first_audio"
TOKEN_KEY: Final = "speech_end_to_first_token"


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

    def prefill(self, heard: str, stop: Any) -> int:
        return 0  # the naive pipeline reads the question only once it is over

    @property
    def last_stats(self) -> Any:
        return self.chat.last_stats

    def forget(self, question: str) -> bool:
        return self.chat.forget(question)


class TimedChat:
    """The chat, noting when each prefill ran (for the timeline)."""

    def __init__(self, chat: Any) -> None:
        self.chat = chat
        self.spans: list[tuple[float, float]] = []

    def prefill(self, heard: str, stop: Any) -> int:
        started = time.monotonic()
        try:
            return self.chat.prefill(heard, stop)
        finally:
            self.spans.append((started, time.monotonic()))

    def stream(self, question: str, cancel: threading.Event):
        return self.chat.stream(question, cancel)

    @property
    def last_stats(self) -> Any:
        return self.chat.last_stats

    def forget(self, question: str) -> bool:
        return self.chat.forget(question)


class PassingCheck:
    """A claim check that looks at nothing: every piece is said as the model wrote it (the unchecked pipeline)."""

    open = False
    waiting = False

    def __init__(self, question: str, words: Any = None, understood: Any = None) -> None:
        self.question = question

    def look(self, piece: str) -> str | None:
        return None

    def settle(self) -> str | None:
        return None


def checked_as(name: str) -> Any:
    """The unchecked pipeline's turns run with PassingCheck in the Responder's place of the claim check."""
    from contextlib import nullcontext
    from unittest import mock

    return mock.patch("appliance.conversation.responder.ClaimCheck", PassingCheck) if name == "unchecked" \
        else nullcontext()


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
        path = folder / f"q{i:02d}-{hashlib.sha1(question.encode()).hexdigest()[:8]}.wav"
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


def save_json(path: str, **figures: Any) -> None:
    """The run's figures as JSON at `path` (its folder made if need be)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(figures, indent=1))


def pct(values: list[float], q: float) -> float | None:
    import numpy as np

    return float(np.percentile(values, q)) if values else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    keys = list(rows[0]["timings_ms"]) if rows else []
    return {k: {"median": pct([r["timings_ms"][k] for r in rows if r["timings_ms"][k] is not None], 50),
                "p95": pct([r["timings_ms"][k] for r in rows if r["timings_ms"][k] is not None], 95)} for k in keys}


def draw_timeline(turns: dict[str, tuple[Any, list[tuple[float, float]]]], path: Path) -> None:
    """One turn of each pipeline (its record, its prefill spans) as bars on one time axis (0 = end of speech)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(turns), 1, figsize=(10, 1.9 * len(turns) + 0.6), sharex=True)
    axes = axes if len(turns) > 1 else [axes]
    colours = {"speech": "#9e9e9e", "prefill": "#ce93d8", "ASR": "#42a5f5", "language model": "#ab47bc",
               "first sentence": "#ffa726", "speech synthesis + play": "#66bb6a"}
    for ax, (name, (rec, spans)) in zip(axes, turns.items()):
        def s(x: float | None, t0: float = rec.speech_end_at) -> float | None:
            return None if x is None else x - t0

        model_start = rec.early_at if rec.early_at is not None else rec.transcript_at
        bars = [("speech", s(rec.wake_at), 0.0),
                ("prefill", None, None),
                ("ASR", 0.0, s(rec.transcript_at)),
                ("language model", s(model_start), s(rec.answer_done_at)),
                ("first sentence", s(rec.first_token_at), s(rec.first_sentence_at)),
                ("speech synthesis + play", s(rec.first_sentence_at), s(rec.audio_done_at))]
        for row, (label, start, end) in enumerate(bars):
            if start is not None and end is not None and end > start:
                ax.barh(row, end - start, left=start, color=colours[label])
        for start, end in spans:  # the question read into the model while it was spoken
            ax.barh(1, max(end - start, 0.004), left=s(start), color=colours["prefill"])
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


def ratio_of(rows: dict[str, list[dict[str, Any]]], a: str, b: str, key: str) -> tuple[float | None, int]:
    """Median over questions of pipeline a's figure divided by pipeline b's (both answered), and how many."""
    pairs = [x["timings_ms"][key] / y["timings_ms"][key] for x, y in zip(rows[a], rows[b])
             if x["timings_ms"][key] and y["timings_ms"][key] and not x.get("paused")]
    return (statistics.median(pairs) if pairs else None), len(pairs)


def tokens_of(rows: list[dict[str, Any]], field: str) -> float | None:
    values = [r["llm"][field] for r in rows if r.get("llm")]
    return statistics.median(values) if values else None


def variant(cfg: Any, stages: Any, **conversation: Any) -> tuple[Any, Any]:
    """The pipeline with other conversation settings, on the same loaded models."""
    changed = dataclasses.replace(cfg, conversation=dataclasses.replace(cfg.conversation, **conversation))
    asr = copy.copy(stages.asr)  # the recognizer reads its partial pace from its own config
    asr.cfg = changed
    return changed, dataclasses.replace(stages, asr=asr)


def with_asr(cfg: Any, stages: Any, **asr: Any) -> tuple[Any, Any]:
    """The pipeline with other speech recognition settings (the end of a question), on the same models."""
    changed = dataclasses.replace(cfg, asr=dataclasses.replace(cfg.asr, **asr))
    recognizer = copy.copy(stages.asr)
    recognizer.cfg = changed
    return changed, dataclasses.replace(stages, asr=recognizer)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--paused", type=int, default=10, help="questions with a pause inside them (at most 12)")
    parser.add_argument("--model", default="qwen", help="qwen (the stand-in), smollm2, or a GGUF path")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--png", metavar="PATH", default=str(OUT / "timeline.png"))
    parser.add_argument("--pipelines", default=",".join(PIPELINES),
                        help=f"which to run, interleaved (default: {','.join(PIPELINES)})")
    parser.add_argument("--home-assistant", action="store_true",
                        help="also run the streaming pipeline with a real Home Assistant asked first (started "
                             "here, as the e2e tests start it), interleaved, to show what its round trip costs")
    parser.add_argument("--first-phrase-max-words", type=int, metavar="N", default=None,
                        help="also run the streaming pipeline with conversation.first_phrase_max_words N "
                             "(named phraseN), interleaved, to show what a later first-phrase cut gives")
    parser.add_argument("--first-clause-min-words", type=int, metavar="N", default=None,
                        help="also run the completion pipeline with conversation.first_clause_min_words N (named "
                             "clauseN), interleaved, to show what an earlier first piece gives")
    parser.add_argument("--claim-check", action="store_true",
                        help="also run the streaming pipeline without the check of the answer's first sentence for "
                             "a claimed action (named unchecked), interleaved, to show what the check costs")
    parser.add_argument("--by-rules", action="store_true",
                        help="also run the streaming pipeline with requests read by the skills' words alone, "
                             "without reading by meaning (named by_rules), interleaved, to show what it costs")
    parser.add_argument("--temperature", type=float, default=None,
                        help="llm.temperature for all pipelines (0: the same answer in each, so pairs differ only "
                             "by the pipeline; default: the config's)")
    parser.add_argument("--llm-threads", type=int, default=None,
                        help="llm.n_threads for all pipelines (default: the config's, cores minus one)")
    args = parser.parse_args()

    from appliance import log
    from appliance.assembly import build_stages
    from appliance.conversation.replay import listen_turn

    log.setup("WARNING")
    cfg = config_for(args.model)
    if args.llm_threads:
        cfg = dataclasses.replace(cfg, llm=dataclasses.replace(cfg.llm, n_threads=args.llm_threads))
    if args.temperature is not None:
        cfg = dataclasses.replace(cfg, llm=dataclasses.replace(cfg.llm, temperature=args.temperature))
    (OUT / "state").mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    stages = build_stages(cfg, sink=ClockSink(), mic=False)
    print(f"models loaded in {time.monotonic() - started:.1f} s; model {Path(cfg.llm.model).name}", flush=True)
    wavs = make_questions(stages.tts, args.questions, OUT / "questions")
    from bench.paused import make_paused
    from tests.fixtures.paused import heard_whole

    paused = make_paused(stages.tts, OUT / "questions", args.paused)
    rests = {str(path): (question, after) for path, question, after in paused}
    wavs += [path for path, _question, _after in paused]
    completion_cfg, completion_stages = variant(cfg, stages, prefill=True)
    cfg, stages = with_asr(completion_cfg, completion_stages, turn_detector=False, unfinished_words=False)
    cfg, stages = variant(cfg, stages, prefill=True)
    naive_cfg, naive_stages = variant(cfg, stages, preemptive=False, prefill=False)
    naive_cfg = dataclasses.replace(naive_cfg, asr=dataclasses.replace(cfg.asr, early_silence_s=0.0))
    naive_stages.asr.cfg = naive_cfg  # transcribes only after the endpoint
    naive_stages = dataclasses.replace(naive_stages, chat=NaiveChat(stages.chat), tts=NaiveTts(stages.tts),
                                       splitter_factory=WholeText)
    chat, timed = stages.chat, TimedChat(stages.chat)
    all_cores, one_fewer = chat.n_threads_first, chat.n_threads
    stages = dataclasses.replace(stages, chat=timed)
    # name -> (config, stages, threads for the first phrase)
    without = variant(cfg, stages, prefill=False)
    every = {"streaming": (cfg, stages, all_cores), "no_prefill": (*without, all_cores),
             "one_core_first": (cfg, stages, one_fewer), "before": (*without, one_fewer),
             "naive": (naive_cfg, naive_stages, one_fewer),
             "completion": (completion_cfg, dataclasses.replace(completion_stages, chat=timed), all_cores)}
    pipelines = {name: every[name] for name in args.pipelines.split(",")}
    print(f"first phrase on {all_cores} threads, the rest on {one_fewer}", flush=True)
    if args.first_phrase_max_words is not None:
        from appliance.speaking.sentences import SentenceSplitter

        words, clause = args.first_phrase_max_words, cfg.conversation.first_clause_min_words
        phrase_cfg, phrase_stages = variant(cfg, stages, first_phrase_max_words=words)
        phrase_stages = dataclasses.replace(phrase_stages, splitter_factory=lambda: SentenceSplitter(clause, words))
        pipelines[f"phrase{words}"] = (phrase_cfg, phrase_stages, all_cores)
    if args.first_clause_min_words is not None:
        from appliance.speaking.sentences import SentenceSplitter

        words, longest = args.first_clause_min_words, cfg.conversation.first_phrase_max_words
        clause_cfg, clause_stages = variant(completion_cfg, dataclasses.replace(completion_stages, chat=timed),
                                            first_clause_min_words=words)
        clause_stages = dataclasses.replace(clause_stages, splitter_factory=lambda: SentenceSplitter(words, longest))
        pipelines[f"clause{words}"] = (clause_cfg, clause_stages, all_cores)
    if args.claim_check:
        pipelines["unchecked"] = (cfg, stages, all_cores)
    if args.by_rules:
        from appliance.thinking.skills import build

        rules = build(cfg, by_meaning=False)  # the same state folder; a general question changes nothing in it
        pipelines["by_rules"] = (cfg, dataclasses.replace(stages, skills=rules, timers=rules.timers), all_cores)
    home_server = None
    if args.home_assistant:
        home_server, ha_cfg, ha_stages = with_home_assistant(cfg, stages)
        pipelines["with_ha"] = (ha_cfg, ha_stages, all_cores)
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in pipelines}
    example: dict[str, Any] = {}
    for i, wav in enumerate(wavs):
        names = list(pipelines)
        order = names[i % len(names):] + names[:i % len(names)]  # each pipeline goes first in turn
        for name in order:
            # Each question starts a fresh conversation with only the system prompt cached, as
            # questions asked minutes apart do (llm idle reset), so no pipeline reuses another's cache.
            chat.reset()
            chat.warm()
            pipe_cfg, pipe_stages, chat.n_threads_first = pipelines[name]
            records: list[Any] = []
            timed.spans.clear()
            with checked_as(name):
                result = listen_turn(str(wav), pipe_cfg, pipe_stages, records=records)
            result["paused"] = str(wav) in rests
            result["cut_off"] = result["paused"] and not heard_whole(result.get("transcript") or "", *rests[str(wav)])
            rows[name].append(result)
            if i == 0 and records:
                example[name] = (records[0], list(timed.spans))
            t, llm = result["timings_ms"], result.get("llm") or {}
            early = "early" if result.get("preemptive") else ""
            left = llm.get("prompt_tokens", 0) - llm.get("cached_prompt_tokens", 0) if llm else None
            print(f"{i:2d} {name:10} {result['outcome']!s:9} {early:5} first token {t[TOKEN_KEY]!s:>7} ms  "
                  f"first audio {t[KEY]!s:>7} ms  prefilled {llm.get('prefilled_tokens')!s:>3} "
                  f"left {left!s:>3}  "
                  f"{(result['answer'] or '')[:50]!r}", flush=True)
    figures = {name: summarize([r for r in rs if r["outcome"] == "answered" and not r["paused"]])
               for name, rs in rows.items()}
    cut = {name: sum(r["cut_off"] for r in rs) for name, rs in rows.items()}
    names = list(rows)
    print(f"\n{'term (ms)':34}" + "".join(f" {n + ' med':>15} {'p95':>7}" for n in names))
    for term in figures[names[0]]:
        cells = (figures[n][term] for n in names)
        print(f"{term:34}" + "".join(f" {c['median'] or 0:15.0f} {c['p95'] or 0:7.0f}" for c in cells))
    print(f"{'questions cut off (of ' + str(len(paused)) + ' paused)':34}" + "".join(
        f" {cut[n]:15d} {'':7}" for n in names))
    print(f"{'prompt tokens read while spoken':34}" + "".join(
        f" {tokens_of(rows[n], 'prefilled_tokens') or 0:15.0f} {'':7}" for n in names))
    ratios: dict[str, Any] = {}
    extra = [(name, "streaming") for name in rows if name.startswith(("phrase", "clause")) or name == "completion"]
    extra += [("streaming", "unchecked")] if "unchecked" in rows else []  # the check on / off
    extra += [("streaming", "by_rules")] if "by_rules" in rows else []  # reading by meaning on / off
    for a, b in (("streaming", "no_prefill"), ("streaming", "one_core_first"), ("streaming", "before"),
                 ("no_prefill", "before"), ("streaming", "naive"), ("before", "naive"), *extra):
        if a in rows and b in rows:
            for key in (TOKEN_KEY, KEY):
                ratio, n = ratio_of(rows, a, b, key)
                ratios[f"{a}/{b} {key}"] = ratio
                print(f"ratio {a}/{b}, {key.replace('_', ' ')}: median of {n} pairs "
                      f"{ratio if ratio is None else round(ratio, 3)}")
    if home_server is not None:
        home_server.stop()
        with_ha, n = ratio_of(rows, "with_ha", "streaming", KEY)
        ha_ms = [r["home_assistant_ms"] for r in rows["with_ha"] if r.get("home_assistant_ms") is not None]
        f = figures["with_ha"][KEY]
        print(f"with Home Assistant asked first: end of speech to first audio median {f['median'] or 0:.0f} ms "
              f"(p95 {f['p95'] or 0:.0f}) against {figures['streaming'][KEY]['median'] or 0:.0f} ms without; "
              f"ratio median of {n} pairs {with_ha if with_ha is None else round(with_ha, 3)}; Home Assistant's "
              f"round trip median {statistics.median(ha_ms) if ha_ms else 0:.0f} ms; routes "
              f"{sorted({r['route'] for r in rows['with_ha']})}")
    if example:
        draw_timeline(example, Path(args.png))
        DOCS_PNG.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.png, DOCS_PNG)
        print(f"timeline: {args.png} (copied to {DOCS_PNG.relative_to(ROOT)})")
    if args.json:
        save_json(args.json, figures=figures, ratios=ratios, cut_off=cut, rows=rows, model=cfg.llm.model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
