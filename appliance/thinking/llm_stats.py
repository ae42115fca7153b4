"""The figures of one answer of the language model, and how they are worked out from its timings."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from appliance.contracts import AnswerStats

_LOGGER = logging.getLogger(__name__)


@dataclass
class LlmStats(AnswerStats):
    """AnswerStats plus the figures benchmarks and logs want."""

    evaluated_prompt_tokens: int = 0
    """Prompt tokens llama.cpp had to process (prompt_tokens - cached_prompt_tokens)."""
    prompt_eval_ms: float | None = None
    """Milliseconds spent processing those prompt tokens."""
    generation_ms: float | None = None
    """Milliseconds from the first token to the last (the span tokens_per_s is measured over)."""
    total_ms: float | None = None
    history_turns: int = 0
    """Earlier turns that fitted into this prompt."""
    max_new_tokens: int = 0

    def finish(self, probe: dict[str, Any], started: float, first_at: float | None, last_at: float | None,
               received: int) -> None:
        """Work out the figures once the answer is over.

        `probe` holds what the prompt reused ("kept", "evaluated", "eval_s"); the times are
        time.monotonic() at the start, at the first and at the last token; `received` counts the
        tokens sampled, the end-of-generation token included.
        """
        if "kept" in probe:
            self.cached_prompt_tokens = probe["kept"]
            self.evaluated_prompt_tokens = probe["evaluated"]
            self.prompt_eval_ms = probe["eval_s"] * 1000 if "eval_s" in probe else None
        if first_at is not None and last_at is not None and last_at > first_at and received > 1:
            # Each token after the first cost one decode: the streamed generation rate.
            self.generation_ms = (last_at - first_at) * 1000
            self.tokens_per_s = (received - 1) / (last_at - first_at)
        self.total_ms = (time.monotonic() - started) * 1000
        _LOGGER.debug("Answer: %d prompt tokens (%d cached), %d tokens, %s", self.prompt_tokens,
                      self.cached_prompt_tokens, self.tokens, self.stop_reason)
