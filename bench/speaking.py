"""Speaking benchmark: Piper's RTF and first-chunk time against the `piper` CLI, and ask's first audio.

    .venv/bin/python bench/speaking.py                 # both parts
    .venv/bin/python bench/speaking.py --part piper    # only the voice against Piper's own CLI
    .venv/bin/python bench/speaking.py --part ask      # only time to first audio on the Qwen stand-in

Prints figures; asserts nothing. Runs are interleaved (ours, theirs, ours, ...) and medians
reported, so that load from anything else on the machine falls on both sides alike.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import select
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fixtures.waits import SLOW_WAIT_S, WAIT_S

SENTENCES: Final = [
    "The Moon is the only natural satellite of the Earth.",
    "It takes about twenty seven days to go around us once.",
    "Sure.",
    "Tides in the sea are mostly caused by the pull of the Moon, and a little by the Sun.",
]
QUESTIONS: Final = [
    "Tell me a short fact about the moon.",
    "Why is the sky blue?",
    "How do bees make honey?",
    "What should I cook for dinner tonight?",
]
QWEN_CANDIDATES: Final = [ROOT / ".cache" / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                          ROOT / ".cache" / "llm-bench" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"]
QUIET_S: Final = 0.25  # seconds without output after which the CLI is done with a line
BYTES_PER_SAMPLE: Final = 2  # int16 raw output


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000.0


# ------------------------------------------------------------------------------ Piper vs its CLI


class PiperCli:
    """Piper's own command line, kept running: one line in, raw int16 audio out as it is produced."""

    def __init__(self, model: Path, rate: int) -> None:
        self.rate = rate
        self.proc = subprocess.Popen([sys.executable, "-m", "piper", "-m", str(model), "--output-raw"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.say("Ready.")  # loaded and warmed up, like our synthesizer

    def say(self, line: str) -> tuple[float, float]:
        """(seconds until the first audio bytes, seconds of audio) for one line."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        started = time.monotonic()
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        first: float | None = None
        received = 0
        deadline = started + SLOW_WAIT_S
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], QUIET_S if first is not None else SLOW_WAIT_S)
            if not ready:
                if first is not None:
                    break
                continue
            data = os.read(fd, 1 << 16)
            if not data:
                break
            if first is None:
                first = time.monotonic() - started
            received += len(data)
        if first is None:
            raise RuntimeError("the piper CLI produced no audio")
        return first, received / BYTES_PER_SAMPLE / self.rate

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def ours(synth: Any, sentence: str) -> tuple[float, float, float]:
    """(seconds until the first chunk, seconds until the last, seconds of audio) for one sentence."""
    started = time.monotonic()
    first: float | None = None
    audio_s = 0.0
    for chunk in synth.synthesize(sentence):
        if first is None:
            first = time.monotonic() - started
        audio_s += chunk.duration_s
    return first or 0.0, time.monotonic() - started, audio_s


def bench_piper(reps: int) -> None:
    from appliance.config import Config
    from appliance.setup import models
    from appliance.speaking.tts import PiperSynthesizer

    cfg = Config()
    model = models.resolve("voice", cfg).path
    threads = sorted({cfg.tts.onnx_threads, os.cpu_count() or 1})
    synths = {t: PiperSynthesizer.from_config(
        dataclasses.replace(cfg, tts=dataclasses.replace(cfg.tts, onnx_threads=t))) for t in threads}
    cli = PiperCli(model, next(iter(synths.values())).rate)
    first: dict[str, list[float]] = {f"ours, {t} thread(s)": [] for t in threads} | {"piper CLI": []}
    rtf: dict[str, list[float]] = {k: [] for k in first}
    try:
        for _rep in range(reps):
            for sentence in SENTENCES:
                for t, synth in synths.items():
                    f, total, audio_s = ours(synth, sentence)
                    first[f"ours, {t} thread(s)"].append(f)
                    rtf[f"ours, {t} thread(s)"].append(total / audio_s)
                f, audio_s = cli.say(sentence)
                first["piper CLI"].append(f)
                rtf["piper CLI"].append(f / audio_s)  # the CLI writes each sentence in one piece
    finally:
        cli.close()
    print(f"\nPiper {model.name}: {len(SENTENCES)} sentences x {reps} interleaved runs (medians)")
    print(f"  {'':24} {'sentence ready -> first audio':>30} {'RTF':>8}")
    for name in first:
        print(f"  {name:24} {median_ms(first[name]):27.0f} ms {statistics.median(rtf[name]):8.3f}")
    cli_first = statistics.median(first["piper CLI"])
    for name in first:
        if name != "piper CLI":
            ratio = statistics.median(first[name]) / cli_first
            print(f"  ratio {name} / piper CLI (first audio): {ratio:.2f}"
                  "  (target <= 1.1)")
    print("  (the CLI's onnxruntime uses its default thread pool, all cores; the appliance caps it with "
          "tts.onnx_threads)")


# ------------------------------------------------------------------------------ ask: streamed vs naive


def qwen_path() -> Path:
    for candidate in QWEN_CANDIDATES:
        if candidate.exists():
            return candidate
    sys.exit("The Qwen stand-in is not joined yet: run scripts/install.sh --dev --bench-models "
             "(or bench/llm.py once); see docs/models.md")


def bench_ask(rounds: int) -> None:
    from appliance.audio import AudioChunk
    from appliance.audio.playback import WavSink
    from appliance.commands.ask import Asker
    from appliance.config import Config
    from appliance.speaking.tts import PiperSynthesizer
    from appliance.thinking.llm import LlamaChat

    base = Config()
    cfg = dataclasses.replace(base, llm=dataclasses.replace(base.llm, model=str(qwen_path()), seed=1234))
    synth = PiperSynthesizer.from_config(cfg)
    chat = LlamaChat.from_config(cfg)
    asker = Asker(cfg, chat_factory=lambda: chat, voice=synth)
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    streamed: list[float] = []
    naive: list[float] = []
    answers: list[float] = []

    def streamed_turn(question: str) -> tuple[float, float]:
        """Each sentence to Piper as soon as it is written (the answer path of the daemon and `ask`)."""
        sink = WavSink(out / "speaking-streamed.wav")
        asker.sink = sink
        asked = time.monotonic()
        written = [asked]
        asker.ask(question, lambda _d: written.__setitem__(0, time.monotonic()))
        sink.close()
        first = sink.first_audio_at()
        return (first or written[0]) - asked, written[0] - asked

    def naive_turn(question: str) -> float:
        """The whole answer first, then the whole answer to Piper, timed to its first audio."""
        asked = time.monotonic()
        asker.sink = None
        record = asker.ask(question, lambda _d: None)
        chunks: list[AudioChunk] = []
        for chunk in synth.synthesize(" ".join(record.sentences)):  # the answer as cleaned for speech
            chunks.append(chunk)
            break
        return time.monotonic() - asked

    for _round in range(rounds):
        for number, question in enumerate(QUESTIONS):
            order = (streamed_turn, naive_turn) if (number + _round) % 2 == 0 else (naive_turn, streamed_turn)
            for way in order:
                asker.reset()  # each question starts a new conversation (the system prompt stays cached)
                if way is streamed_turn:
                    first, answered = streamed_turn(question)
                    streamed.append(first)
                    answers.append(answered)
                else:
                    naive.append(naive_turn(question))
    print(f"\nappliance ask, first audio ready, Qwen stand-in {qwen_path().name}: "
          f"{len(QUESTIONS)} questions x {rounds} rounds, interleaved (medians)")
    print(f"  streamed (first clause to Piper while the model writes): {median_ms(streamed):6.0f} ms")
    print(f"  naive (whole answer, then Piper):                        {median_ms(naive):6.0f} ms")
    print(f"  whole answer written (streamed runs):                    {median_ms(answers):6.0f} ms")
    ratios = [s / n for s, n in zip(streamed, naive)]
    print(f"  ratio streamed / naive: {statistics.median(ratios):.2f} (median of {len(ratios)} pairs; "
          f"range {min(ratios):.2f}-{max(ratios):.2f})")
    print("  (first audio = the first chunk handed to the sink; a speaker adds its output latency to both)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["piper", "ask", "all"], default="all")
    parser.add_argument("--reps", type=int, default=5, help="interleaved runs per sentence (piper part)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over the questions (ask part)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.part in ("piper", "all"):
        bench_piper(args.reps)
    if args.part in ("ask", "all"):
        bench_ask(args.rounds)


if __name__ == "__main__":
    main()
