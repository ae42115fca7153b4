"""Kitchen timers kept in the state folder, and the announcements the conductor plays when they end.

The conductor's part, all with wall-clock seconds (time.time(), or the injected clock):

    timers = Timers(Path(cfg.service.state_dir), cfg.skills)
    for a in timers.due():           # call at least every second, idle or not
        play the timer earcon, then say a.text (mid-answer: after the current sentence)
    timers.next_due_in()             # seconds until due() has something: a wait timeout
    timers.acknowledge()             # the owner said "stop": every ringing timer falls silent
    timers.change(id, by_s=300)      # "add five minutes": the same timer ends later (to_s: a new length)

due() returns each ended timer once, then again every skills.timer_repeat_interval_s until it is
acknowledged (or cancelled), for skills.timer_repeat_s after its first announcement; then it is
dropped. The alarms and reminders (`Timers.alarms`, thinking/alarms.py) ring through the same due(). A timer that ended while no Timers object was running (the appliance was off) is
announced by the first due() call after the start, saying so (TimerAnnouncement.missed).
The file is re-read whenever another process (`appliance ask`) changed it, under a lock.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from appliance.config import SkillsConfig
from appliance.errors import TimerError
from appliance.language import LanguagePack, pack
from appliance.state_file import SharedState
from appliance.thinking.alarms import AlarmAnnouncement, Alarms, Ringing

_LOGGER = logging.getLogger(__name__)

STATE_FILE: Final = "timers.json"
LOCK_FILE: Final = "timers.lock"
FORMAT_VERSION: Final = 1
MAX_TIMERS: Final = 20
MIN_DURATION_S: Final = 1.0
MAX_DURATION_S: Final = 24 * 3600.0  # a day; longer is an alarm or a calendar, not a timer

Clock = Callable[[], float]
"""Wall-clock seconds since the epoch; time.time in production, a ManualClock in tests."""


class ManualClock:
    """A clock that only moves when told to: for tests of anything that uses timers."""

    def __init__(self, start: float = 1_750_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass(frozen=True)
class Timer:
    id: int
    name: str | None
    duration_s: float
    ends_at: float
    """Wall-clock seconds since the epoch when it ends."""
    created_at: float
    room: str = ""
    """Where it was set: "" the hub's own microphone, else the satellite's name (it rings there)."""

    @property
    def label(self) -> str:
        """How the default pack speaks of it ('pasta timer', '10 minute timer'): for the log."""
        return pack().say.timer_label(self.name, self.duration_s)

    def remaining(self, now: float) -> float:
        return max(0.0, self.ends_at - now)


@dataclass(frozen=True)
class TimerAnnouncement:
    timer: Timer
    text: str
    """What to say after the timer earcon."""
    repeat: int
    """0 for the first announcement, then 1, 2, ..."""
    missed: bool
    """The timer ended while the appliance was off."""
    earcon: str = "timer"


@dataclass
class _TimerState:
    next_id: int = 1
    timers: list[Timer] = field(default_factory=list)


class Timers(SharedState[_TimerState]):
    """Timers persisted as JSON in `state_dir`, written atomically (temp file, fsync, rename)."""

    FILE, LOCK_FILE, NOUN = STATE_FILE, LOCK_FILE, "timers"

    def __init__(self, state_dir: Path, config: SkillsConfig | None = None, clock: Clock = time.time,
                 words: LanguagePack | None = None) -> None:
        cfg = config or SkillsConfig()
        self.words = words or pack()
        """The language the announcements are said in."""
        self.clock = clock
        self.repeat_s = cfg.timer_repeat_s
        self.repeat_interval_s = cfg.timer_repeat_interval_s
        self.started_at = clock()
        self._rings: dict[int, Ringing] = {}
        self._rooms_ringing: set[str] = set()
        """Rooms whose timers ring there now (a satellite connected); the others' ring on the hub."""
        self._open_state(state_dir)
        self.alarms = Alarms(self.state_dir, cfg, clock, self.words, self.started_at)
        """The alarms and reminders, rung with the timers by due()."""

    # ---- queries -------------------------------------------------------------------

    def all(self) -> list[Timer]:
        """Every timer, running or ringing, soonest first."""
        with self._locked():
            return sorted(self._state.timers, key=lambda t: t.ends_at)

    def running(self, now: float | None = None) -> list[Timer]:
        now = self.clock() if now is None else now
        return [t for t in self.all() if t.ends_at > now]

    def ringing(self, now: float | None = None) -> list[Timer]:
        now = self.clock() if now is None else now
        return [t for t in self.all() if t.ends_at <= now]

    # ---- changes -------------------------------------------------------------------

    def add(self, duration_s: float, name: str | None = None, room: str = "") -> Timer:
        """Start a timer (set in `room`); TimerError when the duration is out of range or there are too many."""
        if not MIN_DURATION_S <= duration_s <= MAX_DURATION_S:
            say = self.words.say
            raise TimerError(f"a timer must run between {say.duration(MIN_DURATION_S)} and "
                             f"{say.duration(MAX_DURATION_S)}, not {say.duration(duration_s)}")
        with self._locked(write=True):
            if len(self._state.timers) >= MAX_TIMERS:
                raise TimerError(f"{MAX_TIMERS} timers are already set; cancel one first")
            now = self.clock()
            timer = Timer(self._state.next_id, name or None, float(duration_s), now + duration_s, now, room)
            self._state.next_id += 1
            self._state.timers.append(timer)
        _LOGGER.info("Timer %d set: %s (%.0f s)", timer.id, timer.label, duration_s)
        return timer

    def cancel(self, ids: list[int]) -> list[Timer]:
        """Remove these timers (running or ringing); returns the ones that were there."""
        wanted = set(ids)
        with self._locked(write=True):
            gone = [t for t in self._state.timers if t.id in wanted]
            self._state.timers = [t for t in self._state.timers if t.id not in wanted]
            for t in gone:
                self._rings.pop(t.id, None)
        for t in gone:
            _LOGGER.info("Timer %d cancelled: %s", t.id, t.label)
        return gone

    def put_back(self, timer: Timer) -> None:
        """Keep `timer` as it was (cancelled or changed since): "no, the other one" undoes what was done to it."""
        with self._locked(write=True):
            self._state.timers = [t for t in self._state.timers if t.id != timer.id] + [timer]
            self._rings.pop(timer.id, None)
        _LOGGER.info("Timer %d put back: %s", timer.id, timer.label)

    def change(self, timer_id: int, by_s: float = 0.0, to_s: float | None = None) -> Timer:
        """Move a timer's end, so that "five more minutes" keeps the timer people know (its name, its room)
        rather than start a second one: `by_s` seconds later (earlier when negative) than it would have
        ended, counted from now for one that already rings; or, with `to_s`, that long from now, as if it
        had just been set for it. Its length becomes what it now runs for in all, its ringing stops until
        its new end. TimerError when it is gone or what would be left is out of range (nothing changes)."""
        say = self.words.say
        with self._locked(write=True):
            now = self.clock()
            old = next((t for t in self._state.timers if t.id == timer_id), None)
            if old is None:
                raise TimerError(f"timer {timer_id} is no longer set")
            if to_s is not None:
                new = replace(old, duration_s=float(to_s), ends_at=now + to_s, created_at=now)
            else:
                ends_at = max(old.ends_at, now) + by_s
                new = replace(old, duration_s=ends_at - old.created_at, ends_at=ends_at)
            left = new.ends_at - now
            if not MIN_DURATION_S <= left <= MAX_DURATION_S:
                raise TimerError(f"a timer must run between {say.duration(MIN_DURATION_S)} and "
                                 f"{say.duration(MAX_DURATION_S)}, not {say.duration(max(0.0, left))}")
            self._state.timers = [new if t.id == timer_id else t for t in self._state.timers]
            self._rings.pop(timer_id, None)
        _LOGGER.info("Timer %d changed: %s, %.0f s left", new.id, new.label, left)
        return new

    def acknowledge(self, ids: list[int] | None = None) -> list[Timer]:
        """Silence ringing timers (all of them, or those ids) and forget them."""
        now = self.clock()
        ringing = [t.id for t in self.ringing(now) if ids is None or t.id in ids]
        return self.cancel(ringing) if ringing else []

    # ---- for the conductor ---------------------------------------------------------

    def ring_in_room(self, room: str, here: bool) -> None:
        """A satellite's room can ring its own timers (`here`: it is connected), or no longer can: then its
        timers ring on the hub, so none goes unheard."""
        with self._lock:
            (self._rooms_ringing.add if here else self._rooms_ringing.discard)(room)

    def due(self, now: float | None = None, room: str = "") -> list[TimerAnnouncement | AlarmAnnouncement]:
        """Announcements to play now in `room` ("" the hub: its own timers and alarms and those of rooms that
        cannot ring theirs); each ended timer and ringing alarm comes back every repeat interval."""
        now = self.clock() if now is None else now
        out: list[TimerAnnouncement | AlarmAnnouncement] = []
        expired: list[Timer] = []
        with self._lock:
            here = [t for t in self.ringing(now) if (t.room == room if room else t.room not in self._rooms_ringing)]
            for timer in here:
                ring = self._rings.get(timer.id)
                if ring is None:
                    self._rings[timer.id] = Ringing(now, now)
                    out.append(self._announce(timer, 0, now))
                elif now - ring.first_at >= self.repeat_s:
                    expired.append(timer)
                elif now - ring.last_at >= self.repeat_interval_s:
                    ring.last_at = now
                    ring.count += 1
                    out.append(self._announce(timer, ring.count - 1, now))
        if expired:
            for timer in self.cancel([t.id for t in expired]):
                _LOGGER.warning("Timer %d (%s) rang for %.0f s without a stop; dropped",
                                timer.id, timer.label, self.repeat_s)
        with self._lock:
            ringing_rooms = set(self._rooms_ringing)
        out.extend(self.alarms.due(now, lambda set_in: set_in == room if room else set_in not in ringing_rooms))
        return out

    def next_due_in(self, now: float | None = None) -> float | None:
        """Seconds until due() will have something (0 = now); None with no timers."""
        now = self.clock() if now is None else now
        times = []
        with self._lock:
            for timer in self.all():
                ring = self._rings.get(timer.id)
                if ring is None:
                    times.append(timer.ends_at)
                else:
                    times.append(min(ring.last_at + self.repeat_interval_s, ring.first_at + self.repeat_s))
        alarm_at = self.alarms.next_due_at()
        times += [] if alarm_at is None else [alarm_at]
        return max(0.0, min(times) - now) if times else None

    def _announce(self, timer: Timer, repeat: int, now: float) -> TimerAnnouncement:
        missed = timer.ends_at < self.started_at
        w, label = self.words.timers, self.words.say.timer_label(timer.name, timer.duration_s)
        if missed:
            ago = self.words.say.duration(now - timer.ends_at, precision_s=60 if now - timer.ends_at >= 120 else 1)
            text = w.ended_while_off.format(label=label, ago=ago)
        else:
            text = w.ended.format(label=label)
        if repeat == 0:
            _LOGGER.info("Timer %d done: %s%s", timer.id, timer.label, " (ended while off)" if missed else "")
        return TimerAnnouncement(timer, text, repeat, missed)

    # ---- storage -------------------------------------------------------------------

    def _empty(self) -> _TimerState:
        return _TimerState()

    def _parse(self, data: Any) -> _TimerState:
        timers = []
        for item in data["timers"]:
            name = item.get("name")
            timers.append(Timer(int(item["id"]), str(name) if name else None, float(item["duration_s"]),
                                float(item["ends_at"]), float(item["created_at"]), str(item.get("room") or "")))
        next_id = max([int(data.get("next_id", 1))] + [t.id + 1 for t in timers])
        return _TimerState(next_id, timers)

    def _dump(self) -> Any:
        return {"version": FORMAT_VERSION, "next_id": self._state.next_id,
                "timers": [asdict(t) for t in self._state.timers]}

    def _reloaded(self) -> None:
        known = {t.id for t in self._state.timers}
        self._rings = {k: v for k, v in self._rings.items() if k in known}

    def _store_error(self, exc: OSError) -> TimerError:
        return TimerError(f"cannot save timers in {self.state_dir} (service.state_dir): "
                          f"{exc.strerror or exc}; make the folder writable for the appliance user "
                          "or point service.state_dir at one that is")
