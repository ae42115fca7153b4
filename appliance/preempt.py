"""Answering before the question is confirmed over (preemptive generation).

The endpointer needs asr.endpoint_silence_s of silence to be sure the question is over, and
that wait comes before every answer. Once the speaker has paused for asr.early_silence_s, the
recognizer makes an early transcript; the conductor starts the language model and speech on
it at once, into a HeldSink that keeps the audio back. When the endpoint confirms the same
words, the held audio is released and the answer is already under way. When the person goes
on speaking (or the final words differ, or a local skill answers), the early answer is
cancelled, its audio thrown away unheard and its turn taken back out of the chat history.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from appliance import answer
from appliance.audio import AudioChunk
from appliance.contracts import Chat, Sink, Stages, Transcript
from appliance.turn import Job, TurnRecord

_LOGGER = logging.getLogger(__name__)


class HeldSink:
    """A Sink that keeps everything back until release(), then plays it and passes the rest through.

    stop() before the release throws the held audio away without touching the real speaker
    (which may still be playing the wake earcon); after it, it stops the speaker.
    """

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.released_at: float | None = None
        self._held: list[AudioChunk] = []
        self._mark = False
        self._first_play_at: float | None = None
        self._open = threading.Event()
        self._lock = threading.Lock()

    @property
    def released(self) -> bool:
        return self._open.is_set()

    def release(self) -> None:
        """Play what is held, in order, and let later audio straight through."""
        with self._lock:
            if self._open.is_set():
                return
            self.released_at = time.monotonic()
            if self._mark:
                self.sink.mark_turn()
            for chunk in self._held:
                self.sink.play(chunk)
            self._held.clear()
            self._open.set()

    def play(self, chunk: AudioChunk) -> None:
        with self._lock:
            if self._first_play_at is None:
                self._first_play_at = time.monotonic()
            if not self._open.is_set():
                self._held.append(chunk)
                return
        self.sink.play(chunk)

    def stop(self) -> None:
        with self._lock:
            self._held.clear()
            if not self._open.is_set():
                return
        self.sink.stop()

    def drain(self, timeout: float) -> bool:
        """Nothing can play out before the release; after it, the speaker's own drain."""
        started = time.monotonic()
        if not self._open.wait(timeout):
            return False
        return bool(self.sink.drain(max(0.0, timeout - (time.monotonic() - started))))

    def first_audio_at(self) -> float | None:
        """The speaker's own mark; for a sink without one, when the first chunk could be heard."""
        if not self._open.is_set():
            return None
        mark = self.sink.first_audio_at()
        if mark is not None or self._first_play_at is None or self.released_at is None:
            return mark
        return max(self._first_play_at, self.released_at)

    def mark_turn(self) -> None:
        with self._lock:
            if self._open.is_set():
                self.sink.mark_turn()
            else:
                self._mark = True  # passed on at the release: nothing of this turn is heard before

    def close(self) -> None:
        """The real speaker belongs to the conductor; nothing to close here."""


def same_words(a: str, b: str) -> bool:
    """Whether two transcripts say the same thing (spacing and letter case aside)."""
    return a.casefold().split() == b.casefold().split()


@dataclass
class Preemption:
    """An answer under way from an early transcript: its two jobs, its own cancel, its held speech."""

    text: str
    turn: TurnRecord
    """The record the jobs write into; it becomes the turn's record on commit."""
    gate: HeldSink
    chat: Chat
    cancel: threading.Event = field(default_factory=threading.Event)
    jobs: list[Job] = field(default_factory=list)
    _dropped: bool = False
    _returned: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def model_returned(self) -> None:
        """Called on the model's thread when its call is over (answer.generate's on_done)."""
        with self._lock:
            self._returned = True
            if self._dropped:
                self._forget()

    def drop(self, join_timeout_s: float) -> list[Job]:
        """Cancel it unheard; returns the jobs that have not returned within the timeout.

        Its turn leaves the chat history exactly once: here if the model has already returned,
        else on the model's thread when it does (so a later question never sees it).
        """
        with self._lock:
            self._dropped = True
            if self._returned:
                self._forget()
        self.cancel.set()
        self.gate.stop()
        for job in self.jobs:
            job.join(join_timeout_s)
        return [job for job in self.jobs if job.alive]

    def commit(self) -> None:
        """The question is over and its words are the early ones: let the answer be heard."""
        self.gate.release()

    def _forget(self) -> None:
        self.chat.forget(self.turn.transcript)


def start_early(turn: TurnRecord, text: str, stages: Stages, clock: Callable[[], float],
                interject: Callable[[], list[str]]) -> Preemption:
    """The jobs of an answer to an early transcript (not started yet), its speech held back.

    `interject` (due timers) is asked only once the answer may be heard.
    """
    pre = Preemption(text, dataclasses.replace(turn, transcript=text, route="llm", answer_parts=[],
                                               early_at=clock()),
                     HeldSink(stages.sink), stages.chat)
    llm, sentences = answer.generate(stages.chat, pre.turn, pre.cancel, stages.splitter_factory, clock,
                                     on_done=pre.model_returned)
    speech = answer.speak(stages.tts, pre.gate, pre.turn, sentences, pre.cancel, clock,
                          interject=lambda: interject() if pre.gate.released else [])
    pre.jobs = [llm, speech]
    return pre


class EarlyAnswers:
    """The conductor's early answers: at most one at a time, started, dropped or taken over.

    `start(turn, text)` builds a Preemption with its jobs (start_early, with the conductor's stages);
    the jobs that do not return within `join_timeout_s` of a drop are handed back, so the
    conductor can refuse to run the model twice at once.
    """

    def __init__(self, start: Callable[[TurnRecord, str], Preemption], join_timeout_s: float) -> None:
        self._start = start
        self.join_timeout_s = join_timeout_s
        self.pending: Preemption | None = None
        self.counts = {"started": 0, "used": 0, "dropped": 0}
        """Early answers started, and what became of them (bench figures)."""
        self._seen: Transcript | None = None

    def follow(self, turn: TurnRecord, early: Transcript | None, may_start: bool) -> list[Job]:
        """Track the utterance's early transcript: drop a stale answer, start one for a new pause."""
        lingering: list[Job] = []
        if self.pending is not None and (early is None or not same_words(early.text, self.pending.text)):
            lingering = self.drop("the person went on speaking")
        if early is None or early is self._seen or not early.text.strip():
            return lingering
        self._seen = early
        if self.pending is None and may_start:
            self.pending = self._start(turn, early.text.strip())
            self.counts["started"] += 1
            _LOGGER.debug("Answering early from %r", self.pending.text)
            for job in self.pending.jobs:
                job.start()
        return lingering

    def take(self, confirmed: TurnRecord) -> Preemption | None:
        """The early answer when its words are the confirmed turn's, released to be heard; else None.

        Its record (pre.turn) becomes the turn's: it takes the confirmed transcript and its marks.
        """
        pre = self.pending
        if pre is None or not same_words(pre.text, confirmed.transcript):
            return None
        self.pending = None
        self.counts["used"] += 1
        rec = pre.turn
        rec.transcript, rec.transcript_at = confirmed.transcript, confirmed.transcript_at
        rec.speech_end_at, rec.preemptive = confirmed.speech_end_at, True
        pre.commit()
        return pre

    def drop(self, reason: str) -> list[Job]:
        """Cancel the early answer unheard (if any); returns its jobs that are still running."""
        pre, self.pending = self.pending, None
        if pre is None:
            return []
        self.counts["dropped"] += 1
        _LOGGER.debug("Early answer dropped: %s", reason)
        return pre.drop(self.join_timeout_s)
