"""Answers by reference to a question back that listed what a request fits ("You have 2 alarms: 6:45 AM
tomorrow and 9:30 AM on Saturday. Which one should I cancel?"): by position in the list just said ("the
second one", "the last one", "number two"), by comparison ("the earlier one", "the shorter one"), and
"the other one" once one of them was acted on. A name, a time, a day or "both" the skills read as ever.

The words are the pack's (FollowUpWords.which); a reference that picks out no single one ("the other one"
among three, "the third one" of two) is said to be so, for the skill to ask again: never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from appliance.language import WhichWords
from appliance.thinking.skillparse import SkillParser


@dataclass(frozen=True)
class Choice:
    """One of the things a question back listed, in the order it was said."""

    id: int
    at: float
    """When it rings or ends."""
    length: float | None = None
    """A timer's length; None for an alarm or a reminder."""


def refer(words: WhichWords, parse: SkillParser, text: str, options: Sequence[Choice],
          done: Sequence[int] = ()) -> list[int] | None:
    """The ids of `options` the whole of `text` (normalised words) refers to; [] when it is a reference that
    picks out no single one (the skill asks again); None when it is no reference (the skill reads it its own
    way). `done`: the ids already acted on, which "the other one" is not."""
    if words.other.fullmatch(text):
        left = [c.id for c in options if c.id not in done]
        return left if done and len(left) == 1 else []
    m = words.reference.fullmatch(text)
    if m is None or done:  # once one was acted on, only "the other one" refers to the rest
        return None
    if not options:
        return []
    if m["number"] is not None:
        tokens = m["number"].split()
        found = parse.parse_number(tokens, 0)
        if found is None or found[1] != len(tokens) or found[0] != int(found[0]):
            return []
        return _at(options, int(found[0]))
    ref = m["ref"]
    if ref in words.positions:
        return _at(options, words.positions[ref])
    if ref in words.shorter or ref in words.longer:
        timed = [c for c in options if c.length is not None]
        if len(timed) != len(options):
            return []
        key = min if ref in words.shorter else max
        best = key(c.length for c in timed if c.length is not None)
        picked = [c.id for c in timed if c.length == best]
    else:
        key = min if ref in words.earlier else max
        best = key(c.at for c in options)
        picked = [c.id for c in options if c.at == best]
    return picked if len(picked) == 1 else []


def _at(options: Sequence[Choice], position: int) -> list[int]:
    """The option at `position` (from 1; from the end when negative), or [] when there is none."""
    index = position - 1 if position > 0 else len(options) + position
    return [options[index].id] if 0 <= index < len(options) and position != 0 else []
