"""Speech-recognition text for the skills: normalising, number words, durations, timer names, spoken time.

The logic is here; the words come from a language pack (appliance/language). The module-level
functions are the default pack's, for callers with no pack of their own.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from appliance.language import LanguagePack, pack

UNIT_S: Final = {"second": 1.0, "minute": 60.0, "hour": 3600.0}  # seconds per unit
_RANK: Final = {"second": 0, "minute": 1, "hour": 2}
_BY_RANK: Final = {0: "second", 1: "minute", 2: "hour"}
_DIGITS_RE: Final = re.compile(r"^\d+(\.\d+)?$")
DURATION_MARK: Final = "<d>"
"""What a duration's words are replaced by while a timer's name is looked for."""


@dataclass(frozen=True)
class Span:
    """A duration found in a token list: tokens[start:end] say `seconds`."""

    start: int
    end: int
    seconds: float


class SkillParser:
    """Reads requests in one language: its words, numbers, durations and timer names."""

    def __init__(self, words: LanguagePack) -> None:
        self.words = words
        n = words.numbers
        self._n = n
        self._t = words.timers
        self.name_stop: frozenset[str] = words.timers.name_stop | {DURATION_MARK}
        """Words that are never part of a timer's name."""
        self._name_ends = words.timers.name_ends | {DURATION_MARK}
        self._non_word = re.compile(rf"[^{n.letters}0-9.:]+")
        self._digit_letter = re.compile(rf"(?<=\d)(?=[{n.letters}])|(?<=[{n.letters}])(?=\d)")

    def normalize(self, text: str) -> list[str]:
        """Lower-case word tokens with contractions opened, punctuation gone and hyphens split."""
        n = self._n
        t = text.lower().replace("\u2019", "'").replace("\u2018", "'")
        t = re.sub(n.oclock[0], n.oclock[1], t)
        t = re.sub(r"(?<=\d),(?=\d{3}\b)", "", t)
        for pattern, repl in n.contractions:
            t = re.sub(pattern, repl, t)
        t = t.replace("'", "")
        t = self._digit_letter.sub(" ", t)  # 5min -> 5 min
        t = self._non_word.sub(" ", t)
        t = re.sub(r"(?<!\d)[.:]|[.:](?!\d)", " ", t)  # keep 1.5 and 7:30, drop sentence dots
        words = " " + " ".join(t.split()) + " "
        for wrong, right in n.phrase_fixes:
            words = words.replace(f" {wrong} ", f" {right} ")
        return words.split()

    def unit_of(self, token: str) -> str | None:
        """'minute' for minute/mins/minuets (and close misspellings), else None."""
        units = self._n.units
        if token in units:
            return units[token]
        if len(token) >= 5:
            close = difflib.get_close_matches(token, list(self._n.fuzzy_units), n=1, cutoff=0.8)
            if close:
                return units[close[0]]
        return None

    def _small(self, tokens: list[str], i: int) -> tuple[int, int] | None:
        """A whole number below 100 in words at i: (value, next index)."""
        if i >= len(tokens):
            return None
        ones, tens = self._n.ones, self._n.tens
        tok = tokens[i]
        if tok in tens:
            value = tens[tok]
            if i + 1 < len(tokens) and tokens[i + 1] in ones and 0 < ones[tokens[i + 1]] < 10:
                return value + ones[tokens[i + 1]], i + 2
            return value, i + 1
        if tok in ones:
            return ones[tok], i + 1
        return None

    def parse_number(self, tokens: list[str], i: int) -> tuple[float, int] | None:
        """A number at token i in digits or words ("1.5", "a hundred and twenty", "one point five")."""
        if i >= len(tokens):
            return None
        n = self._n
        tok = tokens[i]
        if _DIGITS_RE.match(tok):
            return float(tok), i + 1
        if tok in n.one_for_hundred and i + 1 < len(tokens) and tokens[i + 1] == n.hundred:
            small: tuple[int, int] | None = (1, i + 1)
        else:
            small = self._small(tokens, i)
        if small is None:
            if tok == n.couple or (tok in n.articles and tokens[i + 1: i + 2] == [n.couple]):
                j = i + (1 if tok == n.couple else 2)
                return 2.0, j + (1 if tokens[j: j + 1] == [n.of] else 0)
            return None
        value, j = small
        if tokens[j: j + 1] == [n.hundred] and 0 < value < 10:
            value *= 100
            j += 1
            k = j + 1 if tokens[j: j + 1] == [n.and_] else j
            rest = self._small(tokens, k)
            if rest is not None and rest[0] > 0:
                value += rest[0]
                j = rest[1]
        if tokens[j: j + 1] == [n.point] and j + 1 < len(tokens) and tokens[j + 1] in n.ones \
                and n.ones[tokens[j + 1]] < 10:
            return value + n.ones[tokens[j + 1]] / 10, j + 2
        return float(value), j

    def _term(self, tokens: list[str], i: int) -> tuple[float, int, int] | None:
        """One amount with its unit at i: (seconds, unit rank, next index)."""
        w = self._n
        n = len(tokens)
        tok = tokens[i] if i < n else ""
        # half an hour, half a minute, half hour
        if tok == w.half:
            j = i + 1 + (1 if i + 1 < n and tokens[i + 1] in w.articles else 0)
            unit = self.unit_of(tokens[j]) if j < n else None
            if unit:
                return 0.5 * UNIT_S[unit], _RANK[unit], j + 1
            return None
        # a quarter of an hour, three quarters of an hour, quarter hour
        j, share = i, 1.0
        if tok in w.a_quarter:
            j = i + 1
        elif tok in w.three and tokens[i + 1: i + 2] == [w.plural_quarters]:
            j, share = i + 1, 3.0
        if j < n and tokens[j] in w.quarters:
            k = j + 1
            while k < n and tokens[k] in w.quarter_fillers:
                k += 1
            if k < n and self.unit_of(tokens[k]) == "hour":
                return share * 900.0, _RANK["hour"], k + 1
        # a minute, an hour (the article counts as one)
        if tok in w.articles and i + 1 < n and self.unit_of(tokens[i + 1]):
            unit = self.unit_of(tokens[i + 1])
            assert unit is not None
            return UNIT_S[unit], _RANK[unit], i + 2
        number = self.parse_number(tokens, i)
        if number is None:
            if tok in w.homophones and i + 1 < n and self.unit_of(tokens[i + 1]):
                number = (float(w.homophones[tok]), i + 1)
            elif tok == w.doubled_four and i > 0 and tokens[i - 1] == w.doubled_four and i + 1 < n \
                    and self.unit_of(tokens[i + 1]):
                number = (4.0, i + 1)  # "for for minutes": "for four minutes" heard twice as "for"
            else:
                return None
        value, j = number
        half = list(w.and_a_half)
        if tokens[j: j + len(half)] == half and j + len(half) < n and self.unit_of(tokens[j + len(half)]):
            value += 0.5  # one and a half minutes
            j += len(half)
        unit = self.unit_of(tokens[j]) if j < n else None
        if unit is None:
            return None
        return value * UNIT_S[unit], _RANK[unit], j + 1

    def _quarters_after(self, tokens: list[str], j: int) -> float | None:
        """The share of a unit in "and a quarter" / "and three quarters" at j, said after the unit; else None."""
        w = self._n
        said = tokens[j: j + 3]
        if len(said) < 3 or said[0] != w.and_ or said[2] not in w.quarters:
            return None
        if said[1] in w.a_quarter:
            return 0.25
        return 0.75 if said[1] in w.three and said[2] == w.plural_quarters else None

    def find_durations(self, tokens: list[str]) -> list[Span]:
        """Every duration in the tokens; "an hour and ten minutes" is one, "5 minutes and 10 minutes" two."""
        w = self._n
        half = list(w.and_a_half)
        spans: list[Span] = []
        i, n = 0, len(tokens)
        while i < n:
            term = self._term(tokens, i)
            if term is None:
                number = self.parse_number(tokens, i)
                # "5 and 10 minutes": the bare number takes the unit of the term after "and"
                if number is not None and number[1] < n and tokens[number[1]] in w.bare_joins:
                    after = self._term(tokens, number[1] + 1)
                    if after is not None:
                        unit_s = UNIT_S[_BY_RANK[after[1]]]
                        spans.append(Span(i, number[1], number[0] * unit_s))
                        i = number[1] + 1
                        continue
                i += 1
                continue
            start = i
            seconds, rank, j = term
            halved = False
            while j < n:
                if not halved and tokens[j: j + len(half)] == half:
                    seconds += 0.5 * UNIT_S[_BY_RANK[rank]]  # a minute and a half
                    j, halved = j + len(half), True
                    continue
                if not halved and (share := self._quarters_after(tokens, j)) is not None:
                    seconds += share * UNIT_S[_BY_RANK[rank]]  # an hour and a quarter
                    j, halved = j + 3, True
                    continue
                k = j + 1 if tokens[j] == w.and_ else j
                nxt = self._term(tokens, k) if k < n else None
                if nxt is not None and nxt[1] < rank:
                    seconds += nxt[0]
                    rank, j = nxt[1], nxt[2]
                    continue
                if k == j and rank > 0:  # "an hour thirty", "two minutes thirty"
                    bare = self.parse_number(tokens, j)
                    if bare is not None and bare[0] not in (0, 1) and bare[0] < 60 and bare[0].is_integer() \
                            and not (bare[1] < n and self.unit_of(tokens[bare[1]])):
                        seconds += bare[0] * UNIT_S[_BY_RANK[rank - 1]]
                        rank, j = rank - 1, bare[1]
                        continue
                break
            spans.append(Span(start, j, seconds))
            i = j
        return spans

    # ---- timer requests: one piece per timer, and its name ----------------------------

    def segments(self, tokens: list[str], spans: list[Span]) -> list[tuple[Span, list[str], list[Span]]]:
        """One piece of the request per duration: 'a pasta timer for 8 minutes', 'and a sauce timer for 20'."""
        cuts = [0]
        for left, right in itertools.pairwise(spans):
            between = range(left.end, right.start)
            joins = [k for k in between if tokens[k] in self._t.piece_joins]
            starts = [k for k in between if tokens[k] in self._t.piece_starts]
            cuts.append(joins[-1] + 1 if joins else starts[0] if starts else right.start)
        cuts.append(len(tokens))
        out = []
        for span, lo, hi in zip(spans, cuts, cuts[1:]):
            out.append((span, tokens[lo:hi], [Span(span.start - lo, span.end - lo, span.seconds)]))
        return out

    def timer_name(self, tokens: list[str], spans: list[Span]) -> str | None:
        """The timer's name: 'pasta' in 'a pasta timer', 'timer called pasta', 'for the pasta'."""
        t = self._t
        seg = list(tokens)
        for span in spans:
            for k in range(max(0, span.start), min(len(seg), span.end)):
                seg[k] = DURATION_MARK

        def usable(word: str) -> bool:
            return word not in self.name_stop and self.unit_of(word) is None and self.parse_number([word], 0) is None

        for i, tok in enumerate(seg):
            if tok in t.name_introducers:
                k = i + 1
                while k < len(seg) and seg[k] in t.name_articles:
                    k += 1
                words = []
                while k < len(seg) and usable(seg[k]) and len(words) < 4:
                    words.append(seg[k])
                    k += 1
                if words and (k == len(seg) or seg[k] in self._name_ends):
                    return " ".join(words)
        for i, tok in enumerate(seg):
            if tok in t.timer_words:
                words = []
                k = i - 1
                while k >= 0 and usable(seg[k]) and len(words) < 3:
                    words.insert(0, seg[k])
                    k -= 1
                if words:
                    return " ".join(words)
        return None

    def rest_name(self, tokens: list[str]) -> str | None:
        """'the pasta one' -> 'pasta': what is left of a reply once articles and filler are gone."""
        words = [t for t in tokens if t not in self.name_stop]
        return " ".join(words) if words and len(words) <= 4 else None


# --------------------------------------------------------------------------------------
# The default pack's parser and phrasing, for callers without a pack of their own

_DEFAULT: Final = SkillParser(pack())
normalize: Final = _DEFAULT.normalize
unit_of: Final = _DEFAULT.unit_of
parse_number: Final = _DEFAULT.parse_number
find_durations: Final = _DEFAULT.find_durations
segments: Final = _DEFAULT.segments
timer_name: Final = _DEFAULT.timer_name
rest_name: Final = _DEFAULT.rest_name
TIMER_WORDS: Final = pack().timers.timer_words
NAME_STOP: Final = _DEFAULT.name_stop
"""Words that are never part of a timer's name."""


def number_words(value: int) -> str:
    """0..99 in words: 'twenty-three'."""
    return pack().say.number(value)


def say_duration(seconds: float, precision_s: int = 1) -> str:
    """'1 hour and 10 minutes', '1 minute and 30 seconds', rounded to precision_s."""
    return pack().say.duration(seconds, precision_s)


def say_remaining(seconds: float) -> str:
    """Time left, exact to the second under 5 minutes, to the minute after."""
    return pack().say.remaining(seconds)


def duration_label(seconds: float) -> str:
    """'10 minute', '1 hour 30 minute', '90 second': what an unnamed timer is called by."""
    return pack().say.duration_label(seconds)


def ordinal(day: int) -> str:
    """4 -> '4th', 22 -> '22nd'."""
    return pack().say.ordinal(day)


def say_time(now: datetime, style: str, clock: int) -> str:
    """'7:20 PM' / '19:20' (digits) or 'twenty past seven' / 'nineteen twenty' (words)."""
    return pack().say.time(now, style, clock)


def said_group(m: re.Match[str], prefix: str) -> str:
    """What a match holds in the first group whose name starts with `prefix` that took part ("items", "items2":
    one pattern, several ways of saying the same thing); empty when none did."""
    return next((v for k, v in m.groupdict().items() if k.startswith(prefix) and v), "")


def capital(text: str) -> str:
    """`text` with its first letter in capitals ("tomorrow you have..." -> "Tomorrow you have...")."""
    return text[:1].upper() + text[1:]


def swap_words(words: Sequence[str], swaps: Iterable[tuple[Sequence[str], Sequence[str]]]) -> str:
    """`words` said back to the listener: each run of words that starts a pair of `swaps` ("my") becomes its
    second ("your"); the first pair that fits at a place wins, so a longer run is listed before a shorter."""
    out: list[str] = []
    i = 0
    while i < len(words):
        for said, back in swaps:
            if tuple(words[i: i + len(said)]) == tuple(said):
                out.extend(back)
                i += len(said)
                break
        else:
            out.append(words[i])
            i += 1
    return " ".join(out)
