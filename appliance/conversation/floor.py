"""Who may have the one language model: the hub's own microphone first, then satellites in the order
they asked (the Floor); and a satellite question's hold on the model while it is still being heard,
which lets it be read in ahead and answered early, as the hub's own microphone's questions are (Claim).

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

from appliance.contracts import Caller, Transcript
from appliance.conversation.policy import EarlyAnswers
from appliance.conversation.prefill import Prefill
from appliance.conversation.responder import Answer, Responder

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


class Claim:
    """A satellite question's hold on the model while it is still being heard: taken only when the model is
    free (Floor.try_take), it lets the question be read in ahead (prefill) and answered early, as the hub's
    own microphone does, with the answer's audio held until the question is confirmed over."""

    def __init__(self, floor: Floor, responder: Responder, caller: Caller, prefill: Prefill | None,
                 preemptive: bool) -> None:
        self.floor, self.prefill = floor, prefill
        self.responder, self.caller = responder, caller
        self.preemptive = preemptive
        self.ticket: object | None = None
        self.preempted = threading.Event()
        self.answers: list[Answer] = []
        """Answers under this ticket (the early one, then the turn's): the hub waking stops them."""
        self.early = EarlyAnswers(self, responder.chat)

    def held_answer(self, text: str) -> Answer:
        """An early answer on the satellite's speaker, held until its question is confirmed."""
        answer = self.responder.think(text, self.caller.sink, held=True)
        self.answers.append(answer)
        return answer

    @property
    def gone(self) -> bool:
        return self.caller.gone

    def preempt(self) -> None:
        """The hub's own microphone woke (the conductor's thread): only Events are set, nothing waits."""
        self.preempted.set()
        for answer in list(self.answers):
            answer.cancel.set()

    @property
    def held(self) -> bool:
        return self.ticket is not None and not self.preempted.is_set()

    def follow(self, partial: str, speaking: bool, early: Transcript | None) -> None:
        """The question as heard so far: take the model if it is free, read the words in, answer early."""
        if self.ticket is None and (partial or early is not None):
            self.ticket = self.floor.try_take(self)
        if not self.held:
            self.stop_reading()
            return
        if self.prefill is not None:
            if early is None:
                self.prefill.heard(partial, speaking)
            else:
                self.prefill.stop()
        if self.preemptive:
            self.early.follow(early)

    def stop_reading(self) -> None:
        """No more reading ahead or answering early (the answer goes on, if it was taken)."""
        if self.prefill is not None:
            self.prefill.stop()
        self.early.drop("not answered early")

    def release(self) -> None:
        """The turn is over: the model goes to the next in line."""
        self.stop_reading()
        if self.ticket is not None:
            self.floor.give(self.ticket)
            self.ticket = None
