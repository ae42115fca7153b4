"""The conductor's answers: the one being heard, the one started early, and stopped ones still returning.

Answering before the question is confirmed over (preemptive generation):

The endpointer needs asr.endpoint_silence_s of silence to be sure the question is over, and
that wait comes before every answer. Once the speaker has paused for asr.early_silence_s, the
recognizer makes an early transcript; the conductor starts the answer on it at once, its audio
held back by the answer's Gate. When the endpoint confirms the same words, the Gate opens and
the answer is already under way. When the person goes on speaking (or the final words differ,
or a local skill answers), the early answer is stopped, its audio thrown away unheard and its
turn taken back out of the chat history (the chat drops it whether or not the model has
returned yet: Chat.forget).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

from appliance.config import Config
from appliance.contracts import Stages, Transcript
from appliance.conversation.prefill import Prefill
from appliance.conversation.responder import Answer, Responder, Update
from appliance.errors import HomeAssistantRefused

_LOGGER = logging.getLogger(__name__)

CONVERSATION_KEPT_S: Final = 300.0  # seconds Home Assistant keeps a conversation going (its own limit)


def same_words(a: str, b: str) -> bool:
    """Whether two transcripts say the same thing (spacing and letter case aside)."""
    return a.casefold().split() == b.casefold().split()


class EarlyAnswers:
    """The conductor's early answers: at most one at a time, started, dropped or taken over.

    `start(text)` starts a held answer (Responder.think); `forget(text)` takes a dropped one back
    out of the chat history. Nothing here waits for a thread: a dropped answer is stopped and
    handed back to the caller, who may watch its model call return.
    """

    def __init__(self, start: Callable[[str], Answer], forget: Callable[[str], bool]) -> None:
        self._start = start
        self._forget = forget
        self.pending: Answer | None = None
        self.counts = {"started": 0, "used": 0, "dropped": 0}
        """Early answers started, and what became of them (bench figures)."""
        self._seen: Transcript | None = None

    def follow(self, early: Transcript | None) -> Answer | None:
        """Track the utterance's early transcript: drop a stale answer (returned), start one for a new pause."""
        dropped = None
        if self.pending is not None and (early is None or not same_words(early.text, self.pending.text)):
            dropped = self.drop("the person went on speaking")
        if early is None or early is self._seen or not early.text.strip():
            return dropped
        self._seen = early
        if self.pending is None:
            self.pending = self._start(early.text.strip())
            self.counts["started"] += 1
            _LOGGER.debug("Answering early from %r", self.pending.text)
        return dropped

    def take(self, transcript: str) -> Answer | None:
        """The early answer when its words are the confirmed `transcript`, released to be heard; else None."""
        pre = self.pending
        if pre is None or not same_words(pre.text, transcript):
            return None
        self.pending = None
        self.counts["used"] += 1
        pre.release()
        return pre

    def drop(self, reason: str) -> Answer | None:
        """Stop the early answer unheard (if any) and forget its turn; returns it."""
        pre, self.pending = self.pending, None
        if pre is None:
            return None
        self.counts["dropped"] += 1
        _LOGGER.debug("Early answer dropped: %s", reason)
        pre.stop()  # first: a model call that has not begun yet then leaves nothing to forget
        self._forget(pre.text)
        return pre


class Answers:
    """The turn's answer, the early one, and the stopped ones whose model call has not returned yet.

    Who answers a confirmed question that no skill took: with Home Assistant configured, it is asked
    first (only the confirmed words: it acts at once) while an early answer waits, held; a request it
    handles, or a device it does not know, gets its own words; anything else goes to the model. Without
    it, a device request gets the truth ("I can't control devices"), never a claimed action.

    Everything here runs on the conductor's thread and returns at once: a stopped answer's threads
    end by themselves (the chat runs one generation at a time, and each answer's Gate is shut).
    """

    def __init__(self, stages: Stages, cfg: Config, interject: Callable[[], list[str]],
                 clock: Callable[[], float]) -> None:
        self.responder = responder = Responder(
            stages.chat, stages.tts, stages.splitter_factory, stages.skills if cfg.skills.enabled else None, clock,
            home=stages.home, home_fallback=cfg.home_assistant.fallback)
        self.sink, self.clock, self._interject = stages.sink, clock, interject
        self.current: Answer | None = None
        self.early = EarlyAnswers(
            lambda text: responder.think(text, stages.sink, held=True, interject=interject), stages.chat.forget)
        self.prefill = Prefill(stages.chat) if cfg.conversation.prefill else None
        self._preemptive = cfg.conversation.preemptive
        self._area = cfg.home_assistant.area
        self._returning: list[Answer] = []
        self._conversation: tuple[str, float] | None = None
        """Home Assistant's conversation id and when it was last used: a follow-up keeps it."""

    def think(self, question: str) -> Answer:
        """The answer to a confirmed question that no local answer took (Home Assistant first when configured)."""
        self._heard_all()
        home = self.responder.home
        if home is None:
            return self._model(question)
        conversation = self._conversation
        keep = conversation is not None and self.clock() - conversation[1] < CONVERSATION_KEPT_S
        self.current = self.responder.consult(home, question, conversation[0] if keep else None, area=self._area)
        return self.current  # the early answer stays held until Home Assistant has answered

    def settle(self, update: Update) -> Answer:
        """Who speaks once Home Assistant has answered (a 'home' update) or failed (an 'error' one)."""
        question = self.current.text if self.current is not None else ""
        if update.home is None:
            _LOGGER.warning("%s", update.error)
        elif update.home.conversation_id:
            self._conversation = (update.home.conversation_id, self.clock())
        reply = self.responder.after_home(question, update.home, isinstance(update.error, HomeAssistantRefused))
        if reply is None:
            return self._model(question)
        return self.say([reply.text], route="home_assistant" if reply.intent != "no_internet" else "skill")

    def _model(self, question: str) -> Answer:
        """The model's answer: the early one if it heard the same words, else a new one."""
        pre = self.early.take(question)
        if pre is None:
            self.stopped(self.early.drop("the final transcript differs"))
            pre = self.responder.think(question, self.sink, interject=self._interject)
        self.current = pre
        return pre

    def say(self, texts: list[str], route: str = "skill") -> Answer:
        """Fixed texts spoken as the turn's answer (a skill's reply, Home Assistant's, an apology, a timer)."""
        self._heard_all()
        self.stopped(self.early.drop("a local answer is spoken"))
        self.current = self.responder.say(texts, self.sink, route=route)
        return self.current

    def follow(self, early: Transcript | None, partial: str = "", speaking: bool = False) -> None:
        """Keep the model in step with the question as it is heard: its words so far read in ahead
        while the person speaks (prefill), then the early answer started on the early transcript
        (when preemptive)."""
        if early is not None:
            self._heard_all()
        elif self.prefill is not None:
            self.prefill.heard(partial, speaking)
        if self._preemptive:
            self.stopped(self.early.follow(early))

    def stop(self) -> None:
        """Stop the turn's answer, the early one and the prefill; nothing waits for their threads."""
        self._heard_all()
        self.stopped(self.early.drop("the turn ended"))
        self.stopped(self.current)
        self.current = None

    def stopped(self, answer: Answer | None) -> None:
        """Stop `answer` and keep it in view until its model call has returned."""
        if answer is None:
            return
        answer.stop()
        if answer.model_running:
            self._returning.append(answer)

    def _heard_all(self) -> None:
        """The question is over (or paused on): no more prefill, which would only undo the answer's cache."""
        if self.prefill is not None:
            self.prefill.stop()

    def stuck_s(self) -> float | None:
        """Seconds the oldest stopped answer's model call has failed to return (a hung call), or None."""
        self._returning = [a for a in self._returning if a.model_running and a.route == "llm"]
        stopped = [a.cancelled_at for a in self._returning if a.cancelled_at is not None]
        return self.clock() - min(stopped) if stopped else None
