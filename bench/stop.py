"""Stop-word benchmark: a plain "stop" over the hub's own voice and a ringing timer, false stops, CPU, latency.

    .venv/bin/python -m bench.stop [--json]

The detector (hearing/stop_words.py) with each recognizer found here, side by side: Whisper tiny.en,
told to expect the stop phrases (the language pack's plain_stop_hint) and not, and, where an English
Vosk model is installed (a Pi), Vosk. Hit rate over spoken stop phrases
(6 phrases, 5 voices) at a normal and a quiet level, alone in room noise, under the hub's answer
mixed in at 20 and 10 dB below the person (what is left of it in the microphone) and at the same level, and
under the timer's ringing chime at the same level. False stops over the hub's own answers (40
sentences, several with "stop", "cancel", "quiet" or "enough" in them, played at full level into the
microphone) and over ordinary talk and short words. CPU share of one core while armed (transcriptions
included) and the time from the end of the word to the stop.

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
from appliance.config import Config
from appliance.hearing.asr import VoskRecognizer, WhisperRecognizer, choose_engine
from appliance.hearing.stop_words import END_SILENCE_S, StopWords
from appliance.setup import models
from appliance.speaking.earcons import ToneEarcons
from tests.fixtures.speech import RATE, SpeechMaker, load, noise, speech_rms, voiced_span
from tests.fixtures.waits import SLOW_WAIT_S

CHUNK: Final = 1280  # samples per 80 ms
PHRASES: Final = ["stop", "cancel", "be quiet", "that's enough", "stop it", "enough"]
VOICES: Final = [("piper", 1.0), ("piper", 1.2), ("espeak:en-us", 1.0), ("espeak:en-gb", 1.0),
                 ("espeak:en-us+f3", 0.9)]
PERSON_RMS: Final = 0.1  # the person's voiced RMS at the microphone at a normal level (-20 dBFS)
QUIET_DB: Final = -12.0  # the quiet level: a person further away, speaking softly
ANSWERS: Final = [
    "The capital of France is Paris.", "It is twenty past seven.", "Your timer is set for ten minutes.",
    "Turned on the kitchen light.", "Tomorrow will be sunny with a high of eighteen degrees.",
    "The moon is about three hundred and eighty four thousand kilometres away.",
    "You can stop the timer by saying stop.", "To cancel it, just say cancel.",
    "Stop.", "Okay.", "Done.", "That should be enough for four people.", "It was a quiet night.",
    "A red light means stop, and green means go.", "The bus stops at the corner.",
    "Enough sleep helps you think.", "I cancelled the alarm for tomorrow.", "Be quiet, said the librarian.",
    "Sure.", "Quiet please.", "Water boils at one hundred degrees Celsius.",
    "A kilometre is a thousand metres.", "Your shopping list has milk, eggs and bread.",
    "The alarm is set for seven in the morning.", "Here is a joke: why did the chicken cross the road?",
    "It is Wednesday.", "The volume is at five.", "I have no timers running.",
    "That's enough, I think.", "Cancel culture is a modern phrase.", "Stop signs are red.",
    "Photosynthesis turns light into sugar.", "Mount Everest is the highest mountain.",
    "Sorry, I did not catch that.", "The Nile is the longest river in Africa.",
    "Added apples to your shopping list.", "The sun rises at six forty.", "Yes.", "No.", "Goodbye."]
TALK: Final = ["what time is it", "okay", "thank you", "yes please", "no", "what", "really",
               "a stop sign", "don't stop", "cancel my order", "top", "shop", "stock", "quite",
               "set a timer for ten minutes", "turn on the kitchen lights", "how far away is the moon",
               "that is interesting", "stopwatch", "enough said", "council", "console", "stuff", "tough",
               "cancer"]


class TimedRecognizer:
    """The recognizer, with the wall time of each transcription kept, and whether it was told the hint."""

    def __init__(self, recognizer: object) -> None:
        self.inner = recognizer
        self.name = getattr(recognizer, "name", "asr")
        self.takes_hint = getattr(recognizer, "takes_hint", False)
        self.times: list[float] = []
        self.told: list[bool] = []

    def recognize(self, audio: AudioChunk, hint: str = "") -> str:
        self.told.append(bool(hint))
        started = time.monotonic()
        try:
            return self.inner.recognize(audio, hint)  # type: ignore[attr-defined]
        finally:
            self.times.append(time.monotonic() - started)


class StreamClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def at_level(samples: np.ndarray, rms: float) -> np.ndarray:
    return samples * (rms / (speech_rms(samples) + 1e-12))


def settle(detector: StopWords) -> None:
    """Wait until the detector's worker has transcribed what it was given."""
    deadline = time.monotonic() + SLOW_WAIT_S
    while not detector.worker.idle and time.monotonic() < deadline:
        time.sleep(0.005)


def run(detector: StopWords, clock: StreamClock, samples: np.ndarray, said: list[str] | None = None,
        keep_up: bool = False) -> list:
    """Feed one recording armed (told what the hub says in it, as the conductor tells it); the hits.
    keep_up: each chunk waits for the transcriptions before it, as on a machine that keeps up with the
    microphone (fed faster than that, a stretch waiting behind a running one is dropped by a newer one)."""
    detector.arm()
    for text in said or []:
        detector.hub_says(text)
    hits = []
    clock.t = 0.0
    for i in range(0, len(samples) - CHUNK + 1, CHUNK):
        clock.t = (i + CHUNK) / RATE
        if keep_up:
            settle(detector)
        hit = detector.process(AudioChunk.from_float(samples[i:i + CHUNK], RATE))
        if hit is not None:
            hits.append(hit)
    settle(detector)
    hit = detector.process(None)
    if hit is not None:
        hits.append(hit)
    detector.disarm()
    return hits


def chime() -> np.ndarray:
    """The timer's chime (appliance/speaking/earcons.py) at 16 kHz, as loud as the hub plays it."""
    return ToneEarcons(Config(), rate=RATE).get("timer").to_float()[:, 0]


def ringing(n: int) -> np.ndarray:
    """A timer ringing, n samples: its chime again and again, 0.6 s apart."""
    return np.resize(np.concatenate([chime(), np.zeros(int(0.6 * RATE), np.float32)]), n)


def whisper(cfg: Config) -> WhisperRecognizer:
    """Whisper (tiny.en here), loaded, whatever asr.engine says."""
    whisper_cfg = dataclasses.replace(cfg, asr=dataclasses.replace(cfg.asr, engine="whisper"))
    return WhisperRecognizer(whisper_cfg, choose_engine(whisper_cfg)[1]).load()


def backgrounds(speech: SpeechMaker, n: int) -> dict[str, np.ndarray]:
    answer = load(speech.join([x for s in ANSWERS[:8] for x in (speech(s), 0.35)]))
    answer = np.resize(answer, n)
    bell = chime()
    room = 0.002 * noise("pink", n, seed=5)
    return {"room noise": room,
            "answer -20 dB": room + at_level(answer, PERSON_RMS * 10 ** (-20 / 20)),
            "answer -10 dB": room + at_level(answer, PERSON_RMS * 10 ** (-10 / 20)),
            "answer 0 dB": room + at_level(answer, PERSON_RMS),
            "ringing 0 dB": room + ringing(n) * (PERSON_RMS / (np.sqrt(np.mean(bell ** 2)) + 1e-12))}


def hit_rates(detector: StopWords, clock: StreamClock, timed: TimedRecognizer, speech: SpeechMaker) -> dict:
    clips = [load(speech(p, voice=v, speed=sp)) for p in PHRASES for v, sp in VOICES]
    lead, n = int(3.0 * RATE), int(5.0 * RATE)  # 3 s into the answer or the ringing
    beds = backgrounds(speech, n)
    out: dict = {}
    lags: list[float] = []
    for level_name, gain_db in (("normal", 0.0), ("quiet", QUIET_DB)):
        for bed_name, bed in beds.items():
            hits = 0
            for clip in clips:
                person = at_level(clip, PERSON_RMS * 10 ** (gain_db / 20))
                mix = bed.copy()
                mix[lead:lead + len(person)] += person
                timed.times.clear()
                timed.told.clear()
                found = run(detector, clock, np.clip(mix, -1, 1))
                if found:
                    hits += 1
                    word_end = (lead + voiced_span(person)[1] * RATE) / RATE
                    handed = found[0].heard_at  # stream time of the last voiced chunk
                    heard_in = sum(timed.times[-2:] if timed.told[-1:] == [True] else timed.times[-1:])  # untold, then told
                    lags.append(handed - word_end + END_SILENCE_S + heard_in)
            out[f"{level_name}, {bed_name}"] = f"{hits}/{len(clips)}"
    out["latency_ms_end_of_word_to_stop"] = {
        "median": round(1000 * statistics.median(lags)) if lags else None,
        "max": round(1000 * max(lags)) if lags else None}
    return out


def false_stops(detector: StopWords, clock: StreamClock, timed: TimedRecognizer, speech: SpeechMaker) -> tuple:
    own = [load(speech(s)) for s in ANSWERS]
    track = np.concatenate([x for s in own for x in (at_level(s, 3 * PERSON_RMS), np.zeros(int(0.35 * RATE)))])
    track += 0.002 * noise("pink", len(track), seed=6)
    timed.told.clear()
    own_hits = run(detector, clock, np.clip(track, -1, 1), said=ANSWERS)
    own_heard = timed.told.count(False)  # each stretch is heard untold once, and some told too
    bare_hits = run(detector, clock, np.clip(track, -1, 1))  # told nothing: the level floor alone
    talk = [load(speech(t, voice=v, speed=sp)) for t in TALK for v, sp in VOICES[:3]]
    talk_track = np.concatenate([x for s in talk for x in (at_level(s, PERSON_RMS), np.zeros(int(0.6 * RATE)))])
    talk_track += 0.002 * noise("pink", len(talk_track), seed=7)
    talk_hits = run(detector, clock, talk_track)
    return {"own_answers": f"{len(own_hits)} in {len(ANSWERS)} sentences ({len(track) / RATE:.0f} s)",
            "own_answers_stopped_by": [h.text for h in own_hits],
            "own_answers_floor_only": f"{len(bare_hits)} ({', '.join(h.text for h in bare_hits) or 'none'})",
            "own_answers_stretches_transcribed": own_heard,
            "talk": f"{len(talk_hits)} in {len(talk)} utterances ({len(talk_track) / RATE:.0f} s)",
            "talk_stopped_by": [h.text for h in talk_hits]}, own, track


def cpu_armed(detector: StopWords, clock: StreamClock, samples: np.ndarray) -> float:
    started = time.process_time()
    run(detector, clock, samples)
    return round((time.process_time() - started) / (len(samples) / RATE), 4)


def measure(name: str, recognizer: object, cfg: Config, speech: SpeechMaker, hint: bool = True) -> dict:
    timed = TimedRecognizer(recognizer)
    clock = StreamClock()
    detector = StopWords(cfg, timed, clock=clock).load()  # type: ignore[arg-type]
    if not hint:
        detector.hint = ""
    out: dict = {"detector": name}
    out.update(hit_rates(detector, clock, timed, speech))
    falses, _, own_track = false_stops(detector, clock, timed, speech)
    out.update(falses)
    n = 30 * RATE
    out["cpu_share_armed"] = {
        "silence": cpu_armed(detector, clock, np.zeros(n, np.float32)),
        "ringing": cpu_armed(detector, clock, np.resize(np.concatenate([chime(), np.zeros(RATE // 2)]), n)),
        "own answers": cpu_armed(detector, clock, np.clip(own_track, -1, 1))}
    out["transcription_ms_median"] = round(1000 * statistics.median(timed.times)) if timed.times else None
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    speech = SpeechMaker(ROOT / ".pytest_cache" / "d" / "speech")
    cfg = Config()
    tiny = whisper(cfg)
    results = [measure("whisper tiny.en on short speech", tiny, cfg, speech),
               measure("the same, never told the hint", tiny, cfg, speech, hint=False)]
    vosk = models.find("vosk", cfg)
    if vosk is not None and not vosk.is_dev:
        results.append(measure(f"vosk ({vosk.path.name}) on short speech",
                               VoskRecognizer(cfg, vosk.path).load(), cfg, speech))
    else:
        results.append({"detector": "vosk", "note": "no English Vosk model here (only the Korean dev model)"})
    if args.json:
        print(json.dumps(results))
        return 0
    keys = [k for k in results[0] if k != "detector"]
    width = max(len(k) for k in keys) + 2
    print(" " * width + " | ".join(str(r["detector"]) for r in results))
    for key in keys:
        print(f"{key:<{width}}" + " | ".join(str(r.get(key, r.get("note", ""))) for r in results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
