"""The plain-stop detector on real speech with Whisper tiny.en: stop phrases heard, talk and the hub's own sentences not."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from appliance.audio import AudioChunk
from appliance.config import Config
from appliance.contracts import StopHit
from appliance.hearing.asr import WhisperRecognizer, choose_engine
from appliance.hearing.stop_words import StopWords
from appliance.speaking.earcons import ToneEarcons
from tests.fixtures.speech import RATE, load, noise, speech_rms
from tests.fixtures.stop_feed import feed
from tests.fixtures.waits import SLOW_WAIT_S, wait_for

CHUNK = 1280  # 80 ms
PERSON_RMS = 0.1


@pytest.fixture(scope="module")
def detector() -> StopWords:
    cfg = dataclasses.replace(Config(), asr=dataclasses.replace(Config().asr, engine="whisper"))
    return StopWords(cfg, WhisperRecognizer(cfg, choose_engine(cfg)[1]).load()).load()


def level(samples: np.ndarray, rms: float) -> np.ndarray:
    return samples * (rms / (speech_rms(samples) + 1e-12))


def scene(person: np.ndarray, bed: np.ndarray | None = None, lead_s: float = 1.2, seconds: float = 4.0) -> np.ndarray:
    n = int(seconds * RATE)
    out = 0.002 * noise("pink", n, seed=4) + (np.resize(bed, n) if bed is not None else 0.0)
    start = int(lead_s * RATE)
    out[start:start + len(person)] += level(person, PERSON_RMS)[: n - start]
    return np.clip(out, -1, 1).astype(np.float32)


@pytest.mark.parametrize(("phrase", "voice", "speed"), [
    ("stop", "piper", 1.0), ("stop", "espeak:en-us", 1.0), ("stop it", "espeak:en-gb", 1.0),
    ("cancel", "piper", 1.0), ("that's enough", "piper", 1.2), ("be quiet", "espeak:en-us", 1.0)])
def test_stop_phrases_are_heard(detector: StopWords, speech, phrase: str, voice: str, speed: float) -> None:
    hits = feed(detector, scene(load(speech(phrase, voice=voice, speed=speed))))
    assert len(hits) == 1, detector.transcribed
    assert detector.matches(hits[0].text)


def ring() -> np.ndarray:
    """The timer's chime and a pause, as loud as the person."""
    chime = ToneEarcons(Config(), rate=RATE).get("timer").to_float()[:, 0]
    ringing = np.concatenate([chime, np.zeros(RATE // 2, np.float32)])
    return ringing * (PERSON_RMS / np.sqrt(np.mean(chime**2)))


def test_stop_over_a_ringing_timer(detector: StopWords, speech) -> None:
    assert len(feed(detector, scene(load(speech("stop")), ring()))) == 1, detector.transcribed


@pytest.mark.parametrize("ringing", [False, True], ids=["quiet", "ringing"])
@pytest.mark.parametrize("phrase", ["Stop, stop, stop, stop.", "Stop it, stop it, stop it."])
def test_a_stop_said_again_and_again_is_heard(detector: StopWords, speech, phrase: str, ringing: bool) -> None:
    """2.5 s and 2.1 s of Piper's voice with no pause long enough to end a stretch: too long for one stop, and
    missed whole before a stretch that ran on was heard for stop phrases alone."""
    person = load(speech(phrase))
    hits = feed(detector, scene(person, ring() if ringing else None, seconds=len(person) / RATE + 2.5))
    assert len(hits) == 1, detector.transcribed[-2:]
    assert detector.matches(hits[0].text)


@pytest.mark.parametrize("phrase", ["stop", "cancel"])
def test_a_stop_the_announcement_runs_on_from_is_heard(detector: StopWords, speech, phrase: str) -> None:
    """The person's stop, over the chime, ends 50 ms before the timer's announcement begins, 6 dB under them (what
    the canceller leaves of it while the floor has not learnt the hub's voice): one stretch, too long for a stop.
    Measured: heard as "Stop your 5 seconds" and "Cancel your 5 seconds", stops by the hub's words after them;
    not told what the hub says, neither stops."""
    announced = "Your 5 second timer is done."
    said = level(load(speech(phrase)), PERSON_RMS)
    hub = level(load(speech(announced)), PERSON_RMS * 10 ** (-6 / 20))
    bed = np.zeros(5 * RATE, np.float32)
    start = int(1.2 * RATE) + len(said) + int(0.05 * RATE)
    bed[start:start + len(hub)] = hub[: len(bed) - start]
    samples = scene(load(speech(phrase)), bed, seconds=5.0)
    assert [h.text for h in feed(detector, samples, said=[announced])] == [phrase], detector.transcribed[-2:]
    assert feed(detector, samples) == [], detector.transcribed[-2:]


def test_stop_over_what_is_left_of_the_hubs_voice(detector: StopWords, speech) -> None:
    answer = load(speech.join([speech("The capital of France is Paris."), 0.3,
                               speech("It is also its largest city, on the river Seine."), 0.3]))
    residual = level(answer, PERSON_RMS * 10 ** (-20 / 20))  # 20 dB below the person
    # said 3 s into the answer: its first 2 s teach the detector how loud the hub's voice is
    assert len(feed(detector, scene(load(speech("stop")), residual, lead_s=3.0, seconds=5.0))) == 1, \
        detector.transcribed[-3:]


class HeldEcho:
    """The echo canceller as the stop words read it: the echo moved on chunk `moved_at`, found so only
    `found_after` chunks later (its filter had taken nothing away meanwhile), and the hub's voice let through
    uncancelled from there until chunk `until`. `chunk` is the chunk being fed."""

    def __init__(self, moved_at: int, found_after: int, until: int) -> None:
        self.held = range(moved_at + found_after, until)
        self.chunk = -1

    @property
    def moves(self) -> int:
        return int(self.chunk >= self.held.start)

    @property
    def passing_own_sound(self) -> bool:
        return self.chunk in self.held


def test_stop_after_the_echo_moved_is_heard_once_the_canceller_has_it_again(detector: StopWords, speech) -> None:
    """Through a sound server the echo moves mid-answer, and for half a second the hub's voice comes through
    the canceller uncancelled, louder than the person; a "stop" said 0.66 s after it is cancelled again is heard
    when the canceller says which chunks those were, and lost in a floor they raised when it does not."""
    answer = load(speech.join([speech("The capital of France is Paris."), 0.3,
                               speech("It is also its largest city, on the river Seine."), 0.3]))
    loud, quiet = (level(answer, PERSON_RMS * 10 ** (db / 20)) for db in (10, -20))
    moved_at, found_after, until = 30, 3, 38  # chunks: 2.4 s in (mid-sentence), found 0.24 s later, held to 3.04 s
    lo, hi = moved_at * CHUNK, until * CHUNK
    bed = np.resize(quiet, 6 * RATE)
    bed[lo:hi] = np.resize(loud, 6 * RATE)[lo:hi]
    samples = scene(load(speech("stop")), bed, lead_s=3.7, seconds=5.5)
    chunks = [AudioChunk.from_float(samples[i:i + CHUNK], RATE) for i in range(0, len(samples) - CHUNK + 1, CHUNK)]

    def heard(echo: HeldEcho | None) -> list[StopHit]:
        told = StopWords(detector.cfg, detector.recognizer, echo=echo).load()
        told.arm()
        hits = []
        for i, chunk in enumerate(chunks):
            if echo is not None:
                echo.chunk = i
            if (hit := told.process(chunk)) is not None:
                hits.append(hit)
        wait_for(lambda: told.worker.idle, "the stop words' transcription", timeout=SLOW_WAIT_S)
        if (last := told.process(None)) is not None:
            hits.append(last)
        told.disarm()
        return hits

    assert len(heard(HeldEcho(moved_at, found_after, until))) == 1
    assert heard(None) == []  # the same detector, not told: the floor it took from the loud stretch hides the stop


@pytest.mark.parametrize("said", ["stop the music please", "what time is it", "a stop sign", "okay",
                                  "You can stop the timer by saying stop.", "council", "stuff", "cancer",
                                  "Stop and go, stop and go, all day long on the old bus."])
def test_talk_and_sentences_with_stop_in_them_do_not_stop(detector: StopWords, speech, said: str) -> None:
    assert feed(detector, scene(load(speech(said)))) == []


def test_told_to_expect_the_stop_phrases_whisper_hears_more_of_them(detector: StopWords, speech, monkeypatch) -> None:
    """espeak-ng's voices are the ones Whisper tiny.en hears worst ("cancel" as "council", "enough" as "it
    hurts"); told what to expect, it hears most of them."""
    clips = [scene(load(speech(phrase, voice=voice))) for phrase in ("cancel", "enough", "that's enough", "be quiet")
             for voice in ("espeak:en-us", "espeak:en-gb", "espeak:en-us+f3", "espeak:en-us+m3", "espeak:en-gb+f2")]
    told = [len(feed(detector, clip)) for clip in clips]
    monkeypatch.setattr(detector, "hint", "")
    untold = [len(feed(detector, clip)) for clip in clips]
    assert max(told + untold) == 1
    assert sum(told) >= sum(untold) + 5, (told, untold)


def test_nothing_is_heard_while_disarmed(detector: StopWords, speech) -> None:
    detector.disarm()
    detector.transcribed = []
    assert feed(detector, scene(load(speech("stop"))), arm=False) == []
    assert detector.transcribed == [] and not detector.armed  # nothing was even transcribed


def test_a_stop_still_being_transcribed_when_disarmed_is_dropped(detector: StopWords, speech) -> None:
    detector.arm()
    samples = scene(load(speech("stop")))
    chunks = [AudioChunk.from_float(samples[i:i + CHUNK], RATE) for i in range(0, len(samples) - CHUNK + 1, CHUNK)]
    handed = False
    for c in chunks:  # up to the chunk that hands the stretch to the recognizer's thread
        assert detector.process(c) is None
        if not detector.worker.idle:
            handed = True
            break
    assert handed
    detector.disarm()  # playback ended before the result came
    detector.arm()
    wait_for(lambda: detector.worker.idle, "the stop words' transcription", timeout=SLOW_WAIT_S)
    assert detector.process(None) is None
    detector.disarm()


SENTENCES = ["The capital of France is Paris.", "A red light means stop, and green means go.", "Stop.",
             "You can stop the timer by saying stop.", "That's enough, I think.", "To cancel it, say cancel."]


def own_answer(speech) -> np.ndarray:
    """The answer played into the microphone with nothing taken out, louder than any person."""
    answer = load(speech.join([x for s in SENTENCES for x in (speech(s), 0.35)]))
    return scene(np.zeros(1, np.float32), level(answer, 3 * PERSON_RMS), lead_s=0.0, seconds=len(answer) / RATE + 1.0)


def test_the_hubs_own_answer_at_full_level_does_not_stop_it(detector: StopWords, speech) -> None:
    assert feed(detector, own_answer(speech), said=SENTENCES) == []

