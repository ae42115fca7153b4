"""The hub's own volume as a local skill: up, down, a level from 0 to 10, mute and unmute; asked at a
satellite, the volume of that room's answers.

The speaker is the hub's own, so these are answered here at once, offline, and never sent to Home
Assistant or refused. The reply confirms in a word or two and is played at the new level (muted:
not heard at all). Works on text already normalised and stripped of "hey jarvis" and "please"
(LocalSkills.match).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from appliance.audio.volume import MAX_LEVEL, MIN_LEVEL, Volume
from appliance.contracts import SkillReply
from appliance.language import LanguagePack, VolumeWords, pack
from appliance.thinking.skillkit import VOLUME, SkillKit, local_skill
from appliance.thinking.skillparse import SkillParser, said_group

_LEVELS: Final = {"max": MAX_LEVEL, "min": MIN_LEVEL + 1, "half": MAX_LEVEL // 2, "zero": MIN_LEVEL}
"""The levels a word may name (VolumeWords.word_levels)."""
RANGE_REPLY: Final = pack().volume.range.format(low=MIN_LEVEL, high=MAX_LEVEL)
"""The default pack's answer to a level out of range."""


class VolumeSkill:
    """Turns volume requests into changes of the asking room's volume and a short spoken confirmation."""

    def __init__(self, volume_of: Callable[[str], Volume], words: LanguagePack | None = None) -> None:
        self.volume_of = volume_of
        """The volume of a room: '' the hub's own speaker, else a satellite's name."""
        self.words = words or pack()
        self._w: VolumeWords = self.words.volume
        self._parse = SkillParser(self.words)

    @property
    def range_reply(self) -> str:
        """What a level out of range is answered with."""
        return self._w.range.format(low=MIN_LEVEL, high=MAX_LEVEL)

    def match(self, text: str, room: str = "") -> SkillReply | None:
        """The reply to a volume request in `text` (normalised words) asked in `room`, or None when it is
        not one (the room's volume is not looked at then)."""
        w = self._w
        if w.unmute_re.match(text):
            volume = self.volume_of(room)
            return _reply(w.unmuted.format(level=volume.unmute()), volume)
        if w.mute_re.match(text):
            volume = self.volume_of(room)
            volume.mute()
            return _reply(w.muted, volume)
        if w.ask_re.match(text):
            volume = self.volume_of(room)
            level, muted = volume.level, volume.muted
            return _reply(w.muted_level.format(level=level) if muted else w.level.format(level=level), volume)
        for pattern, by in ((w.up_re, +1), (w.down_re, -1)):
            if pattern.match(text):
                return self._stepped(self.volume_of(room), by)
        m = w.set_re.match(text)
        if m is None or self._parse.find_durations(said_group(m, "level").split()):
            return None  # "change it to 12 minutes": a length of time is a timer's, never a level
        said = said_group(m, "level")
        level = self._level(said)
        way = m.groupdict().get("way")
        if level is None and way and not any(self._parse.parse_number([t], 0) for t in said.split()):
            return self._stepped(self.volume_of(room), +1 if way == "up" else -1)  # "down a touch": a step
        volume = self.volume_of(room)
        if level is None or not MIN_LEVEL <= level <= MAX_LEVEL:
            return _reply(self.range_reply, volume)
        return _reply(w.level.format(level=volume.set_level(level)), volume)

    def _stepped(self, volume: Volume, by: int) -> SkillReply:
        w = self._w
        before = volume.level
        level = volume.step(by)
        if level == before and by > 0:
            return _reply(w.loudest.format(level=level), volume)
        if level == before and by < 0:
            return _reply(w.quietest.format(level=level), volume)
        return _reply(w.level.format(level=level), volume)

    def _level(self, words: str) -> int | None:
        """A level from "6", "six", "max", "50 percent"; None when the words are not one."""
        tokens = words.split()
        if words in self._w.word_levels:
            return _LEVELS[self._w.word_levels[words]]
        parsed = self._parse.parse_number(tokens, 0)
        if parsed is None:
            return None
        value, end = parsed
        rest = tuple(tokens[end:])
        if rest in self._w.percent:
            return round(value / 100 * MAX_LEVEL)
        if rest not in self._w.after_level or value != int(value):
            return None
        return int(value)


def _reply(text: str, volume: Volume) -> SkillReply:
    data: dict[str, object] = {"level": volume.level, "muted": volume.muted}
    if volume.room:
        data["room"] = volume.room
    return SkillReply(text, "volume", data=data)


@local_skill("volume", VOLUME)
def _build(kit: SkillKit) -> VolumeSkill | None:
    """None without rooms' volumes to change: the words are then left for the model."""
    return None if kit.volume_of is None else VolumeSkill(kit.volume_of, words=kit.words)
