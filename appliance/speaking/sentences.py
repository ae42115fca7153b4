"""Streaming sentence splitter: cuts a language model's text deltas into speakable pieces."""

from __future__ import annotations

import re
from typing import Final

from appliance.language import SentenceWords, pack

# An ASCII terminator ends a sentence only when whitespace follows it (so 3.14 and example.com stay whole).
TERMINATORS: Final = ".!?…"
# CJK full-width terminators end a sentence without a following space.
CJK_TERMINATORS: Final = "。！？"
# Closing quotes and brackets that stay with the sentence they close.
CLOSERS: Final = "\"'”’)]}»」』"
# Clause punctuation where the first piece of an answer may leave early.
CLAUSE_MARKS: Final = ",;:，；："
# Marks that end a piece when a word ends in one (a word's inner marks, as in 3,000 or 3.5, do not).
_PIECE_ENDS: Final = frozenset(TERMINATORS + CLAUSE_MARKS)
# Openers stripped before looking a word up as an abbreviation.
_OPENERS: Final = "\"'“‘([{«「『"

# Dotted initials ("u.s.a."): like the abbreviations that may end a sentence.
_DOTTED: Final = re.compile(r"(?:[a-z]\.)+[a-z]")
LIST_NUMBER_MAX_DIGITS: Final = 3


class SentenceSplitter:
    """Feed text deltas with add(); take whole sentences as soon as they are certain.

    A cut is made only once the text that decides it has arrived (the first character of the
    next sentence), so the output is the same however the text was chunked. The first piece
    of an answer may end at a clause mark (comma, semicolon, colon) after `first_clause_min_words`
    words, so speech can start sooner; 0 turns that off. With `first_phrase_max_words`, a first
    piece with no punctuation in its first words also leaves before the first phrase-starting
    word (the language's phrase_starts; the first piece may leave there when no punctuation comes
    early, "The capital of France | is Paris.", as RealtimeTTS's force_first_fragment_after_words does,
    but at a phrase boundary rather than at any word) from word `first_clause_min_words` to word
    `first_phrase_max_words`. Abbreviations come from `words` (the default pack's unless given).
    """

    def __init__(self, first_clause_min_words: int = 0, first_phrase_max_words: int = 0,
                 words: SentenceWords | None = None) -> None:
        self.first_clause_min_words = first_clause_min_words
        self.first_phrase_max_words = first_phrase_max_words
        self.words = words or pack().sentences
        self._text = ""
        self._start = 0
        self._pieces = 0

    def add(self, delta: str) -> list[str]:
        """Append a delta; return the pieces that are now complete."""
        self._text += delta
        return self._cut(final=False)

    def finish(self) -> list[str]:
        """End of the answer: return every remaining piece and start afresh."""
        out = self._cut(final=True)
        rest = self._text[self._start:].strip()
        if rest:
            out.append(rest)
        self.reset()
        return out

    def reset(self) -> None:
        """Forget everything (a new answer)."""
        self._text = ""
        self._start = 0
        self._pieces = 0

    # ---------------------------------------------------------------------------------

    def _cut(self, final: bool) -> list[str]:
        out: list[str] = []
        while True:
            cut = self._next_cut(final)
            if cut is None:
                break
            end, resume = cut
            piece = self._text[self._start:end].strip()
            self._start = resume
            if piece:
                out.append(piece)
                self._pieces += 1
        if self._start > 4096:  # keep the buffer short in a very long answer
            self._text = self._text[self._start:]
            self._start = 0
        return out

    def _piece_start(self) -> int:
        text, i = self._text, self._start
        while i < len(text) and text[i].isspace():
            i += 1
        return i

    def _next_cut(self, final: bool) -> tuple[int, int] | None:
        """(end of the piece, where the next one begins), or None until more text decides."""
        return self._phrase_cut(final) or self._punctuation_cut(final)

    def _phrase_cut(self, final: bool) -> tuple[int, int] | None:
        """A first piece that leaves before a phrase-starting word, once that word is complete."""
        if not self._clause_allowed() or self.first_phrase_max_words <= self.first_clause_min_words:
            return None
        words = list(re.finditer(r"\S+", self._text[self._start:]))
        for n, word in enumerate(words[: self.first_phrase_max_words + 1]):
            end = self._start + word.end()
            before = self._text[self._start + (words[n - 1].end() if n else 0):self._start + word.start()]
            if "\n" in before or _punctuated(word.group()):
                return None  # a line break or punctuation decides this piece
            if end == len(self._text) and not final:
                return None  # the word may go on
            if n >= self.first_clause_min_words and word.group().lower() in self.words.phrase_starts:
                begin = self._start + word.start()
                return self._start + words[n - 1].end(), begin
        return None

    def _punctuation_cut(self, final: bool) -> tuple[int, int] | None:
        text = self._text
        n = len(text)
        i = self._start
        while i < n:
            ch = text[i]
            if ch == "\n":
                return i, i + 1
            if ch in CJK_TERMINATORS:
                j = _skip(text, i, CJK_TERMINATORS + TERMINATORS + CLOSERS)
                if j == n and not final:
                    return None
                return j, j
            if ch in TERMINATORS or ch in CLAUSE_MARKS:
                clause = ch in CLAUSE_MARKS
                if clause and not self._clause_allowed():
                    i += 1
                    continue
                j = _skip(text, i, CLAUSE_MARKS if clause else TERMINATORS)
                j = _skip(text, j, CLOSERS)
                if j == n:
                    return (j, j) if final and not clause else None
                if not text[j].isspace():
                    i = j  # 3.14, 7:30, 3,000, example.com, "?!x"
                    continue
                k = j
                while k < n and text[k].isspace() and text[k] != "\n":
                    k += 1
                if k == n and not final:
                    return None  # the next word decides
                nxt = text[k] if k < n else ""
                if clause:
                    if len(text[self._start:i].split()) >= self.first_clause_min_words and nxt not in ("", "\n"):
                        return j, k
                elif self._ends_sentence(i, j, nxt):
                    return j, k
                i = j
                continue
            i += 1
        return None

    def _clause_allowed(self) -> bool:
        return self.first_clause_min_words > 0 and self._pieces == 0

    def _ends_sentence(self, i: int, run_end: int, nxt: str) -> bool:
        """Whether the terminator run starting at i ends a sentence, given the next character."""
        text = self._text
        run = text[i:run_end].rstrip(CLOSERS)
        if "!" in run or "?" in run:
            return True
        if run != ".":  # an ellipsis: a pause inside a sentence when a small letter follows
            return not nxt.islower()
        start = i
        piece_start = self._piece_start()
        while start > piece_start and not text[start - 1].isspace():
            start -= 1
        token = text[start:i].lstrip(_OPENERS)
        token_start = i - len(token)
        lower = token.lower()
        if lower in self.words.never_split:
            return False
        if token.isdigit() and len(token) <= LIST_NUMBER_MAX_DIGITS and token_start == piece_start:
            return False  # "1. Preheat the oven" (a list number)
        if len(token) == 1 and token.isalpha() and token.isupper():
            return False  # an initial: "J. Smith"
        if lower in self.words.split_if_capital or _DOTTED.fullmatch(lower):
            return nxt == "" or nxt.isupper()
        return True


def _punctuated(word: str) -> bool:
    """Whether a word ends in punctuation that may end a piece ("France,", "Paris.", "it?"): marks
    inside it are part of it (384,000, 3.5, 7:30, example.com); a CJK terminator counts anywhere."""
    return word.rstrip(CLOSERS)[-1:] in _PIECE_ENDS or any(ch in CJK_TERMINATORS for ch in word)


def _skip(text: str, i: int, chars: str) -> int:
    """The first index at or after i whose character is not in chars."""
    while i < len(text) and text[i] in chars:
        i += 1
    return i


def split_all(text: str, first_clause_min_words: int = 0, first_phrase_max_words: int = 0,
              words: SentenceWords | None = None) -> list[str]:
    """Split a whole text at once (what streaming the same text produces)."""
    splitter = SentenceSplitter(first_clause_min_words, first_phrase_max_words, words)
    return splitter.add(text) + splitter.finish()
