"""Files kept in service.state_dir (timers, alarms, lists, volume): written whole or not at all, and
readable by `appliance ask` run as another user."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

_LOGGER = logging.getLogger(__name__)

S = TypeVar("S")


def write_json(path: Path, data: Any, indent: int | None = None) -> None:
    """Replace `path` with `data` as JSON atomically, and make the rename survive a power cut.

    Raises OSError (nothing is left half-written: the temporary file is removed)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), 0o644)  # mkstemp makes 0600; `appliance ask` as another user reads it
            json.dump(data, fh, indent=indent)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # the rename itself survives a power cut
    finally:
        os.close(dir_fd)


class SharedState(Generic[S]):
    """What a store keeps in one JSON file of service.state_dir, which the daemon and `appliance ask`
    (another process, perhaps another user) both change.

    Every access holds the store's thread lock and re-reads the file when it changed on disk (its
    mtime, size or inode); a change also holds a file lock beside it for the whole read-change-save,
    so two processes never lose each other's change. Reads need no file lock: a save replaces the
    file by rename, so a reader sees the old or the new file, never half of one. A file that cannot
    be read is moved aside (FILE.bad), said in the log, and the store starts empty.

    A store sets FILE, LOCK_FILE and NOUN ("timers") and gives _empty, _parse, _dump and _store_error.
    """

    FILE: ClassVar[str]
    LOCK_FILE: ClassVar[str]
    NOUN: ClassVar[str]
    """What the file holds, as the log says it: "timers", "the lists"."""

    def _open_state(self, state_dir: Path) -> None:
        """Take the folder and read what a previous run left (an unreadable file is moved aside now)."""
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / self.FILE
        self._state: S = self._empty()
        self._signature: tuple[int, int, int] | None = None
        self._lock = threading.RLock()
        with self._locked():
            pass

    def _empty(self) -> S:
        raise NotImplementedError

    def _parse(self, data: Any) -> S:
        """The state in the file's JSON; raises ValueError, KeyError, TypeError or AttributeError."""
        raise NotImplementedError

    def _dump(self) -> Any:
        raise NotImplementedError

    def _store_error(self, exc: OSError) -> Exception:
        """The error a change that cannot be saved raises, saying what to do."""
        raise NotImplementedError

    def _reloaded(self) -> None:
        """Called after the state was read anew from the file."""

    @contextmanager
    def _locked(self, write: bool = False) -> Iterator[None]:
        """Hold the thread lock, re-read a changed file; writes also hold the file lock and save."""
        with self._lock:
            if not write:
                self._refresh()
                yield
                return
            try:
                self.state_dir.mkdir(parents=True, exist_ok=True)
                lock_fd = os.open(self.state_dir / self.LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise self._store_error(exc) from None
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX)
                self._refresh()
                try:
                    yield
                    self._save()
                except BaseException:
                    self._signature = (-1, -1, -1)  # drop the unsaved change: re-read next time
                    raise
            finally:
                os.close(lock_fd)  # closing releases the flock

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            _LOGGER.warning("Cannot read %s from %s: %s", self.NOUN, self.path, exc.strerror or exc)
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _refresh(self) -> None:
        signature = self._stat()
        if signature == self._signature:
            return
        self._signature = signature
        self._state = self._empty() if signature is None else self._read()
        self._reloaded()

    def _read(self) -> S:
        try:
            return self._parse(json.loads(self.path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            bad = self.path.with_name(self.FILE + ".bad")
            noun = self.NOUN.removeprefix("the ")
            _LOGGER.error("%s file %s is unreadable (%s); moved to %s, starting with no %s",
                          noun.capitalize(), self.path, exc, bad, noun)
            try:
                os.replace(self.path, bad)
            except OSError as moved:
                _LOGGER.error("Cannot move %s aside: %s", self.path, moved.strerror or moved)
            self._signature = self._stat()
            return self._empty()

    def _save(self) -> None:
        try:
            write_json(self.path, self._dump(), indent=1)
        except OSError as exc:
            raise self._store_error(exc) from None
        self._signature = self._stat()
