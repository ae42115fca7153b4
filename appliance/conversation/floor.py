"""Who may have the one language model: the hub's own microphone first, then satellites in the order
they asked (the Floor); and a satellite question's hold on the model while it is still being heard,
which lets it be read in ahead and answered early, as the hub's own microphone's questions are (Hold).

The policy for the language model, which writes one answer at a time:
  - the hub's own microphone goes first: while its turn runs, no satellite's answer starts, and a
    satellite's answer being written (or started early) when someone wakes the hub is stopped between
    two tokens; a question still being heard then waits for the hub's turn to end;
  - satellites are served first come, first served, one at a time;
  - a satellite's question waits at most wyoming.satellite_wait_s; after that it hears the busy reply;
  - a satellite's question that finds the model free takes it while it is being spoken.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

from appliance.conversation.responder import Answer

_LOGGER = logging.getLogger(__name__)


class Seat(Protocol):
    """Who asks for the model: stopped should the hub's own microphone wake, and given up when gone."""

    def preempt(self) -> None:
        """Stop its answer at once (the conductor's thread: only Events may be set)."""

    @property
    def gone(self) -> bool:
        """It no longer waits (the satellite went away)."""


class Floor:
    """Who may have the language model next: the hub's own microphone first, then satellites in the
    order they asked, one at a time, each waiting at most `wait_s`."""

    def __init__(self, wait_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.wait_s = wait_s
        self.clock = clock
        self._cond = threading.Condition()
        self._queue: deque[object] = deque()
        self._holder: object | None = None
        self._seat: Seat | None = None
        self._local = False

    def take(self, seat: Seat) -> object | None:
        """Wait for the model: a ticket to give back when it is this seat's turn, None when it waited
        wait_s in vain (or it went away). Its answer is preempted should the local microphone wake."""
        ticket = object()
        deadline = self.clock() + self.wait_s
        with self._cond:
            self._queue.append(ticket)
            try:
                while self._holder is not None or self._local or self._queue[0] is not ticket:
                    left = deadline - self.clock()
                    if left <= 0 or seat.gone:
                        return None
                    self._cond.wait(min(left, 0.1))
                self._holder, self._seat = ticket, seat
                return ticket
            finally:
                self._queue.remove(ticket)
                self._cond.notify_all()

    def try_take(self, seat: Seat) -> object | None:
        """The model now, without waiting: a ticket when nobody holds or waits for it and the hub's own
        microphone is not in a turn, else None."""
        with self._cond:
            if self._holder is not None or self._local or self._queue:
                return None
            self._holder, self._seat = object(), seat
            return self._holder

    def give(self, ticket: object) -> None:
        with self._cond:
            if self._holder is ticket:
                self._holder, self._seat = None, None
                self._cond.notify_all()

    def local_turn(self, active: bool) -> None:
        """The hub's own microphone began or ended a turn; a satellite's answer under way is stopped."""
        with self._cond:
            self._local = active
            seat = self._seat if active else None
            self._seat = None
            self._cond.notify_all()
        if seat is not None:
            _LOGGER.info("The hub's own microphone woke: a satellite's answer is stopped")
            seat.preempt()

    @property
    def held(self) -> bool:
        """Whether a satellite has the model now."""
        with self._cond:
            return self._holder is not None

    @property
    def waiting(self) -> int:
        with self._cond:
            return len(self._queue)


class Hold:
    """A satellite question's hold on the model: taken while the question is still heard only when the model
    is free (try_take: its words may then be read in ahead and answered early, as the hub's own microphone's
    are), else waited for once it is confirmed (take). Its ticket is written by the question's own thread
    only; the hub's loop only sets `preempted` and the cancel Events of the answers kept under it."""

    def __init__(self, floor: Floor, gone: Callable[[], bool]) -> None:
        self.floor = floor
        self._gone = gone
        self._ticket: object | None = None
        self.preempted = threading.Event()
        """Set by the hub's loop when its own microphone woke (Floor.local_turn)."""
        self._answers: list[Answer] = []
        self._lock = threading.Lock()  # kept by the question's thread, cancelled from the hub's loop

    @property
    def gone(self) -> bool:
        return self._gone()

    @property
    def held(self) -> bool:
        """The model is this question's now."""
        return self._ticket is not None and not self.preempted.is_set()

    def keep(self, answer: Answer) -> Answer:
        """An answer under this hold: the hub waking stops it (and one started after the hub woke, at once)."""
        with self._lock:
            self._answers.append(answer)
        if self.preempted.is_set():
            answer.cancel.set()
        return answer

    def preempt(self) -> None:
        """The hub's own microphone woke (the hub's loop): only Events are set, nothing waits."""
        self.preempted.set()
        with self._lock:
            answers = list(self._answers)
        for answer in answers:
            answer.cancel.set()

    def try_take(self) -> bool:
        """The model now if it is free, without waiting; whether it is held."""
        if self._ticket is None and not self.preempted.is_set():
            self._ticket = self.floor.try_take(self)
        return self.held

    def take(self) -> bool:
        """Wait for the model (Floor.take) unless it is held; False when the wait was in vain."""
        if self.held:
            return True
        self.release()
        self.preempted.clear()
        self._ticket = self.floor.take(self)
        return self._ticket is not None

    def release(self) -> None:
        """The model goes to the next in line."""
        if self._ticket is not None:
            self.floor.give(self._ticket)
            self._ticket = None
