"""Local skills: time, date, day, timers, the hub's volume and stop, answered at once without the model."""

from __future__ import annotations

import difflib
import logging
import re
import threading
import time
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Final

from appliance.audio.volume import shared as shared_volume
from appliance.config import SkillsConfig, WakeConfig
from appliance.contracts import SkillReply
from appliance.thinking.clock_skill import ClockSkill
from appliance.thinking.skillparse import (
    TIMER_WORDS,
    Span,
    find_durations,
    normalize,
    parse_number,
    rest_name,
    say_duration,
    say_remaining,
    segments,
    timer_name,
)
from appliance.thinking.timers import MAX_DURATION_S, MIN_DURATION_S, Clock, Timer, TimerError, Timers
from appliance.thinking.volume_skill import VolumeSkill
from appliance.wake_name import wake_words

if TYPE_CHECKING:
    from appliance.config import Config

_LOGGER = logging.getLogger(__name__)

PENDING_S: Final = 30.0  # seconds a clarifying question waits for its answer
REPORT_MAX: Final = 4  # timers read out one by one; more are counted
# Words recognisers write for "timer"; repaired only where a timer request fits around them.
_TIMER_SOUNDALIKES: Final = frozenset({"tiger", "timber", "timor", "timmer", "tamer", "dimer", "time"})
_CANCEL_VERBS: Final = frozenset({"cancel", "stop", "delete", "remove", "clear", "kill", "end", "dismiss",
                                  "abort", "forget", "reset"})
_SET_VERBS: Final = frozenset({"set", "start", "make", "create", "put", "add", "begin", "run", "give",
                               "need", "want", "new", "get"})
_FILLERS: Final = frozenset({"um", "uh", "er", "erm", "hmm", "uhm"})
# The wake phrase and its name ("hey jarvis", "jarvis") are added per wake model (LocalSkills).
_LEADING: Final = [("hey",), ("ok",), ("okay",), ("so",), ("please",),
                   ("can", "you"), ("could", "you"), ("would", "you"), ("will", "you"), ("and",)]
_TRAILING: Final = [("please",), ("thanks",), ("thank", "you")]
_STOP: Final = (
    r"^(?:(?:no|ok|okay|oh|just|alright|all right{name}) )*"
    r"(?:stop(?: it| that| talking| speaking| now)?|cancel(?: that| it)?|never mind|forget (?:it|about it)"
    r"|be quiet|quiet|shut up|hush|shush|silence|enough|that is enough|that will do|nothing|dismiss"
    r"|stop the (?:alarm|sound|noise|ringing|beeping)|turn (?:it|that) off)"
    r"(?: (?:stop|please|now|thanks|thank you{name}))*$")
_LEFT_RE: Final = re.compile(
    r"\b(?:how (?:much|long|many (?:minutes|seconds|hours))|what is the time|time|minutes)\b.*"
    r"\b(?:left|remaining|to go|until|till|before|on)\b|\bhow much longer\b|\bcheck (?:on )?(?:the|my)\b"
    r"|\bhow is (?:the|my)\b|\bstatus\b|\bwhen (?:will|does|is)\b")
_LEFT_ALONE_RE: Final = re.compile(
    r"\b(?:how (?:much time|long|many (?:minutes|seconds|hours)))\b(?: \w+)*? (?:left|remaining|to go)$"
    r"|^(?:time|how much) (?:left|longer)$|^how much longer$|^(?:what is the )?time (?:left|remaining)(?: on \w+)?$")
# A question about timers in general ("what is a timer", "how do timers work") is for the model.
_GENERIC_TIMER_RE: Final = re.compile(r"\b(?:a|an) (?:\w+ )?timer\b|\b(?:work|invent\w*|history|buy|best|app)\b")
_LIST_RE: Final = re.compile(
    r"\b(?:what|which) timers\b|\b(?:list|show|tell me|read|name)(?: me)?(?: all)?(?: of)?(?: my| the)? timers\b"
    r"|\b(?:do i have|are there|is there|have i got|got) any (?:\w+ )?timers?\b|\bhow many timers\b"
    r"|\btimers (?:are )?(?:running|set|going|on)\b|^(?:my |the |all )?timers$|\bwhat are my timers\b")
_QUESTION_START: Final = frozenset({"how", "what", "why", "who", "when", "where", "does", "do", "is", "are", "which"})
_CLOCK_TIME_RE: Final = re.compile(r"\b(?:am|pm|oclock|morning|tonight|tomorrow|noon|midnight)\b"
                                   r"|\b(?:at|for) \d{1,2}(?::\d\d)?$|\b\d{1,2}:\d\d\b")


@dataclass
class _Pending:
    kind: str
    """'set' (waiting for a duration) or 'cancel' (waiting for which timer)."""
    name: str | None
    expires_at: float


class LocalSkills:
    """Satisfies stages.Skills; the conductor also reads `timers` for due announcements."""

    def __init__(self, config: SkillsConfig, timers: Timers, clock: Clock = time.time,
                 tz: tzinfo | None = None, wake: tuple[str, ...] = wake_words(WakeConfig().model),
                 volume: VolumeSkill | None = None) -> None:
        self.config = config
        name = wake[-1:]  # "jarvis" of "hey jarvis": the name people add ("thanks, jarvis")
        self._leading = [wake, name, *_LEADING] if wake else list(_LEADING)
        self._trailing = [*_TRAILING, name] if wake else list(_TRAILING)
        self._stop_re = re.compile(_STOP.format(name=f"|{re.escape(name[0])}" if name else ""))
        self.timers = timers
        self.clock = clock
        self._pending: dict[str, _Pending] = {}
        """Each room's question waiting for its answer ("how long should the timer be?")."""
        self._asked: _Pending | None = None
        self._lock = threading.Lock()  # the hub's conductor and the satellites' turns ask at once
        self.clock_skill = ClockSkill(config, clock, tz)
        self.volume = volume  # the speaker in the room asked: first after stop, never a device for Home Assistant

    def match(self, transcript: str, room: str = "") -> SkillReply | None:
        """A local answer, or None to hand the question to the language model; a timer set from `room`
        (a satellite's name) rings there."""
        if not self.config.enabled:
            return None
        tokens = _strip(normalize(transcript), self._leading, self._trailing)
        if not tokens:
            return None
        text = " ".join(tokens)
        with self._lock:
            pending, self._asked = self._pending.pop(room, None), None
            reply = self._match(tokens, text, pending, room)
            if self._asked is not None:  # a question back, answered next in that room only
                self._pending[room] = self._asked
            return reply

    def _match(self, tokens: list[str], text: str, pending: _Pending | None, room: str) -> SkillReply | None:
        if self._stop_re.match(text):
            return self._stop()
        if self.volume is not None and (reply := self.volume.match(text, room)) is not None:
            return reply
        if pending is not None and pending.expires_at >= self.clock():
            reply = self._answer_pending(pending, tokens, room)
            if reply is not None:
                return reply
        return self._timer_intent(tokens, room) or self.clock_skill.match(text)

    # ---- stop ----------------------------------------------------------------------

    def _stop(self) -> SkillReply:
        stopped = self.timers.acknowledge()
        return SkillReply("", "stop", end_turn=True, data={"stopped_timers": [t.id for t in stopped]})

    # ---- timers --------------------------------------------------------------------

    def _timer_intent(self, tokens: list[str], room: str = "") -> SkillReply | None:
        spans = find_durations(tokens)
        tokens = _repair_timer_word(tokens, spans)
        text = " ".join(tokens)
        has_timer = any(t in TIMER_WORDS for t in tokens)
        first = tokens[0]
        cancel_verb = first in _CANCEL_VERBS or text.startswith(("turn off", "switch off", "get rid of",
                                                                  "never mind the", "i dont need the"))
        if cancel_verb and has_timer:
            return self._cancel(tokens, spans)
        if cancel_verb and len(tokens) > 1 and self._timers_named(rest_name(tokens[1:])):
            return self._cancel(tokens, spans)
        if has_timer and _LIST_RE.search(text) and not spans:
            return self._report("timer_list", None)
        wants_set = (first in _SET_VERBS or text.startswith(("i need", "i want", "can i have", "can i get"))
                     or bool(re.match(r"^(?:time|count down|countdown) ", text))
                     or bool(re.search(r"\b(?:remind|wake|tell|alert|let) me(?: up| know)? in\b", text)))
        asks_left = (has_timer and (_LEFT_RE.search(text) or first in ("is", "are"))) \
            or _LEFT_ALONE_RE.search(text)
        if asks_left and not (spans and wants_set):
            return self._report("timer_left", timer_name(tokens, spans) if has_timer else None)
        alarm_at = ("alarm" in tokens or "alarms" in tokens or "wake" in tokens or "remind" in tokens) \
            and bool(_CLOCK_TIME_RE.search(text))
        if alarm_at:
            return self._clarify("I can only set timers for a length of time, like ten minutes. "
                                 "How long should it be?", "set", timer_name(tokens, spans))
        if spans and (has_timer or wants_set):
            return self._set(tokens, spans, room)
        if has_timer and first in _QUESTION_START and not wants_set and not _GENERIC_TIMER_RE.search(text):
            return self._report("timer_left", timer_name(tokens, spans))  # "what's the timer at"
        if has_timer and (wants_set or first not in _QUESTION_START):
            return self._clarify("How long should the timer be, for example ten minutes?", "set", timer_name(tokens, spans))
        return None

    def _set(self, tokens: list[str], spans: list[Span], room: str = "") -> SkillReply:
        wanted = [(span.seconds, timer_name(seg, seg_spans)) for span, seg, seg_spans in segments(tokens, spans)]
        for seconds, name in wanted:
            if not MIN_DURATION_S <= seconds <= MAX_DURATION_S:
                return self._clarify(f"A timer can run from one second to {say_duration(MAX_DURATION_S)}. "
                                     "How long should it be?", "set", name)
        try:
            made = [self.timers.add(seconds, name, room) for seconds, name in wanted]
        except TimerError as exc:
            _LOGGER.error("Cannot set a timer: %s", exc)
            return SkillReply(f"Sorry, I couldn't set that timer: {exc}.", "timer_error", data={"error": str(exc)})
        if len(made) == 1:
            t = made[0]
            text = f"{t.name.capitalize()} timer set for" if t.name else "Timer set for"
            text += f" {say_duration(t.duration_s)}."
        else:
            parts = [f"{t.name} for {say_duration(t.duration_s)}" if t.name else say_duration(t.duration_s)
                     for t in made]
            text = f"{len(made)} timers set: {_join(parts)}."
        return SkillReply(text, "timer_set", data={"timers": [_timer_data(t, self.clock()) for t in made]})

    def _cancel(self, tokens: list[str], spans: list[Span]) -> SkillReply:
        everything = bool({"all", "every", "both", "everything"} & set(tokens))
        name = timer_name(tokens, spans)
        guess = rest_name(tokens[1:])
        if name is None and self._timers_named(guess):  # "cancel pasta", "cancel the paste a timer"
            name = guess
        everything = everything or (name is None and not spans and bool({"timers", "alarms"} & set(tokens)))
        timers = self.timers.all()
        if not timers:
            return SkillReply("You don't have any timers.", "timer_cancel", data={"cancelled": []})
        if everything:
            chosen = timers
        elif name:
            chosen = self._timers_named(name)
            if not chosen:
                return self._clarify(f"I can't find a {name} timer. {_which(timers)}", "cancel", None)
        elif spans:
            chosen = [t for t in timers if abs(t.duration_s - spans[0].seconds) < 1.0]
        elif self.timers.ringing():
            return self._stop()
        else:
            chosen = timers if len(timers) == 1 else []
        if not chosen:
            return self._clarify(_which(timers), "cancel", None)
        gone = self.timers.cancel([t.id for t in chosen])
        if len(gone) == 1:
            text = f"{gone[0].label.capitalize()} cancelled."
        else:
            text = f"All {len(gone)} timers cancelled." if len(gone) == len(timers) else \
                f"{len(gone)} timers cancelled: {_join([t.label for t in gone])}."
        return SkillReply(text, "timer_cancel", data={"cancelled": [t.id for t in gone]})

    def _report(self, intent: str, name: str | None) -> SkillReply:
        now = self.clock()
        timers = self.timers.all()
        if name:
            timers = self._timers_named(name) or timers
        data = {"timers": [_timer_data(t, now) for t in timers]}
        if not timers:
            return SkillReply("You don't have any timers.", intent, data=data)

        def state(t: Timer) -> str:
            return "is done" if t.ends_at <= now else f"has {say_remaining(t.remaining(now))} left"

        if len(timers) == 1:
            return SkillReply(f"Your {timers[0].label} {state(timers[0])}.", intent, data=data)
        parts = [f"the {t.label} {state(t)}" for t in timers[:REPORT_MAX]]
        if len(timers) > REPORT_MAX:  # a long list is no use spoken: the soonest ones, and a count
            parts.append(f"{len(timers) - REPORT_MAX} more")
        return SkillReply(f"You have {len(timers)} timers: {_join(parts)}.", intent, data=data)

    def _timers_named(self, name: str | None) -> list[Timer]:
        if not name:
            return []
        timers = self.timers.all()
        exact = [t for t in timers if t.name == name]
        if exact:
            return exact
        names = [t.name for t in timers if t.name]
        close = set(difflib.get_close_matches(name, names, n=3, cutoff=0.75))
        return [t for t in timers if t.name in close]

    def _clarify(self, text: str, kind: str, name: str | None) -> SkillReply:
        self._asked = _Pending(kind, name, self.clock() + PENDING_S)
        return SkillReply(text, "timer_clarify", data={"waiting_for": kind})

    def _answer_pending(self, pending: _Pending, tokens: list[str], room: str = "") -> SkillReply | None:
        spans = find_durations(tokens)
        if pending.kind == "set" and spans:
            if any(t in TIMER_WORDS for t in tokens) or tokens[0] in _SET_VERBS:
                return self._set(tokens, spans, room)
            seconds = sum(s.seconds for s in spans)
            return self._set(["<d>"], [Span(0, 1, seconds)], room) if pending.name is None else \
                self._set(["<d>", "for", *pending.name.split()], [Span(0, 1, seconds)], room)
        if pending.kind == "set" and any(parse_number(tokens, i) for i in range(len(tokens))):
            return self._clarify("Sorry, how long should it be, for example ten minutes?", "set", pending.name)
        if pending.kind == "cancel":
            if tokens[0] in ("yes", "yeah", "yep", "sure", "ok", "okay") and len(self.timers.all()) == 1:
                return self._cancel(["cancel", "timer"], [])
            if {"all", "both", "every", "everything"} & set(tokens) or spans \
                    or self._timers_named(rest_name(tokens)):
                return self._cancel(["cancel", *tokens], spans)
        return None

# --------------------------------------------------------------------------------------
# Helpers


def build(cfg: Config, clock: Clock = time.time, tz: tzinfo | None = None) -> LocalSkills:
    """The skills with their timers and the rooms' volumes kept in cfg.service.state_dir."""
    state_dir = Path(cfg.service.state_dir)
    return LocalSkills(cfg.skills, Timers(state_dir, cfg.skills, clock), clock, tz, wake=wake_words(cfg.wake.model),
                       volume=VolumeSkill(lambda room: shared_volume(state_dir, room)))


def _strip(tokens: list[str], leading: list[tuple[str, ...]], trailing: list[tuple[str, ...]]) -> list[str]:
    """Drop the wake word, politeness and hesitations around the request."""
    tokens = [t for t in tokens if t not in _FILLERS]
    changed = True
    while changed and tokens:
        changed = False
        for phrase in leading:
            if tuple(tokens[: len(phrase)]) == phrase and len(tokens) > len(phrase):
                tokens, changed = tokens[len(phrase):], True
        for phrase in trailing:
            if tuple(tokens[-len(phrase):]) == phrase and len(tokens) > len(phrase):
                tokens, changed = tokens[: -len(phrase)], True
    return tokens


def _repair_timer_word(tokens: list[str], spans: list[Span]) -> list[str]:
    """'set a tiger for 5 minutes' -> timer, but never in 'how fast is a tiger'."""
    if any(t in TIMER_WORDS for t in tokens):
        return tokens
    starts_like_request = tokens[0] in _SET_VERBS or tokens[0] in _CANCEL_VERBS
    out = list(tokens)
    for i, tok in enumerate(tokens):
        if tok not in _TIMER_SOUNDALIKES or i == 0:
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        in_span = any(s.start <= i < s.end for s in spans)
        fits = after in ("", "for", "called", "named", "and") or any(s.start == i + 1 for s in spans)
        if not in_span and fits and starts_like_request and (spans or tokens[0] in _CANCEL_VERBS):
            out[i] = "timer"
    return out


def _which(timers: list[Timer]) -> str:
    """The question after an unclear cancel: names the timers when there are few."""
    if len(timers) == 1:
        return f"You have one timer, the {timers[0].label}. Should I cancel it?"
    listed = f": {_join(['the ' + t.label for t in timers])}" if len(timers) <= 4 else ""
    return f"You have {len(timers)} timers{listed}. Which one should I cancel?"


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _timer_data(t: Timer, now: float) -> dict:
    return {"id": t.id, "name": t.name, "duration_s": t.duration_s, "remaining_s": round(t.remaining(now), 1)}
