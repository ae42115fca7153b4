""""Stop" as a local skill: silence, and every ringing timer, alarm and reminder acknowledged.

Asked first (skillkit.STOP): "stop" ends a ringing timer and the turn whatever else it could mean.
The words are the pack's `skills.stop`, with the wake word's name where people add it ("stop, jarvis").
"""

from __future__ import annotations

import re

from appliance.contracts import SkillReply
from appliance.thinking.skillkit import STOP, SkillKit, local_skill
from appliance.thinking.timers import Timers


class StopSkill:
    """Ends the turn in silence, and stops the timers that ring."""

    def __init__(self, timers: Timers, stop: str, wake: tuple[str, ...] = ()) -> None:
        self.timers = timers
        name = wake[-1:]  # "jarvis" of "hey jarvis": the name people add ("stop, jarvis")
        self._stop_re = re.compile(stop.format(name=f"|{re.escape(name[0])}" if name else ""))

    def match(self, text: str, room: str = "") -> SkillReply | None:
        return stopped(self.timers) if self._stop_re.match(text) else None


def stopped(timers: Timers) -> SkillReply:
    """The silent reply to "stop", once the ringing timers and alarms are acknowledged (also a cancel while one rings)."""
    gone, rung = timers.acknowledge(), timers.alarms.acknowledge()
    return SkillReply("", "stop", end_turn=True,
                      data={"stopped_timers": [t.id for t in gone], "stopped_alarms": [a.id for a in rung]})


@local_skill("stop", STOP)
def _build(kit: SkillKit) -> StopSkill:
    return StopSkill(kit.timers, kit.words.skills.stop, kit.wake)
