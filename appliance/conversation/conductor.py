"""The turn engine: the state machine that runs one turn after another in a room (wake, listen, think,
speak, follow up), the same for the hub's own microphone and for each satellite in another room.

What differs between rooms is handed to it as a Room: where the audio comes from and goes to, the room's
name and area, the detectors that listen there (the wake word and the plain "stop": the hub's own), the
earcons the hub plays there, and a satellite's hold on the model (floor.py). The hub's loop turns it for
ever (run); a satellite's question turns it on the question's own thread until its turn is over (serve).
"""

from __future__ import annotations

import enum
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from appliance.audio import AudioChunk
from appliance.config import Config
from appliance.contracts import Sink, Source, Stages, StopDetector, Utterance, WakeDetector, WakeHit
from appliance.conversation.answers import Answers
from appliance.conversation.floor import Hold
from appliance.conversation.policy import SKILL, Say, Think
from appliance.conversation.responder import Failed, HomeAnswered, Sentence
from appliance.conversation.turn import (
    Faults,
    Reporter,
    TurnLimits,
    TurnRecord,
    release_memory,
    speech_end_at,
    stop_word_turn,
)
from appliance.errors import ModelBusy
from appliance.hearing.wake_text import says_wake_phrase, wake_words
from appliance.speaking.earcons import Chimes
from appliance.thinking.bell import TimerBell

_LOGGER = logging.getLogger(__name__)

POLL_S: Final = 0.01  # seconds a mic read may block while a transcription runs: its result is taken at once
ECHO_TAIL_S: Final = 0.3  # seconds of audio ignored after the speaker falls silent (room echo)
SOURCE_ERROR_BACKOFF_S: Final = 0.5  # seconds to wait after the microphone raised
RING_GAP_MARGIN_S: Final = 2.0  # seconds past the repeat interval a ringing timer is still taken as ringing


EARCONS: Final = frozenset({"wake", "thinking", "error", "timer"})
"""The hub's earcons; a satellite plays its own for waking and the end of a question, and gets the timer's."""


@dataclass(frozen=True)
class Room:
    """Where a turn is heard and answered. The hub's own: its microphone and speaker, its wake word and stop
    words (Room.hub). A satellite's, for one question: its stream and speaker, its name and area, the hold
    on the model its question waits for, and how it is told what was heard and whether it went away."""

    source: Source
    sink: Sink
    name: str = ""
    """"" for the hub's own microphone; else the satellite's name (the skills' room, the journal's SOURCE)."""
    area: str | None = None
    """Where Home Assistant places a request said here; None: the hub's own (home_assistant.area)."""
    wake: WakeDetector | None = None
    """The wake word heard in this room's audio (a turn starts, a barge-in), when the hub listens for it."""
    stop: StopDetector | None = None
    earcons: frozenset[str] = EARCONS
    follow_up: bool = True
    """Whether a follow-up is listened for after an answer (a satellite stops streaming once heard)."""
    read_s: float = 0.25
    """Seconds a read of the source may block: the loop (and its heartbeat) turns at least this often."""
    hold: Hold | None = None
    """A satellite's hold on the one model; None: the hub's own microphone, which goes first."""
    heard: Callable[[str], None] | None = None
    """Told the question's words once it is over (a satellite then stops streaming)."""
    gone: Callable[[], bool] | None = None
    """Whether the satellite went away (or asked again): its turn ends at once."""

    @classmethod
    def hub(cls, stages: Stages) -> Room:
        """The hub's own room: its microphone, its speaker, its wake word and stop words."""
        return cls(stages.source, stages.sink, wake=stages.wake, stop=stages.stop)


class State(enum.Enum):
    IDLE = "idle"
    LISTENING = "listening"
    THINKING = "thinking"
    SPEAKING = "speaking"
    FOLLOW_UP = "follow_up"


class Conductor:
    """The turn engine of one room: owns the state and the turn record; looks at every chunk (wake word,
    endpoint); recognition and the answer run on workers, which post what happened (responder.Update) for
    this thread to record.

    Each answer has its own cancel Event and Gate (responder.Answer): barge-in, the time limits,
    errors and shutdown stop it without waiting for its threads. Who answers is policy.py's.
    """

    def __init__(self, stages: Stages, config: Config, *, room: Room | None = None,
                 on_turn: Callable[[TurnRecord], None] | None = None,
                 on_state: Callable[[State], None] | None = None,
                 on_event: Callable[..., None] | None = None,
                 on_heard: Callable[[TurnRecord], None] | None = None,
                 bell: TimerBell | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stages, self.cfg = stages, config
        self.room = room or Room.hub(stages)
        self.asr = stages.asr
        self._report = Reporter(on_turn, on_event)
        self._event = self._report.event
        self._faults = Faults(self._report, self.room.name)
        self._earcon: Callable[[str], None] = Chimes(stages.earcons, self.room.sink, config.conversation.earcons,
                                                     self._faults.earcon).play
        """Plays one of the hub's earcons in the room (a served room's: _room_earcon)."""
        self._on_state = on_state
        self._on_heard = on_heard
        """When given, each turn ends at its final transcript and goes here unanswered (`listen --hear-only`)."""
        self.clock = clock
        self.state = State.IDLE
        self.heartbeat = 0
        """Loop iterations so far: the service watchdog checks that it grows."""
        self.turns = 0
        self.freeze = threading.Event()
        """Debug hook: while set, the loop blocks as a hung model call would (watchdog test)."""
        self._stop = threading.Event()
        chunk_s = config.audio.chunk_ms / 1000
        self._preroll: deque[AudioChunk] = deque(maxlen=max(1, math.ceil(config.wake.preroll_s / chunk_s)))
        self._turn: TurnRecord | None = None
        self._utt: Utterance | None = None
        self._utt_audio_s = 0.0
        self.limits = TurnLimits(config.conversation)
        self.bell = bell or TimerBell(stages.timers, clock, self._faults.timers, self.room.name)
        """Timers that end are announced while idle, and mid-answer after the current sentence."""
        self.answers = Answers(stages, config, self.bell, clock, self.room.sink, self.room.name, self.room.area)
        """The turn's answer, the early one (answers.early) and stopped ones still returning."""
        self._parked: Think | None = None
        """The model's step of a satellite's question while it waits in line for the model (Hold.wait)."""
        self._told = False
        """The room was told the question's words (Room.heard)."""
        self._thinking_played, self._follow_up_until, self._ignore_until = False, 0.0, 0.0
        self._ringing_until = 0.0
        """Until when a timer, alarm or reminder that has rung counts as ringing between its repeats."""
        self._question_until = 0.0
        """time.monotonic() when the last chunk the question was heard in ends, as the microphone captured it."""
        self._wake_words = wake_words(config.wake.model) if config.wake.model else ()
        self._says_wake = False
        """The answer playing has the wake phrase in it ("say hey jarvis, then your question")."""

    # ---------------------------------------------------------------- loop

    def run(self) -> None:
        """Turn the loop until stop(); never raises for a failing stage."""
        _LOGGER.info("Conductor running")
        self._set_state(State.IDLE)
        try:
            while not self._stop.is_set():
                self.step()
        finally:
            self._abort_turn("cancelled")

    def step(self) -> None:
        """One loop iteration: read a chunk (or time out) and advance the state machine."""
        self.heartbeat += 1
        while self.freeze.is_set() and not self._stop.is_set():
            time.sleep(0.05)
        utt = self._utt
        waiting = utt is not None and self.state in (State.LISTENING, State.FOLLOW_UP) and utt.busy
        if self._turn is not None and self.room.gone is not None and self.room.gone():
            self._abort_turn("cancelled")  # the satellite went away: nothing is waited for
            return
        try:
            chunk = self.room.source.read(POLL_S if waiting else self.room.read_s)
        except Exception as exc:  # the source recovers by itself; keep turning
            self._event("error", f"Microphone read failed: {exc}", stage="source", exc=exc)
            self._stop.wait(SOURCE_ERROR_BACKOFF_S)
            chunk = None
        self.tick(chunk, self.clock())

    def serve(self, room: Room, wake_word: str = "", announce: list[str] | None = None) -> None:
        """One question from `room`, which heard its own wake word (a satellite's), or with `announce` a
        timer's announcement said there: turned on the calling thread from its start to the end of its
        answer, through the same steps as the hub's own."""
        self.room = room
        self._earcon = self._room_earcon
        self.answers.enter(room.sink, room.hold, room.area)
        now = self.clock()
        if announce:
            self._ring(announce, now)
        else:
            self._start_turn(None, now, wake_word=wake_word)
        try:
            while self.state is not State.IDLE and not self._stop.is_set():
                self.step()
        finally:
            self._abort_turn("cancelled")

    def stop(self) -> None:
        """Leave run() soon; the current turn is cancelled."""
        self._stop.set()
        if self.answers.current is not None:
            self.answers.current.stop()
        self._safe(self.room.sink.stop)

    def tick(self, chunk: AudioChunk | None, now: float) -> None:
        if chunk is not None and now < self._ignore_until:
            chunk = None  # the speaker's own echo right after an answer
        if self.state is State.IDLE:
            self._idle(chunk, now)
        elif self.state in (State.LISTENING, State.FOLLOW_UP):
            self._listening(chunk, now)
        else:
            self._answering(chunk, now)

    # ---------------------------------------------------------------- states

    def _idle(self, chunk: AudioChunk | None, now: float) -> None:
        hit = None
        if chunk is not None:
            hit = self._detect(chunk, None)
            self._preroll.append(chunk)
        if hit is not None:
            self._start_turn(hit, now)
            return
        if self._ringing_until:  # between the repeats of a ringing timer, a plain "stop" still silences it
            if now >= self._ringing_until:
                self._ringing_until = 0.0
                self._arm_stop()
            elif self._stop_word(chunk, now):
                return
        texts = self.bell.due_texts()
        if texts:
            self._ring(texts, now)

    def _ring(self, texts: list[str], now: float) -> None:
        """A timer has ended: announced as a turn of its own, not recorded."""
        self._ringing_until = now + self.cfg.skills.timer_repeat_interval_s + RING_GAP_MARGIN_S
        self._event("ring", f"Ringing: {len(texts)} timer, alarm or reminder announcement(s)",
                    announcements=len(texts), **self._faults.fields())  # their words stay out of the journal
        self._turn = TurnRecord(turn_id=0, source=self.room.name or "local", wake_at=now, route="timer")
        self._set_state(State.SPEAKING)
        self._hub_says(texts)
        self._earcon("timer")
        self.answers.say(texts)

    def _detect(self, chunk: AudioChunk, threshold: float | None) -> WakeHit | None:
        wake = self.room.wake
        if wake is None:
            return None
        try:
            return wake.process(chunk, threshold)
        except Exception as exc:
            self._event("error", f"Wake-word detector failed: {exc}", stage="wake", exc=exc)
            self._safe(wake.reset)
            return None

    def _start_turn(self, hit: WakeHit | None, now: float, follow_up: bool = False,
                    interrupted: bool = False, wake_word: str = "") -> None:
        self._ringing_until = 0.0  # a repeat that still rings arms the stop words again
        self.turns += 1
        self._turn = TurnRecord(turn_id=self.turns, source=self.room.name or "local", wake_at=now,
                                follow_up=follow_up, interrupted=interrupted, wake_word=wake_word or None)
        self._thinking_played, self._told, self._parked = False, False, None
        if self.room.name and not follow_up:
            _LOGGER.info("Satellite %s%s: listening", self.room.name, f" ({self.room.area})" if self.room.area else "")
        if hit is not None:
            self._turn.wake_word, self._turn.wake_score, self._turn.wake_at_s = hit.word, hit.score, hit.at_s
            self._event("wake", f"Wake word {hit.word} (score={hit.score:.2f})", wake_word=hit.word,
                        wake_score=f"{hit.score:.3f}", turn_id=self.turns)
            self._earcon("wake")
        preroll = [] if follow_up else list(self._preroll)
        self._preroll.clear()
        try:
            self._utt = self.asr.start(preroll)
        except Exception as exc:
            self._fail("asr", exc, now)
            return
        self._utt_audio_s = 0.0  # stream time of the utterance counts from after the wake word
        if follow_up:
            self._follow_up_until = now + self.cfg.conversation.follow_up_s
        self._set_state(State.FOLLOW_UP if follow_up else State.LISTENING)

    def _listening(self, chunk: AudioChunk | None, now: float) -> None:
        turn, utt = self._turn, self._utt
        assert turn is not None and utt is not None
        if chunk is not None and utt.ended and self._barge_in(chunk, now):
            return  # the wake word while the question was being transcribed
        try:
            if chunk is not None:
                result = utt.feed(chunk)
                self._utt_audio_s += chunk.duration_s
                if chunk.captured_at is not None:
                    self._question_until = chunk.captured_at + chunk.duration_s
            elif self.room.source.eof:  # a recording ended mid-question
                result = utt.finish()
            else:
                result = utt.poll()
        except Exception as exc:
            self._fail("asr", exc, now)
            return
        if result is None:
            self.answers.follow(utt.early, utt.partial, utt.speaking)
            overdue = self.limits.listening(turn, self._utt_audio_s, utt.ended, now)
            if self.state is State.FOLLOW_UP and now >= self._follow_up_until and not utt.heard_speech:
                _LOGGER.debug("No follow-up question; back to idle")
                self._finish_turn(None, now, record=False)
            elif overdue is not None:
                self._fail(overdue.stage, overdue.error, now, outcome="timeout")
            return
        turn.transcript_at = result.final_at or now
        turn.speech_end_at = speech_end_at(result, now, self._utt_audio_s, self.cfg.asr.endpoint_silence_s)
        turn.transcript = result.text.strip()
        if self.room.heard is not None:
            self._tell(turn.transcript)
        if self._on_heard is not None:
            self._on_heard(turn)
            self._finish_turn(None, now, record=False)
            return
        if result.outcome == "no_speech" or not turn.transcript:
            self._finish_turn("no_speech", now, record=self.state is not State.FOLLOW_UP)
            return
        self._respond(turn, now)

    def _respond(self, turn: TurnRecord, now: float) -> None:
        """Answer the confirmed question as the policy says (policy.Policy.begin)."""
        self._set_state(State.THINKING)
        try:
            step = self.answers.begin(turn.transcript, turn.interrupted)
        except Exception as exc:
            self._fail("skills", exc, now)
            return
        if isinstance(step, Say):
            turn.route, turn.intent, turn.private = step.route, step.reply.intent, step.reply.private
            turn.first_token_at = turn.answer_done_at = self.clock()
            if step.reply.end_turn:
                self._safe(self.room.sink.stop)
                self._finish_turn("answered", now)
                return
        if self.room.hold is not None and isinstance(step, Think) and not self.room.hold.held:
            self._wait_in_line(step)
            return
        turn.answered_by(self.answers.go(step))

    def _wait_in_line(self, step: Think) -> None:
        """A satellite's question for the model waits in line for it (Hold.wait), unless it holds it already,
        without blocking this thread; _wait_for_model starts it when its turn comes."""
        assert self.room.hold is not None
        self.answers.stopped(self.answers.early.drop("the model was not this room's"))
        self.room.hold.wait()
        self._parked = step

    def _wait_for_model(self, turn: TurnRecord) -> None:
        """A satellite's question in line for the model: answered once it is its turn, else told the hub is
        busy once it has waited wyoming.satellite_wait_s (the floor's limit, not the turn's)."""
        hold = self.room.hold
        assert hold is not None and self._parked is not None
        got = hold.waited()
        if got is None:
            return
        step, self._parked = self._parked, None
        if got:
            turn.answered_by(self.answers.go(step))
            return
        wait_s = hold.floor.wait_s
        _LOGGER.info("Satellite %s waited %.0f s for the language model; told it is busy", self.room.name, wait_s)
        turn.route, turn.outcome, turn.error = SKILL, "timeout", f"llm: busy for {wait_s:g} s"
        self.answers.say([self.answers.policy.words.replies.busy])

    def _answering(self, chunk: AudioChunk | None, now: float) -> None:
        turn = self._turn
        assert turn is not None
        if chunk is not None and self._barge_in(chunk, now):
            return
        if self._stop_word(chunk, now):
            return
        if self._parked is not None:
            self._wait_for_model(turn)
            return
        answer = self.answers.current
        assert answer is not None
        for update in answer.updates():
            if isinstance(update, Sentence):
                self._hub_says([update.text])
            if answer.route == "home" and isinstance(update, (HomeAnswered, Failed)):  # Home Assistant spoke
                turn.apply(update)
                step = self.answers.settle(update, turn.interrupted)
                if self.room.hold is not None and isinstance(step, Think) and not self.room.hold.held:
                    self._wait_in_line(step)
                else:
                    turn.answered_by(self.answers.go(step))
                return
            if isinstance(update, Failed):
                stage = update.part.stage
                if turn.outcome:  # the apology itself failed: give up quietly
                    self._event("error", f"{stage} failed: {update.error}", stage=stage, tb=update.traceback)
                    self._finish_turn(turn.outcome, now)
                else:
                    self._fail(stage, update.error, now, tb=update.traceback)
                return
            if not turn.outcome:  # an apology's own sentences are not the turn's answer
                turn.apply(update)
        if self.state is State.THINKING and turn.first_sentence_at is not None:
            self._set_state(State.SPEAKING)
        thinking = self.state is State.THINKING
        overdue = self.limits.answering(turn, thinking, now)
        if overdue is not None:
            self._fail(overdue.stage, overdue.error, now, outcome="timeout")
            return
        if not self._thinking_played and self.limits.thinking_sound_due(turn, thinking, now):
            self._thinking_played = True
            self._earcon("thinking")
        if answer.done:  # an answer stopped from outside (shutdown) ended because it was cancelled
            follow = self.room.follow_up and self.limits.follow_up(turn) and not answer.cancel.is_set()
            self._finish_turn(turn.outcome or ("cancelled" if answer.cancel.is_set() else "answered"), now)
            if follow:
                self._ignore_until = now + ECHO_TAIL_S
                self._start_turn(None, now, follow_up=True)

    def _barge_in(self, chunk: AudioChunk, now: float) -> bool:
        """The wake word (at the barge-in threshold) cancels the turn and starts a new one."""
        hit = self._detect(chunk, self.cfg.wake.barge_in_threshold)
        self._preroll.append(chunk)
        if hit is None:
            return False
        if self._says_wake:
            _LOGGER.debug("Wake word while %s (score=%.2f) taken for the hub's own voice saying it",
                          self.state.value, hit.score)
            return False
        _LOGGER.info("Barge-in: wake word while %s (score=%.2f)", self.state.value, hit.score)
        interrupted = self.state is State.SPEAKING  # its answer or its ringing was heard, and is cut off
        preroll = list(self._preroll)  # the new question may start with the wake word
        self._abort_turn("cancelled")
        self._preroll.extend(preroll)
        self._start_turn(hit, now, interrupted=interrupted)
        return True

    def _stop_word(self, chunk: AudioChunk | None, now: float) -> bool:
        """A plain "stop" (armed only while speaking or ringing) does what "hey jarvis, stop" does: the
        answer or the ringing ends, the ringing timers and alarms are acknowledged, and it is a turn."""
        detector = self.room.stop
        if detector is None or not detector.armed:
            return False
        if chunk is not None and not self._heard_over_answer(chunk):
            chunk = None
        try:
            hit = detector.process(chunk)
        except Exception as exc:
            self._event("error", f"Stop-word detector failed: {exc}", stage="stop", exc=exc)
            self._safe(detector.disarm)
            return False
        if hit is None:
            return False
        turn = self._turn
        ringing = self.state is State.IDLE or (turn is not None and turn.route == "timer")
        what = "ringing" if ringing else self.state.value
        self._ringing_until = 0.0
        _LOGGER.info("Stop word while %s: %r", what, hit.text)
        self._abort_turn("cancelled")
        self.turns += 1
        self._event("stop_word", f"Stop word {hit.text!r} while {what}", stop_word=hit.text, stopped=what,
                    turn_id=self.turns)
        reply = None
        if self.stages.skills is not None:
            try:  # the stop skill, asked first: the ringing timers and alarms are acknowledged
                reply = self.stages.skills.match(hit.text)
            except Exception as exc:
                self._event("error", f"skills failed: {exc}", stage="skills", exc=exc, turn_id=self.turns)
        self._report.turn(stop_word_turn(self.turns, hit.text, reply, now))
        self._arm_stop()  # stopped while idle between a timer's repeats: nothing rings any more
        return True

    def _heard_over_answer(self, chunk: AudioChunk) -> bool:
        """Whether `chunk` was captured after the question it answers: a stop word is meant for what the hub
        says, so the question itself (its end read late while the loop was busy) is never one. Judged on the
        microphone's own clock (`captured_at`), against the end of the last chunk the question was heard
        in. Chunks with no capture time (a file's) are judged as they come, and so is all of a ringing."""
        turn = self._turn
        if chunk.captured_at is None or turn is None or turn.route == "timer":
            return True
        return chunk.captured_at >= self._question_until

    # ---------------------------------------------------------------- endings

    def _fail(self, stage: str, exc: BaseException, now: float, outcome: str = "error", tb: str | None = None) -> None:
        """Log the failure, cancel the turn, then play the error earcon and a short apology (a satellite's
        question: the busy reply when another answer holds the model)."""
        turn = self._turn
        self._event("error", f"{stage} failed: {exc}", stage=stage, exc=exc, tb=tb,
                    turn_id=turn.turn_id if turn else None, **self._faults.fields())
        self.answers.stop()
        self._safe(self.room.sink.stop)
        if turn is None:
            self._set_state(State.IDLE)
            return
        self._tell(turn.transcript)
        policy = self.answers.policy
        # A satellite shares the model and waits its turn, so a model still held elsewhere is "busy"; the hub's
        # own microphone goes first, so for it a model that has not returned is its own answer hung: an error.
        busy = isinstance(exc, ModelBusy) and self.room.hold is not None
        turn.outcome, turn.error = "timeout" if busy else outcome, f"{stage}: {exc}"
        self._set_state(State.SPEAKING)
        self._earcon("error")
        self.answers.say([policy.reply_to_failure(exc) if busy else policy.apology(outcome)])
        _LOGGER.info("Turn %d ended with %s; apologising", turn.turn_id, outcome)

    def _abort_turn(self, outcome: str) -> None:
        """Cancel whatever runs and record the turn (barge-in, shutdown)."""
        self.answers.stop()
        if self._turn is not None:
            self._finish_turn(self._turn.outcome or outcome, self.clock())

    def stuck_s(self) -> float | None:
        """Seconds a stopped answer's model call has failed to return (a hung call), or None."""
        return self.answers.stuck_s()

    def _finish_turn(self, outcome: str | None, now: float, record: bool = True) -> None:
        turn, utt = self._turn, self._utt
        self.answers.stop()
        self._safe(self.room.sink.stop)
        self._turn, self._utt, self._parked = None, None, None
        self._says_wake = False
        if self.room.hold is not None:
            self.room.hold.release()
        if utt is not None:
            self._safe(utt.close)  # its transcriptions still waiting are not wanted
        # Forget the turn's audio, and the refractory time (counted over frames heard while idle),
        # so "hey jarvis, stop" followed at once by "hey jarvis, ..." is heard.
        wake = self.room.wake
        if wake is not None:
            self._safe(lambda: wake.reset(new_stream=True))
        self._preroll.clear()
        if turn is not None and record and outcome is not None and turn.route != "timer":
            turn.outcome, turn.end_at = outcome, now
            self._report.turn(turn)
        release_memory()
        self._set_state(State.IDLE)

    # ---------------------------------------------------------------- helpers

    def _set_state(self, state: State) -> None:
        if state is self.state and state is not State.IDLE:
            return
        self.state = state
        _LOGGER.debug("State %s", state.value)
        self._arm_stop()
        if self._on_state is None:
            return
        try:
            self._on_state(state)
        except Exception:
            _LOGGER.exception("State callback failed")

    def _arm_stop(self) -> None:
        """The stop words listen while the hub speaks, and while a timer rings (between its repeats too)."""
        detector = self.room.stop
        want = self.state is State.SPEAKING or (self.state is State.IDLE and self._ringing_until > 0.0)
        if detector is not None and detector.armed != want:
            self._safe(detector.arm if want else detector.disarm)

    def _hub_says(self, texts: list[str]) -> None:
        """What the hub itself says: its wake phrase in it is not the person's, nor a stop phrase.

        An answer that says the wake phrase would wake the hub through its own speaker whatever the echo
        canceller leaves of it (1 of 12 such answers did), so until that answer ends the wake word does
        not barge in; a plain "stop" still ends it."""
        if not self._says_wake and any(says_wake_phrase(text, self._wake_words) for text in texts):
            _LOGGER.info("The hub says its own wake word; until this answer ends, only a plain stop interrupts it")
            self._says_wake = True
        detector = self.room.stop
        for text in texts if detector is not None else []:
            self._safe(lambda text=text: detector.hub_says(text))  # type: ignore[union-attr]

    def _room_earcon(self, name: str) -> None:
        """One of the hub's earcons in a served room, if it is one the room hears from the hub (a satellite)."""
        if name in self.room.earcons:
            Chimes(self.stages.earcons, self.room.sink, self.cfg.conversation.earcons, self._faults.earcon).play(name)

    def _tell(self, text: str) -> None:
        """Tell the room the question's words, once, when it is over (a satellite then stops streaming)."""
        if self.room.heard is not None and not self._told:
            self._told = True
            self._safe(lambda: self.room.heard(text))  # type: ignore[misc]

    @staticmethod
    def _safe(fn: Callable[[], object]) -> None:
        try:
            fn()
        except Exception:
            _LOGGER.exception("%r failed", fn)
