"""The hub's own volume as a local skill: up, down, a level from 0 to 10, mute and unmute; asked at a
satellite, the volume of that room's answers.

The speaker is the hub's own, so these are answered here at once, offline, and never sent to Home
Assistant or refused. The reply confirms in a word or two and is played at the new level (muted:
not heard at all). Works on text already normalised and stripped of "hey jarvis" and "please"
(LocalSkills.match).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from appliance.audio.volume import MAX_LEVEL, MIN_LEVEL, Volume
from appliance.contracts import SkillReply
from appliance.thinking.skillparse import parse_number

_SOUND: Final = r"(?:the |your )?(?:volume|sound)"
_BIT: Final = r"(?: a)?(?: little| bit| lot| tad)?(?: bit)?(?: more)?"
_A_BIT: Final = r"(?:(?:a )?(?:little |bit |lot |tad )(?:bit )?)?"
_UP_RE: Final = re.compile(
    rf"^(?:(?:turn|crank|pump|bump) (?:it|that|{_SOUND}|yourself) up|(?:turn|crank|pump|bump) up {_SOUND}"
    rf"|(?:increase|raise) {_SOUND}|{_SOUND} up|(?:(?:be|speak|talk) )?{_A_BIT}louder"
    rf"|(?:speak|talk) up|i cant hear you){_BIT}$")
_DOWN_RE: Final = re.compile(
    rf"^(?:turn (?:it|that|{_SOUND}|yourself) down|turn down {_SOUND}|(?:lower|decrease|reduce) {_SOUND}"
    rf"|{_SOUND} down|(?:(?:be|speak|talk) )?{_A_BIT}(?:quieter|softer|more quietly)"
    rf"|(?:you are |youre |that is |it is )?(?:too|very) loud|not so loud){_BIT}$")
_MUTE_RE: Final = re.compile(rf"^(?:mute(?: yourself| {_SOUND}| the speaker)?|go mute|be muted)$")
_UNMUTE_RE: Final = re.compile(rf"^(?:un ?mute(?: yourself| {_SOUND}| the speaker)?|{_SOUND} (?:back )?on)$")
_SET_RE: Final = re.compile(
    rf"^(?:(?:set|change|put|turn|make|bring) )?{_SOUND}(?: level)?(?: (?:up|down))?(?: (?:to|at|on))?"
    r" (?P<level>.+)$"
    r"|^(?:set|change|put|turn) (?:it|yourself) (?:up |down )?to (?P<level2>.+)$")
_ASK_RE: Final = re.compile(rf"^(?:what is {_SOUND}(?: level)?(?: at| set to)?|how loud are you"
                            r"|what volume (?:are you|is it)(?: at| on)?)$")
_WORD_LEVELS: Final = {"max": MAX_LEVEL, "maximum": MAX_LEVEL, "full": MAX_LEVEL, "loudest": MAX_LEVEL,
                       "min": MIN_LEVEL + 1, "minimum": MIN_LEVEL + 1, "lowest": MIN_LEVEL + 1,
                       "quietest": MIN_LEVEL + 1, "half": MAX_LEVEL // 2, "zero": MIN_LEVEL}
RANGE_REPLY: Final = f"The volume goes from {MIN_LEVEL} to {MAX_LEVEL}."


class VolumeSkill:
    """Turns volume requests into changes of the asking room's volume and a short spoken confirmation."""

    def __init__(self, volume_of: Callable[[str], Volume]) -> None:
        self.volume_of = volume_of
        """The volume of a room: '' the hub's own speaker, else a satellite's name."""

    def match(self, text: str, room: str = "") -> SkillReply | None:
        """The reply to a volume request in `text` (normalised words) asked in `room`, or None when it is
        not one (the room's volume is not looked at then)."""
        if _UNMUTE_RE.match(text):
            volume = self.volume_of(room)
            return _reply(f"Unmuted, volume {volume.unmute()}.", volume)
        if _MUTE_RE.match(text):
            volume = self.volume_of(room)
            volume.mute()
            return _reply("Muted.", volume)
        if _ASK_RE.match(text):
            volume = self.volume_of(room)
            level, muted = volume.level, volume.muted
            return _reply(f"Muted. Volume {level} when unmuted." if muted else f"Volume {level}.", volume)
        for pattern, by in ((_UP_RE, +1), (_DOWN_RE, -1)):
            if pattern.match(text):
                return _stepped(self.volume_of(room), by)
        m = _SET_RE.match(text)
        if m is None:
            return None
        volume = self.volume_of(room)
        level = _level(m["level"] or m["level2"])
        if level is None or not MIN_LEVEL <= level <= MAX_LEVEL:
            return _reply(RANGE_REPLY, volume)
        return _reply(f"Volume {volume.set_level(level)}.", volume)


def _stepped(volume: Volume, by: int) -> SkillReply:
    before = volume.level
    level = volume.step(by)
    if level == before and by > 0:
        return _reply(f"Volume {level}, as loud as I go.", volume)
    if level == before and by < 0:
        return _reply(f"Volume {level}, as quiet as I go.", volume)
    return _reply(f"Volume {level}.", volume)


def _reply(text: str, volume: Volume) -> SkillReply:
    data: dict[str, object] = {"level": volume.level, "muted": volume.muted}
    if volume.room:
        data["room"] = volume.room
    return SkillReply(text, "volume", data=data)


def _level(words: str) -> int | None:
    """A level from "6", "six", "max", "50 percent"; None when the words are not one."""
    tokens = words.split()
    if len(tokens) == 1 and tokens[0] in _WORD_LEVELS:
        return _WORD_LEVELS[tokens[0]]
    parsed = parse_number(tokens, 0)
    if parsed is None:
        return None
    value, end = parsed
    rest = tokens[end:]
    if rest in (["percent"], ["per", "cent"], ["%"]):
        return round(value / 100 * MAX_LEVEL)
    if rest not in ([], ["please"]) or value != int(value):
        return None
    return int(value)
