"""The clock as a local skill: the time, the date, the day, the month and the year, from the hub's own clock.

Works on text already normalised and stripped of "hey jarvis" and "please" (LocalSkills.match). Only the
time here is known: "what time is it in Tokyo" is answered with the local time, said as such.
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta, tzinfo
from typing import Final

from appliance.config import SkillsConfig
from appliance.contracts import SkillReply
from appliance.thinking.skillparse import ordinal, say_time
from appliance.thinking.timers import Clock

_REF: Final = "today|tomorrow|yesterday"
_TIME_RES: Final = [re.compile(p) for p in (
    r"\bwhat time is it(?P<rest>(?: \w+)*)$", r"\bwhat is the (?:current )?time(?P<rest>(?: \w+)*)$",
    r"^(?:the )?(?:current )?time(?: now| please| check)?$", r"\b(?:tell|give) me the time\b",
    r"\bdo you (?:know|have) (?:what time it is|the time)\b", r"\bwhat time do you have\b",
    r"\bhave you got the time\b", r"^what time$")]
_DATE_RES: Final = [re.compile(p) for p in (
    rf"^(?:what is )?(?:the )?(?:date|(?P<ref1>{_REF}) date)(?: (?P<ref2>{_REF})| now)?(?: please)?$",
    rf"\bwhat is (?:the )?(?:date|(?P<ref1>{_REF}) date)(?: (?P<ref2>{_REF})| now)?$",
    rf"\bwhat date is it(?: (?P<ref1>{_REF}))?$", rf"\bwhat date is (?P<ref1>{_REF})$",
    rf"\b(?:tell|give) me (?:the|(?P<ref1>{_REF})) date\b", r"\bwhat day of the month is it\b")]
_DAY_RES: Final = [re.compile(p) for p in (
    (rf"\b(?:what|which) day (?:of the week )?(?:is it|is (?P<ref1>{_REF})|was (?P<ref2>{_REF})"
     rf"|will it be (?P<ref3>{_REF}))(?: (?P<ref4>{_REF}))?$"), rf"^what is (?P<ref1>{_REF})$",
    rf"^(?:what|which) day(?: (?P<ref1>{_REF}))?$", rf"^what is the day(?: (?P<ref1>{_REF}))?$")]
_MONTH_YEAR_RE: Final = re.compile(r"^what (?P<what>month|year) is it(?: now| today)?$"
                                    r"|^what is the (?:current )?(?P<what2>month|year)$")
_IS_DAY_RE: Final = re.compile(
    r"^(?:is|will) (?:it|today|tomorrow)(?: be)? (?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"(?: today| tomorrow)?$")


class ClockSkill:
    """Answers what the hub's clock can: the time in `config.time_style`, and dates relative to today."""

    def __init__(self, config: SkillsConfig, clock: Clock = time.time, tz: tzinfo | None = None) -> None:
        self.config = config
        self.clock = clock
        self.tz = tz
        """None: the system's time zone."""

    def _now(self) -> datetime:
        now = datetime.fromtimestamp(self.clock(), tz=self.tz)
        return now if self.tz is not None else now.astimezone()

    def match(self, text: str) -> SkillReply | None:
        for pattern in _TIME_RES:
            m = pattern.search(text)
            if m is None:
                continue
            rest = (m.groupdict().get("rest") or "").strip()
            now = self._now()
            spoken = say_time(now, self.config.time_style, self.config.clock)
            data = {"time": now.strftime("%H:%M"), "tz": now.tzname()}
            if rest.startswith(("in ", "over ")):
                return SkillReply(f"I only know the time here. It's {spoken}.", "time", data=data)
            if rest and rest not in ("now", "right now", "here", "at the moment", "currently"):
                continue
            return SkillReply(f"It's {spoken}.", "time", data=data)
        for intent, patterns in (("date", _DATE_RES), ("day", _DAY_RES)):
            for pattern in patterns:
                m = pattern.search(text)
                if m is not None:
                    refs = [v for k, v in m.groupdict().items() if k.startswith("ref") and v]
                    return self._day_reply(intent, refs[0] if refs else "today")
        m = _MONTH_YEAR_RE.search(text)
        if m is not None:
            now = self._now()
            said = now.strftime("%B %Y") if "month" in (m["what"], m["what2"]) else str(now.year)
            return SkillReply(f"It's {said}.", "date", data={"date": now.date().isoformat()})
        m = _IS_DAY_RE.match(text)
        if m is not None:
            ref = "tomorrow" if "tomorrow" in text.split() else "today"
            day = self._day(ref)
            answer = "Yes" if day.strftime("%A").lower() == m["day"] else "No"
            verb = "it's" if ref == "today" else "tomorrow is"
            return SkillReply(f"{answer}, {verb} {day.strftime('%A')}.", "day",
                              data={"date": day.date().isoformat(), "weekday": day.strftime("%A")})
        return None

    def _day(self, ref: str) -> datetime:
        return self._now() + timedelta(days={"today": 0, "tomorrow": 1, "yesterday": -1}[ref])

    def _day_reply(self, intent: str, ref: str) -> SkillReply:
        day = self._day(ref)
        lead = {"today": "It's", "tomorrow": "Tomorrow is", "yesterday": "Yesterday was"}[ref]
        text = f"{lead} {day.strftime('%A')}"
        if intent == "date":
            text += f", {day.strftime('%B')} {ordinal(day.day)}, {day.year}"
        return SkillReply(text + ".", intent, data={"date": day.date().isoformat(), "weekday": day.strftime("%A")})
