"""Turns for satellites in other rooms: hear each caller's question, answer it as the hub's own microphone
would, share the one language model fairly (conversation/floor.py states the policy), and ring the
timers set in each room there.

Local skills and Home Assistant do not need the model, so they answer a satellite at once. Who answers
is policy.py's, as for the hub's own microphone; this keeps how a satellite's question comes in and
that its answer goes to the satellite's speaker.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Final

from appliance.config import Config
from appliance.contracts import Caller, Chat, Recognizer, Stages, WakeDetector
from appliance.conversation.early import EarlyAnswer
from appliance.conversation.floor import Floor, Hold
from appliance.conversation.limits import TurnLimits
from appliance.conversation.policy import AskHome, HomeConversation, Policy, Say, Think
from appliance.conversation.responder import Answer, Failed, HomeAnswered, Responder
from appliance.conversation.turn import Faults, Reporter, TurnRecord, speech_end_at
from appliance.errors import ModelBusy
from appliance.speaking.earcons import Chimes
from appliance.thinking.bell import TimerBell

_LOGGER = logging.getLogger(__name__)

READ_S: Final = 0.05  # seconds a read of the satellite's audio may block while the question is heard
UPDATE_S: Final = 0.1  # seconds to wait for the next update of an answer before looking at the caller again


class Rooms:
    """Answers satellites (contracts.Callers): the hub's recognizer with its endpointing on the satellite's
    audio, then skills, Home Assistant when configured, else the model, spoken into the satellite's speaker.
    Each satellite has a conversation of its own with the model (Chat.session)."""

    def __init__(self, stages: Stages, cfg: Config, on_turn: Callable[[TurnRecord], None] | None = None,
                 on_event: Callable[..., None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stages, self.cfg, self.clock = stages, cfg, clock
        self.floor = Floor(cfg.wyoming.satellite_wait_s, clock)
        self.limits = TurnLimits(cfg.conversation)
        self.policy = Policy.configured(cfg, stages.skills, stages.home)
        self._report = Reporter(on_turn, on_event)
        self._ids = itertools.count(1)
        self._chats: dict[str, Chat] = {}
        self._early: dict[str, EarlyAnswer] = {}
        self._bells: dict[str, TimerBell] = {}
        self._home_conversations: dict[str, HomeConversation] = {}
        """Each room's conversation with Home Assistant and when it was last used."""
        self._recognizers: dict[str, Recognizer] = {}
        self._one_at_a_time: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def local_turn(self, active: bool) -> None:
        self.floor.local_turn(active)

    def wake_detector(self) -> WakeDetector:
        return self.stages.wake.another()

    # ---------------------------------------------------------------- timers set in a room

    def ring_here(self, room: str, here: bool) -> None:
        if self.stages.timers is not None:
            self.stages.timers.claim(room, here)

    def timers_due(self, room: str) -> list[str]:
        with self._lock:
            bell = self._bells.get(room)
            if bell is None:
                bell = self._bells[room] = TimerBell(self.stages.timers, self.clock,
                                                     Faults(self._report, room).timers, room)
        return bell.due_texts()

    def announce(self, caller: Caller, texts: list[str]) -> None:
        _LOGGER.info("Satellite %s: a timer's announcement", caller.name)
        turn = TurnRecord(turn_id=0, source=caller.name)
        Chimes(self.stages.earcons, caller.sink, self.cfg.conversation.earcons,
               Faults(self._report, caller.name).earcon).play("timer")
        self._play(caller, turn, self._responder(caller.name).say(texts, caller.sink), record=False)

    def _recognizer(self, name: str) -> Recognizer:
        """The satellite's own recognizer: its voice detector must not hear the hub's microphone."""
        with self._lock:
            asr = self._recognizers.get(name)
            if asr is None:
                asr = self._recognizers[name] = self.stages.asr.another()
            return asr

    def _early_answer(self, caller: Caller) -> EarlyAnswer:
        """The room's early answer and its reading ahead (on the room's own chat)."""
        with self._lock:
            early = self._early.get(caller.name)
        if early is None:
            conv = self.cfg.conversation
            early = EarlyAnswer(self._responder(caller.name), prefill=conv.prefill, preemptive=conv.preemptive)
            with self._lock:
                early = self._early.setdefault(caller.name, early)
        return early

    def _responder(self, name: str) -> Responder:
        with self._lock:
            chat = self._chats.get(name)
            if chat is None:
                chat = self._chats[name] = self.stages.chat.session()
        return Responder(chat, self.stages.tts, self.stages.splitter_factory, self.clock, self.policy.words.speech,
                         self.policy.words)

    def _home(self, name: str) -> HomeConversation:
        """The room's own conversation with Home Assistant."""
        with self._lock:
            return self._home_conversations.setdefault(name, HomeConversation(self.clock))

    # ---------------------------------------------------------------- one turn

    def answer(self, caller: Caller) -> None:
        with self._lock:
            lock = self._one_at_a_time.setdefault(caller.name, threading.Lock())
        with lock:  # a question asked again waits for the one it replaces to stop
            self._answer(caller)

    def _answer(self, caller: Caller) -> None:
        turn = TurnRecord(turn_id=next(self._ids), source=caller.name, wake_word=caller.wake_word or None,
                          wake_at=self.clock())
        _LOGGER.info("Satellite %s%s: listening", caller.name, f" ({caller.area})" if caller.area else "")
        hold, early = Hold(self.floor, lambda: caller.gone), self._early_answer(caller)
        try:
            outcome = self._hear(caller, turn, hold, early)
            if outcome is None:
                outcome = self._respond(caller, turn, hold, early)
        except Exception as exc:
            self._report.event("error", f"Satellite {caller.name}: the turn failed: {exc}", exc=exc,
                               stage="satellite", source=caller.name)
            turn.error = f"satellite: {exc}"
            outcome = "error"
            if not caller.gone:
                caller.heard(turn.transcript)  # a satellite still streaming stops
                try:
                    self._play(caller, turn, self._responder(caller.name).say([self.policy.words.replies.apology], caller.sink), record=False)
                except Exception:  # the apology itself failed: the journal has the first error
                    _LOGGER.debug("Satellite %s: the apology failed too", caller.name, exc_info=True)
        finally:
            early.drop("the turn ended")
            hold.release()
        turn.outcome, turn.end_at = outcome, self.clock()
        self._report.turn(turn)

    def _hear(self, caller: Caller, turn: TurnRecord, hold: Hold, early: EarlyAnswer) -> str | None:
        """Listen until the question is over, reading it in and answering early while the model is free;
        an outcome when there is nothing to answer, else None."""
        utt = self._recognizer(caller.name).start([])
        heard_s = 0.0
        try:
            while True:
                if caller.gone:
                    return "cancelled"
                chunk = caller.source.read(0.01 if utt.busy else READ_S)
                if chunk is not None:
                    result = utt.feed(chunk)
                    heard_s += chunk.duration_s
                elif caller.source.eof:
                    result = utt.finish()
                else:
                    result = utt.poll()
                now = self.clock()
                if result is not None:
                    break
                if (utt.partial or utt.early is not None) and hold.try_take():
                    answer = early.pending
                    early.follow(caller.sink, utt.early, utt.partial, utt.speaking)
                    if early.pending is not None and early.pending is not answer:
                        hold.keep(early.pending)
                else:
                    early.drop("the model is not this room's")
                overdue = self.limits.listening(turn, heard_s, utt.ended, now)
                if overdue is not None:
                    caller.heard("")
                    turn.error = f"{overdue.stage}: {overdue.error}"
                    return "timeout"
        finally:
            utt.close()
            early.quiet()
        turn.transcript_at = result.final_at or now
        turn.speech_end_at = speech_end_at(result, now, heard_s, self.cfg.asr.endpoint_silence_s)
        turn.transcript = result.text.strip()
        caller.heard(turn.transcript)
        if result.outcome == "no_speech" or not turn.transcript:
            return "no_speech"
        return None

    def _respond(self, caller: Caller, turn: TurnRecord, hold: Hold, early: EarlyAnswer) -> str:
        """Answer as the policy says (policy.Policy.begin); the model when the Floor allows."""
        responder = self._responder(caller.name)
        conversation = self._home(caller.name)
        step = self.policy.begin(turn.transcript, caller.name, caller.area, conversation)
        if isinstance(step, AskHome):  # an early answer stays held until Home Assistant has said "not mine"
            turn.route = "home_assistant"
            update = self._wait_home(caller, responder.consult(step.question))
            if update is None:
                return "cancelled"
            turn.apply(update)
            step = self.policy.settle(turn.transcript, update, conversation, step.question.understood)
            if isinstance(step, Say):
                early.drop("a local answer is spoken")
                turn.route = step.route
                return self._play(caller, turn, responder.say([step.reply.text], caller.sink, route=step.route))
        elif isinstance(step, Say):
            early.drop("a local answer is spoken")
            turn.route, turn.intent, turn.private = step.route, step.reply.intent, step.reply.private
            turn.first_token_at = turn.answer_done_at = self.clock()
            if step.reply.end_turn:
                return "answered"
            return self._play(caller, turn, responder.say([step.reply.text], caller.sink, route=step.route))
        answer = early.take(turn.transcript) if hold.held else None
        if not hold.held:  # waits its turn for the model (the hub's own microphone took it back, or never free)
            early.drop("the model was not this room's")
            if not hold.take():
                if caller.gone:
                    return "cancelled"
                _LOGGER.info("Satellite %s waited %.0f s for the language model; told it is busy", caller.name,
                             self.floor.wait_s)
                turn.route, turn.error = "skill", f"llm: busy for {self.floor.wait_s:g} s"
                self._play(caller, turn, responder.say([self.policy.words.replies.busy], caller.sink), record=False)
                return "timeout"
        early.drop("the final transcript differs")  # an early answer that heard other words
        if answer is None:
            answer = hold.keep(responder.think(turn.transcript, caller.sink,
                                               understood=step.understood if isinstance(step, Think) else None))
        turn.answered_by(answer)
        return self._play(caller, turn, answer)

    def _wait_home(self, caller: Caller, pending: Answer) -> HomeAnswered | Failed | None:
        while not caller.gone:
            update = pending.next_update(UPDATE_S)
            if isinstance(update, (HomeAnswered, Failed)):
                return update
        pending.stop()
        return None

    def _play(self, caller: Caller, turn: TurnRecord, answer: Answer, record: bool = True) -> str:
        """Follow `answer` until it is spoken (or fails, or the caller goes); the turn's outcome."""
        if record and not turn.route:
            turn.answered_by(answer)
        failed: BaseException | None = None
        while not answer.done:
            if caller.gone:
                answer.stop()
            overdue = self.limits.answering(turn, turn.first_sentence_at is None, self.clock()) if record else None
            if overdue is not None:  # a model call that does not return is not waited for
                answer.stop()
                turn.error = f"{overdue.stage}: {overdue.error}"
                _LOGGER.warning("Satellite %s: %s", caller.name, turn.error)
                self._play(caller, turn, self._responder(caller.name).say([self.policy.apology("timeout")], caller.sink),
                           record=False)
                return "timeout"
            update = answer.next_update(UPDATE_S)
            if update is None:
                continue
            if isinstance(update, Failed):
                failed = failed or update.error
            elif record:
                turn.apply(update)
        if caller.gone:
            return "cancelled"
        if failed is not None:
            busy = isinstance(failed, ModelBusy)
            turn.error = f"{'llm' if answer.route == 'llm' else answer.route}: {failed}"
            _LOGGER.warning("Satellite %s: %s", caller.name, turn.error)
            if not turn.answer_parts or busy:
                self._play(caller, turn, self._responder(caller.name).say([self.policy.reply_to_failure(failed)], caller.sink),
                           record=False)
            return "timeout" if busy else "error"
        return "cancelled" if answer.cancel.is_set() else "answered"
