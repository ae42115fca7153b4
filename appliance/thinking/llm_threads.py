"""How many CPU threads the model writes with: all cores for an answer's first phrase, then one fewer.

While the first phrase is being written nothing else runs (the question has been heard, speech
has not started), so every core goes to it. Once it is written Piper starts speaking it and the
model goes on with one core fewer, so speech and the model do not fight for the same core.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Final

PHRASE_END: Final = re.compile(r"[.!?,;:]")  # where the splitter may hand the first piece to speech
PHRASE_TOKENS: Final = 16  # with no such mark, the first phrase is over after this many tokens
MIN_TOKENS: Final = 3  # a mark in the first tokens ("1.", "Sure,") does not end the phrase yet


def default_threads() -> tuple[int, int]:
    """(generation threads, prompt threads): physical cores minus one (at least 1), and all cores."""
    logical = os.cpu_count() or 1
    try:
        import psutil

        physical = psutil.cpu_count(logical=False) or logical
    except ImportError:  # psutil is optional here
        physical = logical
    return max(1, physical - 1), max(1, logical)


class PhraseThreads:
    """Sets the generation threads for one answer: `first` until its first phrase is written, then `rest`.

    `apply(generation, batch)` is llama.cpp's llama_set_n_threads on the context.
    """

    def __init__(self, apply: Callable[[int, int], None], first: int, rest: int, batch: int) -> None:
        self.apply, self.first, self.rest, self.batch = apply, first, rest, batch
        self._tokens = 0
        self._done = first == rest
        if not self._done:
            apply(first, batch)

    def wrote(self, text: str) -> None:
        """One more token's text: back to `rest` threads once the first phrase is over."""
        if self._done:
            return
        self._tokens += 1
        if self._tokens >= PHRASE_TOKENS or (self._tokens >= MIN_TOKENS and PHRASE_END.search(text)):
            self.end()

    def end(self) -> None:
        if not self._done:
            self._done = True
            self.apply(self.rest, self.batch)
