"""Answering before the question is confirmed over (preemptive generation).

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

from appliance.contracts import Transcript
from appliance.responder import Answer

_LOGGER = logging.getLogger(__name__)


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
