"""The prompt of a chat: its history of turns, as chat messages, and the newest turns that fit the context."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from appliance.language import pack

Message = dict[str, str]

FACTS_HEADER: Final = pack().prompt.facts_header
"""The default pack's line before the house facts."""


@dataclass(frozen=True)
class Turn:
    """One question and the answer given to it."""

    user: str
    assistant: str


def messages_for(system: str, turns: Sequence[Turn], question: str) -> list[Message]:
    """The chat: system prompt, earlier turns oldest first, then the question."""
    out = [{"role": "system", "content": system}]
    for turn in turns:
        out.append({"role": "user", "content": turn.user})
        out.append({"role": "assistant", "content": turn.assistant})
    out.append({"role": "user", "content": question})
    return out


def fit_turns(system: str, turns: Sequence[Turn], question: str, count: Callable[[list[Message]], int],
              limit: int, trim_to: int | None = None) -> tuple[int, int] | None:
    """(index of the oldest turn kept, prompt tokens) for the newest whole turns within `limit`.

    Everything is kept while it fits. Once it does not, the oldest turns go until the prompt is
    within `trim_to` (a low-water mark; at least what fits in `limit`), so the following turns
    extend a cached prompt instead of reprocessing it. A message is never cut; None when the
    question alone does not fit.
    """
    tokens = count(messages_for(system, turns, question))
    if tokens <= limit:
        return 0, tokens
    target = limit if trim_to is None else min(trim_to, limit)
    fallback: tuple[int, int] | None = None
    for first in range(1, len(turns) + 1):
        tokens = count(messages_for(system, turns[first:], question))
        if tokens <= limit and fallback is None:
            fallback = (first, tokens)
        if tokens <= target:
            return first, tokens
    return fallback


def fit_answer(system: str, turns: Sequence[Turn], question: str, count: Callable[[list[Message]], int],
               n_ctx: int, budgets: Sequence[int], trim: float) -> tuple[int, int, int] | None:
    """fit_turns with room for the answer: (oldest turn kept, prompt tokens, answer budget).

    The budgets are tried in order until the question fits beside one; the history is cut back
    to `trim` of the room once it overflows. None when none fits.
    """
    for budget in budgets:
        room = n_ctx - budget
        fit = fit_turns(system, turns, question, count, room, int(room * trim))
        if fit is not None:
            return fit[0], fit[1], budget
    return None


def trim_to_tokens(text: str, max_tokens: int, count: Callable[[str], int]) -> str:
    """The leading whole lines of text within max_tokens (words of the first line if it alone is too long)."""
    kept: list[str] = []
    for line in text.strip().splitlines():
        if count("\n".join([*kept, line])) > max_tokens:
            if not kept:
                words: list[str] = []
                for word in line.split():
                    if count(" ".join([*words, word])) > max_tokens:
                        break
                    words.append(word)
                kept = [" ".join(words)] if words else []
            break
        kept.append(line)
    return "\n".join(kept).strip()


def with_facts(system: str, facts: str, max_tokens: int, count: Callable[[str], int],
               header: str = FACTS_HEADER) -> tuple[str, bool]:
    """(the system prompt with the house facts that fit max_tokens after `header`, whether they all did)."""
    kept = trim_to_tokens(facts, max_tokens, count)
    system = system.strip()
    return (system + header + kept if kept else system), len(kept) >= len(facts.strip())


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens a and b share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def same_question(text: str) -> str:
    """The question as the history keeps it: words separated by single spaces."""
    return " ".join(text.split())


@dataclass(eq=False)
class Pending:
    """An answer under way: its question, and whether it was taken back before it ended."""

    question: str
    dropped: bool = False


class History:
    """The turns of one conversation, safe to change from any thread while an answer is written.

    Its small lock is never held while the model works: forget() and clear() return at once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._turns: list[Turn] = []
        self._pending: list[Pending] = []
        self.last_at: float | None = None
        """Clock time the last turn was kept; None before the first turn."""

    @property
    def turns(self) -> list[Turn]:
        """A copy of the turns, oldest first."""
        with self._lock:
            return list(self._turns)

    def begin(self, question: str) -> Pending:
        """Note an answer to `question` under way, so forget() can take it back before it ends."""
        pending = Pending(same_question(question))
        with self._lock:
            self._pending.append(pending)
        return pending

    def end(self, pending: Pending, answer: str | None, now: float | None = None) -> bool:
        """The answer is over: keep its turn unless it was taken back or `answer` is None.

        Only the first call for an answer counts; True when the turn was kept.
        """
        with self._lock:
            if pending not in self._pending:
                return False
            self._pending.remove(pending)
            if answer is None or pending.dropped:
                return False
            self._turns.append(Turn(pending.question, answer))
            self.last_at = now
            return True

    def forget(self, question: str) -> bool:
        """Take back the answer to `question`: the newest one under way, else the last turn kept.

        An answer under way is taken back at most once, and while one to `question` is under
        way no older turn is touched. False when there was nothing to take back.
        """
        question = same_question(question)
        with self._lock:
            asked = [p for p in self._pending if p.question == question]
            if asked:
                live = [p for p in asked if not p.dropped]
                if live:
                    live[-1].dropped = True
                return bool(live)
            if self._turns and self._turns[-1].user == question:
                self._turns.pop()
                return True
            return False

    def clear(self) -> None:
        """Forget every turn, and the answers under way too."""
        with self._lock:
            self._turns.clear()
            for pending in self._pending:
                pending.dropped = True
            self.last_at = None

    def idle_for(self, now: float, idle_s: float) -> bool:
        """True when the last turn is `idle_s` old: the next answer starts afresh (clear_if_idle)."""
        with self._lock:
            return self._idle(now, idle_s)

    def clear_if_idle(self, now: float, idle_s: float) -> float | None:
        """Forget the turns (not the answers under way) when the last one is `idle_s` old; how old it was."""
        with self._lock:
            if not self._idle(now, idle_s):
                return None
            assert self.last_at is not None
            self._turns.clear()
            return now - self.last_at

    def _idle(self, now: float, idle_s: float) -> bool:
        return self.last_at is not None and bool(self._turns) and now - self.last_at >= idle_s

    def drop_oldest(self, count: int) -> None:
        """Drop the `count` oldest turns (those no longer fitting the context)."""
        with self._lock:
            del self._turns[:count]
