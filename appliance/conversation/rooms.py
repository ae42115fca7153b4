"""Satellites in other rooms: each room's turns run on the hub's one turn engine (conductor.py), on the
thread of the satellite's question, with the room's own recognizer, conversation with the model and with
Home Assistant, and timers; the one language model is shared fairly (floor.py states the policy).

Local skills and Home Assistant do not need the model, so they answer a satellite at once. What differs
from the hub's own microphone is the Room: the satellite's stream and speaker, its name and area, and its
hold on the model.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from typing import Final

from appliance.config import Config
from appliance.contracts import Caller, Stages, WakeDetector
from appliance.conversation.conductor import Conductor, Room
from appliance.conversation.floor import Floor, Hold
from appliance.conversation.turn import Faults, Reporter, TurnRecord
from appliance.thinking.bell import TimerBell

_LOGGER = logging.getLogger(__name__)

READ_S: Final = 0.05  # seconds a read of the satellite's audio may block: its turn looks at its answer as often
SATELLITE_EARCONS: Final = frozenset({"timer"})
"""The hub's earcons a satellite plays: the timer's; it has its own sounds for waking and a question's end."""


class Rooms:
    """Answers satellites (contracts.Callers): each room's question heard and answered by a turn engine of its
    own, spoken into the satellite's speaker. Each satellite has a conversation of its own with the model
    (Chat.session) and a recognizer of its own (Recognizer.another)."""

    def __init__(self, stages: Stages, cfg: Config, on_turn: Callable[[TurnRecord], None] | None = None,
                 on_event: Callable[..., None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stages, self.cfg, self.clock = stages, cfg, clock
        self.floor = Floor(cfg.wyoming.satellite_wait_s, clock)
        self._on_turn, self._on_event = on_turn, on_event
        self._report = Reporter(on_turn, on_event)
        self._engines: dict[str, Conductor] = {}
        self._bells: dict[str, TimerBell] = {}
        self._one_at_a_time: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()  # the link's threads ask for rooms' engines and bells at once

    def local_turn(self, active: bool) -> None:
        self.floor.local_turn(active)

    def wake_detector(self) -> WakeDetector:
        return self.stages.wake.another()

    # ---------------------------------------------------------------- timers set in a room

    def ring_here(self, room: str, here: bool) -> None:
        if self.stages.timers is not None:
            self.stages.timers.ring_in_room(room, here)

    def timers_due(self, room: str) -> list[str]:
        return self._bell(room).due_texts()

    def _bell(self, room: str) -> TimerBell:
        with self._lock:
            bell = self._bells.get(room)
            if bell is None:
                bell = self._bells[room] = TimerBell(self.stages.timers, self.clock,
                                                     Faults(self._report, room).timers, room)
            return bell

    def announce(self, caller: Caller, texts: list[str]) -> None:
        _LOGGER.info("Satellite %s: a timer's announcement", caller.name)
        with self._turns(caller.name):
            self._engine(caller).serve(self._room(caller, None), announce=texts)

    # ---------------------------------------------------------------- one turn

    def answer(self, caller: Caller) -> None:
        with self._turns(caller.name):  # a question asked again waits for the one it replaces to stop
            hold = Hold(self.floor, lambda: caller.gone)
            try:
                self._engine(caller).serve(self._room(caller, hold), caller.wake_word)
            finally:
                hold.release()

    def _turns(self, name: str) -> threading.Lock:
        """One turn at a time in a room."""
        with self._lock:
            return self._one_at_a_time.setdefault(name, threading.Lock())

    def _room(self, caller: Caller, hold: Hold | None) -> Room:
        return Room(caller.source, caller.sink, name=caller.name, area=caller.area, earcons=SATELLITE_EARCONS,
                    follow_up=False, read_s=READ_S, hold=hold, heard=caller.heard, gone=lambda: caller.gone)

    def _engine(self, caller: Caller) -> Conductor:
        """The room's turn engine, made at its first question: the hub's stages with the room's own recognizer
        (its voice detector must not hear the hub's microphone) and conversation with the model."""
        bell = self._bell(caller.name)
        with self._lock:
            engine = self._engines.get(caller.name)
            if engine is None:
                stages = dataclasses.replace(self.stages, asr=self.stages.asr.another(),
                                             chat=self.stages.chat.session(), stop=None)
                engine = self._engines[caller.name] = Conductor(
                    stages, self.cfg, room=self._room(caller, None), on_turn=self._on_turn, on_event=self._on_event,
                    bell=bell, clock=self.clock)
            return engine
