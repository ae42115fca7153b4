"""More conversations on the one language model: a history each, the model's lock and cache shared."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Protocol

from appliance.thinking.llm_stats import LlmStats
from appliance.thinking.prompt import History


class SharedModel(Protocol):
    """What a session uses of the LlamaChat it shares (llm.py makes the sessions: not imported here)."""

    @property
    def last_stats(self) -> LlmStats: ...

    def stream(self, question: str, cancel: threading.Event, *, long: bool | None = None,
               history: History | None = None) -> Iterator[str]: ...

    def prefill(self, heard: str, stop: Callable[[], bool], *, history: History | None = None) -> int: ...


class ChatSession:
    """One more conversation on a LlamaChat's model (the Chat protocol): its own history, the model's
    one-answer-at-a-time lock and cache; its question read in ahead into that cache (prefill) too."""

    def __init__(self, chat: SharedModel) -> None:
        self.chat = chat
        self.history = History()
        self._last = LlmStats()

    def stream(self, question: str, cancel: threading.Event) -> Iterator[str]:
        try:
            yield from self.chat.stream(question, cancel, history=self.history)
        finally:
            self._last = self.chat.last_stats

    @property
    def last_stats(self) -> LlmStats:
        return self._last

    def forget(self, question: str) -> bool:
        return self.history.forget(question)

    def prefill(self, heard: str, stop: Callable[[], bool]) -> int:
        return self.chat.prefill(heard, stop, history=self.history)

    def session(self) -> ChatSession:
        return ChatSession(self.chat)
