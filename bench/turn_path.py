"""The path of one spoken question: which of the appliance's modules it runs through, on which threads.

    .venv/bin/python -m bench.turn_path [--engine vosk|whisper] [--json]

One recording ("hey jarvis, what is the capital of France?") runs through the stages the daemon
builds, paced like a live microphone, from the wake word to the end of the spoken answer. A
profile hook notes every function of the appliance package that runs, with the thread it runs on.
Figures only: the modules touched, the functions of them that run (each counted once, however
often it is called), and the threads the question's audio, text and answer pass through (each
thread beyond the first is a hand-off).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.assembly import build_stages
from appliance.audio.playback import WavSink
from appliance.config import Config
from appliance.conversation.conductor import Conductor
from appliance.conversation.replay import ReplaySource
from tests.fixtures.speech import SpeechMaker

GUARD_S: Final = 60.0  # seconds the turn may take at most
PACKAGE: Final = str(ROOT / "appliance")
# Modules that only build or report, not part of the question's way through the turn.
NOT_ON_THE_PATH: Final = ("appliance/assembly.py", "appliance/config.py", "appliance/log.py")


def trace_turn(cfg: Config, wav: Path, out: Path) -> dict:
    stages = build_stages(cfg, source=ReplaySource(str(wav), cfg), sink=WavSink(str(out), realtime=True))
    records: list = []
    conductor = Conductor(stages, cfg, on_turn=records.append)
    seen: dict[str, set[str]] = defaultdict(set)  # module -> thread names
    called: dict[str, set[str]] = defaultdict(set)  # module -> functions run

    def hook(frame, event, _arg):  # type: ignore[no-untyped-def]
        if event == "call":
            code = frame.f_code
            path = code.co_filename
            if path.startswith(PACKAGE):
                module = path[len(str(ROOT)) + 1:]
                seen[module].add(threading.current_thread().name)
                called[module].add(code.co_qualname)

    threading.setprofile(hook)
    sys.setprofile(hook)
    try:
        deadline = time.monotonic() + GUARD_S
        while not records and time.monotonic() < deadline:
            conductor.step()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        conductor.stop()
        stages.sink.close()
    modules = sorted(m for m in seen if not m.endswith(NOT_ON_THE_PATH))
    threads = sorted({t for m in modules for t in seen[m]})
    rec = records[0] if records else None
    turn = [m for m in modules if m.startswith("appliance/conversation/")]
    return {"answer": rec.answer if rec else None, "modules": modules, "module_count": len(modules),
            "function_count": sum(len(called[m]) for m in modules),
            "functions": {m: sorted(called[m]) for m in modules},
            "turn_modules": turn, "turn_function_count": sum(len(called[m]) for m in turn),
            "threads": threads, "thread_count": len(threads),
            "per_thread": {t: sorted(m for m in modules if t in seen[m]) for t in threads}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("vosk", "whisper"), default=None,
                        help="the recognizer (default: the configured one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    base = Config()
    asr = dataclasses.replace(base.asr, engine=args.engine) if args.engine else base.asr
    cfg = dataclasses.replace(base, asr=asr,
                              conversation=dataclasses.replace(base.conversation, follow_up="never"))
    speech = SpeechMaker(ROOT / ".pytest_cache" / "d" / "speech")
    wav = speech.join([0.5, speech("hey jarvis"), 0.4, speech("what is the capital of France?"), 1.5])
    with tempfile.TemporaryDirectory() as tmp:
        result = trace_turn(cfg, wav, Path(tmp) / "reply.wav")
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"answer: {result['answer']!r}")
    print(f"{result['module_count']} modules on the path; {result['thread_count']} threads "
          f"({result['thread_count'] - 1} hand-offs beyond the loop's own thread)")
    print(f"{result['function_count']} functions run; the turn's own part (appliance/conversation/): "
          f"{len(result['turn_modules'])} modules, {result['turn_function_count']} functions")
    for thread, modules in result["per_thread"].items():
        print(f"  {thread}: {', '.join(Path(m).stem for m in modules)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
