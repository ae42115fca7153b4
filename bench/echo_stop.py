"""A plain "stop" over the hub's answer and over a ringing timer in bench/echo.py's rooms, cancellation off and on.

Called by bench/echo.py (--stops N, --ringing-stops M). The stop phrases and voices of bench/stop.py
("stop", "cancel", "be quiet", "that's enough", "stop it", "enough"; Piper and espeak-ng), said at the
person's normal level (VOICE_RMS) 2.5-5 s into what the speaker plays, through the same rooms, echo
levels, room noise and timestamp errors as its "hey jarvis" barge-ins (scene()). Over an answer: the
microphone as heard (off), after the warm canceller (on), and the same voices in room noise alone
(silence). Over a ringing timer: its chime, played by the speaker as an answer is (in the canceller's
reference, its echo as far over the person as an answer's), off and on. Each clip goes through a real
StopWords detector with Whisper, armed and fed 80 ms chunks, each chunk after the transcriptions before
it (bench/stop.py's run(), keep_up); a hit is a stop it reports from the person's words (from 0.5 s
before them to 1.5 s after); a stop it reports anywhere else is counted apart.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from appliance.config import Config
from appliance.hearing.stop_words import StopWords
from bench.echo import CHUNK, ECHO_DB, VOICE_RMS, Canceller, scene
from bench.stop import PHRASES, VOICES, StreamClock, at_level, ringing, run, whisper
from tests.fixtures.speech import RATE, SpeechMaker, load

RINGING_S: Final = 9.0  # seconds of ringing in each case
BEFORE_S: Final = 0.5  # a stop reported from this long before the person's words ...
AFTER_S: Final = 1.5  # ... to this long after them is theirs


class Replayed:
    """The canceller as the stop words read it, replayed chunk by chunk on the stream's clock: what it told
    of itself after each microphone chunk of a run (Canceller.run's `states`); none given, it tells nothing."""

    def __init__(self, clock: StreamClock) -> None:
        self.clock = clock
        self.states: list[tuple[bool, int]] = []

    def _now(self) -> tuple[bool, int]:
        if not self.states:
            return False, 0
        return self.states[min(max(0, round(self.clock.t * RATE) // CHUNK - 1), len(self.states) - 1)]

    @property
    def passing_own_sound(self) -> bool:
        return self._now()[0]

    @property
    def moves(self) -> int:
        return self._now()[1]


class Stops:
    """One StopWords detector with Whisper, run over one clip at a time."""

    def __init__(self, cfg: Config) -> None:
        self.clock = StreamClock()
        self.whisper = whisper(cfg)
        self.echo = Replayed(self.clock)
        self.detector = StopWords(cfg, self.whisper, clock=self.clock, echo=self.echo).load()

    def hear(self, samples: np.ndarray, at: int, length: int, states: list[tuple[bool, int]] | None = None
             ) -> tuple[bool, int, list[str]]:
        """(a stop heard from the person's words said `at` samples in, stops heard elsewhere, every transcript);
        `states`: what the canceller told of itself after each chunk, as the daemon's stop words read it."""
        self.echo.states = states or []
        self.detector.transcribed = []
        hits = run(self.detector, self.clock, np.clip(samples, -1.0, 1.0), keep_up=True)
        theirs = [h for h in hits if at / RATE - BEFORE_S <= h.heard_at <= (at + length) / RATE + AFTER_S]
        return bool(theirs), len(hits) - len(theirs), list(self.detector.transcribed)


def stop_cases(speech: SpeechMaker, stops: Stops, canceller: Canceller, talk: list[np.ndarray], n: int,
               over_ringing: bool) -> list[dict]:
    """n stops over answers (silence, off, on), or over a ringing timer (off, on); one row a case."""
    rng = np.random.default_rng(17 if over_ringing else 13)
    bell = ringing(int(RINGING_S * RATE))
    rows = []
    for case in range(n):
        block = case // len(PHRASES)  # every phrase in one voice, then the next voice
        phrase, (voice, speed) = PHRASES[case % len(PHRASES)], VOICES[block % len(VOICES)]
        said = at_level(load(speech(phrase, voice=voice, speed=speed)), VOICE_RMS)
        sound = bell if over_ringing else np.concatenate([talk[case % len(talk)], talk[(case + 1) % len(talk)]])
        at = int(rng.uniform(2.5, 5.0) * RATE)
        s = scene(case, said, sound, ECHO_DB[(case + block) % len(ECHO_DB)], at, talk[(case + 5) % len(talk)])
        told: list[tuple[bool, int]] = []  # the canceller tells the stop words of itself, as in the daemon
        runs = {"off": s.heard, "on": canceller.run(s.played, s.heard, s.error_s, s.before, told)}
        if not over_ringing:
            runs["silence"] = s.silence
        row: dict = {"phrase": phrase, "voice": f"{voice}@{speed}", **s.room}
        for side, samples in runs.items():
            row[side], row[f"elsewhere_{side}"], row[f"heard_{side}"] = stops.hear(
                samples, at, len(said), told if side == "on" else None)
        rows.append(row)
    return rows


def stop_recall(cfg: Config, speech: SpeechMaker, talk: list[np.ndarray], n: int, n_ringing: int) -> dict:
    """The plain stop's recall over the answers (silence, off, on) and over the ringing (off, on)."""
    stops = Stops(cfg)
    canceller = Canceller(cfg.audio.echo_engine)  # one of its own: the wake word's CPU figures stay its own
    answered = stop_cases(speech, stops, canceller, talk, n, over_ringing=False)
    rung = stop_cases(speech, stops, canceller, talk, n_ringing, over_ringing=True)

    def recall(rows: list[dict], side: str) -> float | None:
        return round(sum(r[side] for r in rows) / len(rows), 3) if rows else None

    return {
        "stops": n, "ringing_stops": n_ringing,
        "stop_recognizer": f"{stops.whisper.name} ({stops.whisper.model_path.parent.name})",
        "stop_recall_silence": recall(answered, "silence"),
        "stop_recall_off": recall(answered, "off"), "stop_recall_on": recall(answered, "on"),
        "stop_recall_ringing_off": recall(rung, "off"), "stop_recall_ringing_on": recall(rung, "on"),
        "stop_recall_by_echo_level": {f"+{db:.0f} dB": {
            f"{over}_{side}": recall([r for r in rows if r["echo_db"] == db], side)
            for over, rows in (("answer", answered), ("ringing", rung)) for side in ("off", "on") if rows}
            for db in ECHO_DB},
        "stop_recall_by_voice": {f"{v}@{sp}": {
            f"{over}_{side}": recall([r for r in rows if r["voice"] == f"{v}@{sp}"], side)
            for over, rows in (("answer", answered), ("ringing", rung)) for side in ("silence", "off", "on")
            if rows and side in rows[0]} for v, sp in VOICES},
        "stops_elsewhere": {f"{over}_{side}": sum(r.get(f"elsewhere_{side}", 0) for r in rows)
                            for over, rows in (("answer", answered), ("ringing", rung))
                            for side in ("silence", "off", "on") if rows and side in rows[0]},
        "stop_cases": answered, "stop_cases_ringing": rung,
    }
