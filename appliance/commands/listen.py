"""`appliance listen --wav FILE [--json]`: the wake word and the transcript heard in a recording."""

from __future__ import annotations

import argparse
import collections
import json
import logging
import math
from dataclasses import dataclass
from typing import Any

from appliance import EXIT_OK
from appliance.config import Config
from appliance.contracts import Recognizer, Source, Transcript, WakeDetector, WakeHit

_LOGGER = logging.getLogger(__name__)

READ_TIMEOUT_S = 1.0  # seconds one read() of the source may wait


@dataclass
class Heard:
    """What one pass of hearing produced; `record()` is the --json record (other keys may be added)."""

    wake: WakeHit | None = None
    transcript: Transcript | None = None

    def record(self) -> dict[str, Any]:
        return {
            "wake": None if self.wake is None else
            {"word": self.wake.word, "score": self.wake.score, "at_s": self.wake.at_s},
            "transcript": None if self.transcript is None else self.transcript.text,
        }


class Hearing:
    """Wake word then question: reads a Source, keeps a pre-roll ring, feeds the recognizer.

    `hear()` returns after one question (or when the source ends); `preroll_chunks` sets how
    much audio from before the detection starts the utterance, so the first word is kept.
    """

    def __init__(self, source: Source, wake: WakeDetector, recognizer: Recognizer,
                 preroll_chunks: int, read_timeout_s: float = READ_TIMEOUT_S) -> None:
        self.source = source
        self.wake = wake
        self.recognizer = recognizer
        self.ring: collections.deque = collections.deque(maxlen=max(preroll_chunks, 0) or None)
        self.preroll_chunks = preroll_chunks
        self.read_timeout_s = read_timeout_s

    def wait_for_wake(self, give_up: Any = None) -> WakeHit | None:
        """Chunks through the wake detector until it fires; None when the source ends (or give_up())."""
        while True:
            chunk = self.source.read(self.read_timeout_s)
            if chunk is None:
                if self.source.eof or (give_up is not None and give_up()):
                    return None
                continue
            hit = self.wake.process(chunk)
            if self.preroll_chunks > 0:
                self.ring.append(chunk)
            if hit is not None:
                return hit

    def hear_question(self) -> Transcript:
        """The question after a wake hit: pre-roll plus chunks until the endpointer says it is over."""
        utterance = self.recognizer.start(list(self.ring))
        self.ring.clear()
        transcript = None
        while transcript is None:
            chunk = self.source.read(self.read_timeout_s)
            if chunk is None:
                if self.source.eof:
                    transcript = utterance.finish()
                continue
            transcript = utterance.feed(chunk)
        return transcript

    def hear(self) -> Heard:
        heard = Heard(wake=self.wait_for_wake())
        if heard.wake is not None:
            heard.transcript = self.hear_question()
            self.wake.reset()
        return heard


def preroll_chunks(preroll_s: float, chunk_ms: int) -> int:
    return math.ceil(preroll_s * 1000 / chunk_ms)


def listen_wav(path: str, cfg: Config, realtime: bool = False) -> Heard:
    """Hear one WAV file end to end with the configured wake word and recognizer."""
    from appliance.assembly import load_hearing
    from appliance.mic import WavSource

    source = WavSource(path, rate=cfg.audio.rate, chunk_ms=cfg.audio.chunk_ms, realtime=realtime)
    wake, recognizer = load_hearing(cfg)
    return Hearing(source, wake, recognizer, preroll_chunks(cfg.wake.preroll_s, cfg.audio.chunk_ms)).hear()


def answer_wav(args: argparse.Namespace, cfg: Config) -> dict[str, Any]:
    """The whole turn over `args.wav` with every stage (no journald: a test recording must not count
    in the daemon's `appliance stats`); the reply is played, or written to `args.out`."""
    from appliance.assembly import build_stages
    from appliance.playback import WavSink
    from appliance.replay import Recording, run_turn

    recording = Recording(args.wav, cfg, fast=args.fast)  # a missing file fails before the models load
    sink = WavSink(args.out, realtime=not args.fast) if args.out else None  # paced like a sound card
    stages = build_stages(cfg, source=recording, sink=sink)
    try:
        return run_turn(recording, cfg, stages)
    finally:
        if args.out:
            stages.sink.close()


def print_listen(args: argparse.Namespace, cfg: Config) -> int:
    """`appliance listen --wav IN [--out reply.wav] [--json] [--fast]`: one full turn, printed."""
    record = answer_wav(args, cfg)
    if args.json:
        print(json.dumps(record), flush=True)
        return EXIT_OK
    wake = record["wake"]
    print("wake: " + ("none" if wake is None else f"{wake['word']} (score {wake['score']:.2f})"))
    print(f"transcript: {record['transcript'] if record['transcript'] is not None else 'none'}")
    print(f"route: {record['route'] or 'none'}   outcome: {record['outcome'] or 'none'}")
    print(f"answer: {record['answer'] or ''}")
    for key, value in record["timings_ms"].items():
        print(f"  {key:32} {'-' if value is None else f'{value:.0f} ms'}")
    if not record["paced"]:
        print("  (--fast: the recording was not paced, so these are not real-time latencies)")
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common

    parser = sub.add_parser("listen", help="hear the wake word and a question in a WAV file and answer it")
    parser.add_argument("--wav", required=True, metavar="FILE",
                        help="a WAV recording (any rate, channels, width)")
    parser.add_argument("--json", action="store_true", help="print one JSON record")
    parser.add_argument("--realtime", action="store_true", help="pace the file like a live microphone")
    # The full turn: answer the question too, as `appliance run` would.
    parser.add_argument("--hear-only", action="store_true",
                        help="only the wake word and the transcript (no answer, no models beyond hearing)")
    parser.add_argument("--out", metavar="FILE", help="write the spoken reply to this WAV (else play it)")
    parser.add_argument("--fast", action="store_true",
                        help="feed the recording as fast as it is read (the timings are then not honest)")
    add_common(parser)
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    from appliance.cli import load_config

    cfg = load_config(args)
    if not args.hear_only:
        return print_listen(args, cfg)
    heard = listen_wav(args.wav, cfg, realtime=args.realtime)
    record = heard.record()
    if args.json:
        print(json.dumps(record), flush=True)
    else:
        wake = record["wake"]
        print("wake: " + ("none" if wake is None else
                          f"{wake['word']} (score {wake['score']:.2f}) at {wake['at_s']:.2f} s"))
        transcript = record["transcript"]
        print("transcript: " + ("none" if transcript is None else transcript or "(nothing recognised)"))
    return EXIT_OK
