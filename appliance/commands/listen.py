"""`appliance listen --wav FILE [--json]`: one turn over a recording, run by the conductor as by the daemon."""

from __future__ import annotations

import argparse
import json
import logging
from typing import Any

from appliance import EXIT_OK
from appliance.config import Config

_LOGGER = logging.getLogger(__name__)


def hear_wav(args: argparse.Namespace, cfg: Config) -> dict[str, Any]:
    """The wake word and the transcript heard in `args.wav` (`--hear-only`): nothing is answered."""
    from appliance.assembly import hearing_stages
    from appliance.conversation.replay import ReplaySource, hear_turn

    recording = ReplaySource(args.wav, cfg, fast=not args.realtime)  # a missing file fails before models load
    return hear_turn(recording, cfg, hearing_stages(cfg))


def answer_wav(args: argparse.Namespace, cfg: Config) -> dict[str, Any]:
    """The whole turn over `args.wav` with every stage (no journald: a test recording must not count
    in the daemon's `appliance stats`); the reply is played, or written to `args.out`."""
    from appliance.assembly import build_stages, shared_volume
    from appliance.audio.playback import WavSink
    from appliance.conversation.replay import ReplaySource, run_turn

    recording = ReplaySource(args.wav, cfg, fast=args.fast)  # a missing file fails before the models load
    # Paced like a sound card, at the hub's volume like the speaker.
    sink = WavSink(args.out, realtime=not args.fast, volume=shared_volume(cfg)) if args.out else None
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
                        help="a WAV recording: 8, 16, 24 or 32-bit PCM or float, any rate and channels")
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
    record = hear_wav(args, cfg)
    if args.json:
        print(json.dumps(record), flush=True)
    else:
        wake = record["wake"]
        print("wake: " + ("none" if wake is None else
                          f"{wake['word']} (score {wake['score']:.2f}) at {wake['at_s']:.2f} s"))
        transcript = record["transcript"]
        print("transcript: " + ("none" if transcript is None else transcript or "(nothing recognised)"))
    return EXIT_OK
