"""What the alarm and reminder skills share: reading when a request is for, saying it back, and the
question back each room is waiting to answer."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, time, timedelta
from typing import Final

from appliance.contracts import SkillReply
from appliance.language import LanguagePack
from appliance.thinking.alarms import Alarm, Alarms
from appliance.thinking.skillkit import RoomQuestions
from appliance.thinking.skillparse import SkillParser
from appliance.thinking.which import Choice, refer
from appliance.thinking.whenparse import EVERY_DAY, DaySpec, TimeOfDay, WhenParser, local, next_day, resolve

PENDING_S: Final = 30.0  # seconds a question back waits for its answer in the room it was asked
WEEKDAYS: Final = (0, 1, 2, 3, 4)
WEEKENDS: Final = (5, 6)


@dataclass(frozen=True)
class Asked:
    """A question back: what it waits for ('set' or 'cancel'), and what the request already said."""

    kind: str
    expires_at: float
    text: str = ""
    """A reminder's words, kept until its time is said."""
    days: DaySpec = field(default_factory=DaySpec)
    """The days said before the time was ("set an alarm for tomorrow")."""
    options: tuple[int, ...] = ()
    """The ids a 'cancel' question listed, in the order said ("the second one"); for 'other', the ones
    the request fitted."""
    done: tuple[Alarm, ...] = ()
    """'other': what was cancelled of `options`, as it was ("no, the other one" puts it back)."""


class Questions(RoomQuestions[Asked]):
    """Each room's question back of the alarms or the reminders. After an answer cancelled one of those listed,
    "the other one" is kept ('other') within `window_s`."""

    def __init__(self, clock: Callable[[], float], window_s: float = PENDING_S) -> None:
        super().__init__(clock)
        self.window_s = window_s
        """conversation.idle_reset_s: how long "the other one" refers to what the answer left."""

    def ask(self, room: str, kind: str, text: str = "", days: DaySpec | None = None,
            options: tuple[int, ...] = ()) -> None:
        self.put(room, Asked(kind, self.clock() + PENDING_S, text, days or DaySpec(), options))

    def acted(self, room: str, options: tuple[int, ...], done: tuple[Alarm, ...]) -> None:
        """Keep what an answer cancelled of the `options` listed, for "the other one"."""
        self.put(room, Asked("other", self.clock() + self.window_s, options=options, done=done))


def referred(words: LanguagePack, parse: SkillParser, asked: Asked, text: str, kept: list[Alarm]) -> list[Alarm] | None:
    """What `text` (normalised words) refers to of the alarms or reminders a 'cancel' question listed, or of
    those an 'other' kept ("the other one"), as thinking/which.py reads it: [] when it picks out no single
    one still kept (ask again), None when it is no reference."""
    said = {a.id: a for a in kept}
    options = [Choice(i, said[i].at if i in said else float("inf")) for i in asked.options]
    ids = refer(words.follow_ups.which, parse, text, options, [a.id for a in asked.done])
    return None if ids is None else [said[i] for i in ids if i in said]


@dataclass(frozen=True)
class Cancelling:
    """What an alarm or reminder skill gives the answer to its "which one should I cancel?" (cancel_answer):
    how it picks by words, cancels, asks again, and says one put back."""

    kept: list[Alarm]
    """The alarms (or reminders) kept now."""
    matching: Callable[[list[Alarm], list[str]], list[Alarm] | None]
    """Those the words pick out by their time, day or words."""
    cancelled: Callable[[list[Alarm]], SkillReply]
    which: Callable[[], SkillReply]
    """The question asked again."""
    back: Callable[[Alarm], str]
    """Said of one put back after "no, the other one"."""
    all_words: frozenset[str]
    """'all', 'both': every one kept."""


def cancel_answer(words: LanguagePack, parse: SkillParser, questions: Questions, alarms: Alarms, room: str,
                  asked: Asked, tokens: list[str], how: Cancelling) -> SkillReply | None:
    """The answer to an alarm or reminder skill's "which one should I cancel?" (or, after one was cancelled,
    to "and the other one"): by reference (thinking/which.py), "all"/"both", "yes" to the only one, or the
    words that pick some out; "no, the other one" puts back the one cancelled first. None: no answer."""
    text = " ".join(tokens)
    chosen = referred(words, parse, asked, text, how.kept)
    if chosen == []:  # "the other one" of three, "the third one" of two: asked again, never a guess
        return how.which() if len(how.kept) > 1 else None
    if chosen is None and asked.kind == "other":
        return None  # only "the other one" refers to what an answer left
    if chosen is None and (how.all_words & set(tokens)
                           or (tokens[0] in words.skills.yes and len(how.kept) == 1)):
        return how.cancelled(how.kept)
    if chosen is None:
        chosen = how.matching(how.kept, tokens)
    if not chosen:
        return None
    reply = how.cancelled(chosen)
    if asked.kind == "other":
        if words.follow_ups.which.correction.search(text):  # "no, the other one": not that one
            for alarm in asked.done:
                alarms.put_back(alarm)
            said = " ".join(how.back(a) for a in asked.done)
            reply = dataclasses.replace(reply, text=f"{reply.text} {said}")
    elif len(chosen) == 1 and len(asked.options) > 1:  # "and the other one?" next
        questions.acted(room, asked.options, tuple(chosen))
    return reply


class Schedule:
    """Reads when a request is for and says when an alarm is, in one language and clock."""

    def __init__(self, words: LanguagePack, parse: SkillParser, alarms: Alarms, hours: int) -> None:
        self.words = words
        self.parse = parse
        self.when = WhenParser(parse, words.schedule.when)
        self.alarms = alarms
        self.hours = hours
        """12 or 24: the clock times are said on."""

    def first(self, when: TimeOfDay, days: DaySpec, now: float, tz: str) -> tuple[date, time]:
        return resolve(when, days, now, tz)

    def said_time(self, alarm: Alarm) -> str:
        return self.words.schedule.said.clock(alarm.clock.hour, alarm.clock.minute, self.hours)

    def said_day(self, alarm: Alarm, now: float) -> str:
        s = self.words.schedule.said
        if alarm.days:
            if alarm.days == EVERY_DAY:
                return s.every_day
            if alarm.days == WEEKDAYS:
                return s.weekdays
            if alarm.days == WEEKENDS:
                return s.weekends
            return s.on_days.format(days=self.words.say.join([s.plural_names[d] for d in alarm.days]))
        ahead = (alarm.day - local(now, alarm.tz).date()).days
        if ahead <= 0:
            return s.today
        if ahead == 1:
            return s.tomorrow
        return s.on_day.format(weekday=s.weekday_names[alarm.day.weekday()])

    def said_when(self, alarm: Alarm, now: float) -> str:
        """'6:30 AM tomorrow', '6:45 AM on weekdays'."""
        return self.words.schedule.said.when.format(time=self.said_time(alarm), day=self.said_day(alarm, now))

    def matching(self, alarms: list[Alarm], tokens: list[str]) -> list[Alarm] | None:
        """The alarms a time or days said pick out ("the 7 o'clock alarm", "tomorrow's"); None when the
        words name neither."""
        when, days = self.when.time_of_day(tokens), self.when.days(tokens)
        if when is None and not days.said:
            return None
        chosen = list(alarms)
        if when is not None and not when.assumed:
            def same(a: Alarm) -> bool:
                hour = a.clock.hour % 12 if when.ambiguous else a.clock.hour
                return (hour, a.clock.minute) == (when.hour % 12 if when.ambiguous else when.hour, when.minute)
            chosen = [a for a in chosen if same(a)]
        if days.repeat:
            # "the weekend alarm": one that repeats on those days, else a one-off on one of them this week
            now = self.alarms.clock()
            chosen = [a for a in chosen if set(days.repeat) <= set(a.days)] or [
                a for a in chosen if not a.days and a.day.weekday() in days.repeat
                and 0 <= (a.day - local(now, a.tz).date()).days < 7]
        elif days.weekday is not None:
            chosen = [a for a in chosen if days.weekday in a.days or (not a.days and a.day.weekday() == days.weekday)]
        elif days.offset is not None:
            now = self.alarms.clock()
            chosen = [a for a in chosen if (a.day - local(now, a.tz).date()).days == days.offset
                      or (a.days and (local(now, a.tz).date().weekday() + days.offset) % 7 in a.days)]
        return chosen

    def days_asked(self, days: DaySpec, now: float, tz: str) -> list[date]:
        """The days a question is asked of, in the zone `tz`, in order: one ("what alarms do I have tomorrow",
        "is there one on Saturday"), or the coming ones of a kind ("this weekend", "on weekdays": each such
        day of the week from today on); [] when it names none, or a day gone (nothing kept rings then)."""
        if not days.said or (days.offset is not None and days.offset < 0):
            return []
        today = local(now, tz).date()
        if days.repeat:
            return sorted(today if today.weekday() == d else next_day(today, (d,)) for d in days.repeat)
        if days.offset is not None:
            return [today + timedelta(days=days.offset)]
        assert days.weekday is not None
        return [next_day(today, (days.weekday,))]  # the first such day after today, as the clock reads it

    def said_over(self, asked: list[date], now: float, tz: str, of_day: Callable[[date, str], str | None],
                  none: str) -> str:
        """What the days `asked` hold, said: `of_day(day, said_date)` for each day that holds something (None for
        one that holds nothing), or `none` once, its {day} the days asked ("on Saturday and on Sunday")."""
        said = [self.said_date(day, now, tz) for day in asked]
        texts = [text for day, when in zip(asked, said, strict=True) if (text := of_day(day, when))]
        return " ".join(texts) if texts else none.format(day=self.words.say.join(said))

    @staticmethod
    def on_day(alarms: list[Alarm], day: date) -> list[Alarm]:
        """The alarms (or reminders) that ring on the local date `day`: a one-off on it, a repeating one whose
        next day is not after it and that comes back on its weekday."""
        return [a for a in alarms if a.day == day or (a.days and day.weekday() in a.days and day >= a.day)]

    def said_date(self, day: date, now: float, tz: str) -> str:
        """A day as it is said in a reply: 'today', 'tomorrow', 'on Saturday'."""
        s = self.words.schedule.said
        ahead = (day - local(now, tz).date()).days
        return s.today if ahead == 0 else s.tomorrow if ahead == 1 else \
            s.on_day.format(weekday=s.weekday_names[day.weekday()])

    def alarms_at(self, alarms: list[Alarm]) -> str:
        """'an alarm at 6:45 AM', '2 alarms, at 6:30 AM and 7 AM': the alarms of one day, by their time."""
        w = self.words.alarm_words()
        if len(alarms) == 1:
            return w.one_at.format(time=self.said_time(alarms[0]))
        return w.many_at.format(count=len(alarms), times=self.words.say.join([self.said_time(a) for a in alarms]))

    def data(self, alarm: Alarm) -> dict:
        """An alarm as `appliance ask --json` shows it."""
        return {"id": alarm.id, "date": alarm.date, "time": alarm.time[:5], "tz": alarm.tz,
                "days": list(alarm.days), "at": round(alarm.at, 1), "room": alarm.room,
                **({"text": alarm.text} if alarm.kind == "reminder" else {})}
