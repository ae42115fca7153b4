"""One question as it is heard: the engine fed, the endpointer asked, partial, early and final texts made."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol

import numpy as np

from appliance.audio import AudioChunk
from appliance.contracts import Transcript
from appliance.hearing.asr_worker import Run
from appliance.hearing.endpoint import Endpointer
from appliance.hearing.wake_end import LOOKAHEAD_S, question_start
from appliance.hearing.wake_text import strip_wake_echo

_LOGGER = logging.getLogger(__name__)


class Engine(Protocol):
    reuses_early: bool
    """True when the early text stands for the final one if no speech came after it (Whisper)."""
    paced: bool
    """True when a partial transcript costs a run of its own, so it is made at a pace (Whisper)."""

    def accept(self, chunk: AudioChunk) -> None: ...

    def partial(self) -> Callable[[], str]:
        """The job that makes the text so far while the person is speaking."""

    def early(self) -> Callable[[], str]:
        """The job that makes the text so far, while the speaker pauses (the stream goes on afterwards)."""

    def final(self) -> Callable[[], str]:
        """The job that makes the whole text."""


class Runner(Protocol):
    idle: bool

    def submit(self, job: Callable[[], str]) -> Run: ...


class EngineUtterance:
    """One question: feeds the engine and the endpointer, returns a Transcript at the end.

    `early` is a transcript made once the speaker has paused for asr.early_silence_s, while the
    endpoint (asr.endpoint_silence_s) is still being confirmed; it is None again as soon as speech
    goes on. The conductor may start answering from it. When the endpoint confirms the same
    pause, Whisper's early text is the final text (the silence after it adds no words); Vosk
    finishes its own decoding, which is cheap.

    The transcriptions are Runs on `runner`: inline for Vosk, on the recognizer's worker thread
    for Whisper, so feed() and poll() never wait for one. A run for a pause the person spoke
    through is dropped, not waited for.

    `partial` is the text so far while the person speaks, when `partial_pace_s` is given: Vosk's
    own partial result at every chunk; for Whisper, a run on the audio so far every
    `partial_pace_s` of speech, started only while the person is speaking and the worker is idle,
    so a partial never delays an early or final transcript by queueing in front of it.

    The pre-roll goes to the engine from where the question starts (wake_end.question_start):
    it is held, with the first LOOKAHEAD_S after the wake word, until the pause after the wake
    word can be found in it, so the end of the wake word is not transcribed.
    """

    def __init__(self, engine: Engine, endpointer: Endpointer, preroll: list[AudioChunk],
                 runner: Runner, wake: tuple[str, ...] = (), partial_pace_s: float | None = None) -> None:
        self.engine = engine
        self.wake = wake
        """The wake phrase's words: its remnant from the pre-roll is cut from every transcript."""
        self.endpointer = endpointer
        self.runner = runner
        self.done: Transcript | None = None
        self.early: Transcript | None = None
        self._early_run: Run | None = None
        self._early_for: float | None = None
        self._final_run: Run | None = None
        self.partial = ""
        self._partial_pace_s = partial_pace_s
        self._partial_run: Run | None = None
        self._partial_due_s: float | None = None
        """Stream time of the next partial: the first comes after partial_pace_s of speech."""
        self._ended: str | None = None
        self._ended_at = 0.0
        self.started_at = time.monotonic()
        self._held: list[AudioChunk] | None = list(preroll) if preroll else None
        self._held_after_s = 0.0
        for chunk in preroll:
            endpointer.preroll(chunk)

    @property
    def heard_speech(self) -> bool:
        return self.endpointer.heard_speech

    @property
    def speaking(self) -> bool:
        return self.endpointer.speaking

    @property
    def ended(self) -> bool:
        """The end of speech (or a limit) was reached: audio fed from now on is not part of the question."""
        return self._ended is not None

    @property
    def busy(self) -> bool:
        """A transcription this utterance waits for is running (poll soon)."""
        run = self._final_run if self._ended is not None else self._early_run
        return self.done is None and run is not None and not run.done.is_set()

    def feed(self, chunk: AudioChunk) -> Transcript | None:
        if self._ended is None:
            self._accept(chunk)
            outcome = self.endpointer.feed(chunk)
            if outcome is not None:
                self._end(outcome)
            else:
                self._track_partial()
                self._track_early()
        return self.poll()

    def poll(self) -> Transcript | None:
        """The final Transcript once it is ready; meanwhile takes in the early transcript when it is."""
        if self.done is not None or self._ended is None:
            self._take_early()
            return self.done
        run = self._final_run
        if run is not None and not run.done.is_set():
            return None
        if run is not None and run.error is not None:
            raise run.error
        text = strip_wake_echo(run.text, self.wake) if run is not None else ""
        final_at = max(self._ended_at, run.finished_at or 0.0) if run is not None else self._ended_at
        self.done = Transcript(text=text, outcome=self._ended, speech_end_s=self.endpointer.speech_end_s,
                               final_at=final_at)
        _LOGGER.debug("Utterance ended (%s) after %.2f s of audio: %r", self._ended,
                      self.endpointer.elapsed_s, text)
        return self.done

    def finish(self) -> Transcript | None:
        """End now (the stream ended); the Transcript, or None until poll() has it."""
        if self._ended is None:
            self._end("speech" if self.endpointer.heard_speech else "no_speech")
        return self.poll()

    def wait(self, timeout: float) -> Transcript | None:
        """Block until the final Transcript is ready (benchmarks and tests; the conductor polls)."""
        deadline = time.monotonic() + timeout
        while (result := self.poll()) is None and time.monotonic() < deadline:
            run = self._final_run
            if run is not None:
                run.done.wait(max(0.0, deadline - time.monotonic()))
        return result

    def settle(self, timeout: float) -> None:
        """Block until every transcription and completion verdict asked for so far is done: the next chunk is
        then judged as on a machine that keeps up with the microphone (benchmarks and tests feeding a
        recording faster than real time)."""
        deadline = time.monotonic() + timeout
        for run in (self._partial_run, self._early_run, self._final_run):
            if run is not None and not run.dropped:
                run.done.wait(max(0.0, deadline - time.monotonic()))
        self.endpointer.settle(max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        """Give the utterance up: its transcriptions that have not started never will."""
        for run in (self._partial_run, self._early_run, self._final_run):
            if run is not None and not run.done.is_set():
                run.dropped = True

    def _accept(self, chunk: AudioChunk) -> None:
        if self._held is None:
            self.engine.accept(chunk)
            return
        self._held.append(chunk)
        self._held_after_s += chunk.duration_s
        if self._held_after_s >= LOOKAHEAD_S - 1e-9:
            self._release()

    def _release(self) -> None:
        """Hand the held audio to the engine from where the question starts."""
        held, self._held = self._held, None
        if not held:
            return
        skip = question_start(np.concatenate([c.to_float()[:, 0] for c in held]), held[0].rate)
        if skip:
            _LOGGER.debug("The question starts %.2f s into the pre-roll, after a pause", skip / held[0].rate)
        for chunk in held:
            if skip >= chunk.frames:
                skip -= chunk.frames
                continue
            if skip:
                step = chunk.width * chunk.channels
                chunk = AudioChunk(chunk.samples[skip * step:], chunk.rate, chunk.width, chunk.channels)
                skip = 0
            self.engine.accept(chunk)

    def _track_partial(self) -> None:
        self._take_partial()
        ep, pace = self.endpointer, self._partial_pace_s
        if pace is None or self._held is not None or self._partial_run is not None or not ep.speaking:
            return
        if self._partial_due_s is None:  # too little of the question yet to be worth a run
            self._partial_due_s = ep.elapsed_s + pace
        if self.engine.paced and (ep.elapsed_s < self._partial_due_s - 1e-9 or not self.runner.idle):
            return
        self._partial_due_s = ep.elapsed_s + pace
        self._partial_run = self.runner.submit(self.engine.partial())
        self._take_partial()

    def _take_partial(self) -> None:
        run = self._partial_run
        if run is None or not run.done.is_set():
            return
        self._partial_run = None
        if run.error is None:  # a failed partial costs only the head start: the final run tells
            self.partial = strip_wake_echo(run.text, self.wake)
            if not self.endpointer.speaking:  # the words up to this pause
                self.endpointer.hear(self.partial, self.endpointer.speech_end_s)

    def _track_early(self) -> None:
        ep = self.endpointer
        if self._early_run is not None and self._early_for != ep.speech_end_s:
            _LOGGER.debug("Speech went on after the early transcript")
            self._early_run.dropped = True  # stale: not waited for, never run if it has not started
            self._early_run, self.early = None, None
        if self._early_run is None and self._early_due and ep.speech_end_s != self._early_for:
            self._release()
            self._early_for = ep.speech_end_s  # one early transcript per pause
            self._early_run = self.runner.submit(self.engine.early())
            _LOGGER.debug("Early transcript asked for after %.2f s", ep.elapsed_s)
        self._take_early()

    @property
    def _early_due(self) -> bool:
        """Time to make the early transcript: at the pause's first silent chunk when partials cost a run
        (it is ready sooner, and the trailing silence adds no words), else at asr.early_silence_s."""
        ep = self.endpointer
        if self._partial_pace_s is not None and self.engine.paced:
            return ep.pausing
        return ep.early_point

    def _take_early(self) -> None:
        run = self._early_run
        if self.early is not None or run is None or not run.done.is_set() or self._ended is not None:
            return
        if not self.endpointer.early_point:  # made as the pause began: heard once it has lasted
            return
        if run.error is not None:
            raise run.error
        self.early = Transcript(text=strip_wake_echo(run.text, self.wake), outcome="early",
                                speech_end_s=self._early_for, final_at=run.finished_at)
        self.endpointer.hear(self.early.text, self._early_for)
        _LOGGER.debug("Early transcript: %r", self.early.text)

    def _end(self, outcome: str) -> None:
        self._ended, self._ended_at = outcome, time.monotonic()
        self._release()
        if outcome == "no_speech":
            self.close()
            return
        same_pause = self._early_run is not None and self._early_for == self.endpointer.speech_end_s
        if outcome == "speech" and same_pause and self.engine.reuses_early:
            self._final_run = self._early_run  # no speech after the early text: it is the final text
            return
        if self._early_run is not None and not self._early_run.done.is_set():
            self._early_run.dropped = True  # not waited for: the final run takes its place
        self._final_run = self.runner.submit(self.engine.final())
