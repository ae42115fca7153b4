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
        self._cond = threading.Condition(threading.RLock())  # take() grants while it holds it
        self._queue: deque[object] = deque()
        self._holder: object | None = None
        self._seat: Seat | None = None
        self._local = False

    def ask(self) -> object:
        """Join the line for the model: a ticket for grant() and leave()."""
        ticket = object()
        with self._cond:
            self._queue.append(ticket)
        return ticket

    def grant(self, ticket: object, seat: Seat) -> bool:
        """Whether it is `ticket`'s turn now (first in line, nobody holds the model, the hub's own microphone
        is not in a turn); the model is then the seat's, until give(ticket). Never waits."""
        with self._cond:
            if self._holder is not None or self._local or not self._queue or self._queue[0] is not ticket:
                return False
            self._queue.popleft()
            self._holder, self._seat = ticket, seat
            self._cond.notify_all()
            return True

    def leave(self, ticket: object) -> None:
        """Leave the line without the model."""
        with self._cond:
            if ticket in self._queue:
                self._queue.remove(ticket)
                self._cond.notify_all()

    def take(self, seat: Seat) -> object | None:
        """Wait for the model: a ticket to give back when it is this seat's turn, None when it waited
        wait_s in vain (or it went away). Its answer is preempted should the local microphone wake."""
        ticket = self.ask()
        deadline = self.clock() + self.wait_s
        try:
            with self._cond:
                while not self.grant(ticket, seat):
                    left = deadline - self.clock()
                    if left <= 0 or seat.gone:
                        return None
                    self._cond.wait(min(left, 0.1))
                return ticket
        finally:
            self.leave(ticket)

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
    are), else waited for in line once it is confirmed (wait, waited), without blocking the room's turn.
    Its ticket is written by the question's own thread only; the hub's loop only sets `preempted` and the
    cancel Events of the answers kept under it."""

    def __init__(self, floor: Floor, gone: Callable[[], bool]) -> None:
        self.floor = floor
        self._gone = gone
        self._ticket: object | None = None
        self._queued: object | None = None
        self._until = 0.0
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

    def wait(self) -> None:
        """Join the line for the model (the question is confirmed and the model is not held): waited() says
        when it is this question's, for at most the floor's wait_s."""
        self.release()
        self.preempted.clear()
        self._queued, self._until = self.floor.ask(), self.floor.clock() + self.floor.wait_s

    def waited(self) -> bool | None:
        """Never waits: True once the model is this question's, False when the wait was in vain (too long, or
        the satellite went away), None while it is still waited for."""
        if self._queued is None:
            return self.held
        if self.floor.grant(self._queued, self):
            self._ticket, self._queued = self._queued, None
            return True
        if self.gone or self.floor.clock() >= self._until:
            self.floor.leave(self._queued)
            self._queued = None
            return False
        return None

    def release(self) -> None:
        """The model goes to the next in line (or the line is left)."""
        if self._queued is not None:
            self.floor.leave(self._queued)
            self._queued = None
        if self._ticket is not None:
            self.floor.give(self._ticket)
            self._ticket = None
