"""The early answer: the model's answer started before the question is confirmed over, held back from the
speaker, and the question's words read into the model while they are still spoken. One per room's turn
engine; everything here runs on that engine's thread and returns at once.

Once the person has paused for asr.early_silence_s, the answer starts on the early transcript, its audio
held back by its Gate; when the endpoint confirms the same words (and Home Assistant, asked first when it
is configured, has said the question is not its), it is heard, already under way. When the person goes
on speaking (or the final words differ, or a local answer speaks, or the turn ends), it is stopped
unheard and its turn taken back out of the chat's history (Chat.forget, whether or not the model has
returned). Nothing here waits for a thread: a dropped answer is handed back to the caller, who may
watch its model call return.
"""

from __future__ import annotations

import logging

from appliance.contracts import Bell, Sink, Transcript
from appliance.conversation.prefill import Prefill
from appliance.conversation.responder import Answer, Responder

_LOGGER = logging.getLogger(__name__)


def same_words(a: str, b: str) -> bool:
    """Whether two transcripts say the same thing (spacing and letter case aside)."""
    return a.casefold().split() == b.casefold().split()


class EarlyAnswer:
    """A turn's early answer (at most one at a time: started, dropped or taken over) and its reading ahead
    (Prefill, conversation.prefill). `preemptive`: conversation.preemptive, answers are started early."""

    def __init__(self, responder: Responder, *, prefill: bool, preemptive: bool, bell: Bell | None = None) -> None:
        self.responder = responder
        self.prefill = Prefill(responder.chat) if prefill else None
        self.preemptive = preemptive
        self.bell = bell
        """Asked after each sentence of the early answer once it is heard (a timer that has just ended)."""
        self.pending: Answer | None = None
        self.counts = {"started": 0, "used": 0, "dropped": 0}
        """Early answers started, and what became of them (bench figures)."""
        self._seen: Transcript | None = None

    def follow(self, sink: Sink, early: Transcript | None, partial: str = "", speaking: bool = False) -> Answer | None:
        """The question as heard so far: its stable words read in while the person speaks, then on a pause
        (the early transcript) an answer started into `sink`, held. Returns an answer it dropped, if any."""
        if early is not None:
            self.quiet()
        elif self.prefill is not None:
            self.prefill.heard(partial, speaking)
        if not self.preemptive:
            return None
        dropped = None
        if self.pending is not None and (early is None or not same_words(early.text, self.pending.text)):
            dropped = self.drop("the person went on speaking")
        if early is None or early is self._seen or not early.text.strip():
            return dropped
        self._seen = early
        if self.pending is None:
            self.pending = self.responder.think(early.text.strip(), sink, held=True, bell=self.bell)
            self.counts["started"] += 1
            _LOGGER.debug("Answering early from %r", self.pending.text)
        return dropped

    def take(self, transcript: str) -> Answer | None:
        """The early answer when its words are the confirmed `transcript`, released to be heard; else None."""
        self.quiet()
        pre = self.pending
        if pre is None or not same_words(pre.text, transcript):
            return None
        self.pending = None
        self.counts["used"] += 1
        pre.release()
        return pre

    def drop(self, reason: str) -> Answer | None:
        """Stop the early answer unheard (if any) and forget its turn; returns it."""
        self.quiet()
        pre, self.pending = self.pending, None
        if pre is None:
            return None
        self.counts["dropped"] += 1
        _LOGGER.debug("Early answer dropped: %s", reason)
        pre.stop()  # first: a model call that has not begun yet then leaves nothing to forget
        self.responder.chat.forget(pre.text)
        return pre

    def quiet(self) -> None:
        """No more reading ahead for this question (it is over, or paused on): a prefill under way would
        only undo the answer's cache."""
        if self.prefill is not None:
            self.prefill.stop()
