"""The clock as a local skill: the time, the date, the day, the month and the year, from the hub's own clock.

Works on text already normalised and stripped of "hey jarvis" and "please" (LocalSkills.match). Only the
time here is known: "what time is it in Tokyo" is answered with the local time, said as such.
"""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta, tzinfo
from typing import Final

from appliance.config import SkillsConfig
from appliance.contracts import SkillReply
from appliance.language import LanguagePack, pack
from appliance.thinking.skillkit import CLOCK, SkillKit, local_skill
from appliance.thinking.skillparse import SkillParser
from appliance.thinking.timers import Clock
from appliance.thinking.whenparse import WhenParser, next_day

MONTHS_LOOKED: Final = 49  # months a day of the month is looked for in, either way: 4 years, for February 29th


class ClockSkill:
    """Answers what the hub's clock can: the time in `config.time_style`, and dates relative to today."""

    def __init__(self, config: SkillsConfig, clock: Clock = time.time, tz: tzinfo | None = None,
                 words: LanguagePack | None = None) -> None:
        self.config = config
        self.clock = clock
        self.tz = tz
        """None: the system's time zone."""
        self.words = words or pack()
        self.when = WhenParser(SkillParser(self.words), self.words.schedule.when)
        """Reads another day said ("next Friday", "the day after tomorrow", "the 20th")."""

    def _now(self) -> datetime:
        now = datetime.fromtimestamp(self.clock(), tz=self.tz)
        return now if self.tz is not None else now.astimezone()

    def match(self, text: str, room: str = "") -> SkillReply | None:
        """The hub's time or a date; every room shares the hub's clock, so `room` changes nothing."""
        w = self.words.clock
        for pattern in w.time_res:
            m = pattern.search(text)
            if m is None:
                continue
            rest = (m.groupdict().get("rest") or "").strip()
            now = self._now()
            spoken = self.words.say.time(now, self.config.time_style, self.config.clock)
            data = {"time": now.strftime("%H:%M"), "tz": now.tzname()}
            if rest.startswith(w.elsewhere_starts):
                return SkillReply(w.time_here_only.format(time=spoken), "time", data=data)
            if rest and rest not in w.here_words:
                continue
            return SkillReply(w.time_reply.format(time=spoken), "time", data=data)
        for intent, patterns in (("date", w.date_of_res), ("day", w.day_of_res)):  # another day, said in full
            for pattern in patterns:
                m = pattern.match(text)
                past = bool(m and m.groupdict().get("past"))
                if m is not None and (reply := self._other_day(intent, m["when"].split(), past)):
                    return reply
        for intent, patterns in (("date", w.date_res), ("day", w.day_res)):
            for pattern in patterns:
                m = pattern.search(text)
                if m is not None:
                    refs = [v for k, v in m.groupdict().items() if k.startswith("ref") and v]
                    return self._day_reply(intent, refs[0] if refs else w.today)
        m = w.month_year_re.search(text)
        if m is not None:
            now = self._now()
            said = w.month_year_reply.format(month=w.months[now.month - 1], year=now.year) \
                if w.month_word in (m["what"], m["what2"]) else w.year_reply.format(year=now.year)
            return SkillReply(said, "date", data={"date": now.date().isoformat()})
        m = w.is_day_re.match(text)
        if m is not None:
            ref = w.tomorrow if w.tomorrow in text.split() else w.today
            day = self._day(ref)
            weekday = w.weekdays[day.weekday()]
            answer = w.yes if weekday.lower() == m["day"] else w.no
            return SkillReply(w.is_day_reply.format(answer=answer, lead=w.is_day_leads[ref], weekday=weekday),
                              "day", data={"date": day.date().isoformat(), "weekday": day.strftime("%A")})
        return None

    def _day(self, ref: str) -> datetime:
        return self._now() + timedelta(days=self.words.clock.day_offsets[ref])

    def _other_day(self, intent: str, tokens: list[str], past: bool) -> SkillReply | None:
        """The date or the weekday of the day `tokens` say ("next Friday", "the day after tomorrow", "in 3 days",
        "the 20th"); None unless every word is part of it ("what's the date of Easter next year" is the model's)."""
        w = self.words.clock
        days = self.when.days(tokens)
        if days.said and self.when.only(tokens, days.used):
            if days.offset is not None:
                return self._offset_reply(intent, days.offset)
            today = self._now().date()
            if days.repeat:  # "the weekend": its first day, today's if it is one of them
                day = today if today.weekday() in days.repeat else next_day(today, days.repeat)
            else:
                # A weekday named is the first such day after today, "next" or "this" said or not: "next Friday"
                # said on a Wednesday is in two days (as an alarm for it rings), "next Wednesday" in a week.
                assert days.weekday is not None
                day = next_day(today, (days.weekday,))
            text = w.weekday_reply.format(weekday=w.weekdays[day.weekday()], month=w.months[day.month - 1],
                                          day=self.words.say.ordinal(day.day))
            return SkillReply(text, intent, data={"date": day.isoformat(), "weekday": day.strftime("%A")})
        found = self.when.date_of_month(tokens)
        if found is None or not self.when.only(tokens, found[2]):
            return None
        day_of_month, month, _ = found
        on = self._month_day(day_of_month, month, past)
        if on is None:
            return None  # "the 31st of April"
        today, ordinal = self._now().date(), self.words.say.ordinal(on.day)
        if on.year != today.year:
            said = w.month_day_year.format(month=w.months[on.month - 1], day=ordinal, year=on.year)
        elif month is not None or on.month != today.month:  # "the 31st" asked in June is July's: said so
            said = w.month_day.format(month=w.months[on.month - 1], day=ordinal)
        else:
            said = w.the_day.format(day=ordinal)
        text = (w.month_day_was if past else w.month_day_is).format(date=said, weekday=w.weekdays[on.weekday()])
        return SkillReply(text, intent, data={"date": on.isoformat(), "weekday": on.strftime("%A")})

    def _offset_reply(self, intent: str, offset: int) -> SkillReply | None:
        """The date or weekday `offset` days from today, led as the pack says that day."""
        w = self.words.clock
        ref = next((name for name, days in w.day_offsets.items() if days == offset), None)
        if ref is not None:
            return self._day_reply(intent, ref)
        lead = w.offset_leads.get(offset) or (w.in_days_lead.format(count=offset) if offset > 0 else None)
        return None if lead is None else self._dated(intent, self._now() + timedelta(days=offset), lead)

    def _month_day(self, day: int, month: int | None, past: bool) -> date | None:
        """The date a day of the month said is: the next to come (today counts), or with `past` the last gone;
        in the month said, else in the first month that has that day."""
        today = self._now().date()
        step = -1 if past else 1
        at = today.year * 12 + today.month - 1
        for _ in range(MONTHS_LOOKED):
            year, index = divmod(at, 12)
            at += step
            if month is not None and index + 1 != month:
                continue
            try:
                on = date(year, index + 1, day)
            except ValueError:  # the 31st of a month of 30 days
                continue
            if (on <= today) if past else (on >= today):
                return on
        return None

    def _day_reply(self, intent: str, ref: str) -> SkillReply:
        return self._dated(intent, self._day(ref), self.words.clock.day_leads[ref])

    def _dated(self, intent: str, day: datetime, lead: str) -> SkillReply:
        """The date (or the weekday) of `day`, after its lead ("Tomorrow is")."""
        w = self.words.clock
        weekday = w.weekdays[day.weekday()]
        if intent == "date":
            text = w.date_reply.format(lead=lead, weekday=weekday, month=w.months[day.month - 1],
                                       day=self.words.say.ordinal(day.day), year=day.year)
        else:
            text = w.day_reply.format(lead=lead, weekday=weekday)
        return SkillReply(text, intent, data={"date": day.date().isoformat(), "weekday": day.strftime("%A")})


@local_skill("clock", CLOCK)
def _build(kit: SkillKit) -> ClockSkill:
    return ClockSkill(kit.config, kit.clock, kit.tz, words=kit.words)
