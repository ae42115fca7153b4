"""Times of day and days in a request ("half past six tomorrow", "7 am on weekdays"), and the local date and
instant they mean in a time zone, right across a change of the clocks.

The words come from the pack (`LanguagePack.schedule.when`), the numbers from SkillParser. A time is kept
as the wall-clock time and the zone's name; its instant is worked out from the local date each time, so an
alarm for 6:30 rings at 06:30 on the morning after the clocks change.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from appliance.language.schedule import WhenWords
from appliance.thinking.skillparse import SkillParser

_LOGGER = logging.getLogger(__name__)

_DIGITS_TIME_RE: Final = re.compile(r"^(\d{1,2})[:.](\d\d)$")
_FOUR_DIGITS_RE: Final = re.compile(r"^(\d{1,2})(\d\d)$")
_FIXED_RE: Final = re.compile(r"^UTC([+-])(\d\d):(\d\d)$")
DAYS_IN_WEEK: Final = 7
EVERY_DAY: Final = tuple(range(DAYS_IN_WEEK))


@dataclass(frozen=True)
class TimeOfDay:
    """A time of day as asked: the hour on the clock said, and whether it is morning or afternoon."""

    hour: int
    """0-23 when `ambiguous` is False; else 1-12, morning or afternoon as decided by `resolve`."""
    minute: int
    ambiguous: bool
    """Said on a 12-hour clock without am/pm or a part of the day ("at 6")."""
    used: frozenset[int]
    """The indices of the tokens it was said in."""
    assumed: bool = False
    """No time was said, only a part of the day ("tomorrow morning"): its usual hour."""


@dataclass(frozen=True)
class DaySpec:
    """The days a time is for: one day (today, tomorrow, a weekday) or the days it repeats on."""

    offset: int | None = None
    """0 today, 1 tomorrow; None when not said."""
    weekday: int | None = None
    """One named day, Monday 0."""
    repeat: tuple[int, ...] = ()
    """The weekdays it comes back on; () for once."""
    used: frozenset[int] = frozenset()

    @property
    def said(self) -> bool:
        return self.offset is not None or self.weekday is not None or bool(self.repeat)


class WhenParser:
    """Reads a time of day and days out of normalised tokens, in one language."""

    def __init__(self, parse: SkillParser, words: WhenWords) -> None:
        self.parse = parse
        self.w = words
        self._parts = sorted(words.parts.items(), key=lambda kv: -len(kv[0]))

    def time_of_day(self, tokens: list[str], answer: bool = False) -> TimeOfDay | None:
        """The first time of day in the tokens, with am/pm or a part of the day applied; None without one.
        An `answer` to "what time?" may be a bare number ("seven")."""
        part = self._part(tokens)
        for i in range(len(tokens)):
            found = self._clock_at(tokens, i, answer and i == 0)
            if found is None:
                continue
            hour, minute, end, meridiem, ambiguous = found
            used = set(range(i, end))
            if end < len(tokens) and tokens[end] in self.w.am | self.w.pm:
                meridiem = "am" if tokens[end] in self.w.am else "pm"
                used.add(end)
            if meridiem is None and part is not None:
                meridiem = part[0]
            if ambiguous and meridiem is not None:
                hour, ambiguous = hour % 12 + (12 if meridiem == "pm" else 0), False
            if part is not None:
                used |= part[2]
            return TimeOfDay(hour, minute, ambiguous, frozenset(used))
        if part is not None:
            return TimeOfDay(part[1], 0, False, frozenset(part[2]), assumed=True)
        return None

    def _part(self, tokens: list[str]) -> tuple[str, int, set[int]] | None:
        """('am' or 'pm', its usual hour, its tokens) of a part of the day said ("in the morning")."""
        for words, (meridiem, hour) in self._parts:
            k = len(words)
            for i in range(len(tokens) - k + 1):
                if tuple(tokens[i: i + k]) == words:
                    return meridiem, hour, set(range(i, i + k))
        return None

    def _number(self, tokens: list[str], i: int) -> tuple[int, int] | None:
        number = self.parse.parse_number(tokens, i)
        if number is None or not number[0].is_integer():
            return None
        return int(number[0]), number[1]

    def _clock_at(self, tokens: list[str], i: int, cued: bool = False) -> tuple[int, int, int, str | None, bool] | None:
        """(hour, minute, end index, 'am'/'pm' when the words say it, ambiguous) of a time said at i."""
        w, n, tok = self.w, len(tokens), tokens[i]
        if tok in w.noon:
            return 12, 0, i + 1, None, False
        if tok in w.midnight:
            return 0, 0, i + 1, None, False
        cued = cued or self._cued(tokens, i)
        m = _DIGITS_TIME_RE.match(tok) or (_FOUR_DIGITS_RE.match(tok) if len(tok) >= 3 and cued else None)
        if m is not None:
            hour, minute = int(m[1]), int(m[2])
            if hour > 23 or minute > 59:
                return None
            end = i + 1 + (1 if tokens[i + 1: i + 2] and tokens[i + 1] in w.oclock else 0)
            return hour, minute, end, None, 1 <= hour <= 12 and not m[1].startswith("0")
        # 'half past six', 'half six', 'quarter to seven', 'twenty past six', 'ten minutes to seven'
        minutes: int | None = None
        j = i
        if tok in w.half:
            minutes, j = 30, i + 1
        elif tok in w.quarter or (tok in self.parse.words.numbers.articles and tokens[i + 1: i + 2]
                                  and tokens[i + 1] in w.quarter):
            minutes, j = 15, i + (1 if tok in w.quarter else 2)
        else:
            number = self._number(tokens, i)
            if number is not None and 1 <= number[0] <= 29:
                minutes, j = number
                if j < n and tokens[j] in w.minute_words:
                    j += 1
        if tok in w.half_to:  # 'halb sieben': half an hour before seven
            hour = self._number(tokens, i + 1)
            after = hour[1] if hour is not None else n
            if hour is not None and 1 <= hour[0] <= 12 and not (after < n and self.parse.unit_of(tokens[after])):
                return (hour[0] - 1) or 12, 30, after + (1 if after < n and tokens[after] in w.oclock else 0), None, True
        if tok in w.half_hour and j < n and tokens[j] not in w.past | w.to:  # 'half six': half past six
            hour = self._number(tokens, j)
            after = hour[1] if hour is not None else n
            if hour is not None and 1 <= hour[0] <= 12 and not (after < n and self.parse.unit_of(tokens[after])):
                return hour[0], 30, after + (1 if after < n and tokens[after] in w.oclock else 0), None, True
        if minutes is not None and j < n and tokens[j] in w.past | w.to:
            hour = self._number(tokens, j + 1)
            if hour is not None and 1 <= hour[0] <= 12 and not (tok in w.half and tokens[j] in w.to):
                h = hour[0]
                if tokens[j] in w.to:
                    h, minutes = (h - 1) or 12, 60 - minutes
                end = hour[1] + (1 if tokens[hour[1]: hour[1] + 1] and tokens[hour[1]] in w.oclock else 0)
                return h, minutes, end, None, True
        # 'six thirty', 'six oh five', 'at 7', '7 oclock', '19 45'
        number = self._number(tokens, i)
        if number is None or not 0 <= number[0] <= 23 or (tok.isdigit() and len(tok) > 2):
            return None
        hour, j = number
        if j < n and self.parse.unit_of(tokens[j]):
            return None  # '20 minutes': a length of time
        minute, end = 0, j
        said_minutes = False
        if j + 1 < n and tokens[j] in w.oh:
            after = self._number(tokens, j + 1)
            if after is not None and 0 <= after[0] <= 9 and after[1] == j + 2:
                minute, end, said_minutes = after[0], after[1], True
        else:
            after = self._number(tokens, j)
            if after is not None and 10 <= after[0] <= 59 and not (after[1] < n and self.parse.unit_of(tokens[after[1]])):
                minute, end, said_minutes = after[0], after[1], True
        oclock = end < n and tokens[end] in w.oclock
        marked = end + (1 if oclock else 0)
        if oclock and not said_minutes and w.minutes_after_oclock:  # '19 uhr 30'
            after = self._number(tokens, marked)
            if after is not None and 0 <= after[0] <= 59 and not (after[1] < n and self.parse.unit_of(tokens[after[1]])):
                minute, marked, said_minutes = after[0], after[1], True
        meridiem_next = marked < n and tokens[marked] in w.am | w.pm
        if not (said_minutes or oclock or meridiem_next or cued):
            return None
        return hour, minute, marked, None, 1 <= hour <= 12

    def _cued(self, tokens: list[str], i: int) -> bool:
        return i > 0 and tokens[i - 1] in self.w.cues

    def days(self, tokens: list[str]) -> DaySpec:
        """The days said: today, tomorrow, another day by its distance ("the day after tomorrow", "in 3 days"),
        one weekday, or those it repeats on ("on weekdays", "every Monday")."""
        w = self.w
        offset: int | None = None
        named: list[int] = []
        repeat: set[int] = set()
        used: set[int] = set()
        every = False
        part_words = {word for words in w.parts for word in words}
        apart = self._offset(tokens)
        for i, tok in enumerate(tokens):
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if apart is not None and i in apart[1]:
                if i == min(apart[1]):
                    offset = apart[0]
                    used |= apart[1]
                else:
                    continue
            elif tok in w.today or tok in w.tonight:
                offset = 0
            elif tok in w.tomorrow:
                offset = 1
            elif tok in w.groups:
                repeat |= set(w.groups[tok])
            elif tok in w.every and (nxt in w.day_word or nxt in part_words):
                repeat |= set(EVERY_DAY)
                if nxt in w.day_word:
                    used.add(i + 1)
            elif tok in w.every:
                every = True
            elif tok in w.weekdays:
                (repeat.add if tok in w.plural_days or every else named.append)(w.weekdays[tok])
            else:
                if tok not in w.day_fillers:
                    every = False
                continue
            used.add(i)
            k = i - 1
            while k >= 0 and (tokens[k] in w.day_fillers or tokens[k] in w.every):
                used.add(k)
                k -= 1
        if repeat or len(named) > 1:
            return DaySpec(None, None, tuple(sorted(repeat | set(named))), frozenset(used))
        return DaySpec(offset, named[0] if named else None, (), frozenset(used))

    def only(self, tokens: list[str], used: frozenset[int]) -> bool:
        """Whether every word is part of the day read (`used`) or one that goes with a day ("on", "the"): "next
        Friday" is only a day, "the date of Easter next year" is not."""
        return all(i in used or tok in self.w.day_fillers for i, tok in enumerate(tokens))

    def _offset(self, tokens: list[str]) -> tuple[int, set[int]] | None:
        """(days from today, the tokens' indices) of a day said by its distance: one of `offsets` ("the day
        after tomorrow", "yesterday") or an amount of days ahead ("in 3 days", "a week from now")."""
        w = self.w
        for words, days in sorted(w.offsets.items(), key=lambda kv: -len(kv[0])):
            for i in range(len(tokens) - len(words) + 1):
                if tuple(tokens[i: i + len(words)]) == words:
                    return days, set(range(i, i + len(words)))
        articles = self.parse.words.numbers.articles
        for i, tok in enumerate(tokens):
            number = (1, i + 1) if tok in articles else self._number(tokens, i)
            if number is None or number[1] >= len(tokens) or tokens[number[1]] not in w.day_units:
                continue
            end = number[1] + 1
            ahead = number[0] * w.day_units[tokens[number[1]]]
            after = next((k for k in w.from_now if tuple(tokens[end: end + len(k)]) == k), None)
            if i > 0 and tokens[i - 1] in w.in_days:
                return ahead, set(range(i - 1, end + len(after or ())))
            if after is not None:
                return ahead, set(range(i, end + len(after)))
        return None

    def date_of_month(self, tokens: list[str]) -> tuple[int, int | None, frozenset[int]] | None:
        """(day, month or None, the tokens' indices) of a day of the month said ("the 20th", "the twentieth of
        June", "June the 20th"); None without one. Which month and year it is in is the asker's to decide."""
        w, n = self.w, len(tokens)
        tens = self.parse.words.numbers.tens
        for i, tok in enumerate(tokens):
            nxt = tokens[i + 1] if i + 1 < n else ""
            if tok.isdigit() and nxt in w.ordinal_ends:
                day, end = int(tok), i + 2
            elif tok in tens and nxt in w.ordinals and w.ordinals[nxt] < 10:
                day, end = tens[tok] + w.ordinals[nxt], i + 2
            elif tok in w.ordinals:
                day, end = w.ordinals[tok], i + 1
            else:
                continue
            if not 1 <= day <= 31:
                return None
            used = set(range(i, end))
            month: int | None = None
            if end + 1 < n and tokens[end] in w.of and tokens[end + 1] in w.months:  # "the 20th of June"
                month = w.months[tokens[end + 1]]
                used |= {end, end + 1}
            elif end < n and tokens[end] in w.months:  # "the 20th June"
                month = w.months[tokens[end]]
                used.add(end)
            else:  # "June 20th", "June the 20th"
                k = i - 1 - (1 if i > 1 and tokens[i - 1] in w.day_fillers else 0)
                if k >= 0 and tokens[k] in w.months:
                    month = w.months[tokens[k]]
                    used |= set(range(k, i))
            return day, month, frozenset(used)
        return None


# --------------------------------------------------------------------------------------
# Zones and instants


def zone_key(tz: tzinfo | None) -> str:
    """The name an alarm keeps its zone by: the IANA key, 'UTC', or '' for the system's zone."""
    if isinstance(tz, ZoneInfo):
        return tz.key
    if tz is None:
        return system_key()
    offset = tz.utcoffset(None)
    if isinstance(tz, timezone) and offset is not None:  # a fixed offset, kept as one: 'UTC+02:00'
        minutes = int(offset.total_seconds()) // 60
        return f"UTC{'-' if minutes < 0 else '+'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    _LOGGER.warning("Time zone %r has no name; alarms keep the system's", tz)
    return ""


def system_key() -> str:
    """The system zone's IANA name: TZ's, or what /etc/localtime links to when TZ is unset; '' when it has
    none, and for a TZ that is a POSIX rule ("<+0530>-05:30", "CET-1CEST,M3.5.0,M10.5.0/3"): then the C
    library's local time, which follows that rule, is used."""
    if os.environ.get("TZ"):
        key = os.environ["TZ"].lstrip(":")
        return key if _iana(key) else ""
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        return ""
    key = target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else ""
    return key if _iana(key) else ""


def _iana(key: str) -> bool:
    """Whether `key` names a zone of the IANA database (POSIX rules and the hub's 'UTC+02:00' do not)."""
    try:
        ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return bool(key)


def zone(key: str) -> tzinfo | None:
    """The zone called `key`; None for '' or an unknown name: then the system's local time is used."""
    if not key:
        return None
    fixed = _FIXED_RE.match(key)
    if fixed is not None:
        sign = -1 if fixed[1] == "-" else 1
        return timezone(sign * timedelta(hours=int(fixed[2]), minutes=int(fixed[3])))
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        _LOGGER.warning("Unknown time zone %r; using the system's", key)
        return None


def instant(day: date, at: time, key: str, fold: int = 0) -> float:
    """Seconds since the epoch of the wall-clock time `at` on `day` in the zone `key` (a time the clocks
    skip over comes out at the same distance after the change)."""
    return datetime.combine(day, at, tzinfo=zone(key)).replace(fold=fold).timestamp()


def local(now: float, key: str) -> datetime:
    """The wall-clock time in the zone `key` at `now` (naive for the system's zone)."""
    tz = zone(key)
    return datetime.fromtimestamp(now, tz=tz) if tz is not None else datetime.fromtimestamp(now)


def next_day(after: date, repeat: tuple[int, ...]) -> date:
    """The first date after `after` whose weekday is in `repeat`."""
    day = after + timedelta(days=1)
    while day.weekday() not in repeat:
        day += timedelta(days=1)
    return day


def resolve(when: TimeOfDay, days: DaySpec, now: float, key: str) -> tuple[date, time]:
    """The local date and time of the first occurrence after `now`: the next one of the day said to come
    ("at 6" is the next 6 o'clock; a repeating alarm without am/pm is in the morning)."""
    today = local(now, key).date()
    hours = [when.hour] if not when.ambiguous else \
        ([when.hour % 12] if days.repeat else [when.hour % 12, when.hour % 12 + 12])
    if days.repeat:
        day = today if today.weekday() in days.repeat else next_day(today, days.repeat)
        candidates = [day, next_day(day, days.repeat)]
    elif days.weekday is not None:
        ahead = (days.weekday - today.weekday()) % DAYS_IN_WEEK
        candidates = [today + timedelta(days=ahead), today + timedelta(days=ahead + DAYS_IN_WEEK)]
    elif days.offset is not None:
        day = today + timedelta(days=days.offset)
        candidates = [day, day + timedelta(days=1)]
    else:
        candidates = [today, today + timedelta(days=1)]
    for day in candidates:
        for hour in hours:
            at = time(hour, when.minute)
            if instant(day, at, key) > now:
                return day, at
    return candidates[-1], time(hours[0], when.minute)
