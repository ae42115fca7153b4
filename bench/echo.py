"""Echo benchmark: "hey jarvis", a plain "stop" and the question after a barge-in over the hub's own voice.

    .venv/bin/python -m bench.echo [--barge-ins 54] [--answers 50] [--naming 12] [--stops 60] [--questions 60]
                                   [--json]

Each case is a room (delay 10-80 ms, a reverb tail: tests/fixtures/room.py) carrying one of the hub's
Piper answers, played at 22.05 kHz through the EchoCanceller on one simulated clock as the speaker and
microphone callbacks drive it (with timestamps off by -20..+10 ms), plus pink room noise. Barge-ins mix
"hey jarvis" in (6 voices, the echo 6, 10 or 12 dB above the person, who speaks at a normal level)
2.5-5 s into the answer; the same voices in the same noise without the answer give the recall in
silence. Every clip goes through the real wake-word detector (hearing/wake.py) side by side: the
microphone as heard (cancellation off) and after the canceller (on: it has heard one earlier answer in
the same room; on_cold: none, as at the service's start; on_long: three, as through the day); the best
score around the wake word gives the recall at each threshold, the best score over a whole answer the
self-wakes. Each barge-in is scored with the wake word's 80 ms frames falling at 8 points 10 ms apart
(--phases), as a person starts anywhere in a frame: through a canceller one case's score swings with it
(phase_scores), so the recall is over cases and phases. The wake word is scored as the daemon scores it:
in silence as idle (one model, skipping a quiet room's frames), under an answer as while the hub speaks (copies' frames
between the first's, any one firing: wake.barge_in_phases, or --barge-in-phases).
ERLE is the echo's drop after the first 2 s of each answer; cpu_share the canceller's CPU seconds per
second of audio while it runs (idle it is not called); wake_cpu_share the wake word's, with one model and
with those that run while the hub speaks. The plain "stop" (bench/echo_stop.py: 6 phrases,
5 voices, the real StopWords detector with Whisper) is said the same way over answers (in silence, off,
on) and over a ringing timer's chime played by the speaker (off, on); --stops 0 skips it. The question
said after a barge-in ("hey jarvis", a pause, "what time is it" and 9 more, bench/echo_question.py): the
answer stops where the wake word fires on what the canceller gives, the wake chime plays, and Whisper
transcribes the question in silence, off and on; --questions 0 skips it. Figures only, no assertions.
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

from appliance.audio import AudioChunk, resample
from appliance.audio.echo import EchoCanceller
from appliance.audio.echo_engines import ENGINES
from appliance.config import Config
from appliance.hearing.wake import WakeWord
from bench.hearing import VOICES, detector
from tests.fixtures.room import erle_db, impulse_response, level_above, play_and_hear, through_room
from tests.fixtures.speech import RATE, SpeechMaker, load, noise, speech_rms, voiced_span

CHUNK: Final = 1280  # samples per 80 ms
VOICE_RATE: Final = 22050  # Hz: the speaker plays Piper's voice at its own rate
VOICE_RMS: Final = 0.03  # the person at the microphone, speaking at a normal level (about -30 dBFS)
NOISE_RMS: Final = 0.003  # pink room noise, 20 dB under the person
ECHO_DB: Final = (6.0, 10.0, 12.0)  # the hub's voice above the person's at the microphone
DELAYS_MS: Final = (10.0, 40.0, 80.0)
TIMING_ERRORS_S: Final = (0.0, 0.01, -0.02)  # how far the host's timestamps are off
THRESHOLDS: Final = (0.3, 0.5, 0.6, 0.7, 0.8)
PHASES: Final = 8  # where the wake word's 80 ms frames fall against a barge-in: 10 ms apart (its features' hop)
CONTEXT_FRAMES: Final = 40  # 80 ms frames of sound scored before each barge-in's window (the model looks back ~2 s)
ADAPT_S: Final = 2.0  # seconds the canceller is given before ERLE is counted
SENTENCES: Final = [
    "It is a quarter past seven in the evening.",
    "Your timer for the pasta has four minutes left.",
    "Tomorrow will be sunny with a light breeze and a high of twenty two degrees.",
    "I have added milk, eggs and bread to your shopping list.",
    "The kitchen light is now on.",
    "Paris is the capital of France, and it is known for the Eiffel Tower.",
    "A group of crows is called a murder, which sounds worse than it is.",
    "The moon is about three hundred and eighty four thousand kilometres away.",
    "I set an alarm for six thirty tomorrow morning.",
    "Here is a joke: why did the scarecrow win an award? Because he was outstanding in his field.",
    "Water boils at one hundred degrees Celsius at sea level.",
    "The volume is now at level six.",
    "Your reminder to call the dentist is set for Thursday at ten.",
    "Bananas are berries, but strawberries are not.",
    "It will probably rain in the afternoon, so take an umbrella.",
    "The living room is twenty one degrees right now.",
    "To make a cup of tea, boil the water and let the bag steep for three minutes.",
    "There are seven days in a week and fifty two weeks in a year.",
    "I turned off all the lights downstairs.",
    "The shortest day of the year is in December in the northern hemisphere.",
    "Octopuses have three hearts and blue blood.",
    "Your shopping list has five items on it.",
    "Mount Everest is the highest mountain on Earth, at almost nine thousand metres.",
    "Good morning. It is Wednesday the second of December.",
    "Sorry, I could not find a device called garage door.",
]


NAMING: Final = [  # answers in which the hub says its own wake word: what most easily wakes it
    "To ask me something, say hey jarvis, and then your question.",
    "My name is Jarvis. Say hey jarvis whenever you need me.",
    "You can stop me at any time by saying hey jarvis, stop.",
]


def naming_answers(speech: SpeechMaker, n: int) -> list[np.ndarray]:
    """n answers that say "hey jarvis" in the hub's voice, each after a sentence of something else."""
    clips = [load(speech(s)) for s in SENTENCES]
    named = [load(speech(s)) for s in NAMING]
    pause = np.zeros(int(0.25 * RATE), np.float32)
    return [np.concatenate([clips[i % len(clips)], pause, named[i % len(named)], pause]) for i in range(n)]


def answers(speech: SpeechMaker, n: int) -> list[np.ndarray]:
    """n distinct answers of two or three sentences, 16 kHz float32, Piper's joe voice."""
    clips = [load(speech(s)) for s in SENTENCES]
    pause = np.zeros(int(0.25 * RATE), np.float32)
    out = []
    for i in range(n):
        picks = [i % len(clips), (i * 7 + 3) % len(clips)] + ([(i * 3 + 11) % len(clips)] if i % 2 else [])
        out.append(np.concatenate([x for p in picks for x in (clips[p], pause)]))
    return out


def at_voice_rate(answer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(what the speaker is given at 22.05 kHz, the same sound at 16 kHz as it leaves the speaker)."""
    played = resample(AudioChunk.from_float(answer, RATE), VOICE_RATE).to_float()[:, 0]
    return played, resample(AudioChunk.from_float(played, VOICE_RATE), RATE).to_float()[:, 0][: len(answer)]


def scores(wake: WakeWord, samples: np.ndarray, speaking: bool = True) -> np.ndarray:
    """The wake word's score for every 80 ms chunk: as while the hub speaks (every frame scored, copies'
    frames between the first's: wake.barge_in_phases, hearing/wake.py), or as idle (speaking=False: one model,
    a quiet room's frames skipped)."""
    wake.reset(new_stream=True)
    out = []
    for start in range(0, len(samples) - CHUNK + 1, CHUNK):
        wake.process(AudioChunk.from_float(samples[start:start + CHUNK], RATE), threshold=1.01 if speaking else None)
        out.append(wake.last_score)
    return np.asarray(out)


class Canceller:
    """Runs an EchoCanceller with one engine over one case at a time and keeps its CPU time."""

    def __init__(self, engine: str, earlier: int = 1) -> None:
        self.engine = ENGINES[engine]
        self.earlier = earlier  # answers heard before each case's (0: a canceller new to the room)
        self.cpu_s = 0.0
        self.audio_s = 0.0

    def run(self, played: np.ndarray, heard: np.ndarray, timing_error_s: float,
            before: tuple[np.ndarray, np.ndarray] | list[tuple[np.ndarray, np.ndarray]] | None = None,
            states: list[tuple[bool, int]] | None = None) -> np.ndarray:
        """What the microphone gives after the canceller; warm, it has first heard `earlier` answers of
        `before` (earlier answers played and heard in the same room, taken in turn), as the daemon's canceller,
        which lives as long as the service, has heard every answer before. `states` gets what the canceller
        told of itself after each chunk (tests/fixtures/room.py: play_and_hear)."""
        echo = EchoCanceller(engine_factory=self.engine)
        earlier = [before] if isinstance(before, tuple) else before or []
        started = time.process_time()
        for n in range(self.earlier if earlier else 0):
            played_before, heard_before = earlier[n % len(earlier)]
            play_and_hear(echo, played_before, VOICE_RATE, heard_before, t0=1000.0 + 100.0 * n,
                          timing_error_s=timing_error_s)
        out = play_and_hear(echo, played, VOICE_RATE, heard, t0=2000.0, timing_error_s=timing_error_s, states=states)
        self.cpu_s += time.process_time() - started
        self.audio_s += (echo.blocks_processed - echo.blocks_again) * echo.block / RATE  # what it heard, once
        return out


def earlier_answer(answer: np.ndarray, ir: np.ndarray, gain: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(played, heard) of an answer the hub gave before, in the same room."""
    played, sounded = at_voice_rate(answer)
    return played, gain * through_room(sounded, ir) + NOISE_RMS * noise("pink", len(sounded), seed=seed)


def room_for(case: int) -> tuple[np.ndarray, float, float]:
    delay = DELAYS_MS[case % len(DELAYS_MS)]
    rt60 = (0.2, 0.35, 0.5)[(case // 3) % 3]
    return impulse_response(delay, rt60_s=rt60, seed=case), delay, rt60


@dataclasses.dataclass
class Scene:
    """One case in a room: what the speaker is given, what the microphone hears, and the rest."""

    played: np.ndarray  # the speaker's sound at 22.05 kHz
    heard: np.ndarray  # the microphone: the echo, the person and the room noise (cancellation off)
    silence: np.ndarray  # the person and the room noise alone, nothing playing
    before: tuple[np.ndarray, np.ndarray]  # an earlier answer in the same room, for a warm canceller
    error_s: float  # how far the host's timestamps are off
    room: dict  # the echo's level over the person, the room's delay and RT60
    ir: np.ndarray  # the room's echo path
    gain: float  # the echo's gain that puts it room["echo_db"] over the person

    def replay(self, sound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(played, heard) with `sound` (16 kHz, no longer than the case) played instead, through the same
        room at the same gain, over the same person and noise; after it the speaker is given nothing."""
        played, sounded = at_voice_rate(sound)
        sounded = np.concatenate([sounded, np.zeros(len(self.silence) - len(sounded), np.float32)])
        return played, self.gain * through_room(sounded, self.ir) + self.silence


def scene(case: int, said: np.ndarray, sound: np.ndarray, echo_db: float, at: int, earlier: np.ndarray) -> Scene:
    """`sound` (16 kHz) played through room_for(case), its echo `echo_db` above `said` (the person, put `at`
    samples in), over pink room noise; `earlier`, an answer played before in the same room."""
    played, sounded = at_voice_rate(sound)
    ir, delay, rt60 = room_for(case)
    echo = through_room(sounded, ir)
    gain = level_above(echo, said, echo_db)
    echo *= gain
    person = np.zeros_like(echo)
    person[at:at + len(said)] = said
    room = NOISE_RMS * noise("pink", len(echo), seed=case)
    return Scene(played, echo + person + room, person + room, earlier_answer(earlier, ir, gain, seed=500 + case),
                 TIMING_ERRORS_S[case % len(TIMING_ERRORS_S)],
                 {"echo_db": echo_db, "delay_ms": delay, "rt60_s": rt60}, ir, gain)


def phase_scores(wake: WakeWord, samples: np.ndarray, window: slice, phases: int = PHASES,
                 speaking: bool = True) -> list[float]:
    """The best score in `window` (80 ms frames) with the frames falling at `phases` points 10 ms apart.

    A person starts speaking anywhere in the microphone's 80 ms frame, and the score of one utterance
    through a canceller swings with where the frames fall: 0.05-0.97 in one case over 10 shifts, where the
    same voice in silence held 0.99 or more at every one. Each is scored from CONTEXT_FRAMES before the window on
    (the first is exactly the whole stream's score), the next with the frames starting 10 ms later.
    """
    start = max(0, window.start - CONTEXT_FRAMES) * CHUNK
    out = []
    for k in range(phases):
        shift = k * CHUNK // 8
        frames = scores(wake, samples[start + shift:window.stop * CHUNK + shift], speaking)
        out.append(float(frames[window.start - start // CHUNK:].max()))
    return out


def barge_ins(speech: SpeechMaker, wake: WakeWord, cancellers: dict[str, Canceller], talk: list[np.ndarray],
              n: int, phases: int = PHASES) -> dict:
    """Best wake score around each spoken "hey jarvis", at each of `phases` frame phases: in silence, under the
    echo as heard, after each canceller. `best` holds every case's scores in turn, `cases` each case's."""
    rng = np.random.default_rng(7)
    best: dict[str, list[float]] = {"silence": [], "off": [], **{name: [] for name in cancellers}}
    cases = []
    for case in range(n):
        voice_name, speed = VOICES[case % len(VOICES)]
        hey = load(speech("hey jarvis", voice=voice_name, speed=speed))
        hey *= VOICE_RMS / speech_rms(hey)
        at = int(rng.uniform(2.5, 5.0) * RATE)
        s = scene(case, hey, np.concatenate([talk[case % len(talk)], talk[(case + 1) % len(talk)]]),
                  ECHO_DB[(case // len(VOICES)) % len(ECHO_DB)], at, talk[(case + 5) % len(talk)])
        more = [earlier_answer(talk[(case + 5 + 7 * n) % len(talk)], s.ir, s.gain, seed=900 + case + n) for n in (1, 2)]
        _, end_s = voiced_span(hey)
        window = slice(at // CHUNK, (at + int((end_s + 1.0) * RATE)) // CHUNK + 1)  # until 1 s after "jarvis"
        runs = {"silence": s.silence, "off": s.heard,
                **{name: c.run(s.played, s.heard, s.error_s, [s.before, *more]) for name, c in cancellers.items()}}
        case_best = {name: phase_scores(wake, samples, window, phases, speaking=name != "silence")
                     for name, samples in runs.items()}
        for name, values in case_best.items():
            best[name].extend(values)
        cases.append({"voice": f"{voice_name}@{speed}", **s.room,
                      **{k: [round(v, 3) for v in values] for k, values in case_best.items()}})
    return {"best": best, "cases": cases}


def self_wakes(wake: WakeWord, cancellers: dict[str, Canceller], talk: list[np.ndarray]) -> dict:
    """Best wake score over each whole answer with nobody speaking, off and after each canceller; ERLE."""
    best: dict[str, list[float]] = {"off": [], **{name: [] for name in cancellers}}
    erle: dict[str, list[float]] = {name: [] for name in cancellers}
    for case, answer in enumerate(talk):
        played, sounded = at_voice_rate(answer)
        ir, _, _ = room_for(case)
        echo = through_room(sounded, ir)
        gain = VOICE_RMS * 10 ** (ECHO_DB[case % len(ECHO_DB)] / 20) / speech_rms(echo)  # as over a barge-in
        echo *= gain
        before = [earlier_answer(talk[(case + 5 + 7 * n) % len(talk)], ir, gain, seed=700 + case + 100 * n)
                  for n in range(3)]
        heard = echo + NOISE_RMS * noise("pink", len(echo), seed=100 + case)
        adapted = int(ADAPT_S * RATE)
        best["off"].append(float(scores(wake, heard).max()))
        for name, canceller in cancellers.items():
            cancelled = canceller.run(played, heard, TIMING_ERRORS_S[case % len(TIMING_ERRORS_S)], before)
            erle[name].append(erle_db(heard[adapted:], cancelled[adapted:]))
            best[name].append(float(scores(wake, cancelled).max()))
    return {"best": best, "erle_db": erle}


def idle_cost(seconds: float = 60.0) -> dict:
    """CPU seconds per second of audio of cancel() on a microphone with nothing played: it passes through."""
    echo = EchoCanceller()
    room = (NOISE_RMS * noise("pink", int(seconds * RATE), seed=9) * 32767).astype("<i2")
    started = time.process_time()
    for n, start in enumerate(range(0, len(room) - CHUNK + 1, CHUNK)):
        echo.cancel(room[start:start + CHUNK], 10.0 + n * CHUNK / RATE)
    return {"cpu_share": round((time.process_time() - started) / seconds, 6),
            "canceller_blocks": echo.blocks_processed}


def wake_cost(cfg: Config, talk: list[np.ndarray], rounds: int = 3) -> dict:
    """CPU seconds per second of audio of the wake word over the hub's answers, every frame
    scored: one model (as idle in a room that is not quiet) against wake.barge_in_phases of them (as while the
    hub speaks), taken in turns."""
    sound = np.concatenate(talk[:4]) + NOISE_RMS * noise("pink", sum(len(t) for t in talk[:4]), seed=11)
    chunks = [AudioChunk.from_float(sound[i:i + CHUNK], RATE) for i in range(0, len(sound) - CHUNK + 1, CHUNK)]
    one, speaking = detector(cfg, quiet_gate=False), detector(cfg, quiet_gate=False)
    spent = {"one_model": 0.0, "while_speaking": 0.0}
    for _ in range(rounds):
        for name, wake, threshold in (("one_model", one, None), ("while_speaking", speaking, 1.01)):
            wake.reset(new_stream=True)
            started = time.process_time()
            for chunk in chunks:
                wake.process(chunk, threshold)
            spent[name] += time.process_time() - started
    audio_s = rounds * len(chunks) * CHUNK / RATE
    share = {name: round(cpu / audio_s, 4) for name, cpu in spent.items()}
    return {**share, "ratio": round(share["while_speaking"] / share["one_model"], 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--barge-ins", type=int, default=54, help="spoken barge-ins (6 voices x 3 levels x 3 rooms)")
    parser.add_argument("--phases", type=int, default=PHASES,
                        help="where the wake word's 80 ms frames fall, 10 ms apart, each barge-in is scored at (1-8)")
    parser.add_argument("--barge-in-phases", type=int, default=Config().wake.barge_in_phases, choices=range(1, 5),
                        metavar="1-4", help="placings of the wake word's frames scored while the hub speaks "
                        "(wake.barge_in_phases)")
    parser.add_argument("--answers", type=int, default=50, help="answers played with nobody speaking (self-wakes)")
    parser.add_argument("--naming", type=int, default=12, help="answers that say the wake word themselves")
    parser.add_argument("--stops", type=int, default=60,
                        help="plain stops over answers (6 phrases x 5 voices, twice); 0 skips the stop cases")
    parser.add_argument("--ringing-stops", type=int, default=None,
                        help="plain stops over a ringing timer (default: half of --stops)")
    parser.add_argument("--questions", type=int, default=60,
                        help="questions after 'hey jarvis' over an answer (10 questions x 6 voices, twice); 0 skips")
    parser.add_argument("--cases", action="store_true",
                        help="print every barge-in's, stop's and question's result too")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.phases <= PHASES:
        parser.error(f"--phases must be 1-{PHASES} (the 10 ms steps in the wake word's 80 ms frame), not {args.phases}")
    base = Config()
    cfg = dataclasses.replace(base, wake=dataclasses.replace(base.wake, barge_in_phases=args.barge_in_phases))
    speech = SpeechMaker(ROOT / ".pytest_cache" / "d" / "speech")
    wake = detector(cfg, quiet_gate=True)
    talk = answers(speech, max(args.answers, 2))
    cancellers = {"on": Canceller(cfg.audio.echo_engine), "on_cold": Canceller(cfg.audio.echo_engine, earlier=0),
                  "on_long": Canceller(cfg.audio.echo_engine, earlier=3),
                  **{name: Canceller(name) for name in ENGINES if name != cfg.audio.echo_engine}}
    heard = barge_ins(speech, wake, cancellers, talk, args.barge_ins, args.phases)
    quiet = self_wakes(wake, cancellers, talk[: args.answers])
    naming = self_wakes(wake, cancellers, naming_answers(speech, args.naming))
    barge = cfg.wake.barge_in_threshold
    sides = ["silence", "off", *cancellers]

    def recall(name: str, threshold: float) -> float:
        values = heard["best"][name]
        return round(sum(v >= threshold for v in values) / len(values), 3) if values else 0.0

    def woke(name: str, threshold: float) -> int:
        return sum(v >= threshold for v in quiet["best"][name])

    def median(values: list[float]) -> float | None:
        return round(float(statistics.median(values)), 1) if values else None

    table = {f"{t:.1f}": {**{f"recall_{side}": recall(side, t) for side in sides},
                          **{f"self_wakes_{side}": woke(side, t) for side in sides[1:]}} for t in THRESHOLDS}
    by_level = {f"+{db:.0f} dB": {side: round(float(np.mean([
        np.asarray(c[side]) >= barge for c in heard["cases"] if c["echo_db"] == db])), 3) for side in sides}
        for db in ECHO_DB if any(c["echo_db"] == db for c in heard["cases"])}
    out = {
        "barge_ins": args.barge_ins, "phases": args.phases, "barge_in_phases": args.barge_in_phases,
        "answers": args.answers, "threshold": barge,
        "engine": cfg.audio.echo_engine,
        "recall_silence": recall("silence", cfg.wake.threshold),
        "recall_off": recall("off", barge), "recall_on": recall("on", barge),
        "self_wakes": woke("on", barge), "self_wakes_off": woke("off", barge),
        "erle_db": median(quiet["erle_db"]["on"]),
        "cpu_share": round(cancellers["on"].cpu_s / cancellers["on"].audio_s, 4) if cancellers["on"].audio_s else None,
        "other_engines": {name: {"recall": recall(name, barge), "self_wakes": woke(name, barge),
                                 "erle_db": median(quiet["erle_db"][name]),
                                 "cpu_share": round(c.cpu_s / c.audio_s, 4) if c.audio_s else None}
                          for name, c in cancellers.items() if name != "on"},
        "naming_answers": args.naming,
        "self_wakes_naming": {side: sum(v >= barge for v in naming["best"][side]) for side in sides[1:]},
        "idle": idle_cost(),
        "wake_cpu_share": wake_cost(cfg, talk),
        "by_threshold": table, f"recall_at_{barge}_by_echo_level": by_level,
        "max_self_score": {side: round(max(v), 3) for side, v in quiet["best"].items() if v},
    }
    if args.stops > 0:
        from bench.echo_stop import stop_recall

        ringing = args.stops // 2 if args.ringing_stops is None else args.ringing_stops
        out.update(stop_recall(cfg, speech, talk, args.stops, ringing))
        if not args.cases:
            del out["stop_cases"], out["stop_cases_ringing"]
    if args.questions > 0:
        from bench.echo_question import question_recall

        out.update(question_recall(cfg, speech, wake, args.questions))
        if not args.cases:
            del out["question_cases"]
    if args.cases:
        out["cases"] = heard["cases"]
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{args.barge_ins} barge-ins at {args.phases} frame phases, {args.answers} answers, the wake word at "
          f"{args.barge_in_phases} placings while the hub speaks; "
          f"echo {'/'.join(f'+{d:.0f}' for d in ECHO_DB)} dB over the person, "
          f"delays {'/'.join(f'{d:.0f}' for d in DELAYS_MS)} ms; engine {out['engine']}")
    print(f"recall in silence (threshold {cfg.wake.threshold}): {out['recall_silence']}")
    print(f"at the barge-in threshold {barge}: recall off {out['recall_off']}, on {out['recall_on']}; "
          f"self-wakes off {out['self_wakes_off']}, on {out['self_wakes']}")
    print(f"ERLE after {ADAPT_S:.0f} s: median {out['erle_db']} dB; canceller CPU {out['cpu_share']} s per s of audio")
    print(f"other engines: {out['other_engines']}")
    print(f"idle (nothing played, 60 s): {out['idle']}")
    print(f"the wake word's CPU, share of one core: {out['wake_cpu_share']}")
    print(f"self-wakes at {barge} over {args.naming} answers that say 'hey jarvis': {out['self_wakes_naming']}")
    print("threshold  " + "  ".join(f"recall_{s}" for s in sides) + "  " + "  ".join(f"self_wakes_{s}" for s in sides[1:]))
    for t, row in table.items():
        print(f"{t:>9}  " + "  ".join(f"{v:>{len(k)}}" for k, v in row.items()))
    print(f"recall at {barge} by echo level: {by_level}")
    print(f"highest score of an answer alone: {out['max_self_score']}")
    if args.stops > 0:
        print(f"a plain stop ({out['stops']} over answers, {out['ringing_stops']} over a ringing timer; "
              f"{out['stop_recognizer']}): in silence {out['stop_recall_silence']}; over the answer off "
              f"{out['stop_recall_off']}, on {out['stop_recall_on']}; over the ringing off "
              f"{out['stop_recall_ringing_off']}, on {out['stop_recall_ringing_on']}")
        print(f"  beside 'hey jarvis': in silence {out['recall_silence']}, off {out['recall_off']}, on {out['recall_on']}")
        print(f"  stop recall by echo level: {out['stop_recall_by_echo_level']}")
        print(f"  stop recall by voice: {out['stop_recall_by_voice']}")
        print(f"  stops heard outside the person's words: {out['stops_elsewhere']}")
    if args.questions > 0:
        from bench.echo_question import summary

        print("\n".join(summary(out)))
    for case in [*out.get("cases", []), *out.get("stop_cases", []), *out.get("stop_cases_ringing", []),
                 *out.get("question_cases", [])]:
        print(case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
