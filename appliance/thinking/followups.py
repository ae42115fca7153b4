"""Short follow-ups to what a room's last request did: "actually make it fifteen" after a timer was set,
"cancel that" after a timer, an alarm, a reminder or a list item, "and eggs" after something went on a list.

Each follow-up is said again as the full request the skills already read, in the pack's own words
(FollowUpWords.say, filled from what the last reply did: its timer's name or length, its alarm's time, its
list), and the skills answer it as ever: the follow-up is understood in any language whose pack says how.
Only within the conversation's idle window (conversation.idle_reset_s) and only in the room that asked;
after that "cancel that" means nothing here, and goes its usual way. An answer by reference to a question
back ("the second one") and "the other one" after it are thinking/which.py's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from appliance.contracts import SkillReply
from appliance.language import FollowUpWords
from appliance.thinking.skillparse import SkillParser

KINDS: Final = ("change", "cancel", "also")
"""What a follow-up asks: a new value for what was just set, to undo it, or one more of the same."""


@dataclass(frozen=True)
class Done:
    """What a room's last request did, kept for its follow-ups."""

    intent: str
    data: dict = field(default_factory=dict)
    at: float = 0.0


class FollowUps:
    """Each room's last request that a follow-up can refer to, and the requests a follow-up stands for."""

    def __init__(self, words: FollowUpWords, parse: SkillParser, window_s: float,
                 clock: Callable[[], float]) -> None:
        self.words = words
        self.parse = parse
        self.window_s = window_s
        """conversation.idle_reset_s: a follow-up later than this refers to nothing."""
        self.clock = clock
        self._last: dict[str, Done] = {}
        self._lock = threading.Lock()  # the hub's conductor and the satellites' turns keep and ask at once

    def keep(self, room: str, reply: SkillReply | None) -> None:
        """Remember what `reply` did in `room` when a follow-up can refer to it; any other reply (an answer, a
        question back) or none (the turn went on to Home Assistant or the model) leaves nothing to refer to,
        for "cancel that" then means something else."""
        with self._lock:
            if reply is not None and reply.intent in self.words.say:
                self._last[room] = Done(reply.intent, reply.data, self.clock())
            else:
                self._last.pop(room, None)

    def said_as(self, text: str, room: str, kinds: tuple[str, ...] = KINDS) -> list[str] | None:
        """The requests `text` (normalised words) stands for after the room's last one, in the order to ask
        them, or None when it is no follow-up of `kinds` to anything kept."""
        with self._lock:
            last = self._last.get(room)
        if last is None or self.clock() - last.at > self.window_s:
            return None
        said = self.words.say[last.intent]
        for kind, pattern in (("cancel", self.words.cancel), ("change", self.words.change), ("also", self.words.also)):
            m = pattern.fullmatch(text)
            if m is None or kind not in said or kind not in kinds:
                continue
            fields = self._fields(last, m.groupdict().get("rest") or "")
            if fields is None:
                return None
            try:
                return [template.format(**fields) for template in said[kind]]
            except (KeyError, IndexError):  # what the last reply did lacks a field these words need
                return None
        return None

    def _fields(self, last: Done, rest: str) -> dict[str, str] | None:
        """What the pack's templates are filled with: the last reply's timer, alarm, reminder or list, and the
        new words (a bare number takes the unit of the timer's length: "make it fifteen" after ten minutes)."""
        w, data = self.words, last.data
        fields: dict[str, str] = {"rest": rest}
        timers = data.get("timers") or []
        if timers:
            timer = timers[0]
            seconds = float(timer.get("duration_s") or 0)
            fields["timer"] = timer.get("name") or w.length.format(length=self.parse.words.say.duration_label(seconds))
            fields["name"] = f"{timer['name']} " if timer.get("name") else ""
            tokens = rest.split()
            if rest and not self.parse.find_durations(tokens) and self.parse.parse_number(tokens, 0) is not None:
                unit = w.hours if seconds % 3600 == 0 else w.minutes if seconds % 60 == 0 else w.seconds
                fields["rest"] = f"{rest} {unit}"
        for kind in ("alarms", "reminders"):
            if data.get(kind):
                fields["time"] = data[kind][0].get("time", "")
                fields["text"] = data[kind][0].get("text") or ""
        if "list" in data:
            fields["list"] = data["list"]
            fields["items"] = self.parse.words.say.join(data.get("added") or [])
        return fields
