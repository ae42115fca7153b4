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

Thinking while they speak (Prefill): the recognizer's partial transcripts (Utterance.partial) come while
the person is still speaking. The words two partials in a row agree on are unlikely to change, so the
model reads the chat's prompt up to them into its cache (Chat.prefill) on a thread of its own. When the
question is over, the answer's prompt shares that prefix, and only its last words are left to read before
the first token. Words heard differently later are rolled back by the chat; an answer that wants the
model takes it at once, and nothing here ever waits on the turn's thread. It reads only while the person
is speaking: in a pause the recognizer transcribes the question (the early transcript, on the same
cores), and that is what the answer waits for.
"""

from __future__ import annotations

import logging

from appliance.contracts import Bell, Chat, Sink, Transcript
from appliance.conversation.responder import Answer, Responder
from appliance.hearing.asr_worker import Worker

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



def stable_words(before: list[str], now: list[str]) -> int:
    """How many leading words two partial transcripts agree on (trailing punctuation aside)."""
    n = 0
    for a, b in zip(before, now):
        if a.rstrip(".,?!") != b.rstrip(".,?!"):
            break
        n += 1
    return n


class Prefill:
    """Hands the stable words of each utterance to the chat's prefill, newest first, on its own thread.

    `heard(partial)` and `stop()` run on the conductor's thread and return at once.
    """

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self._partial = ""
        self._words: list[str] = []
        self._asked = ""
        self._epoch = 0  # a prefill under way gives up once this moves on (stop) or a newer text waits
        self._speaking = False
        self._worker = Worker("appliance-prefill")  # newest text first: one waiting is dropped for a newer
        self.tokens = 0
        """The prompt's tokens in the model's cache after the last prefill (figures)."""

    def heard(self, partial: str, speaking: bool = True) -> None:
        """A partial transcript of the utterance under way: read its stable words in when they grew.

        While the person pauses (`speaking` false) nothing is read, and a prefill under way stops.
        """
        self._speaking = speaking
        if not speaking or partial == self._partial:
            return
        self._partial = partial
        words = partial.split()
        n = stable_words(self._words, words)
        self._words = words
        if n == 0:
            return
        text = " ".join([*words[:n - 1], words[n - 1].rstrip(".,?!")])
        if text == self._asked:
            return
        self._asked = text
        epoch = self._epoch
        self._worker.submit(lambda: self._read(text, epoch))

    def stop(self) -> None:
        """The utterance is over (or has an early transcript): give up what is under way, start afresh."""
        self._partial, self._words, self._asked = "", [], ""
        self._epoch += 1

    def _read(self, text: str, epoch: int) -> str:
        """One prefill, on the worker's thread; returns no text (the worker's runs are shaped for text)."""

        def given_up() -> bool:  # stopped, paused, or a newer text waits
            return self._epoch != epoch or self._worker.waiting or not self._speaking

        if given_up():
            return ""
        try:
            self.tokens = self.chat.prefill(text, given_up)
        except Exception as exc:  # noqa: BLE001 - the answer reads the whole prompt itself then
            _LOGGER.warning("Reading the question into the model ahead failed: %s", exc)
        else:
            _LOGGER.debug("Prefilled %d prompt tokens through %r", self.tokens, text)
        return ""
