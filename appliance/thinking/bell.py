"""Timer announcements for a turn: the messages of timers that have ended, looked at every TIMER_CHECK_S."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from appliance.contracts import TIMER_CHECK_S, Rings

_LOGGER = logging.getLogger(__name__)


class TimerBell:
    """Asked while idle by the conductor's loop and while answering by the speech thread, which says
    the messages after the current sentence; a failing timers file is reported and skipped. Safe to ask
    from any thread."""

    def __init__(self, timers: Rings | None, clock: Callable[[], float],
                 on_error: Callable[[Exception], None], room: str = "") -> None:
        self.timers = timers
        self.clock = clock
        self.on_error = on_error
        self.room = room
        """Whose timers it rings: "" the hub's (and those of rooms that cannot ring theirs), else a satellite's."""
        self._next_check = 0.0
        self._lock = threading.Lock()
        """Guards _next_check: the loop (or a satellite's link) and an answer's speech thread ask at once, and
        each announcement must be taken by one of them only."""

    def due_texts(self) -> list[str]:
        """What to say for the timers due now; nothing when looked at again within TIMER_CHECK_S."""
        if self.timers is None:
            return []
        with self._lock:
            now = self.clock()
            if now < self._next_check:
                return []
            self._next_check = now + TIMER_CHECK_S
        try:
            return [announcement.text for announcement in self.timers.due(room=self.room)]
        except Exception as exc:  # noqa: BLE001 - a broken timers file must not end the turn
            self.on_error(exc)
            return []
