"""Local skills answered at once without the model: time, date, timers, alarms, reminders, lists, volume, stop
and what the hub was told to remember.

Each skill is its own `*_skill.py` module, found by skillkit.discover and asked in its order; here the
words are made ready for them, each room's questions back begun and ended with its turn, and what no
skill reads is read by meaning.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from appliance.audio.volume import Volume
from appliance.audio.volume import shared as shared_volume
from appliance.config import ConversationConfig, SkillsConfig, WakeConfig, satellite_name
from appliance.contracts import SkillReply
from appliance.language import LanguagePack, MissingWords, pack
from appliance.thinking.facts import FactStore
from appliance.thinking.followups import FollowUps
from appliance.thinking.home_shopping import book
from appliance.thinking.intents import understanding
from appliance.thinking.lists import HERE, Lists, named_in
from appliance.thinking.meaning import ACTS, MARGIN, MODEL, NEAR, Reading, meanings
from appliance.thinking.skillkit import RoomQuestions, SkillKit, discover
from appliance.thinking.skillparse import SkillParser
from appliance.thinking.timers import Clock, Timers
from appliance.wake_name import wake_words

if TYPE_CHECKING:
    from appliance.config import Config

_LOGGER = logging.getLogger(__name__)

CLARIFY: Final = frozenset({"timer_clarify", "alarm_clarify", "reminder_clarify", "list_clarify", "fact_clarify"})
"""The replies that are a question back: the request was read only in part."""
READ_OVER: Final = CLARIFY | {"fact_not_told"}
"""Replies that reading by meaning may take the place of: a question back, and "You haven't told me.", which
the facts say of a question about the household that nothing told answers ("what have I put on the list so
far?" is the list's to answer)."""
GROUNDED: Final = frozenset({"timer_left", "list_has", "list_remove"})
"""Questions about a thing the household keeps, by its name, and an item kept taken off ("got the eggs, cross
them off") (thinking: LocalSkills._grounded)."""
ASKED_ONLY: Final = CLARIFY | {"timer_left", "timer_list", "alarm_list", "reminder_list", "list_read", "list_count",
                               "list_has", "time", "date", "day"}
"""Replies that change nothing: a question back, or what the hub's own state says. When what was said reads by
meaning as a question for the model ("is it bad to hit snooze on the alarm?"), the model answers it instead.
Never "You haven't told me.": the model would make the household's facts up."""


class LocalSkills:
    """Satisfies stages.Skills; the conductor also reads `timers` for due announcements."""

    def __init__(self, config: SkillsConfig, timers: Timers, clock: Clock = time.time,
                 tz: tzinfo | None = None, wake: tuple[str, ...] = wake_words(WakeConfig().model),
                 volume_of: Callable[[str], Volume] | None = None, words: LanguagePack | None = None,
                 lists: Lists | None = None, facts: FactStore | None = None,
                 facts_closed: frozenset[str] = frozenset(),
                 follow_up_s: float = ConversationConfig.idle_reset_s, by_meaning: bool = True) -> None:
        self.config = config
        self.words = words or pack()
        self.parse = SkillParser(self.words)
        common = self.words.skills
        name = wake[-1:]  # "jarvis" of "hey jarvis": the name people add ("thanks, jarvis")
        self._fillers = common.fillers
        self._leading = [wake, name, *common.leading] if wake else list(common.leading)
        self._trailing = [*common.trailing, name] if wake else list(common.trailing)
        self.timers = timers
        self._lists = lists
        self.clock = clock
        self._lock = threading.Lock()
        """The hub's loop and each satellite's turn match at once: the skills' questions back (RoomQuestions,
        begun and ended around each match) and the follow-ups are read and written only while it is held
        (_match, _forget_questions), so one room's turn never reads another's question back."""
        self._meanings = meanings(self.words) if by_meaning else None
        """The pack's examples (built now, about 0.2 s, not in the first turn that needs them); None: requests are
        read by the skills' words alone (by_meaning False, the benchmarks' comparison)."""
        self.follow_ups = FollowUps(self.words.follow_ups, self.parse, follow_up_s, clock)
        """Each room's last request, for "cancel that", "actually make it fifteen", "and eggs"."""
        self.follow_up_s = follow_up_s
        kit = SkillKit(config, self.words, self.parse, timers, clock, tz, wake, volume_of, lists=lists, facts=facts,
                       facts_closed=facts_closed, follow_up_s=follow_up_s)
        asked: list[tuple[int, str, Callable[[str, str], SkillReply | None]]] = []
        self._questions: list[RoomQuestions[Any]] = []
        """The skills' questions back, each room's (timers, alarms, reminders)."""
        for entry in discover():
            try:
                skill = entry.make(kit)
            except MissingWords as missing:  # a skill the language has no words for is off, and said so once
                _LOGGER.warning("The %s skill is off in %s: %s", entry.name, self.words.name, missing)
                continue
            if skill is not None:  # the volume without rooms' volumes to change, the lists without lists
                asked.append((entry.order, entry.name, skill.match))
                if isinstance(questions := getattr(skill, "questions", None), RoomQuestions):
                    self._questions.append(questions)
        asked.sort(key=lambda step: step[0])
        self.asked: tuple[str, ...] = tuple(called for _, called, _ in asked)
        """The skills' names in the order they are asked; the first reply wins."""
        self._skills = [match for _, _, match in asked]

    def match(self, transcript: str, room: str = "") -> SkillReply | None:
        """A local answer, or None to hand the question to the language model; a timer set from `room`
        (a satellite's name) rings there. A request the skills do not read in its own words but Home
        Assistant's sentences know as theirs ("tell me the current time") is asked again as the pack
        says it (RequestWords.said_as). What no skill reads, or reads only well enough to ask back, is read
        by meaning (thinking/meaning.py); a reply that changes nothing (ASKED_ONLY) gives way to the model
        when what was said reads by meaning as a question for it."""
        if not self.config.enabled:
            return None
        reply = self._match(transcript, room)
        if reply is None and (again := self._said_as(transcript)) is not None:
            reply = self._match(again, room)
        if reply is not None and reply.intent not in ASKED_ONLY | READ_OVER or self._meanings is None:
            return reply
        meant = self._meanings.read(transcript)
        # a question back is read over by any reading; "You haven't told me." only by another question
        over = reply is None or reply.intent in CLARIFY or (reply.intent in READ_OVER and meant.intent not in ACTS)
        if meant.said_as is None and over:
            meant = dataclasses.replace(meant, said_as=self._grounded(meant, transcript))
        if meant.said_as is not None and over:
            _LOGGER.debug("Read by meaning as %s (%.2f, by %.2f)", meant.intent, meant.near, meant.margin)
            self._forget_questions(room)
            return self._match(meant.said_as, room) or reply
        if reply is not None and reply.intent in ASKED_ONLY and meant.intent == MODEL and meant.near >= NEAR \
                and meant.margin >= MARGIN:
            _LOGGER.debug("Read by meaning as a question for the model (%.2f, by %.2f), not as %s",
                          meant.near, meant.margin, reply.intent)
            self._forget_questions(room)
            return None
        return reply

    def _grounded(self, meant: Reading, transcript: str) -> str | None:
        """A question about what the household keeps, or a request to take an item off, that reads by meaning
        near and clear enough, and names one thing it keeps, word for word: a running timer ("how much longer
        for the pasta?") or an item on the shopping list kept here ("do I need bread?", "got the eggs, cross
        them off"), said again with that name. Words its examples do not say
        are then the name of a kept thing, not a sign of a question for the model; nothing not kept is taken."""
        if meant.intent not in GROUNDED or meant.near < NEAR or meant.margin < MARGIN:
            return None
        tokens = self.parse.normalize(transcript)
        if meant.intent == "timer_left":
            kept = [t.name for t in self.timers.all() if t.name]
        else:
            shopping = self._lists.open(self.words.skill("lists").say("default_list")) if self._lists else None
            kept = shopping.items() if shopping is not None and shopping.kept == HERE else []
        named = named_in(kept, tokens)  # "the pasta's": the pasta
        if len(named) != 1:
            return None
        slot = "name" if meant.intent == "timer_left" else "item"
        template = next((t for t in self.words.meaning.said_as.get(meant.intent, ())
                         if t.count("{") == 1 and "{" + slot + "}" in t), None)  # the one with this slot alone
        return template.format(**{slot: named.pop()}) if template is not None else None

    def _forget_questions(self, room: str) -> None:
        """Forget the room's questions back that the first reading of a request asked: the words were a
        request or a question of their own, not an answer."""
        with self._lock:
            for questions in self._questions:
                questions.take(room)

    def _said_as(self, transcript: str) -> str | None:
        found = understanding(self.words).recognize(transcript)
        said = self.words.requests.said_as.get(found.intent) if found is not None else None
        if said is None:
            return None
        try:
            return said.format(**found.slots)
        except (KeyError, IndexError):  # the request left out a slot these words need
            return None

    def _match(self, transcript: str, room: str) -> SkillReply | None:
        words = self.parse.normalize(transcript)
        tokens = _strip(words, self._fillers, self._leading, self._trailing)
        if not tokens:
            return None
        text = " ".join(tokens)
        with self._lock:
            # "cancel that", "actually make it fifteen": before the skills, which would take them otherwise
            said = self.follow_ups.said_as(text, room, ("cancel", "change"))
            reply = self._follow(said, room) if said is not None else self._ask(text, room)
            if reply is None:  # "and eggs", which no skill reads, looked at before its "and" is stripped
                said = self.follow_ups.said_as(" ".join(words), room, ("also",))
                reply = self._follow(said, room) if said is not None else None
            self.follow_ups.keep(room, reply)
            return reply

    def _follow(self, said: list[str], room: str) -> SkillReply | None:
        """The reply to the last of the full requests a follow-up stands for, each asked in turn."""
        reply = None
        for request in said:
            reply = self._ask(" ".join(self.parse.normalize(request)), room)
        return reply

    def _ask(self, text: str, room: str) -> SkillReply | None:
        """The first skill's reply to `text` (normalised words), the room's question back kept for its answer."""
        for questions in self._questions:  # answered in this turn or forgotten, whichever skill replies
            questions.begin(room)
        try:
            reply = next((r for match in self._skills if (r := match(text, room)) is not None), None)
        finally:
            for questions in self._questions:
                questions.end()
        return reply


# --------------------------------------------------------------------------------------
# Helpers


def build(cfg: Config, clock: Clock = time.time, tz: tzinfo | None = None, by_meaning: bool = True) -> LocalSkills:
    """The skills in cfg.language, with their timers, lists, facts and the rooms' volumes kept in
    cfg.service.state_dir (the shopping list in Home Assistant when cfg.home_assistant is enabled); the
    satellites with `facts: false` may not tell or ask what the hub remembers. by_meaning False: requests
    are read by the skills' words alone, without thinking/meaning.py (a benchmark's comparison)."""
    state_dir = Path(cfg.service.state_dir)
    words = pack(cfg.language)
    return LocalSkills(cfg.skills, Timers(state_dir, cfg.skills, clock, words=words), clock, tz,
                       wake=wake_words(cfg.wake.model),
                       volume_of=lambda room: shared_volume(state_dir, room), words=words,
                       lists=book(state_dir, cfg.home_assistant, words.skill("lists").say("default_list")),
                       facts=FactStore(state_dir),
                       facts_closed=frozenset(satellite_name(sat) for sat in cfg.wyoming.satellites if not sat.facts),
                       follow_up_s=cfg.conversation.idle_reset_s, by_meaning=by_meaning)


def _strip(tokens: list[str], fillers: frozenset[str], leading: list[tuple[str, ...]],
           trailing: list[tuple[str, ...]]) -> list[str]:
    """Drop the wake word, politeness and hesitations around the request."""
    tokens = [t for t in tokens if t not in fillers]
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
