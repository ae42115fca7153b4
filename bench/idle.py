"""Idle: the whole daemon's CPU while it listens to a quiet room, with the wake word's `wake.quiet_gate` off and on.

    .venv/bin/python -m bench.idle [--seconds 60] [--rounds 1] [--json] [--threads]

`appliance run` (the real CLI, the shipped config with only `wake.quiet_gate` and the state folder
set) listens through a private PulseAudio whose null sink's monitor is its microphone. For each
sound (silence: nothing played; room noise: steady pink noise at about -40 dBFS; talk: sentences
in three voices over a little noise, like a television) and each setting, the daemon is started,
waited for until it says it is listening, given 5 s to settle, and its CPU time (all threads,
from /proc) is read over `--seconds`. Settings alternate within a round, so that both see the
same machine. Figures only, no assertions: share of one core, and the ratio on/off.
`--threads` also prints, for silence with `wake.quiet_gate` on, each thread's share over the same seconds (from
/proc/PID/task), named by `py-spy dump` when py-spy is on PATH (`pip install py-spy`), else by its id.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

import numpy as np

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hearing import talk_track
from tests.fixtures import stop_process
from tests.fixtures.notify import Notifications
from tests.fixtures.pulse import Pulse
from tests.fixtures.speech import RATE, SpeechMaker, noise
from tests.fixtures.waits import LOAD_WAIT_S

SETTLE_S: Final = 5.0
CLOCK_TICKS: Final = os.sysconf("SC_CLK_TCK")


def _ticks(stat: Path) -> int:
    """utime + stime from a /proc stat file, in clock ticks."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def cpu_seconds(pid: int) -> float:
    """utime + stime of the process, all its threads."""
    return _ticks(Path(f"/proc/{pid}/stat")) / CLOCK_TICKS


def thread_ticks(pid: int) -> dict[int, int]:
    """utime + stime of each thread of the process, in clock ticks, by thread id."""
    ticks = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ticks[int(task.name)] = _ticks(task / "stat")
        except OSError:  # the thread ended meanwhile
            continue
    return ticks


def thread_names(pid: int) -> dict[int, str]:
    """Python's names of the threads (py-spy dump), else the kernel's (comm: PortAudio's and PulseAudio's)."""
    names = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            names[int(task.name)] = (task / "comm").read_text().strip()
        except OSError:
            continue
    spy = shutil.which("py-spy")
    if spy is not None:
        dump = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True, timeout=60,
                              check=False).stdout
        for tid, name in re.findall(r'^Thread (\S+) \(\w+\): "([^"]+)"', dump, flags=re.MULTILINE):
            names[int(tid, 16) if tid.startswith("0x") else int(tid)] = name
    return names


def share(pulse: Pulse, folder: Path, quiet_gate: bool, sound: Path | None, seconds: float,
          threads: dict[str, float] | None = None) -> float:
    """The daemon's CPU share of one core over `seconds` of `sound` (None: silence), once it listens;
    each thread's into `threads` when given."""
    state = folder / f"state-{quiet_gate}"
    state.mkdir(exist_ok=True)
    config = folder / f"appliance-{quiet_gate}.yaml"
    config.write_text(f"wake:\n  quiet_gate: {'true' if quiet_gate else 'false'}\nservice:\n  state_dir: {state}\n")
    notify_path = folder / f"notify-{time.monotonic_ns()}"
    notify = Notifications(notify_path)
    env = dict(pulse.env, NOTIFY_SOCKET=str(notify_path), HF_HUB_OFFLINE="1")
    player = pulse.play(sound, wait=False) if sound is not None else None
    log = (folder / "run.log").open("ab")
    proc = subprocess.Popen([sys.executable, "-m", "appliance.cli", "run", "--config", str(config)], env=env,
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT)
    try:
        notify.wait(lambda lines: any(line.startswith("STATUS=Listening") for line in lines), LOAD_WAIT_S, proc)
        time.sleep(SETTLE_S)
        start_cpu, start, before = cpu_seconds(proc.pid), time.monotonic(), thread_ticks(proc.pid)
        time.sleep(seconds)
        elapsed, after = time.monotonic() - start, thread_ticks(proc.pid)
        total = (cpu_seconds(proc.pid) - start_cpu) / elapsed
        if threads is not None:
            names = thread_names(proc.pid)
            for tid, ticks in after.items():
                name = f"{names.get(tid, '?')} ({tid})"
                threads[name] = (ticks - before.get(tid, 0)) / CLOCK_TICKS / elapsed
        return total
    finally:
        stop_process(proc, 10.0)
        if player is not None:
            stop_process(player, 5.0)
        log.close()
        notify.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds measured per sound and setting")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--threads", action="store_true", help="each thread's share, silence with wake.quiet_gate on")
    args = parser.parse_args()
    speech = SpeechMaker(ROOT / ".pytest_cache" / "d" / "speech")
    n = int(RATE * (args.seconds + LOAD_WAIT_S))  # the sound plays from before the daemon starts to after
    sounds: dict[str, Path | None] = {
        "silence": None,
        "room noise": speech.samples(0.01 * noise("pink", n, seed=1), f"idle-room-{n}"),
        "talk": speech.samples(talk_track(speech, n), f"idle-talk-{n}"),
    }
    figures: dict[str, dict[str, list[float]]] = {name: {"quiet_gate off": [], "quiet_gate on": []} for name in sounds}
    threads: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-idle-") as tmp:
        folder = Path(tmp)
        pulse = Pulse(folder / "pulse")
        pulse.start()
        try:
            for _ in range(args.rounds):
                for name, sound in sounds.items():
                    for setting in ("quiet_gate off", "quiet_gate on"):
                        wanted = args.threads and sound is None and setting == "quiet_gate on" and not threads
                        figures[name][setting].append(share(pulse, folder, setting == "quiet_gate on", sound,
                                                            args.seconds, threads if wanted else None))
        finally:
            pulse.stop()
    out: dict = {"daemon_cpu_share_of_one_core": {}, "seconds": args.seconds, "rounds": args.rounds}
    for name, row in figures.items():
        off, on = float(np.median(row["quiet_gate off"])), float(np.median(row["quiet_gate on"]))
        out["daemon_cpu_share_of_one_core"][name] = {"quiet_gate off": round(off, 4), "quiet_gate on": round(on, 4),
                                                     "ratio on/off": round(on / off, 3) if off else None}
    if threads:
        busiest = sorted(threads.items(), key=lambda item: -item[1])
        out["threads_silence_quiet_gate_on"] = {name: round(value, 5) for name, value in busiest if value > 0}
    if args.json:
        print(json.dumps(out))
    else:
        for name, row in out["daemon_cpu_share_of_one_core"].items():
            print(f"{name}: {row}")
        for name, value in out.get("threads_silence_quiet_gate_on", {}).items():
            print(f"  {value:7.2%}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
