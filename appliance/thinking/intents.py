"""What a request asks for, told by Home Assistant's own sentence library (hassil matching the
templates of home-assistant-intents) in the hub's language: a device in the home, a list, the
weather, or one of the hub's own skills (timers, the time and date, the volume, stop).

The hub knows no devices of its own, so it matches against a home made of the language pack's
words (RequestWords): its rooms and floors, and the kinds of device people name ("light",
"heating", "front door"), each with the Home Assistant domain it belongs to. The templates that
need a device's domain ("lock [the] {name}" asks for a lock) then match as they do in Home
Assistant's Assist, and a question that only looks like one ("how does a thermostat work")
matches nothing. Matching costs milliseconds of Python: the sentences are compiled once per
language (`understanding`), and the last transcripts' results are kept, for the early and the
final transcript of a question are most often the same words.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from appliance.language import LanguagePack, pack

_LOGGER = logging.getLogger(__name__)

KEPT_RESULTS: Final = 64
"""Transcripts whose result is kept (an early transcript is asked again as the final one)."""
HERE: Final = "here"
"""The room a request without one is heard in: templates such as "turn on the fan" ask for the
speaker's area, and every request is heard in some room."""


class Kind(Enum):
    """Who a recognised request belongs to."""

    HOME = "home"
    """A device, media player or scene in the home: Home Assistant's."""
    LIST = "list"
    """A shopping or to-do list."""
    WEATHER = "weather"
    """Only the internet knows it."""
    TIMER = "timer"
    CLOCK = "clock"
    VOLUME = "volume"
    """The hub's own speaker."""
    STOP = "stop"
    """Stop, pause or never mind, said to the hub."""
    PLAY = "play"
    """Play something, said to no device ("play some jazz", "play a game with me"): the hub plays no
    media, and what it answers is the honest refusals' to tell (thinking/honesty.py)."""


# Home Assistant's intent names, the same in every language.
_KINDS: Final[dict[str, Kind]] = {
    **dict.fromkeys(("HassStartTimer", "HassCancelTimer", "HassCancelAllTimers", "HassTimerStatus",
                     "HassIncreaseTimer", "HassDecreaseTimer", "HassPauseTimer", "HassUnpauseTimer"), Kind.TIMER),
    **dict.fromkeys(("HassGetCurrentTime", "HassGetCurrentDate"), Kind.CLOCK),
    **dict.fromkeys(("HassShoppingListAddItem", "HassShoppingListCompleteItem", "HassListAddItem",
                     "HassListCompleteItem", "HassListRemoveItem"), Kind.LIST),
    "HassGetWeather": Kind.WEATHER,
    "HassNevermind": Kind.STOP,
}
_SPEAKER: Final[dict[str, Kind]] = {
    **dict.fromkeys(("HassSetVolume", "HassSetVolumeRelative", "HassMediaPlayerMute", "HassMediaPlayerUnmute"),
                    Kind.VOLUME),
    **dict.fromkeys(("HassMediaPause", "HassMediaUnpause"), Kind.STOP),
    **dict.fromkeys(("HassMediaSearchAndPlay", "HassMediaNext", "HassMediaPrevious"), Kind.PLAY),
}
"""Media intents said to no device and no room ("volume up", "stop"): the hub's own speaker."""


@dataclass(frozen=True)
class Recognized:
    """One request, as Home Assistant's sentences read it."""

    intent: str
    """Home Assistant's name for it: HassTurnOn, HassStartTimer, ..."""
    kind: Kind
    slots: dict[str, str]
    """What filled each slot: {"area": "kitchen", "domain": "light"}, {"temperature": "21"}."""

    @property
    def for_home(self) -> bool:
        """A device request: Home Assistant's to carry out, never the model's to claim."""
        return self.kind is Kind.HOME


class Understanding:
    """Home Assistant's sentences of one language, compiled against the pack's home."""

    def __init__(self, words: LanguagePack) -> None:
        from hassil import Intents, TextSlotList
        from home_assistant_intents import get_intents

        self.code = words.code
        started = time.perf_counter()
        sentences = get_intents(words.code)
        if sentences is None:
            _LOGGER.warning("Home Assistant's sentence library has no language %r: requests are told apart "
                            "by the language pack's own patterns only", words.code)
        self._intents = Intents.from_dict(sentences) if sentences is not None else None
        home = words.requests
        self._slots = {
            "name": TextSlotList.from_tuples([(said, said, {"domain": domain}) for said, domain in home.devices.items()],
                                             name="name"),
            "area": TextSlotList.from_strings(home.rooms, name="area"),
            "floor": TextSlotList.from_strings(home.floors, name="floor"),
        }
        self._context = {"area": HERE}
        self._kept: OrderedDict[str, Recognized | None] = OrderedDict()
        self._lock = threading.Lock()
        for said in home.warm_up:  # builds hassil's lazy tries now, not in the first question's turn
            self._match(said)
        self.load_ms = (time.perf_counter() - started) * 1000.0
        if self._intents is not None:
            _LOGGER.debug("Home Assistant's %s sentences: %d intents compiled in %.0f ms",
                          words.code, len(self._intents.intents), self.load_ms)

    def recognize(self, text: str) -> Recognized | None:
        """The request `text` makes, or None when none of Home Assistant's sentences says it."""
        key = " ".join(text.replace("\u2019", "'").casefold().split())
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        result = self._match(key)
        with self._lock:
            self._kept[key] = result
            while len(self._kept) > KEPT_RESULTS:
                self._kept.popitem(last=False)
        return result

    def examples(self, intent: str, limit: int, named: bool = True) -> list[str]:
        """Up to `limit` of Home Assistant's own sentences for `intent`, said in this pack's home; with
        `named` False only those that name no device, room or floor (said to the hub itself)."""
        from hassil import TextSlotList
        from hassil.sample import sample_intents

        if self._intents is None:
            return []
        slots = self._slots if named else {name: TextSlotList(name=name, values=[]) for name in self._slots}
        return [said.strip() for _name, said in sample_intents(self._intents, slot_lists=slots, intent_names={intent},
                                                                max_sentences_per_intent=limit, language=self.code)]

    def _match(self, text: str) -> Recognized | None:
        from hassil import recognize_best

        if not text or self._intents is None:
            return None
        found = recognize_best(text, self._intents, slot_lists=self._slots, intent_context=self._context)
        if found is None:
            return None
        slots = {name: _said(entity) for name, entity in found.entities.items()}
        return Recognized(found.intent.name, _kind(found.intent.name, slots), slots)


def _said(entity: Any) -> str:
    """A slot's value: "light" for "lights", "21" for 21.0 or "twenty-one"."""
    value = entity.value
    if isinstance(value, str):
        return value
    if isinstance(value, float | int):
        return f"{value:g}"
    return (entity.text or "").strip() or str(value)


def _kind(intent: str, slots: dict[str, str]) -> Kind:
    if intent in _KINDS:
        return _KINDS[intent]
    if intent in _SPEAKER and "name" not in slots and slots.get("area", HERE) == HERE:
        return _SPEAKER[intent]
    return Kind.HOME


_BUILT: dict[str, tuple[LanguagePack, Understanding]] = {}
_BUILDING = threading.Lock()


def understanding(words: LanguagePack | None = None) -> Understanding:
    """The compiled sentences of `words`' language (the default pack's unless given), built once per
    pack: a pack of the same language with other rooms or devices gets its own."""
    words = words or pack()
    with _BUILDING:
        built = _BUILT.get(words.code)
        if built is None or (built[0] is not words and built[0].requests != words.requests):
            built = _BUILT[words.code] = (words, Understanding(words))
        return built[1]
