"""Reminders as a local skill: "remind me to take the bins out at 8 tomorrow", listed and cancelled.

At its time the hub says the reminder's words, turned to the listener ("Reminder: call your mum."), in the
room it was asked, rung like a timer (thinking/alarms.py through Timers.due). Without a time it asks for
one, and the next words said in that room ("at 6 pm", "in an hour") set it. "Remind me in 20 minutes",
which says no more than a timer, is left to the timers.
"""

from __future__ import annotations

import logging
from datetime import date, time

from appliance.contracts import SkillReply
from appliance.errors import TimerError
from appliance.thinking.alarms import ALARM, REMINDER, Alarm
from appliance.thinking.honesty import is_request
from appliance.thinking.schedule import Asked, Cancelling, Questions, Schedule, cancel_answer
from appliance.thinking.skillkit import REMINDERS, SkillKit, local_skill
from appliance.thinking.skillparse import Span, capital, swap_words
from appliance.thinking.stop_skill import stopped
from appliance.thinking.whenparse import DaySpec, TimeOfDay, local, zone_key

_LOGGER = logging.getLogger(__name__)


class ReminderSkill:
    """Sets, lists and cancels the reminders kept in `kit.timers.alarms`, in the zone of `kit.tz`."""

    def __init__(self, kit: SkillKit) -> None:
        self.kit = kit
        self.w = kit.words.reminder_words()
        self.alarms = kit.timers.alarms
        self.schedule = Schedule(kit.words, kit.parse, self.alarms, kit.config.clock)
        self.questions = Questions(kit.clock, kit.follow_up_s)
        self.tz = zone_key(kit.tz)
        self._swaps = sorted(self.w.swaps.items(), key=lambda kv: -len(kv[0]))

    def match(self, text: str, room: str = "") -> SkillReply | None:
        w, tokens = self.w, text.split()
        asked = self.questions.take(room)
        if asked is not None:
            reply = self._answer(asked, tokens, room)
            if reply is not None:
                return reply
        named = bool(w.reminder_words & set(tokens))
        if named and (w.cancel_re.match(text) or self._cancel_after(tokens)):
            return self._cancel(tokens, room)  # by every word said: "I rang the dentist, drop the reminder"
        days = self.schedule.when.days(tokens)
        rest = self._without_day(tokens, days)  # "any reminders for tomorrow" -> "any reminders"
        if (named and (w.list_re.search(text) or w.list_re.search(rest))) or \
                (w.asked_words & set(tokens) and w.state_re.match(text)):
            return self._list(days)  # "what have I asked you to remind me about?": the reminders kept, never a guess
        for pattern in w.whats_on_res:  # "what's on for Saturday": its alarms and reminders
            said = pattern.match(text)
            if said is not None and (reply := self._whats_on(said["when"].split())) is not None:
                return reply
        m = w.remind_re.match(text)
        if m is not None:
            return self._request(tokens[len(text[: m.end()].split()):], room)
        m = w.remind_after_re.search(text)
        if m is None or not self._is_request_after(text[: m.start()].split(), m.group(0)):
            return None
        after = tokens[len(text[: m.end()].split()):]
        before = w.duty_re.sub("", text[: m.start()]).split()  # "I have to call my sister": call my sister
        when, _days, spans, what = self._read(after)
        # "I keep losing my keys, remind me at 8 to take them": the request says all; "the plumber comes at
        # ten, remind me at half nine": what came before is what to be reminded of
        return self._request(after if what and (when or spans) else after + before, room)

    def _cancel_after(self, tokens: list[str]) -> bool:
        """A cancel said after why ("I've put the bins out, you can forget that reminder"), in a request."""
        return any(self.w.cancel_re.match(" ".join(tokens[k:])) for k in range(1, len(tokens))) \
            and is_request(" ".join(tokens), self.kit.words)

    def _is_request_after(self, before: list[str], asking: str) -> bool:
        """Words before the request (`asking`: "remind me") that tell what it is about or when ("the plumber
        comes at ten", "in an hour"), not a question about reminding ("how do I get my phone to")."""
        return bool(before) and before[0] not in self.kit.words.timers.question_start \
            and is_request(f"{' '.join(before)} {asking}", self.kit.words)

    def _read(self, rest: list[str]) -> tuple[TimeOfDay | None, DaySpec, list[Span], str]:
        """The time, days, length of time and words of a reminder said as `rest`."""
        when = self.schedule.when.time_of_day(rest)
        days = self.schedule.when.days(rest)
        spans = self.kit.parse.find_durations(rest) if when is None else []
        used = set(days.used) | (set(when.used) if when is not None else set())
        if spans:
            used |= set(range(spans[0].start, spans[0].end))
        return when, days, spans, self._what(rest, used)

    def _request(self, rest: list[str], room: str) -> SkillReply | None:
        when, days, spans, what = self._read(rest)
        if spans:
            return self._set_in(spans[0].seconds, what, room) if what else None  # no words: a timer
        if when is None:
            self.questions.ask(room, "set", text=what, days=days)
            return SkillReply(self.w.ask_when, "reminder_clarify", data={"waiting_for": "time", "text": what})
        return self._set_at(when, days, what, room)

    def _answer(self, asked: Asked, tokens: list[str], room: str) -> SkillReply | None:
        if asked.kind == "set":
            when = self.schedule.when.time_of_day(tokens, answer=True)
            days = self.schedule.when.days(tokens)
            spans = self.kit.parse.find_durations(tokens) if when is None else []
            if spans:
                return self._set_in(spans[0].seconds, asked.text, room)
            if when is not None:
                return self._set_at(when, days if days.said else asked.days, asked.text, room)
            if days.said or any(self.kit.parse.parse_number(tokens, i) for i in range(len(tokens))):
                self.questions.ask(room, "set", text=asked.text, days=days if days.said else asked.days)
                return SkillReply(self.w.ask_when_again, "reminder_clarify",
                                  data={"waiting_for": "time", "text": asked.text})
            return None
        reminders = self.alarms.all(REMINDER)
        back = self.kit.words.follow_ups.which.back_reminder
        how = Cancelling(reminders, self._named, self._cancelled, lambda: self._which(room, reminders),
                         lambda r: back.format(item=self._items([r])), self.w.all_words)
        return cancel_answer(self.kit.words, self.kit.parse, self.questions, self.alarms, room, asked, tokens, how)

    def _what(self, rest: list[str], used: set[int]) -> str:
        """The reminder's words, without its time, turned to the listener ('call my mum' -> 'call your mum')."""
        w = self.w
        # "at" before a time said goes with it; not "in" before "on Monday", which has its own
        marked = set(used) | {k - 1 for k in used if k > 0 and k - 1 not in used and rest[k - 1] in w.after
                              and rest[k] not in w.after}
        kept = [i for i in range(len(rest)) if i not in marked]
        while kept and rest[kept[0]] in w.after:
            kept.pop(0)
        if kept and rest[kept[0]] in w.about:
            kept.pop(0)
        # a word that led to the time ("call mum and then at six") goes, one that ends the words themselves
        # ("take the washing in", "book the car in on Monday") stays
        popped: set[int] = set()
        joins = self.kit.words.timers.piece_joins  # "and", "then"

        def leads_on(k: int) -> bool:
            return rest[k] in w.about or rest[k] in w.after and (
                k + 1 in popped or k + 1 in marked and (rest[k + 1] not in w.after or rest[k] in joins))

        while kept and leads_on(kept[-1]):
            popped.add(kept.pop())
        return swap_words([rest[i] for i in kept], self._swaps)

    def _set_at(self, when: TimeOfDay, days: DaySpec, what: str, room: str) -> SkillReply:
        now = self.kit.clock()
        day, at = self.schedule.first(when, days, now, self.tz)
        return self._add(day, at, days.repeat, what, room, 0, None)

    def _set_in(self, seconds: float, what: str, room: str) -> SkillReply:
        then = local(float(round(self.kit.clock() + seconds)), self.tz)
        return self._add(then.date(), then.time(), (), what, room, then.fold, seconds)

    def _add(self, day: date, at: time, repeat: tuple[int, ...], what: str, room: str, fold: int,
             seconds: float | None) -> SkillReply:
        w, now = self.w, self.kit.clock()
        try:
            reminder = self.alarms.add(REMINDER, day, at, self.tz, repeat, text=what, room=room, fold=fold)
        except TimerError as exc:
            _LOGGER.error("Cannot set a reminder: %s", exc)
            return SkillReply(w.cannot_set.format(error=exc), "reminder_error", data={"error": str(exc)})
        if seconds is not None and what:
            text = w.set_in.format(duration=self.kit.words.say.duration(seconds), what=what)
        else:
            when = self.schedule.said_when(reminder, now)
            text = w.set_at.format(when=when, what=what) if what else w.set_at_bare.format(when=when)
        return SkillReply(text, "reminder_set", data={"reminders": [self.schedule.data(reminder)]})

    def _items(self, reminders: list[Alarm]) -> str:
        now = self.kit.clock()
        return self.kit.words.say.join([
            self.w.item.format(what=r.text, when=self.schedule.said_when(r, now)) if r.text else
            self.w.item_bare.format(when=self.schedule.said_when(r, now)) for r in reminders])

    def _without_day(self, tokens: list[str], days: DaySpec) -> str:
        """The words without the day they say, nor the word that led to it ("for", "on")."""
        first = min(days.used, default=len(tokens))
        lead = {first - 1} if first > 0 and tokens[first - 1] in self.w.after else set()
        return " ".join(t for i, t in enumerate(tokens) if i not in days.used and i not in lead)

    def _of_day(self, reminders: list[Alarm]) -> str:
        """'one reminder: call the dentist at 10 AM': the reminders of one day, by their time."""
        w = self.w
        items = self.kit.words.say.join([
            w.item.format(what=r.text, when=self.schedule.said_time(r)) if r.text else
            w.item_bare.format(when=self.schedule.said_time(r)) for r in reminders])
        return w.one_of.format(item=items) if len(reminders) == 1 else \
            w.many_of.format(count=len(reminders), items=items)

    def _whats_on(self, tokens: list[str]) -> SkillReply | None:
        """What the days `tokens` say hold ("what's on tomorrow", "this weekend"): their alarms and reminders; None
        unless they say only days to come ("what's on TV on Saturday" is the model's)."""
        now = self.kit.clock()
        days = self.schedule.when.days(tokens)
        asked = self.schedule.days_asked(days, now, self.tz) if self.schedule.when.only(tokens, days.used) else []
        if not asked:
            return None
        alarms = [a for a in self.alarms.all(ALARM) if any(self.schedule.on_day([a], day) for day in asked)]
        reminders = [r for r in self.alarms.all(REMINDER) if any(self.schedule.on_day([r], day) for day in asked)]
        return SkillReply(self.schedule.said_over(asked, now, self.tz, self._on, self.w.nothing_on_day),
                          "reminder_list", data={
                              "alarms": [self.schedule.data(a) for a in alarms], "date": asked[0].isoformat(),
                              "dates": [day.isoformat() for day in asked],
                              "reminders": [self.schedule.data(r) for r in reminders]})

    def _on(self, day: date, said: str) -> str | None:
        """What one day holds, said (`said`: the day as a reply says it): its alarms and reminders; None for none."""
        w = self.w
        alarms = self.schedule.on_day(self.alarms.all(ALARM), day)
        reminders = self.schedule.on_day(self.alarms.all(REMINDER), day)
        lead = capital(said)
        if alarms and reminders:
            return w.both_on_day.format(Day=lead, alarms=self.schedule.alarms_at(alarms),
                                        reminders=self._of_day(reminders))
        if alarms:
            return self.kit.words.alarm_words().on_day.format(Day=lead, alarms=self.schedule.alarms_at(alarms))
        if reminders:
            return w.on_day.format(Day=lead, reminders=self._of_day(reminders))
        return None

    def _list(self, days: DaySpec) -> SkillReply:
        """The reminders kept; asked of one day ("any reminders for tomorrow"), those of that day only."""
        w, now = self.w, self.kit.clock()
        reminders = self.alarms.all(REMINDER)
        data: dict = {"reminders": [self.schedule.data(r) for r in reminders]}
        if not reminders:
            return SkillReply(w.none, "reminder_list", data=data)
        asked = self.schedule.days_asked(days, now, self.tz)
        if asked:
            def of_day(day: date, said: str) -> str | None:
                held = self.schedule.on_day(reminders, day)
                return w.on_day.format(Day=capital(said), reminders=self._of_day(held)) if held else None

            chosen = [r for r in reminders if any(self.schedule.on_day([r], day) for day in asked)]
            data = {"reminders": [self.schedule.data(r) for r in chosen], "date": asked[0].isoformat(),
                    "dates": [day.isoformat() for day in asked]}
            return SkillReply(self.schedule.said_over(asked, now, self.tz, of_day, w.none_on_day), "reminder_list",
                              data=data)
        text = w.one.format(item=self._items(reminders)) if len(reminders) == 1 else \
            w.many.format(count=len(reminders), items=self._items(reminders))
        return SkillReply(text, "reminder_list", data=data)

    def _named(self, reminders: list[Alarm], tokens: list[str]) -> list[Alarm] | None:
        """The reminders the words pick out: by their words ("the one to call mum") or their time."""
        skip = self.kit.parse.name_stop | self.w.reminder_words | self.w.about | self.w.after
        wanted = {t for t in self._what(tokens, set()).split() if t not in skip}
        if wanted:
            overlap = {r.id: len(wanted & set(r.text.split())) for r in reminders}
            best = max(overlap.values(), default=0)
            if best:
                return [r for r in reminders if overlap[r.id] == best]
        return self.schedule.matching(reminders, tokens)

    def _cancel(self, tokens: list[str], room: str) -> SkillReply:
        w = self.w
        reminders = self.alarms.all(REMINDER)
        chosen = self._named(reminders, tokens)
        everything = bool(w.all_words & set(tokens)) or (not chosen and bool(w.plural_words & set(tokens)))
        if not chosen and not everything and self.alarms.ringing():
            return stopped(self.kit.timers)  # "cancel the reminder" while one rings
        if not reminders:
            return SkillReply(w.none, "reminder_cancel", data={"cancelled": []})
        if everything:
            return self._cancelled(reminders)
        if chosen and len(chosen) < len(reminders) or len(reminders) == 1:
            return self._cancelled(chosen or reminders)
        return self._which(room, reminders)

    def _which(self, room: str, reminders: list[Alarm]) -> SkillReply:
        """Which of the `reminders` to cancel, asked in `room`; the answer may say one by its place in the list."""
        self.questions.ask(room, "cancel", options=tuple(r.id for r in reminders))
        return SkillReply(self.w.which.format(count=len(reminders), items=self._items(reminders)),
                          "reminder_clarify", data={"waiting_for": "which"})

    def _cancelled(self, chosen: list[Alarm]) -> SkillReply:
        before = len(self.alarms.all(REMINDER))
        items = self._items(chosen)
        gone = self.alarms.cancel([r.id for r in chosen])
        text = self.w.cancelled_one.format(item=items) if len(gone) == 1 else \
            self.w.cancelled_all.format(count=len(gone)) if len(gone) == before else \
            self.w.cancelled_some.format(count=len(gone), items=items)
        return SkillReply(text, "reminder_cancel", data={"cancelled": [r.id for r in gone]})


@local_skill("reminders", REMINDERS)
def _build(kit: SkillKit) -> ReminderSkill:
    return ReminderSkill(kit)
