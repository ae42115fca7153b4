"""Echo drift: a microphone and a speaker on clocks of their own, the canceller following their drift and not.

    .venv/bin/python -m bench.echo_drift [--ppm 0,20,50,100,-100] [--answers 4] [--json]

One Piper answer played `--answers` times in a row on one stream (22.05 kHz, as the speaker plays it)
through a generated room (40 ms, RT60 0.3 s, pink noise 34 dB under the echo) into a microphone whose
clock runs `ppm` fast (negative: slow) against the speaker's, so the echo slides against the
reference by that much. The same EchoCanceller (Speex) runs it twice side by side, following the drift
(the shipped behaviour) and not; ERLE is given per quarter of the sound (the first quarter includes the
filter learning the room from nothing), with the drift the canceller found and its CPU seconds per
second of audio. Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Final

import numpy as np
import soxr

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.audio.echo import EchoCanceller
from bench.echo import VOICE_RATE, at_voice_rate
from tests.fixtures.room import erle_db, impulse_response, play_and_hear, through_room
from tests.fixtures.speech import RATE, SpeechMaker, load, noise, speech_rms

ANSWER: Final = ("The weather tomorrow will be sunny with a light breeze and a high of twenty two degrees. "
                 "Remember to take your umbrella, just in case it rains in the evening.")
ECHO_RMS: Final = 0.1  # the hub's voice at the microphone
NOISE_RMS: Final = 0.002  # pink room noise


def run(played: np.ndarray, heard: np.ndarray, follow: bool) -> dict:
    echo = EchoCanceller(follow_drift=follow)
    started = time.process_time()
    out = play_and_hear(echo, played, VOICE_RATE, heard, t0=100.0)
    cpu_s = time.process_time() - started
    q = len(heard) // 4
    return {"erle_db_by_quarter": [round(erle_db(heard[i * q:(i + 1) * q], out[i * q:(i + 1) * q]), 1)
                                   for i in range(4)],
            "drift_found_ppm": round(echo.drift_ppm, 1),
            "cpu_share": round(cpu_s / (len(heard) / RATE), 4)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ppm", default="0,20,50,100,-100", help="the microphone's clock against the speaker's")
    parser.add_argument("--answers", type=int, default=4, help="answers played in a row on one stream")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    speech = SpeechMaker(ROOT / ".pytest_cache" / "d" / "speech")
    played, sounded = at_voice_rate(load(speech(ANSWER)))
    played, sounded = np.tile(played, args.answers), np.tile(sounded, args.answers)
    rows = []
    for ppm in (float(p) for p in args.ppm.split(",")):
        at_its_clock = soxr.resample(sounded, RATE, RATE * (1 + ppm * 1e-6)).astype(np.float32)
        echo = through_room(at_its_clock, impulse_response(40.0, rt60_s=0.3, seed=3))
        heard = echo * (ECHO_RMS / speech_rms(echo)) + NOISE_RMS * noise("pink", len(echo), seed=4)
        heard = heard[: len(heard) // 160 * 160]
        rows.append({"ppm": ppm, "seconds": round(len(heard) / RATE, 1),
                     "following": run(played, heard, True), "not_following": run(played, heard, False)})
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{args.answers} answers in a row, {rows[0]['seconds'] if rows else 0} s; ERLE (dB) by quarter")
    print(f"{'ppm':>6}  {'following the drift':<34}{'not following':<28}found    cpu share")
    for row in rows:
        on, off = row["following"], row["not_following"]
        print(f"{row['ppm']:>6.0f}  {str(on['erle_db_by_quarter']):<34}{str(off['erle_db_by_quarter']):<28}"
              f"{on['drift_found_ppm']:>6.1f}   {on['cpu_share']} / {off['cpu_share']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
