"""Alarms and reminders at a time of day, kept beside the timers in the state folder and rung with them.

Each keeps the wall-clock time and date of its next occurrence and its zone's name, and works out the
instant from them (whenparse.instant), so it rings at the time said across a change of the clocks.
Timers owns one `Alarms` and hands its announcements out with its own (Timers.due): the same bell, earcon
and repeats, in the room that set it. When one stops ringing (stopped, or after skills.timer_repeat_s) a
repeating one moves to its next day and a one-off goes. One that came while the hub was off rings on
start-up saying so if it is at most MISSED_WINDOW_S old, else it is skipped (a repeating one moves on).
The file (alarms.json) is written atomically under the timers' lock and re-read when another process
(`appliance ask`) changed it.
"""

from __future__ import annotations

import logging
import time as clocks
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import date, time
from pathlib import Path
from typing import Any, Final

from appliance.config import SkillsConfig
from appliance.errors import TimerError
from appliance.language import LanguagePack, pack
from appliance.state_file import SharedState
from appliance.thinking.whenparse import instant, local, next_day

_LOGGER = logging.getLogger(__name__)

STATE_FILE: Final = "alarms.json"
LOCK_FILE: Final = "timers.lock"
"""The timers' lock: one writer at a time for the state folder's clocks."""
FORMAT_VERSION: Final = 1
MAX_ALARMS: Final = 30  # alarms and reminders together
MISSED_WINDOW_S: Final = 3600.0  # seconds: one due while the hub was off rings on start-up if no older
ALARM: Final = "alarm"
REMINDER: Final = "reminder"


@dataclass(frozen=True)
class Alarm:
    """An alarm or a reminder: its next occurrence as a local date and time in a named zone."""

    id: int
    kind: str
    """ALARM or REMINDER."""
    date: str
    """The local date of its next occurrence (ISO)."""
    time: str
    """The local wall-clock time (HH:MM:SS)."""
    tz: str
    """The zone's IANA name; '' for the system's zone."""
    days: tuple[int, ...] = ()
    """The weekdays it comes back on (Monday 0); () rings once."""
    text: str = ""
    """What a reminder says ('take the bins out'), already turned to the listener."""
    room: str = ""
    """Where it was set: "" the hub's own microphone, else the satellite's name (it rings there)."""
    fold: int = 0
    """1 for the second of a wall-clock time said twice when the clocks go back."""
    created_at: float = 0.0

    @property
    def day(self) -> date:
        return date.fromisoformat(self.date)

    @property
    def clock(self) -> time:
        return time.fromisoformat(self.time)

    @property
    def at(self) -> float:
        """Seconds since the epoch when it rings next."""
        return instant(self.day, self.clock, self.tz, self.fold)

    def following(self, now: float) -> Alarm | None:
        """The same alarm at its next day that is still to come after `now`; None when it rings once."""
        if not self.days:
            return None
        day = next_day(self.day, self.days)
        while instant(day, self.clock, self.tz) <= now:
            day = next_day(day, self.days)
        return replace(self, date=day.isoformat(), fold=0)


@dataclass(frozen=True)
class AlarmAnnouncement:
    alarm: Alarm
    text: str
    """What to say after the timer earcon."""
    repeat: int
    """0 for the first announcement, then 1, 2, ..."""
    missed: bool
    """It came while the appliance was off."""
    earcon: str = "timer"


@dataclass
class Ringing:
    """How a timer, alarm or reminder has rung so far: first, last, and how many times."""

    first_at: float
    last_at: float
    count: int = 1


@dataclass
class _AlarmState:
    next_id: int = 1
    alarms: list[Alarm] = field(default_factory=list)


class Alarms(SharedState[_AlarmState]):
    """Alarms and reminders persisted as JSON in `state_dir`, written atomically (temp file, fsync, rename)."""

    FILE, LOCK_FILE, NOUN = STATE_FILE, LOCK_FILE, "alarms"

    def __init__(self, state_dir: Path, config: SkillsConfig | None = None, clock: Callable[[], float] = clocks.time,
                 words: LanguagePack | None = None, started_at: float | None = None) -> None:
        cfg = config or SkillsConfig()
        self.words = words or pack()
        self.clock = clock
        self.hours = cfg.clock
        """12 or 24: the clock its times are said on."""
        self.repeat_s = cfg.timer_repeat_s
        self.repeat_interval_s = cfg.timer_repeat_interval_s
        self.started_at = clock() if started_at is None else started_at
        self._rings: dict[int, Ringing] = {}
        self._open_state(state_dir)

    # ---- queries and changes ---------------------------------------------------------

    def all(self, kind: str | None = None) -> list[Alarm]:
        """Every alarm (or only those of `kind`), soonest first."""
        with self._locked():
            return sorted((a for a in self._state.alarms if kind is None or a.kind == kind), key=lambda a: a.at)

    def ringing(self, now: float | None = None) -> list[Alarm]:
        now = self.clock() if now is None else now
        return [a for a in self.all() if a.at <= now]

    def add(self, kind: str, day: date, at: time, tz: str, days: tuple[int, ...] = (), text: str = "",
            room: str = "", fold: int = 0) -> Alarm:
        """Keep a new alarm or reminder; TimerError when there are too many or the folder cannot be written."""
        with self._locked(write=True):
            if len(self._state.alarms) >= MAX_ALARMS:
                raise TimerError(f"{MAX_ALARMS} alarms and reminders are already set; cancel one first")
            alarm = Alarm(self._state.next_id, kind, day.isoformat(), at.isoformat(), tz, tuple(sorted(days)),
                          text, room, fold, self.clock())
            self._state.next_id += 1
            self._state.alarms.append(alarm)
        _LOGGER.info("%s %d set for %s %s (%s)%s", kind.capitalize(), alarm.id, alarm.date, alarm.time,
                     alarm.tz or "system zone", f", repeats on days {list(alarm.days)}" if alarm.days else "")
        return alarm

    def cancel(self, ids: list[int]) -> list[Alarm]:
        """Remove these alarms (coming or ringing); returns the ones that were there."""
        wanted = set(ids)
        with self._locked(write=True):
            gone = [a for a in self._state.alarms if a.id in wanted]
            self._state.alarms = [a for a in self._state.alarms if a.id not in wanted]
            for a in gone:
                self._rings.pop(a.id, None)
        for a in gone:
            _LOGGER.info("%s %d cancelled", a.kind.capitalize(), a.id)
        return gone

    def put_back(self, alarm: Alarm) -> None:
        """Keep `alarm` again as it was, once cancelled: "no, the other one" undoes the cancel."""
        with self._locked(write=True):
            self._state.alarms = [a for a in self._state.alarms if a.id != alarm.id] + [alarm]
        _LOGGER.info("%s %d put back", alarm.kind.capitalize(), alarm.id)

    def acknowledge(self, ids: list[int] | None = None) -> list[Alarm]:
        """Silence the ringing ones (all, or those ids): a repeating one moves to its next day, the others go."""
        now = self.clock()
        ringing = [a.id for a in self.ringing(now) if ids is None or a.id in ids]
        return self._finish(ringing, now) if ringing else []

    def _finish(self, ids: list[int], now: float) -> list[Alarm]:
        wanted = set(ids)
        done: list[Alarm] = []
        with self._locked(write=True):
            kept: list[Alarm] = []
            for alarm in self._state.alarms:
                if alarm.id not in wanted:
                    kept.append(alarm)
                    continue
                done.append(alarm)
                self._rings.pop(alarm.id, None)
                following = alarm.following(now)
                if following is not None:
                    kept.append(following)
                    _LOGGER.info("%s %d next rings on %s", alarm.kind.capitalize(), alarm.id, following.date)
            self._state.alarms = kept
        return done

    # ---- for the conductor, through Timers.due -----------------------------------------

    def due(self, now: float, rings_here: Callable[[str], bool]) -> list[AlarmAnnouncement]:
        """Announcements to play now for the alarms of the rooms `rings_here` accepts; each comes back every
        repeat interval until stopped, for the repeat time."""
        out: list[AlarmAnnouncement] = []
        finished: list[int] = []
        with self._lock:
            for alarm in self.ringing(now):
                if not rings_here(alarm.room):
                    continue
                ring = self._rings.get(alarm.id)
                if ring is None:
                    if alarm.at < self.started_at and now - alarm.at > MISSED_WINDOW_S:
                        _LOGGER.warning("%s %d was due %.0f s ago while off; skipped", alarm.kind.capitalize(),
                                        alarm.id, now - alarm.at)
                        finished.append(alarm.id)
                        continue
                    self._rings[alarm.id] = Ringing(now, now)
                    out.append(self._announce(alarm, 0, now))
                elif now - ring.first_at >= self.repeat_s:
                    _LOGGER.warning("%s %d rang for %.0f s without a stop", alarm.kind.capitalize(), alarm.id,
                                    self.repeat_s)
                    finished.append(alarm.id)
                elif now - ring.last_at >= self.repeat_interval_s:
                    ring.last_at = now
                    ring.count += 1
                    out.append(self._announce(alarm, ring.count - 1, now))
        if finished:
            self._finish(finished, now)
        return out

    def next_due_at(self) -> float | None:
        """Seconds since the epoch when due() will next have something; None with no alarms."""
        times = []
        with self._lock:
            for alarm in self.all():
                ring = self._rings.get(alarm.id)
                times.append(alarm.at if ring is None else
                             min(ring.last_at + self.repeat_interval_s, ring.first_at + self.repeat_s))
        return min(times) if times else None

    def _announce(self, alarm: Alarm, repeat: int, now: float) -> AlarmAnnouncement:
        words = self.words.schedule
        missed = alarm.at < self.started_at
        said = words.said.clock(alarm.clock.hour, alarm.clock.minute, self.hours)
        shown = local(alarm.at, alarm.tz)  # the clock's time then: 2:30 for a 1:30 the clocks skipped
        now_said = words.said.clock(shown.hour, shown.minute, self.hours)
        ago = self.words.say.duration(now - alarm.at, precision_s=60 if now - alarm.at >= 120 else 1)
        if alarm.kind == REMINDER and words.reminders is not None:
            r = words.reminders
            text = r.ring_missed.format(what=alarm.text or said, ago=ago) if missed else \
                r.ring.format(what=alarm.text) if alarm.text else r.ring_bare.format(time=now_said)
        elif alarm.kind != REMINDER and words.alarms is not None:
            a = words.alarms
            text = a.ring_missed.format(time=said, ago=ago) if missed else a.ring.format(time=now_said)
        else:  # kept while the hub spoke a language with words for it: its time and words, as they were set
            text = " ".join(filter(None, (said, alarm.text)))
        if repeat == 0:
            _LOGGER.info("%s %d rings%s", alarm.kind.capitalize(), alarm.id, " (due while off)" if missed else "")
        return AlarmAnnouncement(alarm, text, repeat, missed)

    # ---- storage -------------------------------------------------------------------

    def _empty(self) -> _AlarmState:
        return _AlarmState()

    def _parse(self, data: Any) -> _AlarmState:
        alarms = []
        for item in data["alarms"]:
            alarm = Alarm(int(item["id"]), str(item["kind"]), str(item["date"]), str(item["time"]),
                          str(item.get("tz") or ""), tuple(int(d) % 7 for d in item.get("days") or ()),
                          str(item.get("text") or ""), str(item.get("room") or ""), int(item.get("fold") or 0),
                          float(item.get("created_at") or 0.0))
            alarm.at  # noqa: B018 - a date or time that cannot be read fails here, not while ringing
            alarms.append(alarm)
        next_id = max([int(data.get("next_id", 1))] + [a.id + 1 for a in alarms])
        return _AlarmState(next_id, alarms)

    def _dump(self) -> Any:
        return {"version": FORMAT_VERSION, "next_id": self._state.next_id,
                "alarms": [asdict(a) for a in self._state.alarms]}

    def _reloaded(self) -> None:
        known = {a.id for a in self._state.alarms}
        self._rings = {k: v for k, v in self._rings.items() if k in known}

    def _store_error(self, exc: OSError) -> TimerError:
        return TimerError(f"cannot save alarms in {self.state_dir} (service.state_dir): "
                          f"{exc.strerror or exc}; make the folder writable for the appliance user "
                          "or point service.state_dir at one that is")
