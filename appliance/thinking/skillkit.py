"""What a local skill is, what it is built from, and how LocalSkills finds every one.

A skill is a module named `*_skill.py` in appliance/thinking/ holding a factory marked with
`@local_skill(name, order)`. LocalSkills imports every such module (`discover`), so a new skill
is its own module, its words in the language pack (`LanguagePack.skill(name)`) and its test, with
no list to extend anywhere else.

The order is the order the skills are asked in, lowest first, and the first reply wins. The
skills that ship ask in this order: what the hub is told to remember (and told to forget), stop, the volume, the alarms, the reminders, the timers,
the clock, the lists, questions about what the hub was told (the facts); a new one takes a free
number among them.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import tzinfo
from typing import Final, Generic, Protocol, TypeVar

from appliance.audio.volume import Volume
from appliance.config import ConversationConfig, SkillsConfig
from appliance.contracts import SkillReply
from appliance.language import LanguagePack
from appliance.thinking.facts import FactStore
from appliance.thinking.lists import Lists
from appliance.thinking.skillparse import SkillParser
from appliance.thinking.timers import Clock, Timers

REMEMBER: Final = 5
"""First of all: "remember that the alarm code is 1234" is a fact to keep, never an alarm; "forget about the
spare key" forgets what was told (what nothing kept names is left to the skills after), and the answer to
"should I forget everything?" is heard before anything else (fact_skill.py: the facts' first part)."""
STOP: Final = 10
"""First: "stop" silences a ringing timer whatever else the words could mean."""
VOLUME: Final = 20
"""Before the timers: "turn it down" is the speaker, never a timer."""
ALARMS: Final = 24
"""Before the timers: an alarm at a time of day ("wake me up at 6:30") is never a timer's question back."""
REMINDERS: Final = 26
"""Before the timers: "remind me in 20 minutes to check the oven" says what, so it is a reminder."""
TIMERS: Final = 30
"""The timers and their question back ("how long should the timer be?")."""
CLOCK: Final = 40
LISTS: Final = 50
"""After the clock: "what is on my list" is never the time."""
FACTS: Final = 60
"""Last: a question about the household that no other skill reads is answered from what the hub was told
("what's on my list" is the list's), or "you haven't told me"."""

SKILL_SUFFIX: Final = "_skill"
"""The ending of the module names `discover` imports."""


class Skill(Protocol):
    """One local skill: a reply to the words it knows, None for any other."""

    def match(self, text: str, room: str = "") -> SkillReply | None:
        """The reply to `text` (normalised words, the wake word and politeness stripped) asked in
        `room` ("" the hub's own microphone, else a satellite's name), or None when it is not for this skill."""


@dataclass(frozen=True)
class SkillKit:
    """Everything the hub gives a skill to be built from: one LocalSkills' settings, words and state."""

    config: SkillsConfig
    words: LanguagePack
    parse: SkillParser
    timers: Timers
    clock: Clock
    tz: tzinfo | None
    """None: the system's time zone."""
    wake: tuple[str, ...]
    """The wake phrase's words ("hey", "jarvis"); () for none."""
    volume_of: Callable[[str], Volume] | None
    """The volume of a room ('' the hub's own); None where the hub has no volume to change."""
    lists: Lists | None = None
    """The named lists (the shopping list Home Assistant's when it is configured); None: no lists skill."""
    facts: FactStore | None = None
    """What the hub was told to remember; None: no facts skill."""
    facts_closed: frozenset[str] = frozenset()
    """The rooms (satellites' names) that may not tell the hub things to remember nor ask what it was told."""
    follow_up_s: float = ConversationConfig.idle_reset_s
    """conversation.idle_reset_s: how long a follow-up ("the other one") refers to what a request did."""


class Expiring(Protocol):
    expires_at: float
    """Clock seconds after which the question no longer waits for its answer."""


Q = TypeVar("Q", bound=Expiring)


class RoomQuestions(Generic[Q]):
    """Each room's question back of one skill; the next words said in that room answer it, or it is forgotten.
    LocalSkills begins and ends every turn of every skill's questions, whichever skill replies."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._asked: dict[str, Q] = {}
        self._turn: tuple[str, Q | None] | None = None

    def put(self, room: str, question: Q) -> None:
        """`question` waits for its answer in `room`."""
        self._asked[room] = question

    def asked(self, room: str) -> bool:
        """Whether a question was put in `room` in this turn (or since it was last taken)."""
        return room in self._asked

    def begin(self, room: str) -> None:
        """A turn in `room` begins: its question is answered in this turn or forgotten."""
        self._turn = (room, self._asked.pop(room, None))

    def end(self) -> None:
        self._turn = None

    def take(self, room: str) -> Q | None:
        """The room's question still waiting, forgotten once taken: it is answered now or never."""
        if self._turn is not None and self._turn[0] == room:
            asked, self._turn = self._turn[1], (room, None)
        else:
            asked = self._asked.pop(room, None)
        return asked if asked is not None and asked.expires_at >= self.clock() else None


SkillFactory = Callable[[SkillKit], Skill | None]
"""Builds a skill from the kit; None when the hub lacks what it needs (no volume to change)."""


@dataclass(frozen=True)
class Registered:
    name: str
    """The skill's name: the key of its words in the pack, and in the logs."""
    order: int
    make: SkillFactory


_REGISTERED: dict[str, Registered] = {}


def local_skill(name: str, order: int) -> Callable[[SkillFactory], SkillFactory]:
    """Marks a skill module's factory, asked at `order`. Two skills may share neither a name (their
    words would be one entry of the pack) nor an order (`discover` says which)."""

    def mark(make: SkillFactory) -> SkillFactory:
        known = _REGISTERED.get(name)
        if known is not None and known.make.__qualname__ != make.__qualname__:
            raise ValueError(f"two local skills are called {name!r}")
        _REGISTERED[name] = Registered(name, order, make)
        return make

    return mark


def discover() -> list[Registered]:
    """Every skill module's factory, in the order the skills are asked; ValueError when two share an
    order, for which of them answers would then depend on which module was imported first."""
    from appliance import thinking

    for module in pkgutil.iter_modules(thinking.__path__):
        if module.name.endswith(SKILL_SUFFIX):
            importlib.import_module(f"appliance.thinking.{module.name}")
    taken: dict[int, str] = {}
    for entry in sorted(_REGISTERED.values(), key=lambda entry: entry.name):  # named alike whatever was imported first
        if entry.order in taken:
            raise ValueError(f"local skills {taken[entry.order]!r} and {entry.name!r} are both at order {entry.order}")
        taken[entry.order] = entry.name
    return sorted(_REGISTERED.values(), key=lambda entry: entry.order)
