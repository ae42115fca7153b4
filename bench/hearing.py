"""Hearing benchmark: idle wake-word CPU, recogniser real-time factors, wake latency after "jarvis".

    .venv/bin/python -m bench.hearing [--seconds 60] [--realtime] [--json]

Figures only, no assertions. Speech is made with Piper and espeak-ng (tests/fixtures/speech.py),
cached under .pytest_cache/d/speech.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Final

import numpy as np

ROOT: Final = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from appliance.audio import AudioChunk
from appliance.audio.mic import WavSource
from appliance.config import Config
from appliance.hearing.asr import VoskRecognizer, WhisperRecognizer, choose_engine
from appliance.hearing.wake import WakeWord
from appliance.setup import models
from tests.fixtures.speech import RATE, SpeechMaker, load, noise, voiced_span
from tests.fixtures.waits import SLOW_WAIT_S

CHUNK: Final = 1280  # samples per 80 ms
QUESTIONS: Final = ["what time is it", "set a timer for ten minutes", "turn on the kitchen lights",
                    "what is the weather like tomorrow", "how far away is the moon"]
VOICES: Final = [("piper", 1.0), ("piper", 1.25), ("espeak:en-us", 1.0), ("espeak:en-us", 1.25),
                 ("espeak:en-gb", 1.0), ("espeak:en-us+f3", 0.9)]


def idle_cpu(wake: WakeWord, samples: np.ndarray, realtime: bool) -> float:
    """CPU seconds per second of audio (share of one core) for the wake word alone."""
    wake.reset(new_stream=True)
    chunks = [AudioChunk.from_float(samples[i:i + CHUNK], RATE) for i in range(0, len(samples) - CHUNK + 1, CHUNK)]
    start_cpu, start = time.process_time(), time.monotonic()
    for n, chunk in enumerate(chunks):
        if realtime:
            time.sleep(max(0.0, start + n * CHUNK / RATE - time.monotonic()))
        wake.process(chunk)
    return (time.process_time() - start_cpu) / (len(chunks) * CHUNK / RATE)


def wake_latency(wake: WakeWord, speech: SpeechMaker) -> dict:
    """Seconds from the end of "jarvis" to the detection, and misses, over voices and noise."""
    delays, misses = [], []
    for voice, speed in VOICES:
        hey = speech("hey jarvis", voice=voice, speed=speed)
        _, end = voiced_span(load(hey))
        for snr in (None, 10, 5):
            wav = speech.join([1.0, hey, 0.3, speech("what time is it", voice=voice, speed=speed), 1.0])
            if snr is not None:
                wav = speech.noisy(wav, snr, "pink", seed=5)
            wake.reset(new_stream=True)
            hits = [h for c in WavSource(wav) if (h := wake.process(c))]
            if hits:
                delays.append(hits[0].at_s - (1.0 + end))
            else:
                misses.append(f"{voice}@{speed} snr={snr}")
    return {"median_s": round(float(statistics.median(delays)), 3), "max_s": round(float(max(delays)), 3),
            "min_s": round(float(min(delays)), 3), "clips": len(delays) + len(misses), "misses": misses}


def rtf(recognizer, speech: SpeechMaker) -> dict:
    """CPU and wall seconds per second of audio, fed chunk by chunk like the conductor does."""
    spent = wall = audio = 0.0
    for question in QUESTIONS:
        chunks = list(WavSource(speech.join([0.2, speech(question), 0.8])))
        started, wall_started = time.process_time(), time.monotonic()
        utterance = recognizer.start([])
        for chunk in chunks:
            utterance.feed(chunk)
            if utterance.ended:
                break
        else:
            utterance.finish()
        utterance.wait(SLOW_WAIT_S)  # Whisper transcribes on its own thread
        spent += time.process_time() - started
        wall += time.monotonic() - wall_started
        audio += len(chunks) * CHUNK / RATE
    return {"cpu": round(spent / audio, 3), "wall": round(wall / audio, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of idle audio per case")
    parser.add_argument("--realtime", action="store_true", help="pace the idle audio like a microphone")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    speech = SpeechMaker(ROOT / ".pytest_cache" / "d" / "speech")
    cfg = Config()
    wake = WakeWord(cfg).load()
    n = int(args.seconds * RATE)
    out: dict = {"idle_cpu_share_of_one_core": {
        "silence": round(idle_cpu(wake, np.zeros(n, dtype=np.float32), args.realtime), 4),
        "pink noise": round(idle_cpu(wake, 0.05 * noise("pink", n, seed=1), args.realtime), 4),
    }}
    out["wake_latency_after_jarvis"] = wake_latency(wake, speech)
    whisper_cfg = dataclasses.replace(cfg, asr=dataclasses.replace(cfg.asr, engine="whisper"))
    whisper = WhisperRecognizer(whisper_cfg, choose_engine(whisper_cfg)[1]).load()
    out["rtf"] = {"whisper tiny.en int8": rtf(whisper, speech)}
    vosk = models.find("vosk", cfg)
    if vosk is not None:
        name = vosk.path.parent.name if vosk.is_dev else vosk.path.name
        out["rtf"][f"vosk ({name})"] = rtf(VoskRecognizer(cfg, vosk.path).load(), speech)
    out["rtf_note"] = ("CPU and wall seconds per audio second, VAD included; Whisper's time all "
                       "falls after the end of speech, Vosk's while the person speaks")
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
