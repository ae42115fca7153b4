"""Speech-recognition text for the skills: normalising, number words, durations, timer names, spoken time."""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

UNIT_S: Final = {"second": 1.0, "minute": 60.0, "hour": 3600.0}  # seconds per unit
_RANK: Final = {"second": 0, "minute": 1, "hour": 2}
_BY_RANK: Final = {0: "second", 1: "minute", 2: "hour"}

_UNIT_ALIASES: Final = {
    "second": "second", "seconds": "second", "sec": "second", "secs": "second",
    "minute": "minute", "minutes": "minute", "min": "minute", "mins": "minute",
    "minuets": "minute", "minuet": "minute", "minits": "minute", "minit": "minute", "minuts": "minute",
    "hour": "hour", "hours": "hour", "hr": "hour", "hrs": "hour",
}
_ONES: Final = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS: Final = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
                "seventy": 70, "eighty": 80, "ninety": 90}
# Words recognisers write for a number they misheard; trusted only right before a unit.
_HOMOPHONES: Final = {"to": 2, "too": 2, "won": 1, "ate": 8, "tree": 3, "fore": 4}
_DIGITS_RE: Final = re.compile(r"^\d+(\.\d+)?$")

_CONTRACTIONS: Final = [
    (r"\b(today|tomorrow|yesterday)'?s\b", r"\1"),
    (r"\bwhat's\b|\bwhats\b", "what is"), (r"\bthat's\b|\bthats\b", "that is"),
    (r"\bit's\b", "it is"), (r"\bhow's\b", "how is"), (r"\bhere's\b", "here is"),
    (r"\bthere's\b", "there is"), (r"\btime's\b", "time is"), (r"\bi've\b", "i have"),
    (r"\bwhat're\b", "what are"), (r"\blet's\b", "let us"),
]
# Whole-phrase misrecognitions that are always safe to repair.
_PHRASE_FIXES: Final = [("time her", "timer"), ("time hers", "timers"), ("time are", "timer"),
                        ("a m", "am"), ("p m", "pm"), ("count down", "countdown"),
                        ("nevermind", "never mind")]


def normalize(text: str) -> list[str]:
    """Lower-case word tokens with contractions opened, punctuation gone and hyphens split."""
    t = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    t = re.sub(r"\bo'?\s?clock\b", " oclock ", t)
    t = re.sub(r"(?<=\d),(?=\d{3}\b)", "", t)
    for pattern, repl in _CONTRACTIONS:
        t = re.sub(pattern, repl, t)
    t = t.replace("'", "")
    t = re.sub(r"(?<=\d)(?=[a-z])|(?<=[a-z])(?=\d)", " ", t)  # 5min -> 5 min
    t = re.sub(r"[^a-z0-9.:]+", " ", t)
    t = re.sub(r"(?<!\d)[.:]|[.:](?!\d)", " ", t)  # keep 1.5 and 7:30, drop sentence dots
    words = " " + " ".join(t.split()) + " "
    for wrong, right in _PHRASE_FIXES:
        words = words.replace(f" {wrong} ", f" {right} ")
    return words.split()


def unit_of(token: str) -> str | None:
    """'minute' for minute/mins/minuets (and close misspellings), else None."""
    if token in _UNIT_ALIASES:
        return _UNIT_ALIASES[token]
    if len(token) >= 5:
        close = difflib.get_close_matches(token, ["seconds", "minutes"], n=1, cutoff=0.8)
        if close:
            return _UNIT_ALIASES[close[0]]
    return None


def _small(tokens: list[str], i: int) -> tuple[int, int] | None:
    """A whole number below 100 in words at i: (value, next index)."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if tok in _TENS:
        value = _TENS[tok]
        if i + 1 < len(tokens) and tokens[i + 1] in _ONES and 0 < _ONES[tokens[i + 1]] < 10:
            return value + _ONES[tokens[i + 1]], i + 2
        return value, i + 1
    if tok in _ONES:
        return _ONES[tok], i + 1
    return None


def parse_number(tokens: list[str], i: int) -> tuple[float, int] | None:
    """A number at token i in digits or words ("1.5", "a hundred and twenty", "one point five")."""
    if i >= len(tokens):
        return None
    tok = tokens[i]
    if _DIGITS_RE.match(tok):
        return float(tok), i + 1
    if tok in ("a", "an", "one") and i + 1 < len(tokens) and tokens[i + 1] == "hundred":
        small: tuple[int, int] | None = (1, i + 1)
    else:
        small = _small(tokens, i)
    if small is None:
        if tok == "couple" or (tok == "a" and tokens[i + 1: i + 2] == ["couple"]):
            j = i + (2 if tok == "a" else 1)
            return 2.0, j + (1 if tokens[j: j + 1] == ["of"] else 0)
        return None
    value, j = small
    if tokens[j: j + 1] == ["hundred"] and 0 < value < 10:
        value *= 100
        j += 1
        k = j + 1 if tokens[j: j + 1] == ["and"] else j
        rest = _small(tokens, k)
        if rest is not None and rest[0] > 0:
            value += rest[0]
            j = rest[1]
    if tokens[j: j + 1] == ["point"] and j + 1 < len(tokens) and tokens[j + 1] in _ONES \
            and _ONES[tokens[j + 1]] < 10:
        return value + _ONES[tokens[j + 1]] / 10, j + 2
    return float(value), j


@dataclass(frozen=True)
class Span:
    """A duration found in a token list: tokens[start:end] say `seconds`."""

    start: int
    end: int
    seconds: float


def _term(tokens: list[str], i: int) -> tuple[float, int, int] | None:
    """One amount with its unit at i: (seconds, unit rank, next index)."""
    n = len(tokens)
    tok = tokens[i] if i < n else ""
    # half an hour, half a minute, half hour
    if tok == "half":
        j = i + 1 + (1 if tokens[i + 1: i + 2] in (["a"], ["an"]) else 0)
        unit = unit_of(tokens[j]) if j < n else None
        if unit:
            return 0.5 * UNIT_S[unit], _RANK[unit], j + 1
        return None
    # a quarter of an hour, three quarters of an hour, quarter hour
    j, share = i, 1.0
    if tok in ("a", "one"):
        j = i + 1
    elif tok in ("three", "3") and tokens[i + 1: i + 2] == ["quarters"]:
        j, share = i + 1, 3.0
    if tokens[j: j + 1] in (["quarter"], ["quarters"]):
        k = j + 1
        while k < n and tokens[k] in ("of", "an", "a"):
            k += 1
        if k < n and unit_of(tokens[k]) == "hour":
            return share * 900.0, _RANK["hour"], k + 1
    # a minute, an hour (the article counts as one)
    if tok in ("a", "an") and i + 1 < n and unit_of(tokens[i + 1]):
        unit = unit_of(tokens[i + 1])
        assert unit is not None
        return UNIT_S[unit], _RANK[unit], i + 2
    number = parse_number(tokens, i)
    if number is None:
        if tok in _HOMOPHONES and i + 1 < n and unit_of(tokens[i + 1]):
            number = (float(_HOMOPHONES[tok]), i + 1)
        elif tok == "for" and i > 0 and tokens[i - 1] == "for" and i + 1 < n and unit_of(tokens[i + 1]):
            number = (4.0, i + 1)  # "for for minutes": "for four minutes" heard twice as "for"
        else:
            return None
    value, j = number
    if tokens[j: j + 3] == ["and", "a", "half"] and j + 3 < n and unit_of(tokens[j + 3]):
        value += 0.5  # one and a half minutes
        j += 3
    unit = unit_of(tokens[j]) if j < n else None
    if unit is None:
        return None
    return value * UNIT_S[unit], _RANK[unit], j + 1


def find_durations(tokens: list[str]) -> list[Span]:
    """Every duration in the tokens; "an hour and ten minutes" is one, "5 minutes and 10 minutes" two."""
    spans: list[Span] = []
    i, n = 0, len(tokens)
    while i < n:
        term = _term(tokens, i)
        if term is None:
            number = parse_number(tokens, i)
            # "5 and 10 minutes": the bare number takes the unit of the term after "and"
            if number is not None and tokens[number[1]: number[1] + 1] in (["and"], ["or"]):
                after = _term(tokens, number[1] + 1)
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
            if not halved and tokens[j: j + 3] == ["and", "a", "half"]:
                seconds += 0.5 * UNIT_S[_BY_RANK[rank]]  # a minute and a half
                j, halved = j + 3, True
                continue
            k = j + 1 if tokens[j] == "and" else j
            nxt = _term(tokens, k) if k < n else None
            if nxt is not None and nxt[1] < rank:
                seconds += nxt[0]
                rank, j = nxt[1], nxt[2]
                continue
            if k == j and rank > 0:  # "an hour thirty", "two minutes thirty"
                bare = parse_number(tokens, j)
                if bare is not None and bare[0] not in (0, 1) and bare[0] < 60 and bare[0].is_integer() \
                        and not (bare[1] < n and unit_of(tokens[bare[1]])):
                    seconds += bare[0] * UNIT_S[_BY_RANK[rank - 1]]
                    rank, j = rank - 1, bare[1]
                    continue
            break
        spans.append(Span(start, j, seconds))
        i = j
    return spans


# --------------------------------------------------------------------------------------
# Timer requests: one piece per timer, and its name

TIMER_WORDS: Final = frozenset({"timer", "timers", "alarm", "alarms", "countdown", "countdowns"})
_NAME_STOP_TEXT: Final = (
    "a an the my our your this that these those another new second quick one some any all every both each "
    "set start make create put add begin run give need want get cancel stop delete remove clear kill end "
    "dismiss abort forget reset turn switch off on up for to of and or me us it i you can could would will "
    "please now called named labeled labelled timer timers alarm alarms countdown countdowns <d> is are what "
    "how much long many left remaining check in at do does have has with")
NAME_STOP: Final = frozenset(_NAME_STOP_TEXT.split())
"""Words that are never part of a timer's name."""


def segments(tokens: list[str], spans: list[Span]) -> list[tuple[Span, list[str], list[Span]]]:
    """One piece of the request per duration: 'a pasta timer for 8 minutes', 'and a sauce timer for 20'."""
    cuts = [0]
    for left, right in itertools.pairwise(spans):
        between = range(left.end, right.start)
        joins = [k for k in between if tokens[k] in ("and", "then", "plus")]
        starts = [k for k in between if tokens[k] in ("a", "an", "another", "one", "the")]
        cuts.append(joins[-1] + 1 if joins else starts[0] if starts else right.start)
    cuts.append(len(tokens))
    out = []
    for span, lo, hi in zip(spans, cuts, cuts[1:]):
        out.append((span, tokens[lo:hi], [Span(span.start - lo, span.end - lo, span.seconds)]))
    return out


def timer_name(tokens: list[str], spans: list[Span]) -> str | None:
    """The timer's name: 'pasta' in 'a pasta timer', 'timer called pasta', 'for the pasta'."""
    seg = list(tokens)
    for span in spans:
        for k in range(max(0, span.start), min(len(seg), span.end)):
            seg[k] = "<d>"

    def usable(word: str) -> bool:
        return word not in NAME_STOP and unit_of(word) is None and parse_number([word], 0) is None

    for i, tok in enumerate(seg):
        if tok in ("called", "named", "labeled", "labelled", "for"):
            k = i + 1
            while k < len(seg) and seg[k] in ("the", "my", "a", "an", "our"):
                k += 1
            words = []
            while k < len(seg) and usable(seg[k]) and len(words) < 4:
                words.append(seg[k])
                k += 1
            if words and (k == len(seg) or seg[k] in ("<d>", "and", "please", "timer", "for", "now")):
                return " ".join(words)
    for i, tok in enumerate(seg):
        if tok in TIMER_WORDS:
            words = []
            k = i - 1
            while k >= 0 and usable(seg[k]) and len(words) < 3:
                words.insert(0, seg[k])
                k -= 1
            if words:
                return " ".join(words)
    return None


def rest_name(tokens: list[str]) -> str | None:
    """'the pasta one' -> 'pasta': what is left of a reply once articles and filler are gone."""
    words = [t for t in tokens if t not in NAME_STOP]
    return " ".join(words) if words and len(words) <= 4 else None


# --------------------------------------------------------------------------------------
# Speaking numbers, durations and the time

_WORDS_ONES: Final = [w for w, _ in sorted(_ONES.items(), key=lambda kv: kv[1])]
_WORDS_TENS: Final = {v: w for w, v in _TENS.items() if w != "fourty"}


def number_words(value: int) -> str:
    """0..99 in words: 'twenty-three'."""
    if value < 20:
        return _WORDS_ONES[value]
    tens, ones = divmod(value, 10)
    return _WORDS_TENS[tens * 10] + (f"-{_WORDS_ONES[ones]}" if ones else "")


def _plural(value: int, unit: str) -> str:
    return f"{value} {unit}" + ("" if value == 1 else "s")


def say_duration(seconds: float, precision_s: int = 1) -> str:
    """'1 hour and 10 minutes', '1 minute and 30 seconds', rounded to precision_s."""
    total = int(round(seconds / precision_s) * precision_s)
    if total <= 0:
        return "0 seconds" if precision_s == 1 else _plural(0, "minute")
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [_plural(v, u) for v, u in ((hours, "hour"), (minutes, "minute"), (secs, "second")) if v]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def say_remaining(seconds: float) -> str:
    """Time left, exact to the second under 5 minutes, to the minute after."""
    if seconds < 300:
        return say_duration(max(1.0, seconds))
    return say_duration(seconds, precision_s=60)


def duration_label(seconds: float) -> str:
    """'10 minute', '1 hour 30 minute', '90 second': what an unnamed timer is called by."""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{v} {u}" for v, u in ((hours, "hour"), (minutes, "minute"), (secs, "second")) if v]
    return " ".join(parts) or "0 second"


def ordinal(day: int) -> str:
    """4 -> '4th', 22 -> '22nd'."""
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def say_time(now: datetime, style: str, clock: int) -> str:
    """'7:20 PM' / '19:20' (digits) or 'twenty past seven' / 'nineteen twenty' (words)."""
    h, m = now.hour, now.minute
    if style == "digits":
        if clock == 12:
            return f"{h % 12 or 12}:{m:02d} {'AM' if h < 12 else 'PM'}"
        return f"{h}:{m:02d}"
    if m == 0 and h in (0, 12):
        return "midnight" if h == 0 else "noon"
    if clock == 24:
        if m == 0:
            return f"{number_words(h)} hundred"
        return f"{number_words(h)} {'oh ' if m < 10 else ''}{number_words(m)}"
    hour = number_words(h % 12 or 12)
    next_hour = number_words((h + 1) % 12 or 12)
    if m == 0:
        return f"{hour} o'clock"
    if m in (15, 45):
        return f"quarter past {hour}" if m == 15 else f"quarter to {next_hour}"
    if m == 30:
        return f"half past {hour}"
    minutes = m if m < 30 else 60 - m
    amount = number_words(minutes) + ("" if minutes % 5 == 0 else " minute" if minutes == 1 else " minutes")
    return f"{amount} past {hour}" if m < 30 else f"{amount} to {next_hour}"
