"""One turn's record (timings, outcome, figures for journald), its limits (the conversation settings: time
limits, the "thinking" sound, the follow-up), where records and events are reported, and the freed heap
given back to the system after it (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from appliance.config import ConversationConfig
from appliance.contracts import AnswerStats, SkillReply, Transcript
from appliance.conversation.responder import (
    Answer,
    FirstToken,
    HomeAnswered,
    ModelDone,
    Sentence,
    Spoken,
    Update,
)

_LOGGER = logging.getLogger(__name__)

OUTCOMES: Final = ("answered", "no_speech", "cancelled", "error", "timeout")
TIMING_KEYS: Final = ("speech_end_to_transcript", "transcript_to_first_token", "first_token_to_first_sentence",
                      "first_sentence_to_first_audio", "speech_end_to_first_token", "speech_end_to_first_audio",
                      "turn_total")
# journald field -> timing key (milliseconds)
LATENCY_FIELDS: Final = {"ASR_MS": "speech_end_to_transcript", "TTFT_MS": "transcript_to_first_token",
                         "FIRST_AUDIO_MS": "speech_end_to_first_audio", "TURN_MS": "turn_total"}
TURN_FIELDS: Final = ("APPLIANCE_EVENT", "TURN_ID", "SOURCE", "WAKE_WORD", "WAKE_SCORE", "ROUTE", "OUTCOME",
                      *LATENCY_FIELDS, "LLM_TOKENS", "LLM_TOKENS_PER_S", "PROMPT_TOKENS", "CACHED_TOKENS",
                      "PREFILLED_TOKENS", "LEFT_TOKENS", "HA_MS")


def _ms(start: float | None, end: float | None) -> float | None:
    if start is None or end is None:
        return None
    return round((end - start) * 1000.0, 1)


@dataclass
class TurnRecord:
    """What happened in one turn; the marks are time.monotonic() values."""

    turn_id: int
    source: str = "local"
    """Who asked: 'local' (the hub's own microphone) or a satellite's name (wyoming.satellites)."""
    wake_word: str | None = None
    wake_score: float | None = None
    wake_at_s: float | None = None
    """Stream seconds at the end of the frame that fired (WakeHit.at_s)."""
    follow_up: bool = False
    interrupted: bool = False
    """Begun by the wake word over the hub's own answer or ringing (a barge-in while it spoke)."""
    route: str = ""
    """'skill', 'llm', or '' when no question was heard."""
    intent: str = ""
    private: bool = False
    """The words are the owner's (SkillReply.private): the journal holds neither question nor answer."""
    outcome: str = ""
    error: str = ""
    transcript: str = ""
    answer_parts: list[str] = field(default_factory=list)
    end_turn: bool = False
    ha_ms: float | None = None
    """Milliseconds Home Assistant took to answer, when it was asked."""
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

    @property
    def answer_started_at(self) -> float | None:
        """When the answer was started: at the transcript, or for an early answer at the early one."""
        return self.early_at if self.preemptive and self.early_at is not None else self.transcript_at

    def apply(self, update: Update) -> None:
        """Take in what a worker of this turn's answer reported (on the conductor's thread only)."""
        if isinstance(update, FirstToken):
            if self.first_token_at is None:
                self.first_token_at = update.at
        elif isinstance(update, Sentence):
            if self.first_sentence_at is None:
                self.first_sentence_at = update.at
            self.answer_parts.append(update.text)
        elif isinstance(update, ModelDone):
            self.answer_done_at, self.stats = update.at, update.stats
        elif isinstance(update, HomeAnswered):
            self.ha_ms = update.reply.ms
        elif isinstance(update, Spoken):
            self.audio_done_at, self.first_audio_at = update.at, update.first_audio_at

    def answered_by(self, answer: Answer) -> None:
        """The answer the turn now waits for gives it its route (Home Assistant while it is asked)."""
        self.route = "home_assistant" if answer.route == "home" else answer.route
        if answer.held:  # the early answer heard the same words: it became this turn's
            self.preemptive, self.early_at = True, answer.started_at

    def timings_ms(self) -> dict[str, float | None]:
        """The six latency terms in milliseconds (None when the turn did not get that far).

        Each term runs between two marks as they happened. The model's term starts when the model was
        given the question: for an early answer that is the early transcript, before the question was
        confirmed over, so its terms overlap speech_end_to_transcript by (transcript_at - early_at);
        for any other answer the first four terms add up to speech_end_to_first_audio.
        """
        return {
            "speech_end_to_transcript": _ms(self.speech_end_at, self.transcript_at),
            "transcript_to_first_token": _ms(self.answer_started_at, self.first_token_at),
            "first_token_to_first_sentence": _ms(self.first_token_at, self.first_sentence_at),
            "first_sentence_to_first_audio": _ms(self.first_sentence_at, self.first_audio_at),
            "speech_end_to_first_token": _ms(self.speech_end_at, self.first_token_at),
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
            "SOURCE": self.source,
            "WAKE_WORD": self.wake_word or ("follow_up" if self.follow_up else ""),
            "WAKE_SCORE": "" if self.wake_score is None else f"{self.wake_score:.3f}",
            "ROUTE": self.route,
            "OUTCOME": self.outcome,
            **{name: num(timings[key]) for name, key in LATENCY_FIELDS.items()},
            "LLM_TOKENS": str(stats.tokens if llm else 0),
            "LLM_TOKENS_PER_S": num(round(stats.tokens_per_s, 1) if llm and stats.tokens_per_s else None),
            "PROMPT_TOKENS": str(stats.prompt_tokens if llm else 0),
            "CACHED_TOKENS": str(stats.cached_prompt_tokens if llm else 0),
            # read in while the question was spoken, and what was left to read at its end
            "PREFILLED_TOKENS": str(stats.prefilled_tokens if llm else 0),
            "LEFT_TOKENS": str(stats.prompt_tokens - stats.cached_prompt_tokens if llm else 0),
            "HA_MS": "" if self.ha_ms is None else f"{self.ha_ms:.0f}",
        }
        if self.error:
            fields["ERROR"] = self.error
        if self.intent:
            fields["INTENT"] = self.intent
        if self.preemptive:
            fields["PREEMPTIVE"] = "1"
        if self.interrupted:
            fields["INTERRUPTED"] = "1"
        if with_text and not self.private:
            fields["TRANSCRIPT"] = self.transcript
            fields["ANSWER"] = self.answer
        return fields

    def summary(self) -> str:
        first = self.timings_ms()["speech_end_to_first_audio"]
        return (f"Turn {self.turn_id}: {self.outcome}" + (f" via {self.route}" if self.route else "")
                + (f", first audio {first:.0f} ms after speech" if first is not None else ""))


@dataclass(frozen=True)
class Overdue:
    """A limit the turn went over: the stage it failed in, and why."""

    stage: str
    error: TimeoutError


class TurnLimits:
    """Decides, from a turn's marks and the time now, whether a limit is over or a sound is due."""

    def __init__(self, conv: ConversationConfig) -> None:
        self.conv = conv

    def listening(self, turn: TurnRecord, heard_s: float, ended: bool, now: float) -> Overdue | None:
        """The question may go on for conversation.listen_timeout_s of audio heard, and the turn for its limit.

        Counted in audio, as a voice pipeline's endpointer counts it, so a slow CPU that lags behind
        the stream is not cut off; once the question has ended only the turn's limit holds its
        transcription, so a recognizer still at work is not taken for someone who keeps talking.
        """
        if not ended and heard_s > self.conv.listen_timeout_s:
            return Overdue("asr", TimeoutError(
                f"the question went on for over {self.conv.listen_timeout_s:g} s"))
        return self._turn(turn, now)

    def answering(self, turn: TurnRecord, thinking: bool, now: float) -> Overdue | None:
        """Waiting for the first sentence (conversation.think_timeout_s) and the whole turn.

        An apology under way (turn.outcome set) is not held to them.
        """
        if turn.outcome:
            return None
        if thinking and turn.transcript_at is not None and now - turn.transcript_at > self.conv.think_timeout_s:
            return Overdue("llm", TimeoutError(f"no answer within {self.conv.think_timeout_s:g} s"))
        return self._turn(turn, now)

    def thinking_sound_due(self, turn: TurnRecord, thinking: bool, now: float) -> bool:
        """Whether the wait for the first sentence has gone on long enough to say "still thinking"."""
        return (thinking and not turn.outcome and turn.transcript_at is not None
                and now - turn.transcript_at > self.conv.thinking_earcon_s)

    def follow_up(self, turn: TurnRecord) -> bool:
        """Whether to listen for a follow-up question without the wake word once the answer is heard."""
        if turn.outcome not in ("", "answered") or turn.route not in ("llm", "skill"):
            return False
        return self.conv.follow_up == "always" or (
            self.conv.follow_up == "question" and turn.answer.rstrip().endswith("?"))

    def _turn(self, turn: TurnRecord, now: float) -> Overdue | None:
        if turn.wake_at is not None and now - turn.wake_at > self.conv.turn_timeout_s:
            return Overdue("turn", TimeoutError(f"turn took over {self.conv.turn_timeout_s:g} s"))
        return None


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


class Faults:
    """Where a stage's failure that the turn goes on without is reported (a timers file, an earcon):
    handed to the bell and the chimes as their error callbacks, named in a traceback."""

    def __init__(self, report: Reporter, source: str = "") -> None:
        self.report = report
        self.source = source
        """A satellite's name, or "" for the hub's own microphone (the journal then has no SOURCE)."""

    def fields(self) -> dict[str, object]:
        """The journal's SOURCE of a satellite's failure."""
        return {"source": self.source} if self.source else {}

    def timers(self, exc: Exception) -> None:
        self.report.event("error", f"Timers failed: {exc}", exc=exc, stage="timers", **self.fields())

    def earcon(self, name: str, exc: Exception) -> None:
        self.report.event("error", f"Earcon {name} failed: {exc}", exc=exc, stage="earcons", **self.fields())


def speech_end_at(result: Transcript, now: float, heard_s: float, endpoint_silence_s: float) -> float:
    """time.monotonic() of the end of speech: the stream position mapped onto the clock at `now`,
    when `heard_s` seconds of the utterance have been fed."""
    if result.speech_end_s is None:
        return now - endpoint_silence_s
    return now - max(0.0, heard_s - result.speech_end_s)


def stop_word_turn(turn_id: int, text: str, reply: SkillReply | None, now: float) -> TurnRecord:
    """The record of a plain "stop" heard with no wake word: answered in silence (by the stop skill when
    there are skills), in no time after it was heard."""
    turn = TurnRecord(turn_id=turn_id, wake_word="stop_word", transcript=text, outcome="answered", wake_at=now,
                      speech_end_at=now, transcript_at=now, first_token_at=now, answer_done_at=now, end_at=now)
    if reply is not None:
        turn.route, turn.intent, turn.end_turn = "skill", reply.intent, reply.end_turn
    return turn


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
