"""Thinking while they speak: the question's first words are read into the model as they are heard.

The recognizer's partial transcripts (Utterance.partial) come while the person is still speaking.
The words two partials in a row agree on are unlikely to change, so the model reads the chat's
prompt up to them into its cache (Chat.prefill) on a thread of its own. When the question is over,
the answer's prompt shares that prefix, and only its last words are left to read before the first
token. Words heard differently later are rolled back by the chat; an answer that wants the model
takes it at once, and nothing here ever waits on the listening loop.

It reads only while the person is speaking: in a pause the recognizer transcribes the question
(the early transcript, on the same cores), and that is what the answer waits for.
"""

from __future__ import annotations

import logging

from appliance.contracts import Chat
from appliance.hearing.asr_worker import Worker

_LOGGER = logging.getLogger(__name__)


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
