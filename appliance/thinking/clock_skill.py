"""The clock as a local skill: the time, the date, the day, the month and the year, from the hub's own clock.

Works on text already normalised and stripped of "hey jarvis" and "please" (LocalSkills.match). Only the
time here is known: "what time is it in Tokyo" is answered with the local time, said as such.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, tzinfo

from appliance.config import SkillsConfig
from appliance.contracts import SkillReply
from appliance.language import LanguagePack, pack
from appliance.thinking.skillkit import CLOCK, SkillKit, local_skill
from appliance.thinking.timers import Clock


class ClockSkill:
    """Answers what the hub's clock can: the time in `config.time_style`, and dates relative to today."""

    def __init__(self, config: SkillsConfig, clock: Clock = time.time, tz: tzinfo | None = None,
                 words: LanguagePack | None = None) -> None:
        self.config = config
        self.clock = clock
        self.tz = tz
        """None: the system's time zone."""
        self.words = words or pack()

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

    def _day_reply(self, intent: str, ref: str) -> SkillReply:
        w = self.words.clock
        day = self._day(ref)
        lead, weekday = w.day_leads[ref], w.weekdays[day.weekday()]
        if intent == "date":
            text = w.date_reply.format(lead=lead, weekday=weekday, month=w.months[day.month - 1],
                                       day=self.words.say.ordinal(day.day), year=day.year)
        else:
            text = w.day_reply.format(lead=lead, weekday=weekday)
        return SkillReply(text, intent, data={"date": day.date().isoformat(), "weekday": day.strftime("%A")})


@local_skill("clock", CLOCK)
def _build(kit: SkillKit) -> ClockSkill:
    return ClockSkill(kit.config, kit.clock, kit.tz, words=kit.words)
