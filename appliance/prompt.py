"""The prompt of a chat: its turns, as chat messages, and the newest of them that fit the context."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

Message = dict[str, str]

FACTS_HEADER: Final = "\n\nFacts about this home:\n"


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


def with_facts(system: str, facts: str, max_tokens: int, count: Callable[[str], int]) -> tuple[str, bool]:
    """(the system prompt with the house facts that fit max_tokens, whether they all did)."""
    kept = trim_to_tokens(facts, max_tokens, count)
    system = system.strip()
    return (system + FACTS_HEADER + kept if kept else system), len(kept) >= len(facts.strip())


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens a and b share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n
