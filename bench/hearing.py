"""Hearing benchmark: idle wake-word CPU, recogniser real-time factors, wake latency after "jarvis".

    .venv/bin/python -m bench.hearing [--seconds 60] [--realtime] [--json]

The wake word's figures are taken with `wake.quiet_gate` off and on, side by side in one run: CPU
share of one core on silence, steady room noise and a talk track; and on the hard clips (hey
jarvis after a lead of room sound, 6 voices, clean and at 10 and 5 dB SNR) and a longer set
(5 questions, clean and at 20, 10 and 5 dB), the misses and the latency after "jarvis", and
whether each clip fired on the same frame skipping a quiet room's frames as not.

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
LEAD_S: Final = 6.0  # of room sound before each wake word: the floor is known by then
QUESTIONS: Final = ["what time is it", "set a timer for ten minutes", "turn on the kitchen lights",
                    "what is the weather like tomorrow", "how far away is the moon"]
VOICES: Final = [("piper", 1.0), ("piper", 1.25), ("espeak:en-us", 1.0), ("espeak:en-us", 1.25),
                 ("espeak:en-gb", 1.0), ("espeak:en-us+f3", 0.9)]


def detector(cfg: Config, quiet_gate: bool) -> WakeWord:
    np.random.seed(11)  # openWakeWord's first features are random audio: the same for both detectors
    return WakeWord(dataclasses.replace(cfg, wake=dataclasses.replace(cfg.wake, quiet_gate=quiet_gate))).load()


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


def talk_track(speech: SpeechMaker, n: int) -> np.ndarray:
    """Television-like talk: sentences in two voices with short pauses, over a little room noise."""
    lines = [speech(q, voice=v, speed=sp) for q in QUESTIONS for v, sp in VOICES[:3]]
    track = load(speech.join([x for line in lines for x in (line, 0.4)]))
    out = np.resize(track, n).astype(np.float32)
    return out + 0.003 * noise("pink", n, seed=3)


def clip_hits(wake: WakeWord, wav: Path) -> list:
    wake.reset(new_stream=True)
    return [h for c in WavSource(wav) if (h := wake.process(c))]


def wake_clips(detectors: dict[str, WakeWord], speech: SpeechMaker, questions: list[str],
               snrs: list[int | None]) -> dict:
    """Per quiet_gate setting, seconds from the end of "jarvis" to the detection and the misses; and the
    clips whose first detection differs between the settings."""
    delays: dict[str, list[float]] = {name: [] for name in detectors}
    misses: dict[str, list[str]] = {name: [] for name in detectors}
    differ = []
    room = speech.samples(0.01 * noise("pink", int(RATE * LEAD_S), seed=2), "bench-room")
    for voice, speed in VOICES:
        hey = speech("hey jarvis", voice=voice, speed=speed)
        _, end = voiced_span(load(hey))
        for question in questions:
            clip = speech.join([room, hey, 0.3, speech(question, voice=voice, speed=speed), 1.0])
            for snr in snrs:
                wav = clip if snr is None else speech.noisy(clip, snr, "pink", seed=5)
                first = {}
                for name, wake in detectors.items():
                    hits = clip_hits(wake, wav)
                    first[name] = hits[0].at_s if hits else None
                    if hits:
                        delays[name].append(hits[0].at_s - (LEAD_S + end))
                    else:
                        misses[name].append(f"{voice}@{speed} {question!r} snr={snr}")
                if len(set(first.values())) > 1:
                    differ.append(f"{voice}@{speed} {question!r} snr={snr}: {first}")
    return {"clips": len(VOICES) * len(questions) * len(snrs),
            **{name: {"median_s": round(float(statistics.median(d)), 3) if d else None,
                      "max_s": round(float(max(d)), 3) if d else None, "misses": misses[name]}
               for name, d in delays.items()},
            "first_detection_differs": differ}


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
    detectors = {"quiet_gate off": detector(cfg, False), "quiet_gate on": detector(cfg, True)}
    n = int(args.seconds * RATE)
    sounds = {"silence": np.zeros(n, dtype=np.float32),
              "room noise": 0.01 * noise("pink", n, seed=1),
              "pink noise": 0.05 * noise("pink", n, seed=1),
              "talk": talk_track(speech, n)}
    out: dict = {"idle_cpu_share_of_one_core": {
        name: {setting: round(idle_cpu(wake, samples, args.realtime), 4) for setting, wake in detectors.items()}
        for name, samples in sounds.items()}}
    for row in out["idle_cpu_share_of_one_core"].values():
        row["ratio on/off"] = round(row["quiet_gate on"] / row["quiet_gate off"], 3) if row["quiet_gate off"] else None
    out["wake_hard_clips"] = wake_clips(detectors, speech, ["what time is it"], [None, 10, 5])
    out["wake_longer_set"] = wake_clips(detectors, speech, QUESTIONS, [None, 20, 10, 5])
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
