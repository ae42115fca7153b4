"""One turn's record (timings, outcome, figures for journald), its worker threads and those that hang."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from appliance.contracts import AnswerStats, Transcript

_LOGGER = logging.getLogger(__name__)

OUTCOMES: Final = ("answered", "no_speech", "cancelled", "error", "timeout")
TIMING_KEYS: Final = ("speech_end_to_transcript", "transcript_to_first_token", "first_token_to_first_sentence",
                      "first_sentence_to_first_audio", "speech_end_to_first_audio", "turn_total")
# journald field -> timing key (milliseconds)
LATENCY_FIELDS: Final = {"ASR_MS": "speech_end_to_transcript", "TTFT_MS": "transcript_to_first_token",
                         "FIRST_AUDIO_MS": "speech_end_to_first_audio", "TURN_MS": "turn_total"}
TURN_FIELDS: Final = ("APPLIANCE_EVENT", "TURN_ID", "WAKE_WORD", "WAKE_SCORE", "ROUTE", "OUTCOME",
                      *LATENCY_FIELDS, "LLM_TOKENS", "LLM_TOKENS_PER_S", "PROMPT_TOKENS", "CACHED_TOKENS")


def _ms(start: float | None, end: float | None) -> float | None:
    if start is None or end is None:
        return None
    return round((end - start) * 1000.0, 1)


def _not_before(mark: float | None, earlier: float | None) -> float | None:
    return mark if mark is None or earlier is None else max(mark, earlier)


@dataclass
class TurnRecord:
    """What happened in one turn; the marks are time.monotonic() values."""

    turn_id: int
    wake_word: str | None = None
    wake_score: float | None = None
    wake_at_s: float | None = None
    """Stream seconds at the end of the frame that fired (WakeHit.at_s)."""
    follow_up: bool = False
    route: str = ""
    """'skill', 'llm', or '' when no question was heard."""
    intent: str = ""
    outcome: str = ""
    error: str = ""
    transcript: str = ""
    answer_parts: list[str] = field(default_factory=list)
    end_turn: bool = False
    preemptive: bool = False
    """The answer was started from the early transcript, before the question was confirmed over."""
    stats: AnswerStats | None = None
    wake_at: float | None = None
    speech_end_at: float | None = None
    transcript_at: float | None = None
    early_at: float | None = None
    """When an early answer started from the early transcript (before transcript_at), if one did."""
    first_token_at: float | None = None
    first_sentence_at: float | None = None
    first_audio_at: float | None = None
    answer_done_at: float | None = None
    """When the language model wrote its last token (or the skill answered)."""
    audio_done_at: float | None = None
    """When the speaker had played the whole answer."""
    end_at: float | None = None

    @property
    def answer(self) -> str:
        return " ".join(p.strip() for p in self.answer_parts if p.strip())

    def timings_ms(self) -> dict[str, float | None]:
        """The six latency terms in milliseconds (None when the turn did not get that far).

        A preemptive answer may have its first token or sentence before the transcript was
        confirmed: such a mark counts from the confirmation, so no term is negative and the four
        terms still add up to speech_end_to_first_audio.
        """
        first_token = _not_before(self.first_token_at, self.transcript_at)
        first_sentence = _not_before(self.first_sentence_at, first_token)
        return {
            "speech_end_to_transcript": _ms(self.speech_end_at, self.transcript_at),
            "transcript_to_first_token": _ms(self.transcript_at, first_token),
            "first_token_to_first_sentence": _ms(first_token, first_sentence),
            "first_sentence_to_first_audio": _ms(first_sentence, self.first_audio_at),
            "speech_end_to_first_audio": _ms(self.speech_end_at, self.first_audio_at),
            "turn_total": _ms(self.wake_at, self.end_at),
        }

    def journal_fields(self, with_text: bool = False) -> dict[str, str]:
        """Every turn field for journald (empty when unknown), plus the text when allowed."""
        timings = self.timings_ms()
        stats = self.stats or AnswerStats()
        llm = self.route == "llm"

        def num(value: float | None) -> str:
            return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)

        fields = {
            "APPLIANCE_EVENT": "turn",
            "TURN_ID": str(self.turn_id),
            "WAKE_WORD": self.wake_word or ("follow_up" if self.follow_up else ""),
            "WAKE_SCORE": "" if self.wake_score is None else f"{self.wake_score:.3f}",
            "ROUTE": self.route,
            "OUTCOME": self.outcome,
            **{name: num(timings[key]) for name, key in LATENCY_FIELDS.items()},
            "LLM_TOKENS": str(stats.tokens if llm else 0),
            "LLM_TOKENS_PER_S": num(round(stats.tokens_per_s, 1) if llm and stats.tokens_per_s else None),
            "PROMPT_TOKENS": str(stats.prompt_tokens if llm else 0),
            "CACHED_TOKENS": str(stats.cached_prompt_tokens if llm else 0),
        }
        if self.error:
            fields["ERROR"] = self.error
        if self.intent:
            fields["INTENT"] = self.intent
        if self.preemptive:
            fields["PREEMPTIVE"] = "1"
        if with_text:
            fields["TRANSCRIPT"] = self.transcript
            fields["ANSWER"] = self.answer
        return fields

    def summary(self) -> str:
        first = self.timings_ms()["speech_end_to_first_audio"]
        return (f"Turn {self.turn_id}: {self.outcome}" + (f" via {self.route}" if self.route else "")
                + (f", first audio {first:.0f} ms after speech" if first is not None else ""))


class Job:
    """One worker thread of a turn that keeps its exception for the conductor to handle."""

    def __init__(self, name: str, fn: Callable[[], None]) -> None:
        self.name = name
        self.error: BaseException | None = None
        self.traceback: str | None = None
        self.done = threading.Event()
        self._fn = fn
        self._thread = threading.Thread(target=self._run, name=f"appliance-{name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        try:
            self._fn()
        except BaseException as exc:  # handed to the conductor thread, which recovers
            self.traceback = traceback.format_exc()
            self.error = exc
        finally:
            self.done.set()

    def join(self, timeout: float) -> None:
        if self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


class Reporter:
    """Where the conductor's turn records and events go; a failing callback is logged, never raised.

    Without `on_event`, errors are logged here (else the callback, service.Journal, logs them).
    """

    def __init__(self, on_turn: Callable[[TurnRecord], None] | None,
                 on_event: Callable[..., None] | None) -> None:
        self._on_turn = on_turn
        self._on_event = on_event

    def turn(self, record: TurnRecord) -> None:
        try:
            if self._on_turn is not None:
                self._on_turn(record)
        except Exception:
            _LOGGER.exception("Recording turn %d failed", record.turn_id)

    def event(self, name: str, message: str, exc: BaseException | None = None, tb: str | None = None,
              **fields: object) -> None:
        if exc is not None and tb is None:
            tb = "".join(traceback.format_exception(exc))
        if self._on_event is None:
            if name == "error":
                _LOGGER.error("%s", message + (f"\n{tb}" if tb and _LOGGER.isEnabledFor(logging.DEBUG) else ""))
            return
        try:
            self._on_event(name, message=message, traceback=tb, **fields)
        except Exception:
            _LOGGER.exception("Event callback failed")


class Stragglers:
    """Cancelled workers that have not returned yet: a hung model call must not get a second question."""

    def __init__(self) -> None:
        self._since: list[tuple[Job, float]] = []

    def add(self, jobs: list[Job]) -> None:
        for job in jobs:
            _LOGGER.warning("Worker %s still running after cancel", job.name)
            self._since.append((job, time.monotonic()))

    def stuck_s(self) -> float | None:
        """Seconds the oldest of them has failed to return, or None when all have returned."""
        self._since = [(job, since) for job, since in self._since if job.alive]
        if not self._since:
            return None
        return time.monotonic() - min(since for _, since in self._since)


def speech_end_at(result: Transcript, now: float, heard_s: float, endpoint_silence_s: float) -> float:
    """time.monotonic() of the end of speech: the stream position mapped onto the clock at `now`,
    when `heard_s` seconds of the utterance have been fed."""
    if result.speech_end_s is None:
        return now - endpoint_silence_s
    return now - max(0.0, heard_s - result.speech_end_s)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None on a C library without it."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def release_memory() -> None:
    """Hand freed heap back to the system after a turn (the per-answer threads' arenas and the
    models' scratch buffers otherwise stay mapped, and RSS steps up over a long day)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
