"""Alarms at a time of day as a local skill: set ("wake me up at half past six"), listed, cancelled.

Asked before the timers (skillkit.ALARMS), so a request with an alarm and a time of day is an alarm; one with
a length of time ("set an alarm for 20 minutes", "wake me up in an hour") is left to the timers. The alarms
ring through Timers.due (thinking/alarms.py); "stop" silences them (stop_skill).
"""

from __future__ import annotations

import dataclasses
import logging
from datetime import date

from appliance.contracts import SkillReply
from appliance.errors import TimerError
from appliance.thinking.alarms import ALARM, Alarm
from appliance.thinking.honesty import is_request
from appliance.thinking.schedule import Asked, Cancelling, Questions, Schedule, cancel_answer
from appliance.thinking.skillkit import ALARMS, SkillKit, local_skill
from appliance.thinking.skillparse import capital
from appliance.thinking.stop_skill import stopped
from appliance.thinking.whenparse import DaySpec, TimeOfDay, zone_key

_LOGGER = logging.getLogger(__name__)


class AlarmSkill:
    """Sets, lists and cancels the alarms kept in `kit.timers.alarms`, in the zone of `kit.tz`."""

    def __init__(self, kit: SkillKit) -> None:
        self.kit = kit
        self.w = kit.words.alarm_words()
        self.alarms = kit.timers.alarms
        self.schedule = Schedule(kit.words, kit.parse, self.alarms, kit.config.clock)
        self.questions = Questions(kit.clock, kit.follow_up_s)
        self.tz = zone_key(kit.tz)
        """The zone new alarms keep: the hub's, by name."""

    def match(self, text: str, room: str = "") -> SkillReply | None:
        w, tokens = self.w, text.split()
        asked = self.questions.take(room)
        if asked is not None:
            reply = self._answer(asked, tokens, room)
            if reply is not None:
                return reply
        if not (w.alarm_words & set(tokens) or w.wake_re.search(text)):
            return None
        if w.cancel_re.match(text):
            return self._cancel(tokens, room)
        if w.list_re.search(text) or w.state_re.match(text):
            return self._list(tokens)  # "is my alarm on for tomorrow?": the alarms kept, never a question back
        if not is_request(text, self.kit.words):
            return None  # "how do I set an alarm on my phone?": a question for the model
        when = self.schedule.when.time_of_day(self._asked_part(tokens))
        if when is None and self.kit.parse.find_durations(tokens):
            return None  # a length of time: a timer
        if when is None or when.assumed:  # "set an alarm for tomorrow morning": at what time?
            self.questions.ask(room, "set", days=self.schedule.when.days(tokens))
            return SkillReply(w.ask_time, "alarm_clarify", data={"waiting_for": "time"})
        return self._set(tokens, room, when=when)

    def _asked_part(self, tokens: list[str]) -> list[str]:
        """The words from the request on, when they say a time: "my train's at eight, wake me at six fifteen"
        is an alarm at six fifteen; a time said only before the request ("at six, wake me") is the alarm's."""
        found = self.w.wake_re.search(" ".join(tokens))
        start = (" ".join(tokens)[:found.start()].count(" ") if found
                 else next((i for i, t in enumerate(tokens) if t in self.w.alarm_words), 0))
        rest = tokens[start:]
        return rest if start and self.schedule.when.time_of_day(rest) is not None else tokens

    def _answer(self, asked: Asked, tokens: list[str], room: str) -> SkillReply | None:
        if asked.kind == "set":
            when = self.schedule.when.time_of_day(tokens, answer=True)
            if when is not None:
                days = self.schedule.when.days(tokens)
                return self._set(tokens, room, days if days.said else asked.days, when)
            if any(self.kit.parse.parse_number(tokens, i) for i in range(len(tokens))):
                self.questions.ask(room, "set", days=asked.days)
                return SkillReply(self.w.ask_time_again, "alarm_clarify", data={"waiting_for": "time"})
            return None
        alarms = self.alarms.all(ALARM)
        back = self.kit.words.follow_ups.which.back_alarm
        how = Cancelling(alarms, self.schedule.matching, self._cancelled, lambda: self._which(room, alarms),
                         lambda a: back.format(when=self.schedule.said_when(a, self.kit.clock())), self.w.all_words)
        return cancel_answer(self.kit.words, self.kit.parse, self.questions, self.alarms, room, asked, tokens, how)

    def _set(self, tokens: list[str], room: str, days: DaySpec | None = None,
             when: TimeOfDay | None = None) -> SkillReply:
        when = when or self.schedule.when.time_of_day(tokens)
        assert when is not None
        said = " ".join(tokens)
        if when.ambiguous and (self.w.wake_re.search(said) or self.w.morning_re.search(said)):  # morning
            when = dataclasses.replace(when, hour=when.hour % 12, ambiguous=False)
        days = days if days is not None else self.schedule.when.days(tokens)
        now = self.kit.clock()
        day, at = self.schedule.first(when, days, now, self.tz)
        try:
            alarm = self.alarms.add(ALARM, day, at, self.tz, days.repeat, room=room)
        except TimerError as exc:
            _LOGGER.error("Cannot set an alarm: %s", exc)
            return SkillReply(self.w.cannot_set.format(error=exc), "alarm_error", data={"error": str(exc)})
        return SkillReply(self.w.set.format(when=self.schedule.said_when(alarm, now)), "alarm_set",
                          data={"alarms": [self.schedule.data(alarm)]})

    def _list(self, tokens: list[str]) -> SkillReply:
        """The alarms kept; asked of one day ("what alarms do I have tomorrow"), those of that day only."""
        w, now = self.w, self.kit.clock()
        alarms = self.alarms.all(ALARM)
        data: dict = {"alarms": [self.schedule.data(a) for a in alarms]}
        if not alarms:
            return SkillReply(w.none, "alarm_list", data=data)
        asked = self.schedule.days_asked(self.schedule.when.days(tokens), now, self.tz)
        if asked:
            def of_day(day: date, said: str) -> str | None:
                held = self.schedule.on_day(alarms, day)
                return w.on_day.format(Day=capital(said), alarms=self.schedule.alarms_at(held)) if held else None

            chosen = [a for a in alarms if any(self.schedule.on_day([a], day) for day in asked)]
            data = {"alarms": [self.schedule.data(a) for a in chosen], "date": asked[0].isoformat(),
                    "dates": [day.isoformat() for day in asked]}
            return SkillReply(self.schedule.said_over(asked, now, self.tz, of_day, w.none_on_day), "alarm_list",
                              data=data)
        if len(alarms) == 1:
            return SkillReply(w.one.format(when=self.schedule.said_when(alarms[0], now)), "alarm_list", data=data)
        return SkillReply(w.many.format(count=len(alarms), whens=self._whens(alarms)), "alarm_list", data=data)

    def _whens(self, alarms: list[Alarm]) -> str:
        now = self.kit.clock()
        return self.kit.words.say.join([self.schedule.said_when(a, now) for a in alarms])

    def _cancel(self, tokens: list[str], room: str) -> SkillReply:
        w = self.w
        alarms = self.alarms.all(ALARM)
        chosen = self.schedule.matching(alarms, tokens)
        everything = bool(w.all_words & set(tokens)) or (chosen is None and bool(w.plural_words & set(tokens)))
        if chosen is None and not everything and (self.kit.timers.ringing() or self.alarms.ringing()):
            return stopped(self.kit.timers)  # "turn off the alarm" while one rings
        if not alarms:
            return SkillReply(w.none, "alarm_cancel", data={"cancelled": []})
        if everything:
            return self._cancelled(alarms)
        if chosen is not None:
            if not chosen:
                said = self.schedule.when.time_of_day(tokens)
                listing = w.one.format(when=self._whens(alarms)) if len(alarms) == 1 else \
                    w.many.format(count=len(alarms), whens=self._whens(alarms))
                text = w.not_found_other.format(listing=listing) if said is None or said.assumed else \
                    w.not_found.format(time=self._hour(said.hour, said.minute, said.ambiguous), listing=listing)
                return SkillReply(text, "alarm_cancel", data={"cancelled": []})
            if len(chosen) == 1 or len(chosen) < len(alarms):
                return self._cancelled(chosen)
        if len(alarms) == 1:
            return self._cancelled(alarms)
        return self._which(room, alarms)

    def _which(self, room: str, alarms: list[Alarm]) -> SkillReply:
        """Which of the `alarms` to cancel, asked in `room`; the answer may say one by its place in the list."""
        self.questions.ask(room, "cancel", options=tuple(a.id for a in alarms))
        return SkillReply(self.w.which.format(count=len(alarms), whens=self._whens(alarms)), "alarm_clarify",
                          data={"waiting_for": "which"})

    def _cancelled(self, chosen: list[Alarm]) -> SkillReply:
        now = self.kit.clock()
        before = len(self.alarms.all(ALARM))
        gone = self.alarms.cancel([a.id for a in chosen])
        if len(gone) == 1:
            text = self.w.cancelled_one.format(when=self.schedule.said_when(gone[0], now))
        else:
            text = self.w.cancelled_all.format(count=len(gone)) if len(gone) == before else \
                self.w.cancelled_some.format(count=len(gone), whens=self._whens(gone))
        return SkillReply(text, "alarm_cancel", data={"cancelled": [a.id for a in gone]})

    def _hour(self, hour: int, minute: int, ambiguous: bool) -> str:
        """A time asked for as said back: '7 AM', or '7' when it was said without morning or evening."""
        said = self.kit.words.schedule.said
        return said.bare(hour, minute) if ambiguous else said.clock(hour, minute, self.kit.config.clock)


@local_skill("alarms", ALARMS)
def _build(kit: SkillKit) -> AlarmSkill:
    return AlarmSkill(kit)
