"""The hub's own volume: a level from 0 to 10 and a mute, kept in the state folder, and the gain the
speaker (and a WAV file standing in for it) applies to everything it plays. Each satellite's room has
a volume of its own (`room`: the satellite's name), applied to the answers the hub sends it.

    volume = shared(Path(cfg.service.state_dir))   # one per state folder (and room) in a process
    volume.set_level(6); volume.mute(); volume.unmute()
    samples * volume.gain()                         # 1.0 at level 10, 0.0 muted or at 0

The file (volume.json) is the one truth between processes: the daemon's speaker hears a change made
by `appliance ask`, and a restart keeps the level. It is written like the timers' file (temp file,
fsync, rename, under a file lock), and re-read whenever another process changed it. When it cannot
be written the change still holds in this process, and the log says why it will not be kept.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import numpy as np

from appliance.state_file import write_json

_LOGGER = logging.getLogger(__name__)

STATE_FILE: Final = "volume.json"
LOCK_FILE: Final = "volume.lock"
FORMAT_VERSION: Final = 1
MIN_LEVEL: Final = 0
MAX_LEVEL: Final = 10
DEFAULT_LEVEL: Final = MAX_LEVEL  # the voice as tts.volume makes it, until the owner asks otherwise
STEP_DB: Final = 3.0  # decibels between levels: each step sounds like the same change

_SHARED: dict[tuple[Path, str], Volume] = {}
_SHARED_LOCK = threading.Lock()


def gain_for(level: int, muted: bool = False) -> float:
    """The amplitude factor of a level: 1.0 at 10, STEP_DB quieter per step below, 0.0 at 0 or muted."""
    if muted or level <= MIN_LEVEL:
        return 0.0
    return float(10.0 ** (-(MAX_LEVEL - min(level, MAX_LEVEL)) * STEP_DB / 20.0))


class Volume:
    """The level and mute of one speaker (the hub's, or a satellite room's) kept in a state folder; safe to use
    from any thread."""

    def __init__(self, state_dir: Path, room: str = "") -> None:
        self.state_dir = Path(state_dir)
        self.room = room
        """'' for the hub's own speaker, else the satellite whose speaker this is."""
        self.path = self.state_dir / state_file(room)
        self._level = DEFAULT_LEVEL
        self._muted = False
        self._signature: tuple[int, int, int] | None = None
        self._lock = threading.RLock()
        self._refresh()

    # ---- reading -------------------------------------------------------------------

    @property
    def level(self) -> int:
        with self._lock:
            self._refresh()
            return self._level

    @property
    def muted(self) -> bool:
        with self._lock:
            self._refresh()
            return self._muted

    def gain(self) -> float:
        """The factor for samples played now."""
        with self._lock:
            self._refresh()
            return gain_for(self._level, self._muted)

    def apply(self, samples: np.ndarray) -> np.ndarray:
        """Float samples scaled by the gain (the same array at full volume)."""
        gain = self.gain()
        return samples if gain == 1.0 else (samples * np.float32(gain)).astype(np.float32, copy=False)

    # ---- changing ------------------------------------------------------------------

    def set_level(self, level: int) -> int:
        """Set the level (clamped to 0-10) and unmute; returns the level."""
        return self._change(lambda _level: level)

    def step(self, by: int) -> int:
        """Up or down by `by`, never down to 0 (a step never silences) nor above 10; unmutes."""
        return self._change(lambda level: max(min(level, MIN_LEVEL + 1), level + by))

    def mute(self) -> None:
        with self._saving():
            self._muted = True
        _LOGGER.info("%s muted", self._speaker())

    def unmute(self) -> int:
        """Unmute; returns the level heard again."""
        return self._change(lambda level: level)

    def _change(self, to: Callable[[int], int]) -> int:
        with self._saving():
            self._level = max(MIN_LEVEL, min(MAX_LEVEL, int(to(self._level))))
            self._muted = False
            level = self._level
        _LOGGER.info("%s volume %d", self._speaker(), level)
        return level

    def _speaker(self) -> str:
        return f"Satellite {self.room}'s speaker" if self.room else "Speaker"

    # ---- storage -------------------------------------------------------------------

    @contextmanager
    def _saving(self) -> Iterator[None]:
        """Change under the file lock from the latest saved state, then save (or say why not)."""
        with self._lock:
            lock_fd = None
            try:
                self.state_dir.mkdir(parents=True, exist_ok=True)
                lock_fd = os.open(self.state_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
                fcntl.flock(lock_fd, fcntl.LOCK_EX)
            except OSError as exc:
                self._not_kept(exc)
            try:
                self._refresh()
                yield
                if lock_fd is not None:
                    self._save()
            finally:
                if lock_fd is not None:
                    os.close(lock_fd)  # closing releases the flock

    def _not_kept(self, exc: OSError) -> None:
        _LOGGER.warning("Cannot keep the volume in %s (service.state_dir): %s; it holds until the next "
                        "start", self.state_dir, exc.strerror or exc)

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _refresh(self) -> None:
        signature = self._stat()
        if signature is None or signature == self._signature:
            return  # nothing saved (yet, or not here): what this process holds stands
        self._signature = signature
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            level, muted = int(data["level"]), bool(data["muted"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            _LOGGER.warning("Volume file %s is unreadable (%s); keeping volume %d",
                            self.path, exc, self._level)
            return
        self._level, self._muted = max(MIN_LEVEL, min(MAX_LEVEL, level)), muted

    def _save(self) -> None:
        data = {"version": FORMAT_VERSION, "level": self._level, "muted": self._muted}
        try:
            write_json(self.path, data)
        except OSError as exc:
            self._not_kept(exc)
            return
        self._signature = self._stat()


def state_file(room: str = "") -> str:
    """The file a room's volume is kept in: volume.json for the hub's own speaker, volume.<room>.json
    for a satellite (a name that is not a safe file name is made one, kept apart by a hash of it)."""
    if not room:
        return STATE_FILE
    if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", room):
        return f"volume.{room}.json"
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", room).strip("-")[:40]
    return f"volume.{slug}-{hashlib.sha1(room.encode()).hexdigest()[:8]}.json"


def shared(state_dir: Path, room: str = "") -> Volume:
    """The one Volume of `state_dir` (and `room`) in this process: the skills set it, the speaker reads it."""
    key = (Path(state_dir).resolve(), room)
    with _SHARED_LOCK:
        volume = _SHARED.get(key)
        if volume is None:
            volume = _SHARED[key] = Volume(key[0], room)
        return volume
