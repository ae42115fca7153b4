"""One whole turn over a recording, run by the conductor exactly as the daemon runs it: the `listen` record."""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any, Protocol

from appliance.audio import AudioChunk
from appliance.audio.mic import WavSource
from appliance.config import Config
from appliance.contracts import EventLog, Stages
from appliance.conversation.conductor import Conductor, State
from appliance.conversation.turn import TIMING_KEYS, TurnRecord

_LOGGER = logging.getLogger(__name__)

GUARD_S = 5.0  # seconds past the recording and the turn limit before the loop is given up


class TurnLog(EventLog, Protocol):
    """Where a replayed turn's events and record go (service.Journal)."""

    def turn(self, record: TurnRecord) -> None: ...


class ReplaySource:
    """A WAV source that goes on with silence (paced in real time) after the file ends.

    The conductor keeps turning while the answer is generated and spoken, the endpointer
    hears the end of a question that was cut short, and `eof` tells when the file is over.
    """

    def __init__(self, path: str, cfg: Config, fast: bool = False) -> None:
        self.wav = WavSource(path, rate=cfg.audio.rate, chunk_ms=cfg.audio.chunk_ms, realtime=not fast)
        self.duration_s = self.wav.duration_s
        self.chunk_s = cfg.audio.chunk_ms / 1000.0
        self.paced = not fast
        self._silence = AudioChunk(bytes(2 * self.wav.chunk_samples), self.wav.rate)
        self.frames_read = 0
        self._next = 0.0

    @property
    def eof(self) -> bool:
        return self.wav.eof

    def read(self, timeout: float) -> AudioChunk | None:
        chunk = None if self.wav.eof else self.wav.read(timeout)
        if chunk is None and self.wav.eof:
            now = time.monotonic()
            self._next = max(self._next, now)
            if self._next - now > timeout:  # not due yet: a short read (the conductor polling) gets none
                time.sleep(max(0.0, timeout))
                return None
            time.sleep(max(0.0, self._next - now))
            self._next += self.chunk_s
            chunk = self._silence
        if chunk is not None:
            self.frames_read += 1
        return chunk

    def status(self) -> str:
        return self.wav.status()

    def close(self) -> None:
        self.wav.close()


def run_turn(recording: ReplaySource, cfg: Config, stages: Stages, events: TurnLog | None = None,
             records: list[TurnRecord] | None = None) -> dict[str, Any]:
    """One full turn over `recording` with loaded `stages` (no follow-up): the `listen --json` record.

    `events` (service.Journal) gets the conductor's events and the turn; `records` the TurnRecord itself.
    """
    cfg = dataclasses.replace(cfg, conversation=dataclasses.replace(cfg.conversation, follow_up="never"))
    records = [] if records is None else records
    conductor = Conductor(stages.with_source(recording), cfg, on_turn=records.append,
                          on_event=events.event if events is not None else None)
    # A guard only: the conductor has its own limits for listening, thinking and the turn.
    deadline = time.monotonic() + recording.duration_s + cfg.conversation.turn_timeout_s + GUARD_S
    while time.monotonic() < deadline:
        conductor.step()
        if records and conductor.state is State.IDLE:
            break
        if recording.eof and conductor.state is State.IDLE and not records:
            break  # the file ended without a wake word
    conductor.stop()
    if events is not None:
        for rec in records:
            events.turn(rec)
    record = listen_record(records[0] if records else None, paced=recording.paced)
    record["early_answers"] = dict(conductor.answers.early.counts)
    return record


def hear_turn(recording: ReplaySource, cfg: Config, stages: Stages) -> dict[str, Any]:
    """The wake word and the transcript of the first question in `recording`, heard by the conductor as
    the daemon hears it, and nothing answered: the `listen --hear-only` record."""
    cfg = dataclasses.replace(cfg, conversation=dataclasses.replace(cfg.conversation, follow_up="never",
                                                                    preemptive=False))
    heard: list[TurnRecord] = []
    conductor = Conductor(stages.with_source(recording), cfg, on_heard=heard.append)
    deadline = time.monotonic() + recording.duration_s + cfg.conversation.turn_timeout_s + GUARD_S
    while not heard and time.monotonic() < deadline:
        conductor.step()
        if recording.eof and conductor.state is State.IDLE:
            break  # the file ended without a wake word
    conductor.stop()
    rec = heard[0] if heard else None
    return {"wake": None if rec is None or rec.wake_word is None else
            {"word": rec.wake_word, "score": rec.wake_score, "at_s": rec.wake_at_s},
            "transcript": None if rec is None else rec.transcript}


def listen_turn(path: str, cfg: Config, stages: Stages, fast: bool = False, events: TurnLog | None = None,
                records: list[TurnRecord] | None = None) -> dict[str, Any]:
    """run_turn over the WAV file at `path`, paced in real time unless `fast` (so the latencies are honest)."""
    return run_turn(ReplaySource(path, cfg, fast), cfg, stages, events, records)


def listen_record(rec: TurnRecord | None, paced: bool) -> dict[str, Any]:
    """The hearing record (`wake`, `transcript`) plus `route`, `answer`, `outcome` and `timings_ms`."""
    if rec is None:
        return {"wake": None, "transcript": None, "route": None, "answer": None, "outcome": None,
                "timings_ms": {k: None for k in TIMING_KEYS}, "preemptive": False, "paced": paced,
                "early_lead_ms": None, "home_assistant_ms": None}
    wake = None if rec.wake_word is None else {"word": rec.wake_word, "score": rec.wake_score, "at_s": rec.wake_at_s}
    return {"wake": wake, "transcript": rec.transcript if rec.transcript_at is not None else None,
            "route": rec.route or None, "answer": rec.answer, "outcome": rec.outcome,
            "timings_ms": rec.timings_ms(), "preemptive": rec.preemptive, "paced": paced, "home_assistant_ms": rec.ha_ms,
            "early_lead_ms": round((rec.transcript_at - rec.early_at) * 1000.0, 1)
            if rec.preemptive and rec.early_at is not None and rec.transcript_at is not None else None,
            "llm": None if rec.stats is None or rec.route != "llm" else
            {"tokens": rec.stats.tokens, "prompt_tokens": rec.stats.prompt_tokens,
             "cached_prompt_tokens": rec.stats.cached_prompt_tokens, "prefilled_tokens": rec.stats.prefilled_tokens,
             "tokens_per_s": rec.stats.tokens_per_s}}
