"""A plain "stop" with no wake word while something plays: short speech, transcribed, matched to the stop words.

Armed by the conductor only while the hub speaks or a timer, alarm or reminder rings, so it can never
wake an idle hub; while the hub answers, it is given only what the microphone captured after the question
ended (on the microphone's own clock), so the question's own words, read late, are never a stop. While armed, a voice detector of its own cuts the microphone's audio into stretches
of speech; a stretch short enough to be a word or two (MIN_SPEECH_S to MAX_SPEECH_S, then a pause)
is transcribed by the recognizer on a worker thread, and counts only when the whole of it is one of
the language pack's plain stop phrases ("stop", "cancel", "be quiet", "that's enough"). The recognizer
is told to expect them (the pack's plain_stop_hint) where it heard words but no stop untold: Whisper then
hears "cancel" as itself, not "council", and a chime with no words in it is not heard as one.

Two things keep the hub's own voice from stopping it. A speech chunk counts only when it stands
ABOVE_FLOOR_DB over the speech of the last 2 s, so the hub's running sentences in the microphone are
the floor, not stretches; and what is transcribed must be a stop phrase as a whole, so a "stop"
inside a sentence ("you can stop the timer") is never one. A stop phrase the hub says alone ("A red
light means stop. Stop.") passes both: the conductor tells the detector what the hub says (hub_says),
and while it has said one, a stop heard is taken for its own. bench/stop.py measures all three.

A stretch too long to be one stop is heard as far as it goes when it becomes too long (once), for two
stops that run on. One is a stop said again and again ("stop, stop, stop", "stop it, stop it"): a stop
when what is heard is stop phrases alone. The other is a stop said just before the hub speaks (over a
ringing timer's chime, with its announcement right after), run on into what is left of the hub's voice
while the floor has not yet learnt it: a stop when it is a stop phrase followed by the hub's own words
(those it was told of), never when the hub's own text has the phrase there.

With echo cancellation, the canceller says when the hub's voice comes through it uncancelled (a stretch
held until its echo is found, an echo that moved): those chunks stay out of the floor, so the floor after
them is what is left of the hub's voice once it is cancelled again, and a stop said then stands above it
(bench/echo_moved.py). They may still start a stretch: a stop said over them is checked by what is heard.
"""

from __future__ import annotations

import logging
import re
import time
from collections import deque
from collections.abc import Callable
from typing import Final, Protocol

import numpy as np

from appliance.audio import PIPELINE_RATE, AudioChunk
from appliance.config import Config
from appliance.contracts import Recognizer, StopHit
from appliance.hearing.asr_worker import Run, Worker
from appliance.hearing.endpoint import SpeechProbability
from appliance.hearing.wake_text import wake_words
from appliance.language import pack

_LOGGER = logging.getLogger(__name__)

_CLAUSE_RE: Final = re.compile(r"[.,;:!?]+")  # a stop phrase the hub says alone between these is one it may hear

SPEECH_PROBABILITY: Final = 0.5  # voice-detector probability (0-1) above which a chunk is speech
END_SILENCE_S: Final = 0.3  # seconds of non-speech that end a stretch of speech
MIN_SPEECH_S: Final = 0.16  # seconds: shorter stretches are clicks and breaths, not words
MAX_SPEECH_S: Final = 1.6  # seconds: longer stretches are talk (or the hub's own sentences), never a plain stop
PREROLL_CHUNKS: Final = 2  # chunks kept from before the detector said speech: the word's onset
ABOVE_FLOOR_DB: Final = 6.0  # dB a speech chunk must stand above the floor to be the person's
FLOOR_CHUNKS: Final = 25  # chunks (the last 2 s) whose speech level sets the floor: what is left of the hub's voice
FLOOR_PERCENTILE: Final = 90.0  # of their levels: the loud end of running speech, so its own syllables stay below
MOVED_BACK_S: Final = 0.3  # seconds of levels dropped from the floor when the canceller finds the echo moved: its
# filter had taken nothing away for 0.2 s (echo.COLLAPSE_S) before it could tell, and a chunk may lag
PAD_S: Final = 0.3  # seconds of silence put around a stretch: Whisper misheard a bare "stop" as "star" without it
SAID_KEPT: Final = 8  # sentences of the hub's own kept while armed, to tell its words after a stop
HUB_SHARE: Final = 1 / 2  # of the words after a stop phrase in a stretch that ran on, the hub's own at least
# (as Whisper hears the hub's voice under a move of the echo, "Your 5 second" can come out "your advice")
HUB_WORDS: Final = 2  # ... and at least this many words after it
OWN_PREFIX: Final = 4  # letters a word heard shares with one of the hub's to be its ("seconds", "time" of "timer")


class EchoView(Protocol):
    """What the stop words need of the echo canceller (appliance.audio.echo.EchoCanceller)."""

    moves: int

    @property
    def passing_own_sound(self) -> bool: ...


class StopWords:
    """The StopDetector: arm(), disarm(), and process() on every chunk on the conductor's thread.

    process() costs one voice-detector call per chunk while armed (nothing while disarmed); the
    transcriptions run on a thread of their own, and their result is collected by a later process().
    """

    def __init__(self, cfg: Config, recognizer: Recognizer,
                 vad_factory: Callable[[], SpeechProbability] | None = None,
                 clock: Callable[[], float] = time.monotonic, echo: EchoView | None = None) -> None:
        self.cfg = cfg
        self.echo = echo
        """The microphone's echo canceller, read on each chunk it gave back (None: no cancellation)."""
        self._moves = 0
        self.recognizer = recognizer
        self.clock = clock
        self._vad_factory = vad_factory
        self._vad: SpeechProbability | None = None
        words = pack(cfg.language)
        self._numbers = words.numbers
        names = wake_words(cfg.wake.model)[-1:]  # "jarvis" of "hey jarvis" ("stop, jarvis")
        name = f"|{re.escape(names[0])}" if names else ""
        self._stop_re = re.compile(words.skills.plain_stop.format(name=name)) if words.skills.plain_stop else None
        self.hint = words.skills.plain_stop_hint if getattr(recognizer, "takes_hint", False) else ""
        """What the recognizer is told to expect of a stretch (the language pack's plain_stop_hint)."""
        self.worker = Worker("appliance-stop-words")
        self.armed = False
        self._generation = 0
        self._runs: list[tuple[int, Run, float, bool]] = []  # (generation, its run, heard at, ran on)
        self._before: deque[AudioChunk] = deque(maxlen=PREROLL_CHUNKS)
        self._stretch: list[AudioChunk] = []
        self._voiced_s = 0.0
        self._quiet_s = 0.0
        self._too_long = False
        self._last_voiced_at = 0.0
        self._levels: deque[float] = deque(maxlen=FLOOR_CHUNKS)
        self._floor = 0.0
        self._own_stop = False
        self._said: deque[str] = deque(maxlen=SAID_KEPT)  # the hub's own sentences since armed, normalized
        self.transcribed: list[str] = []
        """Every stretch's text as it was heard (the bench reads them); the newest 50."""

    def load(self) -> StopWords:
        if self._vad is None:
            if self._vad_factory is not None:
                self._vad = self._vad_factory()
            else:
                from appliance.hearing.vad import SileroVad

                self._vad = SileroVad(self.cfg).load()
        return self

    # ---------------------------------------------------------------- the StopDetector protocol

    def arm(self) -> None:
        if self.armed:
            return
        self.load()
        assert self._vad is not None
        self._vad.reset()
        self._forget()
        self._moves = self.echo.moves if self.echo is not None else 0
        self.armed = True
        _LOGGER.debug("Stop words armed")

    def disarm(self) -> None:
        if not self.armed:
            return
        self.armed = False
        self._forget()
        _LOGGER.debug("Stop words disarmed")

    def process(self, chunk: AudioChunk | None) -> StopHit | None:
        if not self.armed:
            return None
        if chunk is not None:
            self._listen(chunk)
        return self._harvest()

    def hub_says(self, text: str) -> None:
        if not self.armed:
            return
        self._said.append(self._normalize(text))
        if not self._own_stop and any(self.matches(part) for part in _CLAUSE_RE.split(text)):
            _LOGGER.info("Stop words: the hub itself says %r; its stop words are not heard as a stop", text)
            self._own_stop = True

    def matches(self, text: str) -> bool:
        """Whether `text` is, as a whole, one of the plain stop phrases."""
        if self._stop_re is None:
            return False
        return bool(self._stop_re.match(self._normalize(text)))

    def stop_before_hub(self, text: str) -> str:
        """The stop phrase `text` begins with, where the rest is the hub's own words (its sentences since
        armed: HUB_SHARE of HUB_WORDS or more, each by its first OWN_PREFIX letters, as Whisper may hear them
        a little off), or "": a stop that ran on into the hub's voice. Never where
        the hub's own text goes on from the phrase as `text` does ("Stop the car." said by the hub)."""
        words = self._normalize(text).split()
        own = {w[:OWN_PREFIX] for w in " ".join(self._said).split()}
        for k in range(1, len(words) - HUB_WORDS + 1):
            phrase, rest = words[:k], words[k:]
            if not self.matches(" ".join(phrase)):
                continue
            if any(f" {' '.join([*phrase, rest[0]])} " in f" {said} " for said in self._said):
                return ""
            if sum(w[:OWN_PREFIX] in own for w in rest) >= HUB_SHARE * len(rest):
                return " ".join(phrase)
        return ""

    # ---------------------------------------------------------------- inside

    def _normalize(self, text: str) -> str:
        """Lower-case words with contractions opened ("that's" -> "that is") and punctuation gone."""
        n = self._numbers
        t = text.lower().replace("\u2019", "'")
        for pattern, repl in n.contractions:
            t = re.sub(pattern, repl, t)
        return " ".join(re.sub(rf"[^{n.letters}]+", " ", t.replace("'", "")).split())

    def _forget(self) -> None:
        self._generation += 1  # what is still being transcribed belongs to what played before
        for _, run, _, _ in self._runs:
            run.dropped = True
        self._runs.clear()
        self._before.clear()
        self._levels.clear()
        self._own_stop = False
        self._said.clear()
        self._stretch, self._voiced_s, self._quiet_s, self._too_long = [], 0.0, 0.0, False

    def _listen(self, chunk: AudioChunk) -> None:
        assert self._vad is not None
        samples = chunk.to_float()[:, 0]
        level = float(np.sqrt(np.mean(samples * samples))) if len(samples) else 0.0
        speech = self._vad.probability(chunk) >= SPEECH_PROBABILITY
        own = self._own_sound(chunk.duration_s)
        if not self._stretch or self._too_long:
            self._floor = self._speech_floor()  # held while a stretch that may be a stop lasts
        voiced = speech and level >= self._floor * 10 ** (ABOVE_FLOOR_DB / 20)
        if not own:
            self._levels.append(level if speech else 0.0)  # a pause, a chime or the room count as quiet
        if not self._stretch:
            if not voiced:
                self._before.append(chunk)
                return
            self._stretch = [*self._before, chunk]
            self._before.clear()
            self._voiced_s, self._quiet_s, self._too_long = chunk.duration_s, 0.0, False
            self._last_voiced_at = self.clock()
            return
        if voiced:
            self._voiced_s += self._quiet_s + chunk.duration_s
            self._quiet_s = 0.0
            self._last_voiced_at = self.clock()
        else:
            self._quiet_s += chunk.duration_s
        if self._voiced_s > MAX_SPEECH_S:
            if not self._too_long:  # a stop said over and over, or one the hub's own words ran on from
                self._hear_stretch(self._stretch, ran_on=True)
            self._too_long = True  # talk: wait for its pause, keeping nothing
            self._stretch = self._stretch[:1]
        else:
            self._stretch.append(chunk)
        if self._quiet_s >= END_SILENCE_S:
            self._stretch_ended()

    def _own_sound(self, chunk_s: float) -> bool:
        """Whether this chunk is the hub's voice let through the canceller uncancelled. When the canceller has
        found the echo moved, the levels of the last MOVED_BACK_S leave the floor: they were that too."""
        if self.echo is None:
            return False
        if self.echo.moves != self._moves:
            self._moves = self.echo.moves
            for _ in range(min(len(self._levels), round(MOVED_BACK_S / chunk_s))):
                self._levels.pop()
        return self.echo.passing_own_sound

    def _speech_floor(self) -> float:
        """How loud the speech of the last 2 s was (0 when there was none): the hub's own voice in the microphone is
        speech to the voice detector too, and without this its running sentences would hide every "stop"
        said over them. Sounds that are not speech (a ringing chime, the room) do not raise it."""
        return float(np.percentile(self._levels, FLOOR_PERCENTILE)) if self._levels else 0.0

    def _stretch_ended(self) -> None:
        stretch, voiced_s, too_long = self._stretch, self._voiced_s, self._too_long
        self._stretch, self._voiced_s, self._quiet_s, self._too_long = [], 0.0, 0.0, False
        if too_long or voiced_s < MIN_SPEECH_S:
            _LOGGER.debug("Stop words: %.2f s of speech, %s", voiced_s, "talk" if too_long else "too short")
            return
        self._hear_stretch(stretch)

    def _hear_stretch(self, stretch: list[AudioChunk], ran_on: bool = False) -> None:
        """Transcribe `stretch` on the worker; `ran_on`: it went on too long, and is a stop only as stop phrases
        alone ("stop, stop, stop") or one followed by the hub's own words (stop_before_hub), as heard untold:
        the hint is for short words."""
        pad = bytes(2 * int(PAD_S * PIPELINE_RATE))
        audio = AudioChunk(pad + b"".join(c.to_int16().tobytes() for c in stretch) + pad, PIPELINE_RATE)
        generation = self._generation
        run = self.worker.submit((lambda: self.recognizer.recognize(audio)) if ran_on else (lambda: self._hear(audio)))
        self._runs.append((generation, run, self._last_voiced_at, ran_on))

    def _hear(self, audio: AudioChunk) -> str:
        """The stretch's words: as the recognizer hears them, or as it hears them told to expect a stop
        (the hint) where that is a stop and it heard words untold too. Told, Whisper hears the hint in
        sounds with no words in them: the timer's chime alone came out as "Be quiet."."""
        text = self.recognizer.recognize(audio)
        if not self.hint or self.matches(text) or not self._normalize(text):
            return text
        told = self.recognizer.recognize(audio, self.hint)
        if not self.matches(told):
            return text
        _LOGGER.debug("Stop words: heard %r untold, %r told to expect a stop", text, told)
        return told

    def _stop_in(self, text: str, ran_on: bool) -> str:
        """The stop a stretch's `text` says, or "": the whole of it (a stop said again and again runs on too),
        or one the hub's words ran on from."""
        if self.matches(text):
            return text.strip()
        return self.stop_before_hub(text) if ran_on else ""

    def _harvest(self) -> StopHit | None:
        hit = None
        keep = []
        for generation, run, heard_at, ran_on in self._runs:
            if not run.done.is_set():
                if not run.dropped:
                    keep.append((generation, run, heard_at, ran_on))
                continue
            if generation != self._generation:
                continue
            if run.error is not None:
                _LOGGER.warning("Stop words: the recognizer failed: %s", run.error)
                continue
            self.transcribed = [*self.transcribed[-49:], run.text]
            _LOGGER.debug("Stop words: %s heard as %r", "a stretch that ran on" if ran_on else "a stretch of speech",
                          run.text)
            said = self._stop_in(run.text, ran_on)
            if hit is None and said:
                if self._own_stop:
                    _LOGGER.info("Stop word heard, but the hub said one itself: %r", run.text)
                    continue
                _LOGGER.info("Stop word heard: %r%s", said, " before the hub's own words" if ran_on else "")
                hit = StopHit(said, heard_at)
        self._runs = keep
        return hit

