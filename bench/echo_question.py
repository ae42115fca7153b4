"""The question after a barge-in: "hey jarvis, what time is it" over the hub's answer, in bench/echo.py's rooms.

Called by bench/echo.py (--questions N). The person says "hey jarvis", pauses 0.4 s and asks an everyday
question (10 questions, the 6 voices of its barge-ins, Piper and espeak-ng, at the same normal level
VOICE_RMS), 2.5-5 s into the hub's answer, its echo 6, 10 or 12 dB above the person, through the same
rooms, room noise and timestamp errors (scene()). The speaker plays the answer until the wake word fires:
the first 80 ms frame the real wake-word detector scores at or above the barge-in threshold on what the
warm canceller gives (up to 1 s after "jarvis"), then 100 ms more ending in the speaker's fade, then the
wake chime, then nothing; all of it is the canceller's reference, as the speaker hands it over, and the
canceller runs on for its tail (1.5 s) after the chime, over the question. A case where the wake word never
fires stops the answer 0.3 s after "jarvis" all the same, and is counted as a missed barge-in.

What the microphone gave from the wake firing to 1 s after the question is transcribed by Whisper tiny.en
(WhisperRecognizer, as bench/stop.py loads it) three ways: the same question in room noise alone (silence),
after the barge-in as heard (off: the answer stopped at the same moment, nothing cancelled), and after the
warm canceller (on). The question is heard right when
each of its words that matter is in the transcript (heard_name() of tests/fixtures/speech.py: a word heard
a little wrong or split still counts); heard whole when the transcript is the question (spoken_as()).
The cases are also split by whether the wake chime, played after the 100 ms, still sounded when the question
began (a wake word that fired more than 0.12 s after "jarvis").
"""

from __future__ import annotations

from typing import Final

import numpy as np

from appliance.audio.playback import FADE_MS
from appliance.config import Config
from appliance.hearing.wake import WakeWord
from appliance.speaking.earcons import ToneEarcons
from bench.echo import CHUNK, ECHO_DB, VOICE_RMS, Canceller, answers, scene, scores
from bench.hearing import VOICES
from bench.stop import at_level, whisper
from tests.fixtures.speech import RATE, SpeechMaker, heard_name, load, spoken_as, voiced_span

QUESTIONS: Final = {  # each question, and the words in it that matter
    "what time is it": ("what time",),
    "set a timer for ten minutes": ("timer", "ten minutes"),
    "add milk to my shopping list": ("milk", "shopping list"),
    "turn on the kitchen light": ("turn on", "kitchen light"),
    "what is the capital of france": ("capital", "france"),
    "what is the weather like tomorrow": ("weather", "tomorrow"),
    "remind me to call my mother tonight": ("remind", "call", "mother", "tonight"),
    "turn off the lights in the bedroom": ("turn off", "lights", "bedroom"),
    "set an alarm for five in the morning": ("alarm", "five", "morning"),
    "how far away is the moon": ("far", "moon"),
}
PAUSE_S: Final = 0.4  # between "hey jarvis" and the question
STOP_S: Final = 0.1  # the speaker falls silent this long after the wake word fires, with a fade
MISSED_S: Final = 0.3  # a barge-in that never fires is taken as fired this long after "jarvis"
WINDOW_S: Final = 1.0  # the wake word may fire until this long after "jarvis"
AFTER_S: Final = 1.0  # transcribed until this long after the question
ANSWERS: Final = 25  # answers the questions are asked over
SIDES: Final = ("silence", "off", "on")


def spoken(speech: SpeechMaker, question: str, voice: str, speed: float) -> tuple[np.ndarray, int, int]:
    """("hey jarvis", a pause, the question) at the person's level; where "jarvis" and the question end."""
    hey = at_level(load(speech("hey jarvis", voice=voice, speed=speed)), VOICE_RMS)
    asked = at_level(load(speech(question, voice=voice, speed=speed)), VOICE_RMS)
    hey = hey[: int(voiced_span(hey)[1] * RATE)]
    start, end = (int(t * RATE) for t in voiced_span(asked))
    said = np.concatenate([hey, np.zeros(int(PAUSE_S * RATE), np.float32), asked[start:end]])
    return said, len(hey), len(said)


def stopped(sound: np.ndarray, at: int, chime: np.ndarray) -> np.ndarray:
    """What the speaker plays: `sound` until `at` (its last FADE_MS faded out), then the chime."""
    fade = max(1, RATE * FADE_MS // 1000)
    head = sound[:at].copy()
    head[-fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
    return np.concatenate([head, chime])


def fired_at(wake: WakeWord, cancelled: np.ndarray, start: int, until: int, threshold: float) -> int | None:
    """The sample at the end of the first frame from `start` to `until` scored at `threshold` or more."""
    frames = scores(wake, cancelled)
    first, last = start // CHUNK, min(len(frames), until // CHUNK + 1)
    hits = np.flatnonzero(frames[first:last] >= threshold)
    return None if len(hits) == 0 else (first + int(hits[0]) + 1) * CHUNK


def question_cases(cfg: Config, speech: SpeechMaker, wake: WakeWord, n: int) -> tuple[list[dict], str]:
    """n questions asked after "hey jarvis" over an answer; one row a case; the recognizer's name."""
    recognizer = whisper(cfg)
    canceller = Canceller(cfg.audio.echo_engine)  # one of its own: the wake word's CPU figures stay its own
    chime = ToneEarcons(cfg, rate=RATE).get("wake").to_float()[:, 0]
    talk = answers(speech, ANSWERS)
    rng = np.random.default_rng(23)
    rows = []
    for case in range(n):
        question, (voice, speed) = list(QUESTIONS)[case % len(QUESTIONS)], VOICES[case % len(VOICES)]
        said, jarvis, asked = spoken(speech, question, voice, speed)
        at = int(rng.uniform(2.5, 5.0) * RATE)
        sound = np.concatenate([talk[case % len(talk)], talk[(case + 1) % len(talk)]])
        least = at + len(said) + int((AFTER_S + 1.0) * RATE)
        sound = np.concatenate([sound, np.zeros(max(0, least - len(sound)), np.float32)])
        level = ECHO_DB[(case // len(VOICES)) % len(ECHO_DB)]
        s = scene(case, said, sound, level, at, talk[(case + 5) % len(talk)])
        whole = canceller.run(s.played, s.heard, s.error_s, s.before)  # the answer played on: until it fires
        fired = fired_at(wake, whole, at, at + jarvis + int(WINDOW_S * RATE), cfg.wake.barge_in_threshold)
        start = fired if fired is not None else at + jarvis + int(MISSED_S * RATE)
        begins = at + jarvis + int(PAUSE_S * RATE)  # the question's first word
        played, heard = s.replay(stopped(sound, start + int(STOP_S * RATE), chime))
        span = slice(start, at + asked + int(AFTER_S * RATE))
        runs = {"silence": s.silence, "off": heard, "on": canceller.run(played, heard, s.error_s, s.before)}
        row: dict = {"question": question, "voice": f"{voice}@{speed}", **s.room, "fired": fired is not None,
                     "fired_after_jarvis_s": round((start - at - jarvis) / RATE, 2),
                     "chime": "over the question" if start + int(STOP_S * RATE) + len(chime) > begins
                     else "before the question"}
        for side, samples in runs.items():
            text = recognizer.transcribe(np.clip(samples[span], -1.0, 1.0).astype(np.float32))
            row[side] = all(heard_name(text, word) for word in QUESTIONS[question])
            row[f"whole_{side}"] = spoken_as(question, text)
            row[f"heard_{side}"] = text
        rows.append(row)
    return rows, f"{recognizer.name} ({recognizer.model_path.parent.name})"


def question_recall(cfg: Config, speech: SpeechMaker, wake: WakeWord, n: int) -> dict:
    """How often the question after a barge-in is heard right: in silence, off and with the warm canceller."""
    rows, recognizer = question_cases(cfg, speech, wake, n)

    def share(subset: list[dict], key: str) -> float | None:
        return round(sum(r[key] for r in subset) / len(subset), 3) if subset else None

    def by(field: str, label: str = "{}") -> dict:
        values = dict.fromkeys(r[field] for r in rows)
        return {label.format(v): {side: share([r for r in rows if r[field] == v], side) for side in SIDES}
                for v in values}

    fired = [r for r in rows if r["fired"]]
    return {
        "questions": n, "question_recognizer": recognizer,
        "barge_in_missed": n - len(fired),
        **{f"question_right_{side}": share(rows, side) for side in SIDES},
        **{f"question_whole_{side}": share(rows, f"whole_{side}") for side in SIDES},
        "question_right_on_fired": share(fired, "on"),
        "barge_in_fired_after_jarvis_s":
            round(float(np.median([r["fired_after_jarvis_s"] for r in fired])), 2) if fired else None,
        "question_right_by_chime": by("chime", "the chime {}"),
        "question_right_by_echo_level": by("echo_db", "+{:.0f} dB"),
        "question_right_by_voice": by("voice"),
        "question_right_by_question": by("question"),
        "question_cases": rows,
    }


def summary(out: dict) -> list[str]:
    """The human-readable lines of question_recall()'s figures."""
    return [
        f"the question after 'hey jarvis' over the answer ({out['questions']} cases, "
        f"{out['question_recognizer']}; barge-in missed {out['barge_in_missed']}): right in silence "
        f"{out['question_right_silence']}, off {out['question_right_off']}, on {out['question_right_on']} (heard "
        f"whole: {out['question_whole_silence']}, {out['question_whole_off']}, {out['question_whole_on']})",
        f"  right with cancellation on where the barge-in fired: {out['question_right_on_fired']}; "
        f"it fired a median {out['barge_in_fired_after_jarvis_s']} s after 'jarvis'",
        f"  by whether the wake chime sounded over the question: {out['question_right_by_chime']}",
        f"  by echo level: {out['question_right_by_echo_level']}",
        f"  by voice: {out['question_right_by_voice']}",
        f"  by question: {out['question_right_by_question']}",
    ]
