"""The conductor loop's longest step (its own work, not its wait for audio) while a question is heard.

    .venv/bin/python -m bench.loop_gap [--rounds 3] [--json]    # each round with the prefill on, then off

One recording ("hey jarvis", a question with a pause in it) runs through the stages the daemon
builds, paced like a live microphone; every loop step is timed, less the time its read waited for
the next chunk. Figures only, no assertions: the wake word and barge-in are looked at only when
the loop runs, so its longest step while the question is being recognised is how long the
appliance is deaf to them beyond one chunk.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.assembly import build_stages
from appliance.audio.playback import WavSink
from appliance.config import Config
from appliance.conversation.conductor import Conductor, State
from appliance.conversation.replay import ReplaySource
from tests.fixtures.speech import SpeechMaker
from tests.fixtures.waits import SLOW_WAIT_S

# Seconds of pause inside the question (plus the clips' own quiet ends): past the early point, short of the endpoint.
PAUSE_S: Final = 0.2


def question(speech: SpeechMaker) -> Path:
    return speech.join([0.5, speech("hey jarvis"), 0.4, speech("what is the capital of France,"), PAUSE_S,
                        speech("and of Germany?"), 1.5])


class TimedRead:
    """Wraps the source's read() to time it: a loop step's own work is the step less the read."""

    def __init__(self, source: ReplaySource) -> None:
        self.source = source
        self.spent = 0.0

    def __getattr__(self, name: str) -> object:
        return getattr(self.source, name)

    def read(self, timeout: float) -> object:
        started = time.monotonic()
        try:
            return self.source.read(timeout)
        finally:
            self.spent = time.monotonic() - started


def one_round(cfg: Config, wav: Path, out: Path) -> dict:
    recording = ReplaySource(str(wav), cfg)
    timed = TimedRead(recording)
    stages = build_stages(cfg, source=timed, sink=WavSink(str(out), realtime=True))  # type: ignore[arg-type]
    records: list = []
    conductor = Conductor(stages, cfg, on_turn=records.append)
    worst = {"listening": 0.0, "any": 0.0}
    deadline = time.monotonic() + SLOW_WAIT_S  # a round never runs longer
    while not records and time.monotonic() < deadline:
        state = conductor.state
        started = time.monotonic()
        conductor.step()
        work = time.monotonic() - started - timed.spent  # the loop step without waiting for audio
        worst["any"] = max(worst["any"], work)
        if state in (State.LISTENING, State.FOLLOW_UP):
            worst["listening"] = max(worst["listening"], work)
    conductor.stop()
    stages.sink.close()
    rec = records[0] if records else None
    return {"max_step_ms_listening": round(worst["listening"] * 1000, 1),
            "max_step_ms": round(worst["any"] * 1000, 1),
            "transcript": rec.transcript if rec else None, "early_answers": dict(conductor.answers.early.counts)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    base = Config()
    wav = question(SpeechMaker(ROOT / ".pytest_cache" / "d" / "speech"))
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.rounds):
            for prefill in (True, False):  # the question read into the model while spoken, or not
                cfg = dataclasses.replace(base, asr=dataclasses.replace(base.asr, engine="whisper"),
                                          conversation=dataclasses.replace(base.conversation, follow_up="never",
                                                                           prefill=prefill))
                rounds.append({"prefill": prefill, **one_round(cfg, wav, Path(tmp) / f"reply{i}.wav")})
    if args.json:
        print(json.dumps(rounds))
    else:
        for r in rounds:
            print(f"prefill {'on ' if r['prefill'] else 'off'}: "
                  f"longest loop step while listening {r['max_step_ms_listening']:6.1f} ms, "
                  f"in the whole turn {r['max_step_ms']:6.1f} ms; heard {r['transcript']!r}; "
                  f"early answers {r['early_answers']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
