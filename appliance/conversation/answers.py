"""A room's answers: the one being heard, the one started early, and stopped ones still returning.

Who answers is policy.py's (a local skill, Home Assistant, the model); this keeps the answers of one room
(the hub's own microphone, or a satellite's) while that happens: with Home Assistant configured it is
asked first (only the confirmed words: it acts at once) while an early answer waits, held (early.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from appliance.config import Config
from appliance.contracts import Bell, Sink, Stages, Transcript
from appliance.conversation.early import EarlyAnswer
from appliance.conversation.floor import Hold
from appliance.conversation.policy import (
    AskHome,
    HomeConversation,
    HomeQuestion,
    Policy,
    Say,
    Step,
)
from appliance.conversation.responder import Answer, Failed, HomeAnswered, Responder
from appliance.thinking.understood import Understood

_LOGGER = logging.getLogger(__name__)


class Answers:
    """The room's answer, the early one, and the stopped ones whose model call has not returned yet.

    Everything here runs on the room's turn thread (the hub's loop, or a satellite's question) and returns
    at once: a stopped answer's threads end by themselves (the chat runs one generation at a time, and each
    answer's Gate is shut).
    """

    def __init__(self, stages: Stages, cfg: Config, bell: Bell, clock: Callable[[], float], sink: Sink,
                 room: str = "", area: str | None = None) -> None:
        self.policy = Policy.configured(cfg, stages.skills, stages.home)
        self.responder = Responder(stages.chat, stages.tts, stages.splitter_factory, clock,
                                   self.policy.words.speech, self.policy.words)
        self.clock, self.bell = clock, bell
        self.room, self.area = room, area
        """The room's name for the skills ("" the hub's own), and its area for Home Assistant (None: the hub's)."""
        self.sink = sink
        """Where this question's answers are heard (a satellite's speaker changes with each question)."""
        self.hold: Hold | None = None
        """A satellite's hold on the model for this question; None for the hub's own microphone, which goes first."""
        self.current: Answer | None = None
        self.early = EarlyAnswer(self.responder, prefill=cfg.conversation.prefill,
                                 preemptive=cfg.conversation.preemptive, bell=bell)
        self.prefill = self.early.prefill
        self.home = HomeConversation(clock)
        """The room's conversation with Home Assistant: a follow-up keeps it."""
        self._asked: HomeQuestion | None = None
        """The question Home Assistant was last asked, as the policy read it: settled when it answers."""
        self._returning: list[Answer] = []

    def enter(self, sink: Sink, hold: Hold | None, area: str | None) -> None:
        """A question begins, heard at `sink`, under `hold` (a satellite's), in `area`."""
        self.sink, self.hold, self.area = sink, hold, area

    def begin(self, question: str, interrupted: bool = False) -> Step:
        """The policy's first step for a confirmed question (a failing skill raises); `interrupted`: said right
        after the person interrupted the hub's answer or ringing (Policy.after_interruption)."""
        self.early.quiet()
        step = self.policy.begin(question, self.room, self.area, self.home)
        return self.policy.after_interruption(step) if interrupted else step

    def go(self, step: Step) -> Answer:
        """Start what `step` says: fixed words, Home Assistant (the early answer stays held until it
        has answered), or the model."""
        if isinstance(step, Say):
            return self.say([step.reply.text], route=step.route)
        if isinstance(step, AskHome):
            self._asked = step.question
            self.current = self.responder.consult(step.question)
            return self.current
        return self._model(step.question, step.understood)

    def settle(self, update: HomeAnswered | Failed, interrupted: bool = False) -> Step:
        """Who speaks once Home Assistant has answered or failed (`interrupted` as for begin)."""
        question = self.current.text if self.current is not None else ""
        asked, self._asked = self._asked, None
        understood = asked.understood if asked is not None else None
        step = self.policy.settle(question, update, self.home, understood)
        return self.policy.after_interruption(step) if interrupted else step

    def _model(self, question: str, understood: Understood | None = None) -> Answer:
        """The model's answer: the early one if it heard the same words, else a new one."""
        pre = self.early.take(question)
        if pre is None:
            self.stopped(self.early.drop("the final transcript differs"))
            pre = self.responder.think(question, self.sink, bell=self.bell, understood=understood)
            if self.hold is not None:
                self.hold.keep(pre)
        self.current = pre
        return pre

    def say(self, texts: list[str], route: str = "skill") -> Answer:
        """Fixed texts spoken as the turn's answer (a skill's reply, Home Assistant's, an apology, a timer)."""
        self.stopped(self.early.drop("a local answer is spoken"))
        self.current = self.responder.say(texts, self.sink, route=route)
        return self.current

    def follow(self, early: Transcript | None, partial: str = "", speaking: bool = False) -> None:
        """Keep the model in step with the question as it is heard: its words so far read in ahead
        while the person speaks (prefill), then the early answer started on the early transcript
        (when preemptive); a satellite's only while the model is free for it (Hold.try_take)."""
        hold = self.hold
        if hold is not None and not ((partial or early is not None) and hold.try_take()):
            self.stopped(self.early.drop("the model is not this room's"))
            return
        before = self.early.pending
        self.stopped(self.early.follow(self.sink, early, partial, speaking))
        if hold is not None and self.early.pending is not None and self.early.pending is not before:
            hold.keep(self.early.pending)

    def stop(self) -> None:
        """Stop the turn's answer, the early one and the prefill; nothing waits for their threads."""
        self.stopped(self.early.drop("the turn ended"))
        self.stopped(self.current)
        self.current = None

    def stopped(self, answer: Answer | None) -> None:
        """Stop `answer` and keep it in view until its model call has returned."""
        if answer is None:
            return
        answer.stop()
        if answer.model_running:
            self._returning = [a for a in self._returning if a.model_running] + [answer]

    def stuck_s(self) -> float | None:
        """Seconds the oldest stopped answer's model call has failed to return (a hung call), or None."""
        self._returning = [a for a in self._returning if a.model_running and a.route == "llm"]
        stopped = [a.cancelled_at for a in self._returning if a.cancelled_at is not None]
        return self.clock() - min(stopped) if stopped else None
